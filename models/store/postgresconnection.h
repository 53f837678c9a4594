#pragma once
// The libpq connection under a QPSQL one, for what QtSql has no words for: its state, and COPY.

#include <QSqlDatabase>

#include <libpq-fe.h>

namespace verity {

// Null while the driver holds none.
PGconn *libpqConnection(const QSqlDatabase &db);

} // namespace verity

#pragma once
// The libpq connection under a QPSQL one, for what QtSql has no words for: its state, COPY, and
// a statement whose parameters are arrays.

#include <QByteArray>
#include <QList>
#include <QSqlDatabase>
#include <QSqlError>

#include <libpq-fe.h>

#include <memory>

namespace verity {

// Null while the driver holds none.
PGconn *libpqConnection(const QSqlDatabase &db);

struct ResultClearer
{
    void operator()(PGresult *result) const { PQclear(result); }
};
using PgResult = std::unique_ptr<PGresult, ResultClearer>;

// The server's error as QtSql would have carried it, so that failureText() and failureCode()
// read it alike.
QSqlError serverError(PGconn *connection, const PGresult *result);

// Several rows in one statement: each parameter is a text array, unnested column by column.
PgResult runWithArrays(PGconn *connection, const char *sql, const QList<QByteArray> &arrays);

} // namespace verity

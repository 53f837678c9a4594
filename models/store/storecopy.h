#pragma once
// Moving a desk's history into a team database: every row of an SQLite file, the audit chain,
// evidence, notes and resolutions included, copied into an empty PostgreSQL database in one
// transaction (all of it or nothing), ids kept, then counted again on both sides.

#include "domain/expected.h"

#include <QList>
#include <QPair>
#include <QString>

#include <functional>

namespace verity {

struct StoreCopyReport
{
    QString from;
    QString to;
    QList<QPair<QString, qint64>> tables; // each table and the rows it holds in both now
};

// Told after each batch: the table being copied and its rows so far.
using StoreCopyProgress = std::function<void(const QString &table, qint64 rows)>;

// Copies the SQLite database `file` (read only, at the current schema version) into the empty
// PostgreSQL database at `location` (set up first when it is new).
Expected<StoreCopyReport> copySqliteToPostgres(const QString &file, const QString &location,
                                               const StoreCopyProgress &progress = {});

} // namespace verity

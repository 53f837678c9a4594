#include "storecopy.h"

#include "postgresstore.h"
#include "sqlerror.h"
#include "sqlitestore.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

namespace verity {

namespace {

// Every table of the schema, each after the tables it points at. The queue's totals are not
// copied: the target's triggers count the rows as they arrive.
const char *const tables[] = {
        "sellers",      "orders",        "order_items", "tickets",
        "messages",     "tool_calls",    "escalations", "imports",
        "evidence",     "ledger",        "audit_log",   "payout_marks",
        "trace_events", "trainer_notes", "file_info",   "pending_reassessment",
};

// So many values a statement: PostgreSQL takes 65,535 parameters, and a larger statement only
// costs memory.
constexpr int valuesPerStatement = 4000;

Expected<QStringList> columnsOf(QSqlDatabase &target, const QString &table)
{
    QSqlQuery query(target);
    query.prepare(QStringLiteral("SELECT column_name FROM information_schema.columns WHERE table_schema = "
                                 "'verity' AND table_name = ? ORDER BY ordinal_position"));
    query.addBindValue(table);
    if (!query.exec())
        return makeError(QStringLiteral("cannot read the columns of %1: %2")
                                 .arg(table, sqlErrorText(query.lastError())));
    QStringList columns;
    while (query.next())
        columns << query.value(0).toString();
    if (columns.isEmpty())
        return makeError(QStringLiteral("the team database has no table %1").arg(table));
    return columns;
}

Expected<void> insertRows(QSqlDatabase &target, const QString &table, const QStringList &columns,
                          const QVariantList &values, int rows)
{
    const QString row = u'(' + QStringList(columns.size(), QStringLiteral("?")).join(u',') + u')';
    QSqlQuery insert(target);
    insert.prepare(QStringLiteral("INSERT INTO %1 (%2) VALUES %3")
                           .arg(table, columns.join(u','), QStringList(rows, row).join(u',')));
    for (const QVariant &value : values)
        insert.addBindValue(value);
    if (!insert.exec())
        return makeError(
                QStringLiteral("cannot copy rows of %1: %2").arg(table, sqlErrorText(insert.lastError())));
    return {};
}

Expected<qint64> copyTable(QSqlDatabase &source, QSqlDatabase &target, const QString &table,
                           const StoreCopyProgress &progress)
{
    Expected<QStringList> columns = columnsOf(target, table);
    if (!columns)
        return columns.error();
    QSqlQuery read(source);
    read.setForwardOnly(true);
    if (!read.exec(QStringLiteral("SELECT %1 FROM %2 ORDER BY rowid").arg(columns->join(u','), table))
        && !read.exec(QStringLiteral("SELECT %1 FROM %2").arg(columns->join(u','), table)))
        return makeError(QStringLiteral("cannot read %1 from the file: %2")
                                 .arg(table, sqlErrorText(read.lastError())));
    const int width = int(columns->size());
    const int rowsPerStatement = qMax(1, valuesPerStatement / width);
    QVariantList values;
    int pending = 0;
    qint64 copied = 0;
    while (read.next()) {
        for (int column = 0; column < width; ++column)
            values << read.value(column);
        if (++pending == rowsPerStatement) {
            if (Expected<void> done = insertRows(target, table, *columns, values, pending); !done)
                return done.error();
            copied += pending;
            values.clear();
            pending = 0;
            if (progress)
                progress(table, copied);
        }
    }
    if (read.lastError().isValid())
        return makeError(QStringLiteral("cannot read %1 from the file: %2")
                                 .arg(table, sqlErrorText(read.lastError())));
    if (pending > 0) {
        if (Expected<void> done = insertRows(target, table, *columns, values, pending); !done)
            return done.error();
        copied += pending;
    }
    if (progress)
        progress(table, copied);
    return copied;
}

Expected<qint64> countRows(QSqlDatabase &db, const QString &table)
{
    QSqlQuery count(db);
    if (!count.exec(QStringLiteral("SELECT count(*) FROM %1").arg(table)) || !count.next())
        return makeError(QStringLiteral("cannot count %1: %2").arg(table, sqlErrorText(count.lastError())));
    return count.value(0).toLongLong();
}

void rollback(QSqlDatabase &db)
{
    QSqlQuery query(db);
    query.exec(QStringLiteral("ROLLBACK"));
}

} // namespace

Expected<StoreCopyReport> copySqliteToPostgres(const QString &file, const QString &location,
                                               const StoreCopyProgress &progress)
{
    Expected<std::unique_ptr<SqliteStore>> from = SqliteStore::openReadOnly(file);
    if (!from)
        return from.error();
    Expected<PostgresTarget> target = parsePostgresLocation(location);
    if (!target)
        return target.error();
    Expected<std::unique_ptr<PostgresStore>> to = PostgresStore::open(*target);
    if (!to)
        return to.error();
    QSqlDatabase &source = (*from)->connection();
    QSqlDatabase &team = (*to)->connection();
    const QString where = (*to)->location();

    // Into an empty database only: ids and the audit chain come across as they are, and would
    // collide with another desk's.
    for (const char *table : tables) {
        Expected<qint64> rows = countRows(team, QLatin1String(table));
        if (!rows)
            return inContext(where, rows.error());
        if (*rows > 0)
            return makeError(
                    InputErrc::Invalid,
                    QStringLiteral("%1 already holds data (%2 rows in %3); a desk's history is copied "
                                   "into a new, empty database only, so that its ids and audit "
                                   "chain stay as they are")
                            .arg(where)
                            .arg(*rows)
                            .arg(QLatin1String(table)));
    }

    StoreCopyReport report;
    report.from = (*from)->location();
    report.to = where;
    QSqlQuery begin(team);
    if (!begin.exec(QStringLiteral("BEGIN")))
        return makeError(QStringLiteral("%1: cannot begin: %2").arg(where, sqlErrorText(begin.lastError())));
    for (const char *table : tables) {
        Expected<qint64> copied = copyTable(source, team, QLatin1String(table), progress);
        if (!copied) {
            rollback(team);
            return makeError(QStringLiteral("%1: %2; nothing was copied").arg(where, copied.message()));
        }
        report.tables.append({QLatin1String(table), *copied});
    }
    // Ids made later continue after the copied ones.
    QSqlQuery identities(team);
    if (!identities.exec(QStringLiteral(
                "SELECT table_name FROM information_schema.columns WHERE table_schema = 'verity' AND "
                "is_identity = 'YES'"))) {
        rollback(team);
        return makeError(QStringLiteral("%1: cannot read the id columns: %2")
                                 .arg(where, sqlErrorText(identities.lastError())));
    }
    QStringList withIds;
    while (identities.next())
        withIds << identities.value(0).toString();
    for (const QString &table : std::as_const(withIds)) {
        QSqlQuery advance(team);
        if (!advance.exec(
                    QStringLiteral("SELECT setval(pg_get_serial_sequence('verity.%1', 'id'), max(id)) FROM "
                                   "verity.%1 HAVING max(id) IS NOT NULL")
                            .arg(table))) {
            rollback(team);
            return makeError(QStringLiteral("%1: cannot continue the ids of %2: %3")
                                     .arg(where, table, sqlErrorText(advance.lastError())));
        }
    }
    QSqlQuery commit(team);
    if (!commit.exec(QStringLiteral("COMMIT")))
        return makeError(QStringLiteral("%1: the copy could not commit, nothing was copied: %2")
                                 .arg(where, sqlErrorText(commit.lastError())));
    // Counted again from both, after the commit: what the team database holds now.
    for (auto &[table, rows] : report.tables) {
        Expected<qint64> there = countRows(team, table);
        Expected<qint64> here = countRows(source, table);
        if (!there || !here)
            return makeError(QStringLiteral("cannot count %1 after the copy: %2")
                                     .arg(table, there ? here.message() : there.message()));
        if (*there != *here || *there != rows)
            return makeError(QStringLiteral("%1: after the copy %2 holds %3 rows and the file %4")
                                     .arg(where, table)
                                     .arg(*there)
                                     .arg(*here));
    }
    return report;
}

} // namespace verity

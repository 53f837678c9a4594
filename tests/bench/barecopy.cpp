#include "barecopy.h"

#include "store/sqlitestore.h"

#include <QElapsedTimer>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QVariant>

namespace verity::bench {

namespace {

constexpr int batchRows = 2000; // the importer's batch

// Parents before children, so that every foreign key holds as rows arrive.
const char *const tables[] = {"sellers",    "orders",      "order_items",  "tickets", "messages",
                              "tool_calls", "escalations", "trace_events", "imports"};

Expected<void> exec(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql))
        return makeError(QStringLiteral("%1: %2").arg(sql, query.lastError().text()));
    return {};
}

} // namespace

Expected<BareCopyFigures> bareCopy(const QString &fromDatabase, const QString &toDatabase)
{
    // The store creates the schema (and sets its pragmas for itself); the copy then writes
    // through a connection of its own with the same pragmas.
    {
        Expected<std::unique_ptr<SqliteStore>> created = SqliteStore::open(toDatabase);
        if (!created)
            return created.error();
    }
    BareCopyFigures figures;
    {
        QSqlDatabase from = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("bare-from"));
        from.setDatabaseName(fromDatabase);
        from.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
        QSqlDatabase to = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("bare-to"));
        to.setDatabaseName(toDatabase);
        if (!from.open() || !to.open())
            return makeError(QStringLiteral("cannot open %1 or %2").arg(fromDatabase, toDatabase));
        for (const char *pragma :
             {"PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL",
              "PRAGMA cache_size = -32768", "PRAGMA temp_store = MEMORY"}) {
            if (Expected<void> done = exec(to, QString::fromLatin1(pragma)); !done)
                return done.error();
        }

        QElapsedTimer timer;
        for (const char *table : tables) {
            QSqlQuery read(from);
            read.setForwardOnly(true);
            if (!read.exec(QStringLiteral("SELECT * FROM %1").arg(QString::fromLatin1(table))))
                return makeError(read.lastError().text());
            const QSqlRecord record = read.record();
            QStringList columns;
            QStringList marks;
            for (int i = 0; i < record.count(); ++i) {
                columns << record.fieldName(i);
                marks << QStringLiteral("?");
            }
            QSqlQuery insert(to);
            if (!insert.prepare(
                        QStringLiteral("INSERT INTO %1 (%2) VALUES (%3)")
                                .arg(QString::fromLatin1(table), columns.join(u','), marks.join(u','))))
                return makeError(insert.lastError().text());
            QList<QVariantList> batch;
            bool more = true;
            while (more) {
                batch.clear();
                while (batch.size() < batchRows && (more = read.next())) {
                    QVariantList row;
                    row.reserve(record.count());
                    for (int i = 0; i < record.count(); ++i)
                        row << read.value(i);
                    batch << row;
                }
                if (batch.isEmpty())
                    break;
                timer.start();
                if (Expected<void> begun = exec(to, QStringLiteral("BEGIN")); !begun)
                    return begun.error();
                for (const QVariantList &row : std::as_const(batch)) {
                    for (int i = 0; i < row.size(); ++i)
                        insert.bindValue(i, row.at(i));
                    if (!insert.exec())
                        return makeError(QStringLiteral("%1: %2").arg(QString::fromLatin1(table),
                                                                      insert.lastError().text()));
                }
                if (Expected<void> committed = exec(to, QStringLiteral("COMMIT")); !committed)
                    return committed.error();
                figures.insertNs += timer.nsecsElapsed();
                figures.rows += batch.size();
                if (qstrcmp(table, "tool_calls") == 0)
                    figures.toolCalls += batch.size();
            }
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("bare-from"));
    QSqlDatabase::removeDatabase(QStringLiteral("bare-to"));
    return figures;
}

} // namespace verity::bench

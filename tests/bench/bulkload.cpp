#include "bulkload.h"

#include "store/postgresstore.h"
#include "store/serverwatch.h"
#include "store/storelocation.h"

#include <QElapsedTimer>
#include <QFile>
#include <QMap>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QTemporaryDir>
#include <QVariant>

#include <libpq-fe.h>

#include <memory>

namespace verity::bench {

namespace {

// Parents before children, so that every foreign key holds as rows arrive.
const char *const tables[] = {"sellers",    "orders",      "order_items",  "tickets", "messages",
                              "tool_calls", "escalations", "trace_events", "imports"};

constexpr int chunkRows = 5000; // read this many rows at a time
constexpr qint64 pieceBytes = 1 << 20; // sent, and committed, about this much at a time

struct ConnectionCloser
{
    void operator()(PGconn *connection) const { PQfinish(connection); }
};
using Connection = std::unique_ptr<PGconn, ConnectionCloser>;

QString libpqError(PGconn *connection)
{
    return QString::fromLocal8Bit(PQerrorMessage(connection)).trimmed();
}

Expected<void> command(PGconn *connection, const QByteArray &sql, ExecStatusType expected = PGRES_COMMAND_OK)
{
    PGresult *result = PQexec(connection, sql.constData());
    const bool ok = PQresultStatus(result) == expected;
    PQclear(result);
    if (!ok)
        return makeError(QStringLiteral("%1: %2").arg(QString::fromUtf8(sql), libpqError(connection)));
    return {};
}

// One value in COPY's text format: \N for NULL, and the four characters that would end a
// field or a row escaped.
void appendField(QByteArray &line, const QVariant &value)
{
    if (value.isNull()) {
        line += "\\N";
        return;
    }
    const QByteArray text = value.typeId() == QMetaType::Bool ? QByteArray(value.toBool() ? "t" : "f")
                                                              : value.toString().toUtf8();
    for (const char c : text) {
        switch (c) {
        case '\\':
            line += "\\\\";
            break;
        case '\t':
            line += "\\t";
            break;
        case '\n':
            line += "\\n";
            break;
        case '\r':
            line += "\\r";
            break;
        default:
            line += c;
        }
    }
}

Expected<QByteArray> connectionString(const QString &location)
{
    Expected<PostgresTarget> target = parsePostgresLocation(location);
    if (!target)
        return target.error();
    QList<QPair<QString, QString>> keywords{{QStringLiteral("dbname"), target->database}};
    if (!target->host.isEmpty())
        keywords.append({QStringLiteral("host"), target->host});
    if (target->port > 0)
        keywords.append({QStringLiteral("port"), QString::number(target->port)});
    if (!target->user.isEmpty())
        keywords.append({QStringLiteral("user"), target->user});
    keywords.append(target->options);
    return libpqConnectionString(keywords);
}

} // namespace

Expected<BareCopyFigures> bulkLoad(const QString &fromLocation, const QString &toLocation)
{
    // The store creates the schema; the load then writes through a libpq connection of its own.
    {
        Expected<PostgresTarget> target = parsePostgresLocation(toLocation);
        if (!target)
            return target.error();
        Expected<std::unique_ptr<PostgresStore>> created = PostgresStore::open(*target);
        if (!created)
            return created.error();
    }
    Expected<QByteArray> toInfo = connectionString(toLocation);
    Expected<PostgresTarget> fromTarget = parsePostgresLocation(fromLocation);
    if (!toInfo || !fromTarget)
        return makeError(
                QStringLiteral("%1 or %2 is not a PostgreSQL location").arg(fromLocation, toLocation));
    Connection to(PQconnectdb(toInfo->constData()));
    if (PQstatus(to.get()) != CONNECTION_OK)
        return makeError(QStringLiteral("%1: %2").arg(toLocation, libpqError(to.get())));
    if (Expected<void> set = command(to.get(), "SET search_path = verity, public"); !set)
        return set.error();

    // First every table's rows as COPY's text in a file of its own, untimed; then the files
    // sent, timed whole, so that the server's work is all inside the timing.
    QTemporaryDir spool;
    if (!spool.isValid())
        return makeError(QStringLiteral("cannot create a temporary folder for the rows"));
    BareCopyFigures figures;
    QMap<QString, QString> columnsOf;
    const QString readerName = QStringLiteral("bulk-from");
    {
        QSqlDatabase from = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), readerName);
        from.setHostName(fromTarget->host);
        if (fromTarget->port > 0)
            from.setPort(fromTarget->port);
        from.setUserName(fromTarget->user);
        from.setDatabaseName(fromTarget->database);
        if (!from.open())
            return makeError(QStringLiteral("%1: %2").arg(fromLocation, from.lastError().text()));
        QSqlQuery session(from);
        // A cursor, so that a million rows are read a chunk at a time.
        if (!session.exec(QStringLiteral("SET search_path = verity, public"))
            || !session.exec(QStringLiteral("BEGIN")))
            return makeError(session.lastError().text());
        for (const char *table : tables) {
            const QString name = QString::fromLatin1(table);
            QSqlQuery shape(from);
            if (!shape.exec(QStringLiteral("SELECT * FROM %1 LIMIT 0").arg(name)))
                return makeError(shape.lastError().text());
            const QSqlRecord record = shape.record();
            QStringList columns;
            for (int i = 0; i < record.count(); ++i)
                columns << record.fieldName(i);
            columnsOf.insert(name, columns.join(u','));
            QFile file(spool.filePath(name));
            if (!file.open(QIODevice::WriteOnly))
                return makeError(QStringLiteral("cannot write %1").arg(file.fileName()));
            QSqlQuery declare(from);
            if (!declare.exec(QStringLiteral("DECLARE rows NO SCROLL CURSOR FOR SELECT * FROM %1").arg(name)))
                return makeError(declare.lastError().text());
            for (;;) {
                QSqlQuery chunk(from);
                chunk.setForwardOnly(true);
                if (!chunk.exec(QStringLiteral("FETCH %1 FROM rows").arg(chunkRows)))
                    return makeError(chunk.lastError().text());
                QByteArray data;
                qint64 rows = 0;
                while (chunk.next()) {
                    for (int i = 0; i < record.count(); ++i) {
                        if (i > 0)
                            data += '\t';
                        appendField(data, chunk.value(i));
                    }
                    data += '\n';
                    ++rows;
                }
                if (rows == 0)
                    break;
                if (file.write(data) != data.size())
                    return makeError(QStringLiteral("cannot write %1").arg(file.fileName()));
                figures.rows += rows;
                if (qstrcmp(table, "tool_calls") == 0)
                    figures.toolCalls += rows;
            }
            QSqlQuery(from).exec(QStringLiteral("CLOSE rows"));
        }
        QSqlQuery(from).exec(QStringLiteral("COMMIT"));
    }
    QSqlDatabase::removeDatabase(readerName);

    // A transaction per piece of each table, as the importer commits a batch at a time: the
    // schema's row triggers keep one row of totals, and a million updates of it in a single
    // transaction would cost far more than the rows themselves.
    QElapsedTimer timer;
    timer.start();
    for (const char *table : tables) {
        const QString name = QString::fromLatin1(table);
        QFile file(spool.filePath(name));
        if (!file.open(QIODevice::ReadOnly))
            return makeError(QStringLiteral("cannot read %1").arg(file.fileName()));
        QByteArray carried;
        while (!file.atEnd() || !carried.isEmpty()) {
            QByteArray piece = carried + file.read(pieceBytes);
            const qsizetype end = file.atEnd() ? piece.size() : piece.lastIndexOf('\n') + 1;
            carried = piece.mid(end);
            piece.truncate(end);
            if (piece.isEmpty())
                continue;
            if (Expected<void> begun = command(to.get(), "BEGIN"); !begun)
                return begun.error();
            if (Expected<void> copying = command(
                        to.get(),
                        QStringLiteral("COPY %1 (%2) FROM STDIN").arg(name, columnsOf.value(name)).toUtf8(),
                        PGRES_COPY_IN);
                !copying)
                return copying.error();
            if (PQputCopyData(to.get(), piece.constData(), int(piece.size())) != 1
                || PQputCopyEnd(to.get(), nullptr) != 1)
                return makeError(QStringLiteral("%1: %2").arg(name, libpqError(to.get())));
            PGresult *result = PQgetResult(to.get());
            const bool loaded = PQresultStatus(result) == PGRES_COMMAND_OK;
            PQclear(result);
            while ((result = PQgetResult(to.get())))
                PQclear(result);
            if (!loaded)
                return makeError(QStringLiteral("%1: %2").arg(name, libpqError(to.get())));
            if (Expected<void> committed = command(to.get(), "COMMIT"); !committed)
                return committed.error();
        }
    }
    figures.insertNs = timer.nsecsElapsed();
    return figures;
}

} // namespace verity::bench

#pragma once
// Helpers shared by the store tests: native JSONL lines built from JSON objects, files
// written in one go, an importer run against a real SQLite file, and table dumps (read on a
// raw connection, support/rawsqlite.h) that make two databases comparable row by row.

#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "itemmodels/ticketqueuemodel.h"
#include "store/reassessment.h"
#include "store/sqlitestore.h"
#include "support/rawsqlite.h"

#include <QAbstractItemModel>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

#include <memory>

namespace storetest {

// ---- native JSONL lines ----

inline QByteArray line(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

inline QJsonObject parseObject(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

inline QByteArray ticketOpened(const QString &ticket,
                               const QString &at = QStringLiteral("2026-03-17T10:00:00Z"),
                               const QString &orderId = {},
                               const QString &sellerName = QStringLiteral("Test Seller"))
{
    const QString order = orderId.isEmpty() ? QStringLiteral("O-") + ticket : orderId;
    const QJsonObject item{{QStringLiteral("id"), QStringLiteral("ITEM-1")},
                           {QStringLiteral("title"), QStringLiteral("A thing")},
                           {QStringLiteral("quantity"), 1},
                           {QStringLiteral("amount_cents"), 4200}};
    return line({{QStringLiteral("type"), QStringLiteral("ticket_opened")},
                 {QStringLiteral("ticket"), ticket},
                 {QStringLiteral("at"), at},
                 {QStringLiteral("subject"), QStringLiteral("Subject of ") + ticket},
                 {QStringLiteral("order"),
                  QJsonObject{{QStringLiteral("id"), order},
                              {QStringLiteral("currency"), QStringLiteral("USD")},
                              {QStringLiteral("items"), QJsonArray{item}}}},
                 {QStringLiteral("seller"),
                  QJsonObject{{QStringLiteral("id"), sellerName.toLower().replace(u' ', u'-')},
                              {QStringLiteral("name"), sellerName},
                              {QStringLiteral("balance_cents"), 100000}}}});
}

inline QByteArray message(const QString &ticket, const QString &at, const QString &from, const QString &text)
{
    return line({{QStringLiteral("type"), QStringLiteral("message")},
                 {QStringLiteral("ticket"), ticket},
                 {QStringLiteral("at"), at},
                 {QStringLiteral("from"), from},
                 {QStringLiteral("text"), text}});
}

inline QByteArray reply(const QString &ticket, const QString &at, const QString &text)
{
    return line({{QStringLiteral("type"), QStringLiteral("reply")},
                 {QStringLiteral("ticket"), ticket},
                 {QStringLiteral("at"), at},
                 {QStringLiteral("text"), text}});
}

// A refund of `cents` for ITEM-1 of the ticket's default order.
inline QByteArray refundCall(const QString &ticket, const QString &at, const QString &callId,
                             qint64 cents = 4200)
{
    return line({{QStringLiteral("type"), QStringLiteral("tool_call")},
                 {QStringLiteral("ticket"), ticket},
                 {QStringLiteral("at"), at},
                 {QStringLiteral("call_id"), callId},
                 {QStringLiteral("tool"), QStringLiteral("issue_refund")},
                 {QStringLiteral("arguments"),
                  QJsonObject{{QStringLiteral("order_id"), QStringLiteral("O-") + ticket},
                              {QStringLiteral("item_id"), QStringLiteral("ITEM-1")},
                              {QStringLiteral("amount_cents"), cents}}}});
}

// `resultJson` is any JSON text: an object, a string, ...
inline QByteArray toolResult(const QString &ticket, const QString &at, const QString &callId,
                             const QByteArray &resultJson)
{
    QJsonObject object{{QStringLiteral("type"), QStringLiteral("tool_result")},
                       {QStringLiteral("ticket"), ticket},
                       {QStringLiteral("at"), at},
                       {QStringLiteral("call_id"), callId}};
    object.insert(QStringLiteral("result"), QJsonDocument::fromJson("[" + resultJson + "]").array().at(0));
    return line(object);
}

// A copy of `lineJson` with `key` set to `value` (or removed when `value` is undefined).
inline QByteArray with(const QByteArray &lineJson, const QString &key, const QJsonValue &value)
{
    QJsonObject object = parseObject(lineJson);
    if (value.isUndefined())
        object.remove(key);
    else
        object.insert(key, value);
    return line(object);
}

inline bool writeLines(const QString &path, const QList<QByteArray> &lines)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    for (const QByteArray &text : lines) {
        file.write(text);
        file.write("\n");
    }
    return file.error() == QFileDevice::NoError;
}

inline QByteArray fileBytes(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// ---- stores and imports ----

// Starts the built `verity` with `arguments`; XDG_CONFIG_HOME points at `configHome`, so no
// user registry of the machine running the tests is read.
inline void startVerity(QProcess &process, const QStringList &arguments, const QString &configHome)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(VERITY_BINARY), arguments);
}

inline std::unique_ptr<verity::SqliteStore> openStore(const QString &path, QString *error = nullptr)
{
    verity::Expected<std::unique_ptr<verity::SqliteStore>> store = verity::SqliteStore::open(path);
    // As openStore() of the factory does: what an upgrade left to assess is assessed on opening.
    verity::Expected<void> caughtUp =
            store ? verity::reassessAwaitingTickets(**store) : verity::Expected<void>(store.error());
    if (!caughtUp) {
        if (error)
            *error = caughtUp.message();
        return nullptr;
    }
    return std::move(*store);
}

inline verity::ImportReport importFile(verity::Store &store, const QString &path, int batchSize = 2000)
{
    const verity::ToolRegistry registry = verity::ToolRegistry::builtIn();
    verity::TranscriptImporter importer(store, registry);
    importer.setBatchSize(batchSize);
    return importer.importFile(path);
}

inline QString describe(const verity::ImportReport &report)
{
    return report.summary() + u'\n' + report.rejectionMessages().join(u'\n');
}

// ---- item models ----

// What the model shows at (row, column) in `role`.
inline QVariant cell(const QAbstractItemModel &model, int row, int column, int role = Qt::DisplayRole)
{
    return model.data(model.index(row, column), role);
}

// The ticket ids a ticket queue shows, top to bottom.
inline QStringList ticketColumn(const QAbstractItemModel &model)
{
    QStringList ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids << cell(model, row, verity::TicketQueueModel::TicketColumn).toString();
    return ids;
}

// ---- reading a database directly ----

// The shared raw connection and readers (support/rawsqlite.h), by the names these tests use.
using verity::test::RawSqlite;
using verity::test::rows;
using verity::test::scalar;

inline QStringList tableNames(const QSqlDatabase &db)
{
    return rows(db,
                QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table' "
                               "AND name NOT LIKE 'sqlite_%' ORDER BY name"));
}

// The row count of every table, "table=count".
inline QStringList tableCounts(const QSqlDatabase &db, const QStringList &skip = {})
{
    QStringList counts;
    for (const QString &table : tableNames(db)) {
        if (!skip.contains(table))
            counts << table + u'='
                            + QString::number(scalar(db, QStringLiteral("SELECT count(*) FROM ") + table));
    }
    return counts;
}

// Every row of every table (but `skip`), ids included, prefixed by its table.
inline QStringList databaseDump(const QSqlDatabase &db, const QStringList &skip = {})
{
    QStringList dump;
    for (const QString &table : tableNames(db)) {
        if (skip.contains(table))
            continue;
        for (const QString &row :
             rows(db, QStringLiteral("SELECT * FROM ") + table + QStringLiteral(" ORDER BY 1, 2")))
            dump << table + u':' + row;
    }
    return dump;
}

inline QStringList ticketSummaries(const QSqlDatabase &db)
{
    return rows(
            db,
            QStringLiteral("SELECT ext_id, order_id, seller_name, subject, opened_at, last_seq, write_count, "
                           "worst_outcome, needs_attention, has_unknown, has_repeat, duplicate_effects "
                           "FROM tickets ORDER BY ext_id"));
}

inline QStringList toolCallDump(const QSqlDatabase &db)
{
    return rows(db,
                QStringLiteral("SELECT t.ext_id, c.call_ext_id, c.seq, c.tool, c.tool_class, c.intent_key, "
                               "c.intent_error, c.amount_cents, c.outcome, c.outcome_reason, c.repeated, "
                               "c.read_failed, c.raw_result, c.result_at, c.duration_ms FROM tool_calls c "
                               "JOIN tickets t ON t.id = c.ticket_id ORDER BY t.ext_id, c.call_ext_id"));
}

inline QStringList escalationDump(const QSqlDatabase &db)
{
    return rows(db,
                QStringLiteral("SELECT t.ext_id, c.call_ext_id, e.opened_at, e.amount_cents, e.state "
                               "FROM escalations e JOIN tool_calls c ON c.id = e.tool_call_id "
                               "JOIN tickets t ON t.id = e.ticket_id ORDER BY t.ext_id, c.call_ext_id"));
}

inline QStringList messageDump(const QSqlDatabase &db)
{
    return rows(db,
                QStringLiteral("SELECT t.ext_id, m.seq, m.at, m.kind, m.text FROM messages m "
                               "JOIN tickets t ON t.id = m.ticket_id ORDER BY t.ext_id, m.seq"));
}

// The invariants every committed state keeps, as a list of violations (empty when sound).
inline QStringList consistencyViolations(const QSqlDatabase &db)
{
    QStringList problems;
    problems << rows(db,
                     QStringLiteral("SELECT 'unknown call without exactly one open escalation: ' || c.id "
                                    "FROM tool_calls c WHERE c.outcome = 'unknown' AND (SELECT count(*) FROM "
                                    "escalations e WHERE e.tool_call_id = c.id AND e.state = 'open') <> 1"));
    // A result that came after the escalation leaves it only when nobody had taken it up (a
    // database killed before its schema had claims and evidence has none to keep).
    QSqlQuery probe(db);
    const bool claimable =
            probe.exec(QStringLiteral("SELECT e.claimed_by FROM escalations e, evidence v LIMIT 0"));
    problems << rows(
            db,
            claimable ? QStringLiteral(
                    "SELECT 'escalation nobody took up on a call that is not unknown: ' || e.id "
                    "FROM escalations e JOIN tool_calls c ON c.id = e.tool_call_id "
                    "WHERE (c.outcome IS NOT 'unknown' AND e.state = 'open' AND e.claimed_by "
                    "IS NULL AND e.last_note IS NULL AND NOT EXISTS (SELECT 1 FROM evidence v "
                    "WHERE v.escalation_id = e.id) AND NOT EXISTS (SELECT 1 FROM audit_log a "
                    "WHERE a.escalation_id = e.id)) OR e.ticket_id <> c.ticket_id")
                      : QStringLiteral("SELECT 'escalation on a call that is not unknown: ' || e.id "
                                       "FROM escalations e JOIN tool_calls c ON c.id = e.tool_call_id "
                                       "WHERE c.outcome IS NOT 'unknown' OR e.ticket_id <> c.ticket_id"));
    problems << rows(db,
                     QStringLiteral("SELECT 'write_count wrong for ticket ' || t.ext_id FROM tickets t "
                                    "WHERE t.write_count <> (SELECT count(*) FROM tool_calls c WHERE "
                                    "c.ticket_id = t.id AND c.tool_class LIKE 'write%')"));
    problems << rows(db,
                     QStringLiteral("SELECT 'has_unknown wrong for ticket ' || t.ext_id FROM tickets t "
                                    "WHERE t.has_unknown <> EXISTS (SELECT 1 FROM tool_calls c WHERE "
                                    "c.ticket_id = t.id AND c.outcome = 'unknown')"));
    problems << rows(
            db,
            QStringLiteral("SELECT 'last_seq is not the last event of ticket ' || t.ext_id FROM tickets t "
                           "WHERE t.last_seq <> COALESCE((SELECT max(seq) FROM (SELECT seq FROM messages "
                           "WHERE ticket_id = t.id UNION ALL SELECT seq FROM tool_calls WHERE ticket_id = "
                           "t.id)), 0)"));
    return problems;
}

} // namespace storetest

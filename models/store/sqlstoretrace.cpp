// Replay data: what the layers under a call logged, and trainers' notes on replay steps. The
// layers' details are kept as one JSON object per event, since only the replay reads them.

#include "sqlerror.h"
#include "sqlstore.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QVariant>

namespace verity {

QString traceKindId(TraceKind kind)
{
    switch (kind) {
    case TraceKind::Http:
        return QStringLiteral("http");
    case TraceKind::Provider:
        return QStringLiteral("provider");
    }
    Q_UNREACHABLE();
}

QString traceDetailJson(const TraceEvent &event)
{
    QJsonObject detail;
    if (event.kind == TraceKind::Http) {
        const HttpTrace &http = event.http;
        detail.insert(QStringLiteral("method"), http.method);
        detail.insert(QStringLiteral("url"), http.url);
        if (!http.idempotencyKey.isEmpty())
            detail.insert(QStringLiteral("idempotency_key"), http.idempotencyKey);
        detail.insert(QStringLiteral("attempt"), http.attempt);
        if (http.status)
            detail.insert(QStringLiteral("status"), *http.status);
        if (!http.error.isEmpty())
            detail.insert(QStringLiteral("error"), http.error);
        if (http.durationMs)
            detail.insert(QStringLiteral("duration_ms"), *http.durationMs);
    } else {
        const ProviderTrace &provider = event.provider;
        detail.insert(QStringLiteral("event"), provider.event);
        if (!provider.objectId.isEmpty())
            detail.insert(QStringLiteral("object_id"), provider.objectId);
        if (!provider.idempotencyKey.isEmpty())
            detail.insert(QStringLiteral("idempotency_key"), provider.idempotencyKey);
        if (provider.amountCents)
            detail.insert(QStringLiteral("amount_cents"), *provider.amountCents);
        if (provider.replayed)
            detail.insert(QStringLiteral("replayed"), true);
    }
    return QString::fromUtf8(QJsonDocument(detail).toJson(QJsonDocument::Compact));
}

namespace {

void readDetail(TraceEvent &event, const QString &json)
{
    const QJsonObject detail = QJsonDocument::fromJson(json.toUtf8()).object();
    const auto text = [&](const char *key) { return detail.value(QLatin1String(key)).toString(); };
    const auto number = [&](const char *key) -> std::optional<qint64> {
        const QJsonValue value = detail.value(QLatin1String(key));
        return value.isDouble() ? std::optional<qint64>(qint64(value.toDouble())) : std::nullopt;
    };
    if (event.kind == TraceKind::Http) {
        HttpTrace &http = event.http;
        http.method = text("method");
        http.url = text("url");
        http.idempotencyKey = text("idempotency_key");
        http.attempt = int(number("attempt").value_or(1));
        if (std::optional<qint64> status = number("status"))
            http.status = int(*status);
        http.error = text("error");
        http.durationMs = number("duration_ms");
    } else {
        ProviderTrace &provider = event.provider;
        provider.event = text("event");
        provider.objectId = text("object_id");
        provider.idempotencyKey = text("idempotency_key");
        provider.amountCents = number("amount_cents");
        provider.replayed = detail.value(QStringLiteral("replayed")).toBool();
    }
}

} // namespace

Expected<bool> SqlStore::insertTraceEvent(const NewTraceEvent &event)
{
    auto insert =
            prepared("INSERT INTO trace_events (ticket_id, seq, at, kind, call_ext_id, detail, fingerprint) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ticket_id, fingerprint) DO NOTHING");
    if (!insert)
        return insert.error();
    QSqlQuery &q = **insert;
    q.addBindValue(event.ticketId);
    q.addBindValue(event.event.seq);
    q.addBindValue(event.event.at);
    q.addBindValue(traceKindId(event.event.kind));
    // A provider event need not name a call; an absent id is stored empty, as the schema expects.
    q.addBindValue(event.event.callExtId.isNull() ? QStringLiteral("") : event.event.callExtId);
    q.addBindValue(traceDetailJson(event.event));
    q.addBindValue(event.fingerprint);
    if (auto done = run(q, "recording a trace event"); !done)
        return done.error();
    return q.numRowsAffected() > 0;
}

Expected<QList<TraceEvent>> SqlStore::traceEvents(qint64 ticketId)
{
    auto query = prepared("SELECT seq, at, kind, call_ext_id, detail FROM trace_events WHERE ticket_id = ? "
                          "ORDER BY seq, id");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(ticketId);
    if (auto done = run(q, "reading a ticket's trace events"); !done)
        return done.error();
    QList<TraceEvent> events;
    while (q.next()) {
        TraceEvent event;
        event.seq = q.value(0).toLongLong();
        event.at = q.value(1).toLongLong();
        event.kind = q.value(2).toString() == u"provider" ? TraceKind::Provider : TraceKind::Http;
        event.callExtId = q.value(3).toString();
        readDetail(event, q.value(4).toString());
        events.append(std::move(event));
    }
    q.finish();
    return events;
}

Expected<QList<TrainerNote>> SqlStore::trainerNotes(qint64 ticketId)
{
    auto query = prepared("SELECT step_key, text, author, written_at FROM trainer_notes WHERE ticket_id = ? "
                          "ORDER BY step_key");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(ticketId);
    if (auto done = run(q, "reading trainer notes"); !done)
        return done.error();
    QList<TrainerNote> notes;
    while (q.next())
        notes.append(TrainerNote{q.value(0).toString(), q.value(1).toString(), q.value(2).toString(),
                                 q.value(3).toLongLong()});
    q.finish();
    return notes;
}

Expected<void> SqlStore::saveTrainerNote(qint64 ticketId, const TrainerNote &note)
{
    if (note.text.trimmed().isEmpty()) {
        auto remove = prepared("DELETE FROM trainer_notes WHERE ticket_id = ? AND step_key = ?");
        if (!remove)
            return remove.error();
        QSqlQuery &q = **remove;
        q.addBindValue(ticketId);
        q.addBindValue(note.stepKey);
        return run(q, "removing a trainer note");
    }
    auto upsert = prepared("INSERT INTO trainer_notes (ticket_id, step_key, text, author, written_at) VALUES "
                           "(?, ?, ?, ?, ?) "
                           "ON CONFLICT (ticket_id, step_key) DO UPDATE SET text = excluded.text, "
                           "author = excluded.author, written_at = excluded.written_at");
    if (!upsert)
        return upsert.error();
    QSqlQuery &q = **upsert;
    q.addBindValue(ticketId);
    q.addBindValue(note.stepKey);
    q.addBindValue(note.text);
    q.addBindValue(note.author);
    q.addBindValue(note.writtenAt);
    return run(q, "saving a trainer note");
}

Expected<QHash<QString, QString>> SqlStore::fileInfo()
{
    auto query = prepared("SELECT key, value FROM file_info");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    if (auto done = run(q, "reading what the file is"); !done)
        return done.error();
    QHash<QString, QString> info;
    while (q.next())
        info.insert(q.value(0).toString(), q.value(1).toString());
    q.finish();
    return info;
}

Expected<void> SqlStore::setFileInfo(const QString &key, const QString &value)
{
    auto upsert = prepared("INSERT INTO file_info (key, value) VALUES (?, ?) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    if (!upsert)
        return upsert.error();
    QSqlQuery &q = **upsert;
    q.addBindValue(key);
    q.addBindValue(value);
    return run(q, "recording what the file is");
}

} // namespace verity

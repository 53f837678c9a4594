// The console's reads of one ticket with its transcript, and of the escalation queue. Each
// page is one indexed query and each count a kept total; nothing here loads or counts every row.

#include "sqlerror.h"
#include "sqlstore.h"
#include "ticketrowcolumns.h"

#include <QHash>
#include <QSqlError>
#include <QVariant>

namespace verity {

Expected<std::optional<qint64>> SqlStore::ticketIdByExtId(const QString &extId)
{
    // Read only: findTicket() is for a ticket about to be written into, and may lock it.
    auto query = prepared("SELECT id FROM tickets WHERE ext_id = ?");
    if (!query)
        return query.error();
    (*query)->addBindValue(extId);
    if (auto done = run(**query, "finding a ticket"); !done)
        return done.error();
    std::optional<qint64> id;
    if ((*query)->next())
        id = (*query)->value(0).toLongLong();
    (*query)->finish();
    return id;
}

Expected<std::optional<TicketDetail>> SqlStore::ticket(qint64 ticketId)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT " TICKET_ROW_COLUMNS
                             ", t.seller_id, COALESCE(t.seller_balance_cents, s.balance_cents), "
                             "COALESCE(t.seller_balance_as_of, s.balance_as_of), o.currency, "
                             "o.customer_name, o.customer_email, o.payment_intent, t.registry FROM tickets t "
                             "LEFT JOIN sellers s ON s.id = t.seller_id "
                             "LEFT JOIN orders o ON o.id = t.order_id WHERE t.id = ?"));
    q.addBindValue(ticketId);
    if (auto done = run(q, "reading a ticket"); !done)
        return done.error();
    if (!q.next())
        return std::optional<TicketDetail>();
    TicketDetail detail;
    detail.row = ticketRow(q);
    constexpr int own = ticketRowColumnCount;
    detail.sellerId = q.value(own).toString();
    detail.sellerBalanceCents = optionalInt(q.value(own + 1));
    detail.sellerBalanceAsOf = q.value(own + 2).toLongLong();
    detail.order.id = detail.row.orderId;
    if (!q.value(own + 3).isNull())
        detail.order.currency = q.value(own + 3).toString();
    detail.order.customerName = q.value(own + 4).toString();
    detail.order.customerEmail = q.value(own + 5).toString();
    detail.order.paymentIntent = q.value(own + 6).toString();
    detail.registry = q.value(own + 7).toString();

    QSqlQuery items(m_db);
    items.setForwardOnly(true);
    items.prepare(QStringLiteral(
            "SELECT item_id, title, quantity, amount_cents FROM order_items WHERE order_id = ? "
            "ORDER BY item_id"));
    items.addBindValue(detail.order.id);
    if (auto done = run(items, "reading order items"); !done)
        return done.error();
    while (items.next())
        detail.order.items.append({items.value(0).toString(), items.value(1).toString(),
                                   items.value(2).toLongLong(), items.value(3).toLongLong()});
    return std::optional<TicketDetail>(detail);
}

namespace {

// A text column as the console reads it: at most one character more than `clipAt`, so that a
// text cut short shows it. SQLite holds a text whole to work on it, so each expression over a
// 50 MB text costs 50 MB: this is the only one, and the whole size is asked apart, only for
// the texts that were cut. Without a clip, whole.
QString clippedText(const char *column, qsizetype clipAt)
{
    if (clipAt <= 0)
        return QLatin1String(column);
    return QStringLiteral("substr(%1, 1, %2)").arg(QLatin1String(column)).arg(clipAt + 1);
}

// Cuts `text` to `clipAt` characters (as SQLite counts them: code points) when it holds more;
// whether it did.
bool clip(QString &text, qsizetype clipAt)
{
    if (clipAt <= 0 || text.size() <= clipAt)
        return false;
    qsizetype points = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i).isLowSurrogate())
            continue;
        if (points == clipAt) {
            text.truncate(i);
            return true;
        }
        ++points;
    }
    return false;
}

} // namespace

Expected<QString> SqlStore::wholeText(qint64 ticketId, const TextPlace &place)
{
    Expected<QVariant> text = textColumn(ticketId, place, QStringLiteral("%1"));
    if (!text)
        return text.error();
    return text->toString();
}

Expected<qint64> SqlStore::textBytes(qint64 ticketId, const TextPlace &place)
{
    Expected<QVariant> bytes = textColumn(ticketId, place, byteLengthOf(QStringLiteral("%1")));
    if (!bytes)
        return bytes.error();
    return bytes->toLongLong();
}

Expected<QVariant> SqlStore::textColumn(qint64 ticketId, const TextPlace &place, const QString &expression)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    const QString &of = expression;
    switch (place.part) {
    case TextPlace::Part::Message:
        q.prepare(QStringLiteral("SELECT %1 FROM messages WHERE ticket_id = ? AND seq = ?")
                          .arg(of.arg(QStringLiteral("text"))));
        q.addBindValue(ticketId);
        q.addBindValue(place.seq);
        break;
    case TextPlace::Part::Arguments:
    case TextPlace::Part::Result:
        q.prepare(QStringLiteral("SELECT %1 FROM tool_calls WHERE ticket_id = ? AND id = ?")
                          .arg(of.arg(place.part == TextPlace::Part::Arguments
                                              ? QStringLiteral("arguments")
                                              : QStringLiteral("raw_result"))));
        q.addBindValue(ticketId);
        q.addBindValue(place.callId);
        break;
    }
    if (auto done = run(q, "reading a whole text"); !done)
        return done.error();
    if (!q.next())
        return makeError(QStringLiteral("the text is no longer in the database"));
    return q.value(0);
}

namespace {

// A call's escalation, as the transcript shows it.
struct CallSettlement
{
    qint64 escalationId = 0;
    QString state;
    QString resolution;
    QString resolvedBy;
    qint64 resolvedAt = 0;
    QString note;
    QString basis;
    QString reference;
};

void applySettlement(ToolCallRow &call, const CallSettlement &settled)
{
    call.escalationId = settled.escalationId;
    call.escalationState = escalationStateFromId(settled.state);
    call.resolution = resolutionFromId(settled.resolution);
    call.resolvedBy = settled.resolvedBy;
    call.resolvedAt = settled.resolvedAt;
    call.escalationNote = settled.note;
    call.settlementBasis = settlementBasisFromId(settled.basis).value_or(SettlementBasis::Lookup);
    call.settledReference = settled.reference;
}

// One row of transcriptCalls()'s query; `repeatOf` gets the row id of the call it repeats.
ToolCallRow callOfRow(const QSqlQuery &calls, qsizetype clipAt, std::optional<qint64> &repeatOf)
{
    ToolCallRow call;
    call.id = calls.value(1).toLongLong();
    call.callExtId = calls.value(2).toString();
    call.tool = calls.value(3).toString();
    call.toolClass = toolClassFromId(calls.value(4).toString()).value_or(ToolClass::Unclassified);
    call.argumentsJson = calls.value(5).toString();
    call.calledAt = calls.value(6).toLongLong();
    call.rawResult = calls.value(7).toString();
    call.resultAt = optionalInt(calls.value(8));
    call.durationMs = optionalInt(calls.value(9));
    call.intentKey = calls.value(10).toString();
    call.intentError = calls.value(11).toString();
    if (!calls.value(12).isNull())
        call.outcome = outcomeFromId(calls.value(12).toString());
    call.outcomeReason = calls.value(13).toString();
    call.readFailed = calls.value(14).toBool();
    call.repeated = calls.value(15).toBool();
    call.amountCents = optionalInt(calls.value(16));
    call.hasResult = calls.value(17).toBool();
    call.repeatKind = repeatKindFromId(calls.value(18).toString());
    repeatOf = optionalInt(calls.value(19));
    call.resultError = calls.value(20).toBool();
    call.resultErrorType = calls.value(21).toString();
    call.amountError = calls.value(22).toString();
    call.inFlightUntil = optionalInt(calls.value(23));
    call.classInferred = calls.value(24).toString();
    if (clip(call.argumentsJson, clipAt))
        call.argumentsClippedBytes = -1;
    if (clip(call.rawResult, clipAt))
        call.resultClippedBytes = -1;
    return call;
}

// Each call names the call it repeats, and the calls of its intent it was repeated with.
void linkRepeats(QList<TranscriptEntry> &entries, const QHash<qint64, qint64> &repeatOfById)
{
    QHash<QString, QStringList> callsByKey;
    QHash<qint64, QString> extIdById;
    for (const TranscriptEntry &entry : std::as_const(entries)) {
        if (!entry.isToolCall)
            continue;
        extIdById.insert(entry.call.id, entry.call.callExtId);
        if (entry.call.repeated)
            callsByKey[entry.call.intentKey].append(entry.call.callExtId);
    }
    for (TranscriptEntry &entry : entries) {
        if (entry.isToolCall && repeatOfById.contains(entry.call.id))
            entry.call.repeatOfCallId = extIdById.value(repeatOfById.value(entry.call.id));
        if (entry.isToolCall && entry.call.repeated) {
            QStringList peers = callsByKey.value(entry.call.intentKey);
            peers.removeAll(entry.call.callExtId);
            entry.call.repeatedWith = peers;
        }
    }
}

} // namespace

Expected<void> SqlStore::transcriptMessages(qint64 ticketId, qsizetype clipAt,
                                            QList<TranscriptEntry> &entries)
{
    QSqlQuery messages(m_db);
    messages.setForwardOnly(true);
    messages.prepare(
            QStringLiteral("SELECT seq, at, kind, %1 FROM messages WHERE ticket_id = ? ORDER BY seq, id")
                    .arg(clippedText("text", clipAt)));
    messages.addBindValue(ticketId);
    if (auto done = run(messages, "reading messages"); !done)
        return done;
    while (messages.next()) {
        TranscriptEntry entry;
        entry.seq = messages.value(0).toLongLong();
        entry.at = messages.value(1).toLongLong();
        entry.kind = messageKindFromId(messages.value(2).toString()).value_or(MessageKind::System);
        entry.text = messages.value(3).toString();
        if (clip(entry.text, clipAt))
            entry.clippedBytes = -1; // its size is read below
        entries.append(entry);
    }
    return {};
}

Expected<void> SqlStore::transcriptCalls(qint64 ticketId, qsizetype clipAt, QList<TranscriptEntry> &entries)
{
    QSqlQuery escalations(m_db);
    escalations.setForwardOnly(true);
    escalations.prepare(
            QStringLiteral("SELECT tool_call_id, id, state, resolution, resolved_by, resolved_at, "
                           "last_note, basis, reference FROM escalations WHERE ticket_id = ?"));
    escalations.addBindValue(ticketId);
    if (auto done = run(escalations, "reading escalations"); !done)
        return done;
    QHash<qint64, CallSettlement> settlements; // by call
    while (escalations.next())
        settlements.insert(escalations.value(0).toLongLong(),
                           {escalations.value(1).toLongLong(), escalations.value(2).toString(),
                            escalations.value(3).toString(), escalations.value(4).toString(),
                            escalations.value(5).toLongLong(), escalations.value(6).toString(),
                            escalations.value(7).toString(), escalations.value(8).toString()});

    QSqlQuery calls(m_db);
    calls.setForwardOnly(true);
    calls.prepare(
            QStringLiteral("SELECT seq, id, call_ext_id, tool, tool_class, %1, called_at, %2, result_at, "
                           "duration_ms, intent_key, intent_error, outcome, outcome_reason, read_failed, "
                           "repeated, amount_cents, result_fingerprint IS NOT NULL, repeat_kind, repeat_of, "
                           "result_error, result_error_type, amount_error, in_flight_until, class_inferred "
                           "FROM tool_calls WHERE ticket_id = ? ORDER BY seq, id")
                    .arg(clippedText("arguments", clipAt), clippedText("raw_result", clipAt)));
    calls.addBindValue(ticketId);
    if (auto done = run(calls, "reading tool calls"); !done)
        return done;
    QHash<qint64, qint64> repeatOfById;
    while (calls.next()) {
        TranscriptEntry entry;
        entry.isToolCall = true;
        entry.seq = calls.value(0).toLongLong();
        std::optional<qint64> repeatOf;
        entry.call = callOfRow(calls, clipAt, repeatOf);
        if (repeatOf)
            repeatOfById.insert(entry.call.id, *repeatOf);
        if (const auto settled = settlements.constFind(entry.call.id); settled != settlements.cend())
            applySettlement(entry.call, *settled);
        entry.at = entry.call.calledAt;
        entries.append(entry);
    }
    linkRepeats(entries, repeatOfById);
    return {};
}

Expected<void> SqlStore::measureClippedTexts(qint64 ticketId, QList<TranscriptEntry> &entries)
{
    // The whole size of each text that was cut, one at a time (see clippedText).
    for (TranscriptEntry &entry : entries) {
        const struct
        {
            qint64 &bytes;
            TextPlace place;
        } cut[] = {
                {entry.clippedBytes, TextPlace{TextPlace::Part::Message, entry.seq, 0}},
                {entry.call.argumentsClippedBytes, TextPlace{TextPlace::Part::Arguments, 0, entry.call.id}},
                {entry.call.resultClippedBytes, TextPlace{TextPlace::Part::Result, 0, entry.call.id}}};
        for (const auto &[bytes, place] : cut) {
            if (bytes >= 0)
                continue;
            Expected<qint64> size = textBytes(ticketId, place);
            if (!size)
                return size.error();
            bytes = *size;
        }
    }
    return {};
}

Expected<QList<TranscriptEntry>> SqlStore::transcript(qint64 ticketId, qsizetype clipAt)
{
    QList<TranscriptEntry> entries;
    if (Expected<void> read = transcriptMessages(ticketId, clipAt, entries); !read)
        return read.error();
    if (Expected<void> read = transcriptCalls(ticketId, clipAt, entries); !read)
        return read.error();
    if (Expected<void> measured = measureClippedTexts(ticketId, entries); !measured)
        return measured.error();
    // Time order; the import order breaks ties (events of one second, files imported out of order).
    std::sort(entries.begin(), entries.end(), [](const TranscriptEntry &a, const TranscriptEntry &b) {
        return a.at != b.at ? a.at < b.at : a.seq < b.seq;
    });
    return entries;
}

Expected<qint64> SqlStore::countOpenEscalations()
{
    return keptTotal("open_escalations");
}

Expected<qint64> SqlStore::keptTotal(const char *column)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    // The sum of its rows: one on SQLite, the changes not yet folded together on PostgreSQL.
    if (!q.exec(QStringLiteral("SELECT coalesce(sum(%1), 0) FROM queue_totals").arg(QLatin1String(column))))
        return makeError(
                QStringLiteral("counting %1: %2").arg(QLatin1String(column), sqlErrorText(q.lastError())));
    return q.next() ? q.value(0).toLongLong() : 0;
}

namespace {

// The columns every escalation row is read with, `e` the escalation, `t` its ticket, `c` its
// call and `o` its order.
constexpr const char *escalationRowColumns =
        "e.id, e.ticket_id, t.ext_id, e.tool_call_id, c.call_ext_id, c.tool, e.opened_at, e.amount_cents, "
        "COALESCE(o.currency, 'USD'), e.state, e.claimed_by, e.claimed_until, e.claim_renewed_at, "
        "e.claim_renews_every, t.order_id";
constexpr const char *escalationRowJoins = "JOIN tickets t ON t.id = e.ticket_id JOIN tool_calls c ON c.id = "
                                           "e.tool_call_id LEFT JOIN orders o ON o.id = t.order_id";

QList<EscalationRow> escalationRowsOf(QSqlQuery &q)
{
    QList<EscalationRow> rows;
    while (q.next()) {
        rows.append({q.value(0).toLongLong(), q.value(1).toLongLong(), q.value(2).toString(),
                     q.value(3).toLongLong(), q.value(4).toString(), q.value(5).toString(),
                     q.value(6).toLongLong(), optionalInt(q.value(7)), q.value(8).toString(),
                     escalationStateFromId(q.value(9).toString()), q.value(10).toString(),
                     q.value(11).toLongLong(), q.value(12).toLongLong(), q.value(13).toLongLong(),
                     q.value(14).toString()});
    }
    q.finish();
    return rows;
}

} // namespace

Expected<QList<EscalationRow>> SqlStore::openEscalations(qint64 offset, int limit)
{
    // The page is found on the index alone, and only its rows are joined: an OFFSET over the
    // joined rows would join every row it passes over.
    auto query =
            prepared("openEscalations",
                     QStringLiteral("SELECT %1 FROM (SELECT id FROM escalations WHERE state = {state:open} "
                                    "ORDER BY opened_at, id LIMIT ? OFFSET ?) page JOIN escalations e ON "
                                    "e.id = page.id %2 ORDER BY e.opened_at, e.id")
                             .arg(QLatin1String(escalationRowColumns), QLatin1String(escalationRowJoins)));
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(limit);
    q.addBindValue(offset);
    if (auto done = run(q, "reading escalations"); !done)
        return done.error();
    return escalationRowsOf(q);
}

Expected<QList<EscalationRow>> SqlStore::openEscalationsAfter(qint64 afterId, int limit)
{
    auto query = prepared(
            "openEscalationsAfter",
            QStringLiteral("SELECT %1 FROM escalations e %2 WHERE e.state = {state:open} AND e.id > ? "
                           "ORDER BY e.id DESC LIMIT ?")
                    .arg(QLatin1String(escalationRowColumns), QLatin1String(escalationRowJoins)));
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(afterId);
    q.addBindValue(limit);
    if (auto done = run(q, "reading new escalations"); !done)
        return done.error();
    return escalationRowsOf(q);
}

Expected<QList<EscalationRow>> SqlStore::claimsHeldBy(const QString &holder, qint64 now)
{
    auto query =
            prepared("claimsHeldBy",
                     QStringLiteral("SELECT %1 FROM escalations e %2 WHERE e.state = {state:open} AND "
                                    "e.claimed_by = ? AND e.claimed_until > ? ORDER BY e.claimed_until, e.id")
                             .arg(QLatin1String(escalationRowColumns), QLatin1String(escalationRowJoins)));
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(holder);
    q.addBindValue(now);
    if (auto done = run(q, "reading claims held"); !done)
        return done.error();
    return escalationRowsOf(q);
}

} // namespace verity

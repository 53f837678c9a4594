// The console's reads: the ticket queue (filtered, sorted, paged), one ticket with its
// transcript, and the escalation queue. Each page is one indexed query and each count a kept
// total; nothing here loads or counts every row.

#include "sqlitestore.h"

#include "sqlerror.h"

#include <QHash>
#include <QSqlError>
#include <QVariant>

#include <algorithm>

namespace verity {

namespace {

struct Where
{
    QString sql;
    QVariantList values;
};

QString escapeLike(QString text)
{
    text.replace(u'\\', QStringLiteral("\\\\"));
    text.replace(u'%', QStringLiteral("\\%"));
    text.replace(u'_', QStringLiteral("\\_"));
    return text;
}

// `extra`: one more condition, with its values after the search's.
Where whereClause(const TicketQuery &query, const QString &extra = {}, const QVariantList &extraValues = {})
{
    QStringList parts;
    Where where;
    switch (query.filter) {
    case TicketFilter::All: break;
    case TicketFilter::NeedsAttention: parts << QStringLiteral("needs_attention = 1"); break;
    case TicketFilter::Unknown: parts << QStringLiteral("has_unknown = 1"); break;
    case TicketFilter::RepeatedIntent: parts << QStringLiteral("has_repeat = 1"); break;
    case TicketFilter::DuplicateEffect: parts << QStringLiteral("duplicate_effects > 0"); break;
    case TicketFilter::RetryAfterError: parts << QStringLiteral("retry_count > 0"); break;
    }
    const QString search = query.search.trimmed();
    if (!search.isEmpty()) {
        // A prefix match on NOCASE columns, so each arm is an index range, not a scan.
        parts << QStringLiteral("(ext_id LIKE ? ESCAPE '\\' OR order_id LIKE ? ESCAPE '\\' "
                                "OR seller_name LIKE ? ESCAPE '\\')");
        const QString pattern = escapeLike(search) + u'%';
        where.values << pattern << pattern << pattern;
    }
    if (!extra.isEmpty()) {
        parts << extra;
        where.values << extraValues;
    }
    if (!parts.isEmpty())
        where.sql = QStringLiteral(" WHERE ") + parts.join(QStringLiteral(" AND "));
    return where;
}

QString sortColumn(TicketSortKey key)
{
    switch (key) {
    case TicketSortKey::Opened: return QStringLiteral("opened_at");
    case TicketSortKey::Attention: return QStringLiteral("needs_attention");
    case TicketSortKey::Ticket: return QStringLiteral("ext_id");
    case TicketSortKey::Order: return QStringLiteral("order_id");
    case TicketSortKey::Seller: return QStringLiteral("seller_name");
    case TicketSortKey::Writes: return QStringLiteral("write_count");
    case TicketSortKey::WorstOutcome: return QStringLiteral("worst_outcome");
    }
    return QStringLiteral("opened_at");
}

QString orderClause(const QString &column, bool descending)
{
    const QString direction = descending ? QStringLiteral(" DESC") : QStringLiteral(" ASC");
    return QStringLiteral(" ORDER BY ") + column + direction + QStringLiteral(", id") + direction;
}

// The columns every ticket query selects first, in this order.
#define TICKET_ROW_COLUMNS "t.id, t.ext_id, t.order_id, t.seller_name, t.subject, t.opened_at, t.write_count, " \
                           "t.worst_outcome, t.needs_attention, t.has_unknown, t.has_repeat, t.retry_count, " \
                           "t.duplicate_effects, t.harmless_repeats, t.unsettled_repeats, t.duplicate_cents, " \
                           "t.source_format"

TicketRow ticketRow(const QSqlQuery &q)
{
    TicketRow row;
    row.id = q.value(0).toLongLong();
    row.extId = q.value(1).toString();
    row.orderId = q.value(2).toString();
    row.sellerName = q.value(3).toString();
    row.subject = q.value(4).toString();
    row.openedAt = q.value(5).toLongLong();
    row.writeCount = q.value(6).toInt();
    row.worstOutcome = outcomeFromSeverity(q.value(7).toInt());
    row.needsAttention = q.value(8).toBool();
    row.hasUnknown = q.value(9).toBool();
    row.hasRepeatedIntent = q.value(10).toBool();
    row.repeats = RepeatCounts{q.value(11).toInt(), q.value(12).toInt(), q.value(13).toInt(), q.value(14).toInt(),
                               q.value(15).toLongLong()};
    row.sourceFormat = q.value(16).toString();
    return row;
}

} // namespace

Expected<qint64> SqliteStore::countTickets(const TicketQuery &query)
{
    // Without a search, the count is kept (see queue_totals in the schema): no scan.
    if (query.search.trimmed().isEmpty()) {
        const char *column = "tickets";
        switch (query.filter) {
        case TicketFilter::All: break;
        case TicketFilter::NeedsAttention: column = "needs_attention"; break;
        case TicketFilter::Unknown: column = "unknown"; break;
        case TicketFilter::RepeatedIntent: column = "repeated"; break;
        case TicketFilter::DuplicateEffect: column = "duplicate_effect"; break;
        case TicketFilter::RetryAfterError: column = "retry_after_error"; break;
        }
        return keptTotal(column);
    }
    const Where where = whereClause(query);
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    if (!q.prepare(QStringLiteral("SELECT count(*) FROM tickets") + where.sql))
        return makeError(sqlErrorText(q.lastError()));
    for (const QVariant &value : where.values)
        q.addBindValue(value);
    if (auto done = run(q, "counting tickets"); !done)
        return done.error();
    return q.next() ? q.value(0).toLongLong() : 0;
}

Expected<QList<TicketRow>> SqliteStore::tickets(const TicketQuery &query, qint64 offset, int limit)
{
    return ticketPage(query, TicketPage{std::nullopt, false, offset, limit});
}

Expected<QList<TicketRow>> SqliteStore::ticketPage(const TicketQuery &query, const TicketPage &page)
{
    const QString column = sortColumn(query.sortKey);
    // Reading backwards is reading the opposite order, and turning the rows round.
    const bool descending = query.descending != page.backwards;
    QString after;
    QVariantList afterValues;
    if (page.anchor) {
        if (!anchorsOrder(query.sortKey))
            return makeError(QStringLiteral("the queue sorted by %1 cannot be entered at a ticket").arg(column));
        // A row value comparison: one range of the sort column's index, ending in the rowid.
        after = QStringLiteral("(%1, id) %2 (?, ?)").arg(column, descending ? QStringLiteral("<") : QStringLiteral(">"));
        afterValues << page.anchor->sortValue << page.anchor->id;
    }
    const Where where = whereClause(query, after, afterValues);
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    if (!q.prepare(QStringLiteral("SELECT " TICKET_ROW_COLUMNS " FROM tickets t") + where.sql
                   + orderClause(column, descending) + QStringLiteral(" LIMIT ? OFFSET ?")))
        return makeError(sqlErrorText(q.lastError()));
    for (const QVariant &value : where.values)
        q.addBindValue(value);
    q.addBindValue(page.limit);
    q.addBindValue(page.skip);
    if (auto done = run(q, "reading tickets"); !done)
        return done.error();
    QList<TicketRow> rows;
    rows.reserve(page.limit);
    while (q.next())
        rows.append(ticketRow(q));
    if (page.backwards)
        std::reverse(rows.begin(), rows.end());
    return rows;
}

Expected<std::optional<qint64>> SqliteStore::ticketIdByExtId(const QString &extId)
{
    auto found = findTicket(extId);
    if (!found)
        return found.error();
    return *found ? std::optional<qint64>((*found)->id) : std::nullopt;
}

Expected<std::optional<TicketDetail>> SqliteStore::ticket(qint64 ticketId)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    q.prepare(QStringLiteral(
        "SELECT " TICKET_ROW_COLUMNS ", t.seller_id, COALESCE(t.seller_balance_cents, s.balance_cents), "
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
    detail.sellerId = q.value(17).toString();
    detail.sellerBalanceCents = optionalInt(q.value(18));
    detail.sellerBalanceAsOf = q.value(19).toLongLong();
    detail.order.id = detail.row.orderId;
    if (!q.value(20).isNull())
        detail.order.currency = q.value(20).toString();
    detail.order.customerName = q.value(21).toString();
    detail.order.customerEmail = q.value(22).toString();
    detail.order.paymentIntent = q.value(23).toString();
    detail.registry = q.value(24).toString();

    QSqlQuery items(m_db);
    items.setForwardOnly(true);
    items.prepare(QStringLiteral("SELECT item_id, title, quantity, amount_cents FROM order_items WHERE order_id = ? "
                                 "ORDER BY item_id"));
    items.addBindValue(detail.order.id);
    if (auto done = run(items, "reading order items"); !done)
        return done.error();
    while (items.next())
        detail.order.items.append({items.value(0).toString(), items.value(1).toString(), items.value(2).toLongLong(),
                                   items.value(3).toLongLong()});
    return std::optional<TicketDetail>(detail);
}

Expected<QList<TranscriptEntry>> SqliteStore::transcript(qint64 ticketId)
{
    QList<TranscriptEntry> entries;

    QSqlQuery messages(m_db);
    messages.setForwardOnly(true);
    messages.prepare(QStringLiteral("SELECT seq, at, kind, text FROM messages WHERE ticket_id = ?"));
    messages.addBindValue(ticketId);
    if (auto done = run(messages, "reading messages"); !done)
        return done.error();
    while (messages.next()) {
        TranscriptEntry entry;
        entry.seq = messages.value(0).toLongLong();
        entry.at = messages.value(1).toLongLong();
        entry.kind = messageKindFromId(messages.value(2).toString()).value_or(MessageKind::System);
        entry.text = messages.value(3).toString();
        entries.append(entry);
    }

    struct Escalation
    {
        qint64 id = 0;
        QString state;
        QString resolution;
        QString resolvedBy;
        qint64 resolvedAt = 0;
        QString note;
    };
    QHash<qint64, Escalation> escalationByCall;
    QSqlQuery escalations(m_db);
    escalations.setForwardOnly(true);
    escalations.prepare(QStringLiteral("SELECT tool_call_id, id, state, resolution, resolved_by, resolved_at, last_note "
                                       "FROM escalations WHERE ticket_id = ?"));
    escalations.addBindValue(ticketId);
    if (auto done = run(escalations, "reading escalations"); !done)
        return done.error();
    while (escalations.next())
        escalationByCall.insert(escalations.value(0).toLongLong(),
                                {escalations.value(1).toLongLong(), escalations.value(2).toString(),
                                 escalations.value(3).toString(), escalations.value(4).toString(),
                                 escalations.value(5).toLongLong(), escalations.value(6).toString()});

    QSqlQuery calls(m_db);
    calls.setForwardOnly(true);
    calls.prepare(QStringLiteral(
        "SELECT seq, id, call_ext_id, tool, tool_class, arguments, called_at, raw_result, result_at, duration_ms, "
        "intent_key, intent_error, outcome, outcome_reason, read_failed, repeated, amount_cents, "
        "result_fingerprint IS NOT NULL, repeat_kind, repeat_of, result_error, result_error_type "
        "FROM tool_calls WHERE ticket_id = ?"));
    calls.addBindValue(ticketId);
    if (auto done = run(calls, "reading tool calls"); !done)
        return done.error();
    QHash<QString, QStringList> callsByKey;
    QHash<qint64, QString> extIdById;
    QHash<qint64, qint64> repeatOfById;
    while (calls.next()) {
        TranscriptEntry entry;
        entry.isToolCall = true;
        entry.seq = calls.value(0).toLongLong();
        ToolCallRow &call = entry.call;
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
        if (!calls.value(19).isNull())
            repeatOfById.insert(call.id, calls.value(19).toLongLong());
        call.resultError = calls.value(20).toBool();
        call.resultErrorType = calls.value(21).toString();
        extIdById.insert(call.id, call.callExtId);
        if (auto escalation = escalationByCall.constFind(call.id); escalation != escalationByCall.constEnd()) {
            call.escalationId = escalation->id;
            call.escalationState = escalation->state;
            call.resolution = resolutionFromId(escalation->resolution);
            call.resolvedBy = escalation->resolvedBy;
            call.resolvedAt = escalation->resolvedAt;
            call.escalationNote = escalation->note;
        }
        entry.at = call.calledAt;
        if (call.repeated)
            callsByKey[call.intentKey].append(call.callExtId);
        entries.append(entry);
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
    // Time order; the import order breaks ties (events of one second, files imported out of order).
    std::sort(entries.begin(), entries.end(), [](const TranscriptEntry &a, const TranscriptEntry &b) {
        return a.at != b.at ? a.at < b.at : a.seq < b.seq;
    });
    return entries;
}

Expected<qint64> SqliteStore::countOpenEscalations()
{
    return keptTotal("open_escalations");
}

Expected<qint64> SqliteStore::keptTotal(const char *column)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT %1 FROM queue_totals WHERE id = 1").arg(QLatin1String(column))))
        return makeError(QStringLiteral("counting %1: %2").arg(QLatin1String(column), sqlErrorText(q.lastError())));
    return q.next() ? q.value(0).toLongLong() : 0;
}

Expected<QList<EscalationRow>> SqliteStore::openEscalations(qint64 offset, int limit)
{
    // The page is found on the index alone, and only its rows are joined: an OFFSET over the
    // joined rows would join every row it passes over.
    auto query = prepared("SELECT e.id, e.ticket_id, t.ext_id, e.tool_call_id, c.call_ext_id, c.tool, e.opened_at, "
                          "e.amount_cents, COALESCE(o.currency, 'USD'), e.state FROM "
                          "(SELECT id FROM escalations WHERE state = 'open' ORDER BY opened_at, id LIMIT ? OFFSET ?) page "
                          "JOIN escalations e ON e.id = page.id "
                          "JOIN tickets t ON t.id = e.ticket_id JOIN tool_calls c ON c.id = e.tool_call_id "
                          "LEFT JOIN orders o ON o.id = t.order_id ORDER BY e.opened_at, e.id");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(limit);
    q.addBindValue(offset);
    if (auto done = run(q, "reading escalations"); !done)
        return done.error();
    QList<EscalationRow> rows;
    while (q.next()) {
        rows.append({q.value(0).toLongLong(), q.value(1).toLongLong(), q.value(2).toString(), q.value(3).toLongLong(),
                     q.value(4).toString(), q.value(5).toString(), q.value(6).toLongLong(), optionalInt(q.value(7)),
                     q.value(8).toString(), q.value(9).toString()});
    }
    q.finish();
    return rows;
}

} // namespace verity

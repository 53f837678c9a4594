#include "nativewriter.h"

#include <QDateTime>

#include <algorithm>
#include <limits>
#include <map>

namespace verity {

using nlohmann::json;

namespace {

std::string utf8(const QString &text)
{
    return text.toStdString();
}

json eventBase(const char *type, const QString &ticketExtId, qint64 at)
{
    return json{{"type", type}, {"ticket", utf8(ticketExtId)}, {"at", utf8(nativeTimestamp(at))}};
}

} // namespace

QString nativeTimestamp(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch, Qt::UTC)
            .toString(Qt::ISODateWithMs); // "Z", not "+00:00"
}

json nativeTicketOpened(const TicketDetail &ticket)
{
    json event = eventBase("ticket_opened", ticket.row.extId, ticket.row.openedAt);
    if (!ticket.row.subject.isEmpty())
        event["subject"] = utf8(ticket.row.subject);
    const OrderRecord &order = ticket.order;
    if (!order.customerName.isEmpty() || !order.customerEmail.isEmpty()) {
        json customer = json::object();
        if (!order.customerName.isEmpty())
            customer["name"] = utf8(order.customerName);
        if (!order.customerEmail.isEmpty())
            customer["email"] = utf8(order.customerEmail);
        event["customer"] = customer;
    }
    if (!order.id.isEmpty()) {
        json items = json::array();
        for (const OrderItemRecord &item : order.items) {
            json written{
                    {"id", utf8(item.id)}, {"quantity", item.quantity}, {"amount_cents", item.amountCents}};
            if (!item.title.isEmpty())
                written["title"] = utf8(item.title);
            items.push_back(written);
        }
        json written{{"id", utf8(order.id)}, {"currency", utf8(order.currency)}, {"items", items}};
        if (!order.paymentIntent.isEmpty())
            written["payment_intent"] = utf8(order.paymentIntent);
        event["order"] = written;
    }
    if (!ticket.sellerId.isEmpty()) {
        json seller{{"id", utf8(ticket.sellerId)}, {"name", utf8(ticket.row.sellerName)}};
        if (ticket.sellerBalanceCents) {
            seller["balance_cents"] = *ticket.sellerBalanceCents;
            seller["balance_as_of"] = utf8(nativeTimestamp(ticket.sellerBalanceAsOf));
        }
        event["seller"] = seller;
    }
    return event;
}

json nativeMessage(const QString &ticketExtId, const TranscriptEntry &message)
{
    const bool reply = message.kind == MessageKind::Reply;
    json event = eventBase(reply ? "reply" : "message", ticketExtId, message.at);
    event["seq"] = message.seq;
    if (!reply)
        event["from"] = utf8(messageKindId(message.kind));
    event["text"] = utf8(message.text);
    return event;
}

json nativeToolCall(const QString &ticketExtId, qint64 seq, const ToolCallRow &call)
{
    json event = eventBase("tool_call", ticketExtId, call.calledAt);
    event["seq"] = seq;
    event["call_id"] = utf8(call.callExtId);
    event["tool"] = utf8(call.tool);
    json arguments = json::parse(utf8(call.argumentsJson), nullptr, false);
    event["arguments"] = arguments.is_object() ? arguments : json::object();
    return event;
}

json nativeToolResult(const QString &ticketExtId, const ToolCallRow &call)
{
    if (!call.hasResult)
        return nullptr;
    json event = eventBase("tool_result", ticketExtId, call.resultAt.value_or(call.calledAt));
    event["call_id"] = utf8(call.callExtId);
    // Stored results are JSON text; anything else was a plain string.
    json result = json::parse(utf8(call.rawResult), nullptr, false);
    event["result"] = result.is_discarded() ? json(utf8(call.rawResult)) : result;
    if (call.durationMs)
        event["duration_ms"] = *call.durationMs;
    if (call.resultError)
        event["is_error"] = true;
    if (!call.resultErrorType.isEmpty())
        event["error_type"] = utf8(call.resultErrorType);
    return event;
}

json nativeTrace(const QString &ticketExtId, const TraceEvent &trace)
{
    json event = eventBase(trace.kind == TraceKind::Http ? "http" : "provider", ticketExtId, trace.at);
    event["seq"] = trace.seq;
    if (!trace.callExtId.isEmpty())
        event["call_id"] = utf8(trace.callExtId);
    if (trace.kind == TraceKind::Http) {
        const HttpTrace &http = trace.http;
        event["method"] = utf8(http.method);
        event["url"] = utf8(http.url);
        if (!http.idempotencyKey.isEmpty())
            event["idempotency_key"] = utf8(http.idempotencyKey);
        event["attempt"] = http.attempt;
        if (http.status)
            event["status"] = *http.status;
        if (!http.error.isEmpty())
            event["error"] = utf8(http.error);
        if (http.durationMs)
            event["duration_ms"] = *http.durationMs;
    } else {
        const ProviderTrace &provider = trace.provider;
        event["event"] = utf8(provider.event);
        if (!provider.objectId.isEmpty())
            event["object_id"] = utf8(provider.objectId);
        if (!provider.idempotencyKey.isEmpty())
            event["idempotency_key"] = utf8(provider.idempotencyKey);
        if (provider.amountCents)
            event["amount_cents"] = *provider.amountCents;
        if (provider.replayed)
            event["replayed"] = true;
    }
    return event;
}

QList<json> nativeTicketEvents(const QString &ticketExtId, const QList<TranscriptEntry> &transcript,
                               const QList<TraceEvent> &traces)
{
    struct Timed
    {
        qint64 seq = 0;
        qint64 at = 0;
        json line;
        json result; // a call's result, waiting for its time
        qint64 resultAt = 0;
    };
    QList<Timed> events;
    for (const TranscriptEntry &entry : transcript) {
        if (entry.isToolCall)
            events.append({entry.seq, entry.call.calledAt, nativeToolCall(ticketExtId, entry.seq, entry.call),
                           nativeToolResult(ticketExtId, entry.call),
                           std::max(entry.call.calledAt, entry.call.resultAt.value_or(entry.call.calledAt))});
        else
            events.append({entry.seq, entry.at, nativeMessage(ticketExtId, entry), nullptr, 0});
    }
    for (const TraceEvent &trace : traces)
        events.append({trace.seq, trace.at, nativeTrace(ticketExtId, trace), nullptr, 0});
    std::stable_sort(events.begin(), events.end(),
                     [](const Timed &a, const Timed &b) { return a.seq < b.seq; });

    // Results wait by time (then by their call's order) until an event later than them comes.
    std::multimap<std::pair<qint64, qint64>, json> waiting;
    QList<json> lines;
    const auto flushUpTo = [&](qint64 at) {
        while (!waiting.empty() && waiting.begin()->first.first <= at) {
            lines.append(std::move(waiting.begin()->second));
            waiting.erase(waiting.begin());
        }
    };
    for (Timed &event : events) {
        flushUpTo(event.at);
        lines.append(std::move(event.line));
        if (!event.result.is_null())
            waiting.emplace(std::make_pair(event.resultAt, event.seq), std::move(event.result));
    }
    flushUpTo(std::numeric_limits<qint64>::max());
    return lines;
}

QByteArray nativeLine(const json &event)
{
    return QByteArray::fromStdString(event.dump());
}

} // namespace verity

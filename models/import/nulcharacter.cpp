#include "nulcharacter.h"

#include <initializer_list>
#include <utility>

namespace verity {

namespace {

using Fields = std::initializer_list<std::pair<const char *, const QString *>>;

QString firstWithNul(Fields fields)
{
    for (const auto &[name, text] : fields) {
        if (text->contains(QChar(u'\0')))
            return QString::fromLatin1(name);
    }
    return QString();
}

QString inTicket(const NewTicket &t)
{
    const QString named = firstWithNul({{"subject", &t.subject},
                                        {"order.id", &t.order.id},
                                        {"order.currency", &t.order.currency},
                                        {"order.payment_intent", &t.order.paymentIntent},
                                        {"customer.name", &t.order.customerName},
                                        {"customer.email", &t.order.customerEmail},
                                        {"seller.id", &t.seller.id},
                                        {"seller.name", &t.seller.name},
                                        {"task", &t.task},
                                        {"origin", &t.origin}});
    if (!named.isEmpty())
        return named;
    for (qsizetype i = 0; i < t.order.items.size(); ++i) {
        const OrderItemRecord &item = t.order.items.at(i);
        const QString inItem = firstWithNul({{"id", &item.id}, {"title", &item.title}});
        if (!inItem.isEmpty())
            return QStringLiteral("order.items[%1].%2").arg(i).arg(inItem);
    }
    return QString();
}

QString inTrace(const TraceEvent &e)
{
    return firstWithNul({{"call_id", &e.callExtId},
                         {"method", &e.http.method},
                         {"url", &e.http.url},
                         {"idempotency_key", &e.http.idempotencyKey},
                         {"error", &e.http.error},
                         {"event", &e.provider.event},
                         {"object_id", &e.provider.objectId},
                         {"idempotency_key", &e.provider.idempotencyKey}});
}

} // namespace

QString fieldWithNulCharacter(const NativeEvent &event)
{
    if (event.ticket.contains(QChar(u'\0')))
        return QStringLiteral("ticket");
    if (const auto *opened = std::get_if<TicketOpenedEvent>(&event.body))
        return inTicket(opened->ticket);
    if (const auto *message = std::get_if<MessageEvent>(&event.body))
        return firstWithNul({{"text", &message->text}});
    if (const auto *call = std::get_if<ToolCallEvent>(&event.body))
        return firstWithNul(
                {{"call_id", &call->callId}, {"tool", &call->tool}, {"arguments", &call->argumentsText}});
    if (const auto *trace = std::get_if<TraceEvent>(&event.body))
        return inTrace(*trace);
    const auto &result = std::get<ToolResultEvent>(event.body);
    return firstWithNul({{"call_id", &result.callId}, {"error_type", &result.errorType}});
}

} // namespace verity

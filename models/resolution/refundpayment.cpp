#include "refundpayment.h"

#include "domain/toolregistry.h"
#include "store/records.h"

#include <nlohmann/json.hpp>

namespace verity {

using nlohmann::json;

namespace {

// Where a payment named in a call was found, for the card: "get_order result, call c1".
QString paymentSourceWords(const QString &tool, const QString &callExtId, bool inResult)
{
    return QStringLiteral("%1 %2, call %3")
            .arg(tool, inResult ? QStringLiteral("result") : QStringLiteral("arguments"), callExtId);
}

// Where a read the registry says nothing of names a payment: its record's own fields, as the
// default registry's get_order does.
const QList<PaymentField> &readPaymentFields()
{
    static const QList<PaymentField> fields = [] {
        QList<PaymentField> out;
        for (const char *text : {"result.payment_intent", "result.charge", "result.payment.payment_intent",
                                 "result.payment.charge"})
            out.append(*readPaymentField(QString::fromLatin1(text)));
        return out;
    }();
    return fields;
}

// A stored value as JSON: an object as it is, JSON text inside a string read once more.
json parsedOf(const QString &text)
{
    json value = json::parse(text.toStdString(), nullptr, false);
    if (value.is_string())
        value = json::parse(value.get_ref<const std::string &>(), nullptr, false);
    return value.is_discarded() ? json() : value;
}

// The order a call's arguments or result name, empty when neither does.
QString orderNamedIn(const ToolCallRow &call)
{
    for (const json &value :
         {parsedOf(call.argumentsJson), call.hasResult ? parsedOf(call.rawResult) : json()}) {
        const auto order = value.is_object() ? value.find("order_id") : value.end();
        if (value.is_object() && order != value.end() && order->is_string())
            return QString::fromStdString(order->get<std::string>()).trimmed();
    }
    return QString();
}

// The first valid payment the registry's fields find in one call, in the order they are listed.
std::optional<PaymentReference> namedIn(const ToolCallRow &call, const ToolRegistry &registry)
{
    const ToolSpec *spec = registry.find(call.tool);
    const bool unlisted = (!spec || spec->payment.isEmpty()) && call.toolClass == ToolClass::Read;
    if (!unlisted && (!spec || spec->payment.isEmpty()))
        return std::nullopt;
    const json arguments = json::parse(call.argumentsJson.toStdString(), nullptr, false);
    // Stored results are JSON text; a result that is not JSON is plain text and names nothing.
    const json result = call.hasResult ? json::parse(call.rawResult.toStdString(), nullptr, false) : json();
    for (const PaymentField &field : unlisted ? readPaymentFields() : spec->payment) {
        const std::optional<QString> value = field.valueIn(arguments.is_discarded() ? json() : arguments,
                                                           result.is_discarded() ? json() : result);
        if (!value)
            continue;
        const bool inResult = field.side == PaymentField::Side::Result;
        if (Expected<PaymentReference> reference =
                    readPaymentReference(*value, paymentSourceWords(call.tool, call.callExtId, inResult)))
            return *reference;
    }
    return std::nullopt;
}

} // namespace

Expected<PaymentReference> refundPayment(const EscalationDetail &escalation,
                                         const QList<TranscriptEntry> &transcript,
                                         const ToolRegistry &registry)
{
    if (!escalation.enteredPayment.isEmpty()) {
        Expected<PaymentReference> entered = readPaymentReference(
                escalation.enteredPayment, QStringLiteral("entered by %1").arg(escalation.enteredPaymentBy));
        if (entered)
            return entered;
    }
    // The refund itself, then what the calls before it named, newest first; never a call about
    // another order than the refund's, whose payment would find another order's refunds.
    QString refundOrder = escalation.orderId;
    for (const TranscriptEntry &entry : transcript) {
        if (!entry.isToolCall || entry.call.id != escalation.callId)
            continue;
        if (const QString own = orderNamedIn(entry.call); !own.isEmpty())
            refundOrder = own;
        break;
    }
    std::optional<PaymentReference> earlier;
    for (const TranscriptEntry &entry : transcript) {
        if (!entry.isToolCall)
            continue;
        if (entry.call.id == escalation.callId) {
            if (std::optional<PaymentReference> own = namedIn(entry.call, registry))
                return *own;
            break;
        }
        const QString order = orderNamedIn(entry.call);
        if (!order.isEmpty() && !refundOrder.isEmpty()
            && order.compare(refundOrder, Qt::CaseInsensitive) != 0)
            continue;
        if (std::optional<PaymentReference> named = namedIn(entry.call, registry))
            earlier = named;
    }
    if (earlier)
        return *earlier;
    QString unusable;
    const bool ticketsOrder = refundOrder.compare(escalation.orderId, Qt::CaseInsensitive) == 0;
    if (!escalation.paymentIntent.isEmpty() && ticketsOrder) {
        Expected<PaymentReference> order = readPaymentReference(
                escalation.paymentIntent, QStringLiteral("order %1").arg(escalation.orderId));
        if (order)
            return order;
        unusable = QStringLiteral(" (the order's payment_intent: %1)").arg(order.message());
    }
    const QString what = refundOrder.isEmpty() ? QStringLiteral("ticket %1").arg(escalation.ticketExtId)
                                               : QStringLiteral("order %1").arg(refundOrder);
    return makeError(InputErrc::Missing,
                     QStringLiteral("no payment reference known for %1%2: neither the order nor the calls "
                                    "name the payment at the provider. Find it with the provider's "
                                    "search, or in its dashboard (its id starts pi_ or ch_), and enter "
                                    "it; then the lookup can run.")
                             .arg(what, unusable));
}

} // namespace verity

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

// The first valid payment the registry's fields find in one call, in the order they are listed.
std::optional<PaymentReference> namedIn(const ToolCallRow &call, const ToolRegistry &registry)
{
    const ToolSpec *spec = registry.find(call.tool);
    if (!spec || spec->payment.isEmpty())
        return std::nullopt;
    const json arguments = json::parse(call.argumentsJson.toStdString(), nullptr, false);
    // Stored results are JSON text; a result that is not JSON is plain text and names nothing.
    const json result = call.hasResult ? json::parse(call.rawResult.toStdString(), nullptr, false) : json();
    for (const PaymentField &field : spec->payment) {
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
    // The refund itself, then what the calls before it named, newest first.
    std::optional<PaymentReference> earlier;
    for (const TranscriptEntry &entry : transcript) {
        if (!entry.isToolCall)
            continue;
        if (entry.call.id == escalation.callId) {
            if (std::optional<PaymentReference> own = namedIn(entry.call, registry))
                return *own;
            break;
        }
        if (std::optional<PaymentReference> named = namedIn(entry.call, registry))
            earlier = named;
    }
    if (earlier)
        return *earlier;
    QString unusable;
    if (!escalation.paymentIntent.isEmpty()) {
        Expected<PaymentReference> order = readPaymentReference(
                escalation.paymentIntent, QStringLiteral("order %1").arg(escalation.orderId));
        if (order)
            return order;
        unusable = QStringLiteral(" (the order's payment_intent: %1)").arg(order.message());
    }
    const QString what = escalation.orderId.isEmpty()
            ? QStringLiteral("ticket %1").arg(escalation.ticketExtId)
            : QStringLiteral("order %1").arg(escalation.orderId);
    return makeError(InputErrc::Missing,
                     QStringLiteral("no payment reference known for %1%2: neither the order nor the calls "
                                    "name the payment at the provider. Find it with the provider's "
                                    "search, or in its dashboard (its id starts pi_ or ch_), and enter "
                                    "it; then the lookup can run.")
                             .arg(what, unusable));
}

} // namespace verity

#pragma once
// The payment a refund is looked up under at the payment provider, by the id the provider
// gave it: a Stripe PaymentIntent ("pi_…") or Charge ("ch_…"). It comes from the data (the
// order, or a tool's arguments or result where the registry says a payment is named) or from
// an operator who read it at the provider, never from a guess: a guessed id finds nothing,
// and an empty answer under the wrong id would be taken for "no refund".

#include "expected.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json_fwd.hpp>

#include <optional>

namespace verity {

struct PaymentReference
{
    enum class Kind { PaymentIntent, Charge };
    Kind kind = Kind::PaymentIntent;
    QString id; // "pi_3Nf…"
    QString source; // for people: "the order", "get_order result, call c1", "entered by Dana"

    // The query and form parameter the provider files refunds under: "payment_intent", "charge".
    QString parameter() const;
};

// `text` read as a Stripe payment id: "pi_" or "ch_", then letters, digits, '_' or '-' (the
// demo's and the sandbox's ids carry an order number), 4 to 255 characters in all. The error
// (InputErrc::Invalid) says what was expected.
Expected<PaymentReference> readPaymentReference(const QString &text, const QString &source);

// Where in a tool call the registry says a payment is named: "arguments.payment_intent",
// "result.payment.charge" (dots go into objects).
struct PaymentField
{
    enum class Side { Arguments, Result };
    Side side = Side::Arguments;
    QStringList path; // the object keys below the side, outermost first
    QString text; // as written in the registry

    // The string at this place in the call, if there is one. `result` is the result as stored:
    // JSON, or JSON inside a JSON string (tools that answer with text).
    std::optional<QString> valueIn(const nlohmann::json &arguments, const nlohmann::json &result) const;
};
Expected<PaymentField> readPaymentField(const QString &text);

} // namespace verity

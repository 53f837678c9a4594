#include "paymentreference.h"

#include "jsontext.h"

#include <QRegularExpression>

#include <nlohmann/json.hpp>

namespace verity {

using nlohmann::json;

QString PaymentReference::parameter() const
{
    return kind == Kind::Charge ? QStringLiteral("charge") : QStringLiteral("payment_intent");
}

Expected<PaymentReference> readPaymentReference(const QString &text, const QString &source)
{
    static const QRegularExpression stripeId(QStringLiteral("^(pi|ch)_[A-Za-z0-9][A-Za-z0-9_-]{0,251}$"));
    const QString id = text.trimmed();
    const QRegularExpressionMatch match = stripeId.match(id);
    if (!match.hasMatch())
        return makeError(
                InputErrc::Invalid,
                QStringLiteral("expected the provider's id of a payment, a PaymentIntent (pi_…) or a "
                               "Charge (ch_…) as Stripe shows it, got \"%1\"")
                        .arg(id.left(60)));
    PaymentReference reference;
    reference.kind = match.captured(1) == u"ch" ? PaymentReference::Kind::Charge
                                                : PaymentReference::Kind::PaymentIntent;
    reference.id = id;
    reference.source = source;
    return reference;
}

Expected<PaymentField> readPaymentField(const QString &text)
{
    static const QRegularExpression shape(
            QStringLiteral("^(arguments|result)((?:\\.[A-Za-z0-9_-]{1,64}){1,6})$"));
    const QRegularExpressionMatch match = shape.match(text);
    if (!match.hasMatch())
        return makeError(InputErrc::Invalid,
                         QStringLiteral("expected \"arguments.<name>\" or \"result.<name>\", with dots into "
                                        "objects (\"result.payment.payment_intent\"), got \"%1\"")
                                 .arg(text.left(80)));
    PaymentField field;
    field.side = match.captured(1) == u"result" ? PaymentField::Side::Result : PaymentField::Side::Arguments;
    field.path = match.captured(2).mid(1).split(u'.');
    field.text = text;
    return field;
}

std::optional<QString> PaymentField::valueIn(const json &arguments, const json &result) const
{
    const json *node = side == Side::Arguments ? &arguments : &result;
    json parsed;
    // A tool that answers with text may answer with JSON as text.
    if (node->is_string()) {
        parsed = json::parse(node->get_ref<const std::string &>(), nullptr, false);
        if (parsed.is_discarded())
            return std::nullopt;
        node = &parsed;
    }
    for (const QString &key : path) {
        if (!node->is_object())
            return std::nullopt;
        const auto found = node->find(key.toStdString());
        if (found == node->end())
            return std::nullopt;
        node = &*found;
    }
    if (!node->is_string())
        return std::nullopt;
    return fromUtf8String(node->get_ref<const std::string &>());
}

} // namespace verity

#include "namedorder.h"

#include "domain/jsontext.h"
#include "domain/paymentreference.h"

namespace verity {

using nlohmann::json;

namespace {

// A result as an object: structured, or JSON text inside a string (tools that answer with
// text, τ-bench's results).
json objectOf(const json &value)
{
    if (value.is_object())
        return value;
    if (!value.is_string())
        return json();
    const std::string &text = value.get_ref<const std::string &>();
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || text[first] != '{' || text.size() > 1 << 20)
        return json();
    json parsed = json::parse(text, nullptr, false);
    return parsed.is_object() ? parsed : json();
}

// An id field's value: text, or a whole number written as text.
QString idIn(const json &object, const char *key)
{
    const auto it = object.find(key);
    if (it == object.end())
        return QString();
    QString id;
    if (it->is_string())
        id = fromUtf8String(it->get_ref<const std::string &>()).trimmed();
    else if (std::optional<qint64> number = wholeNumber(*it))
        id = QString::number(*number);
    return id.size() <= 200 ? id : QString();
}

QString paymentIn(const json &object)
{
    for (const json *holder : {&object, object.contains("payment") ? &object.at("payment") : nullptr}) {
        if (!holder || !holder->is_object())
            continue;
        for (const char *key : {"payment_intent", "charge"}) {
            const QString named = idIn(*holder, key);
            if (!named.isEmpty() && readPaymentReference(named, QString()))
                return named;
        }
    }
    return QString();
}

} // namespace

NamedOrder orderNamedByCalls(const Conversation &conversation)
{
    NamedOrder named;
    named.orderId = conversation.orderId;
    QList<json> records; // every call's arguments and result, in turn order
    for (const Turn &turn : conversation.turns) {
        // A call a model span carried is named again by its own span, with its result: the order
        // is named then, with its seller and payment, rather than now without them.
        if (turn.kind == Turn::Kind::Message || turn.carried)
            continue;
        json record = turn.kind == Turn::Kind::ToolCall ? objectOf(turn.arguments) : objectOf(turn.result);
        if (!record.is_object())
            continue;
        if (named.orderId.isEmpty())
            named.orderId = idIn(record, "order_id");
        records.append(std::move(record));
    }
    if (named.orderId.isEmpty())
        return named;
    // Only a record of this very order may name its seller and payment: another order's payment
    // would send the lookup to another refund.
    for (const json &record : std::as_const(records)) {
        if (idIn(record, "order_id").compare(named.orderId, Qt::CaseInsensitive) != 0)
            continue;
        if (named.sellerId.isEmpty()) {
            named.sellerId = idIn(record, "seller_id");
            named.sellerName = idIn(record, "seller_name");
        }
        if (named.paymentIntent.isEmpty())
            named.paymentIntent = paymentIn(record);
        const QString currency = idIn(record, "currency").toUpper();
        if (named.currency.isEmpty() && currency.size() == 3)
            named.currency = currency;
    }
    if (named.sellerName.isEmpty())
        named.sellerName = named.sellerId;
    if (named.currency.isEmpty())
        named.currency = QStringLiteral("USD");
    return named;
}

} // namespace verity

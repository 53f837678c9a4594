#include "sandboxobjects.h"

#include "sandboxrecords.h"

namespace verity {

using namespace Qt::Literals::StringLiterals;

namespace {

void writeMetadata(SandboxJson &json, const SandboxMetadata &metadata)
{
    json.beginObject();
    for (auto it = metadata.cbegin(); it != metadata.cend(); ++it) { // a QMap: sorted, as JSON keys are kept
        json.key(it.key());
        json.string(it.value());
    }
    json.endObject();
}

void writeAmounts(SandboxJson &json, qint64 amount, const QString &currency)
{
    json.beginArray();
    json.beginObject();
    json.key("amount"_L1);
    json.number(amount);
    json.key("currency"_L1);
    json.string(currency);
    json.endObject();
    json.endArray();
}

} // namespace

SandboxError SandboxError::invalid(QString param, QString message, QString code)
{
    return SandboxError{400, QStringLiteral("invalid_request_error"), std::move(code), std::move(message),
                        std::move(param)};
}

SandboxError SandboxError::missing(QString param, QString message)
{
    return SandboxError{400, QStringLiteral("invalid_request_error"), QStringLiteral("resource_missing"),
                        std::move(message), std::move(param)};
}

QByteArray errorBody(const SandboxError &error)
{
    SandboxJson json;
    json.beginObject();
    json.key("error"_L1);
    json.beginObject();
    if (!error.code.isEmpty()) {
        json.key("code"_L1);
        json.string(error.code);
    }
    json.key("message"_L1);
    json.string(error.message);
    if (!error.param.isEmpty()) {
        json.key("param"_L1);
        json.string(error.param);
    }
    json.key("type"_L1);
    json.string(error.type);
    json.endObject();
    json.endObject();
    return json.take();
}

void writeRefund(SandboxJson &json, const SandboxRefund &refund)
{
    json.beginObject();
    json.key("amount"_L1);
    json.number(refund.amount);
    json.key("balance_transaction"_L1);
    json.stringOrNull(refund.balanceTransaction);
    json.key("charge"_L1);
    json.stringOrNull(refund.charge);
    json.key("created"_L1);
    json.number(refund.created);
    json.key("currency"_L1);
    json.string(refund.currency);
    json.key("id"_L1);
    json.string(refund.id);
    json.key("metadata"_L1);
    writeMetadata(json, refund.metadata);
    json.key("object"_L1);
    json.string("refund"_L1);
    json.key("payment_intent"_L1);
    json.string(refund.paymentIntent);
    json.key("reason"_L1);
    json.stringOrNull(refund.reason);
    json.key("status"_L1);
    json.string(refund.status);
    json.endObject();
}

QByteArray refundBody(const SandboxRefund &refund)
{
    SandboxJson json;
    writeRefund(json, refund);
    return json.take();
}

QByteArray accountBody(const SandboxAccount &account)
{
    SandboxJson json;
    json.beginObject();
    json.key("business_profile"_L1);
    json.beginObject();
    json.key("name"_L1);
    json.string(account.name);
    json.endObject();
    json.key("created"_L1);
    json.number(account.created);
    json.key("default_currency"_L1);
    json.string(account.currency);
    json.key("id"_L1);
    json.string(account.id);
    json.key("object"_L1);
    json.string("account"_L1);
    json.endObject();
    return json.take();
}

QByteArray paymentIntentBody(const SandboxPayment &payment)
{
    SandboxJson json;
    writePaymentIntent(json, payment);
    return json.take();
}

void writePaymentIntent(SandboxJson &json, const SandboxPayment &payment)
{
    json.beginObject();
    json.key("amount"_L1);
    json.number(payment.amount);
    json.key("amount_received"_L1);
    json.number(payment.amount);
    json.key("created"_L1);
    json.number(payment.created);
    json.key("currency"_L1);
    json.string(payment.currency);
    json.key("id"_L1);
    json.string(payment.id);
    json.key("latest_charge"_L1);
    json.stringOrNull(payment.charge);
    json.key("livemode"_L1);
    json.boolean(false);
    json.key("metadata"_L1);
    writeMetadata(json, payment.metadata);
    json.key("object"_L1);
    json.string("payment_intent"_L1);
    json.key("status"_L1);
    json.string("succeeded"_L1);
    json.key("transfer_data"_L1);
    // A direct charge is the seller's own: nothing is transferred to it.
    if (payment.onAccount.isEmpty()) {
        json.beginObject();
        json.key("destination"_L1);
        json.string(payment.account);
        json.endObject();
    } else {
        json.null();
    }
    json.endObject();
}

QByteArray balanceBody(qint64 available, const QString &currency)
{
    SandboxJson json;
    json.beginObject();
    json.key("available"_L1);
    writeAmounts(json, available, currency);
    json.key("livemode"_L1);
    json.boolean(false);
    json.key("object"_L1);
    json.string("balance"_L1);
    json.key("pending"_L1);
    writeAmounts(json, 0, currency);
    json.endObject();
    return json.take();
}

void writeBalanceTransaction(SandboxJson &json, const SandboxBalanceTransaction &transaction)
{
    json.beginObject();
    json.key("amount"_L1);
    json.number(transaction.amount);
    json.key("available_on"_L1);
    json.number(transaction.created);
    json.key("balance_type"_L1);
    json.string("payments"_L1);
    json.key("created"_L1);
    json.number(transaction.created);
    json.key("currency"_L1);
    json.string(transaction.currency);
    json.key("description"_L1);
    json.string(transaction.description);
    json.key("fee"_L1);
    json.number(0);
    json.key("fee_details"_L1);
    json.beginArray();
    json.endArray();
    json.key("id"_L1);
    json.string(transaction.id);
    json.key("net"_L1);
    json.number(transaction.amount);
    json.key("object"_L1);
    json.string("balance_transaction"_L1);
    json.key("reporting_category"_L1);
    json.string(transaction.type);
    json.key("source"_L1);
    json.string(transaction.source);
    json.key("status"_L1);
    json.string("available"_L1);
    json.key("type"_L1);
    json.string(transaction.type);
    json.endObject();
}

void writeRecord(SandboxJson &json, const SandboxRecord &record)
{
    // Every field but two is text or null; all are written in key order, as JSON keys are kept.
    QMap<QString, std::optional<QString>> text;
    if (const SandboxRecordKind *kind = sandboxRecordKindOf(record.kind)) {
        for (const SandboxRecordParam &param : kind->params)
            text.insert(param.name, std::nullopt);
    }
    for (auto it = record.fields.cbegin(); it != record.fields.cend(); ++it)
        text.insert(it.key(), it.value());
    text.insert(u"id"_s, record.id);
    text.insert(u"object"_s, record.kind);
    text.insert(u"order"_s, record.order);
    QStringList keys = text.keys() + QStringList{u"created"_s, u"metadata"_s};
    keys.sort();
    json.beginObject();
    for (const QString &key : std::as_const(keys)) {
        json.key(key);
        if (key == u"created")
            json.number(record.created);
        else if (key == u"metadata")
            writeMetadata(json, record.metadata);
        else if (const std::optional<QString> &value = text.value(key))
            json.string(*value);
        else
            json.null();
    }
    json.endObject();
}

QByteArray recordBody(const SandboxRecord &record)
{
    SandboxJson json;
    writeRecord(json, record);
    return json.take();
}

} // namespace verity

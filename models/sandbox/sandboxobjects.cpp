#include "sandboxobjects.h"

#include <QJsonDocument>

namespace verity {

namespace {

QJsonObject metadataObject(const SandboxMetadata &metadata)
{
    QJsonObject object;
    for (auto it = metadata.cbegin(); it != metadata.cend(); ++it)
        object.insert(it.key(), it.value());
    return object;
}

QJsonValue textOrNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

} // namespace

SandboxError SandboxError::invalid(QString param, QString message, QString code)
{
    return SandboxError{400, QStringLiteral("invalid_request_error"), std::move(code), std::move(message), std::move(param)};
}

SandboxError SandboxError::missing(QString param, QString message)
{
    return SandboxError{400, QStringLiteral("invalid_request_error"), QStringLiteral("resource_missing"),
                        std::move(message), std::move(param)};
}

QByteArray jsonBody(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Indented);
}

QByteArray errorBody(const SandboxError &error)
{
    QJsonObject inner{{QStringLiteral("type"), error.type}, {QStringLiteral("message"), error.message}};
    if (!error.code.isEmpty())
        inner.insert(QStringLiteral("code"), error.code);
    if (!error.param.isEmpty())
        inner.insert(QStringLiteral("param"), error.param);
    return jsonBody(QJsonObject{{QStringLiteral("error"), inner}});
}

QJsonObject refundObject(const SandboxRefund &refund)
{
    return QJsonObject{{QStringLiteral("id"), refund.id},
                       {QStringLiteral("object"), QStringLiteral("refund")},
                       {QStringLiteral("amount"), refund.amount},
                       {QStringLiteral("balance_transaction"), textOrNull(refund.balanceTransaction)},
                       {QStringLiteral("created"), refund.created},
                       {QStringLiteral("currency"), refund.currency},
                       {QStringLiteral("metadata"), metadataObject(refund.metadata)},
                       {QStringLiteral("payment_intent"), refund.paymentIntent},
                       {QStringLiteral("reason"), textOrNull(refund.reason)},
                       {QStringLiteral("status"), refund.status}};
}

QJsonObject accountObject(const SandboxAccount &account)
{
    return QJsonObject{{QStringLiteral("id"), account.id},
                       {QStringLiteral("object"), QStringLiteral("account")},
                       {QStringLiteral("business_profile"), QJsonObject{{QStringLiteral("name"), account.name}}},
                       {QStringLiteral("created"), account.created},
                       {QStringLiteral("default_currency"), account.currency}};
}

QJsonObject paymentIntentObject(const SandboxPayment &payment)
{
    return QJsonObject{{QStringLiteral("id"), payment.id},
                       {QStringLiteral("object"), QStringLiteral("payment_intent")},
                       {QStringLiteral("amount"), payment.amount},
                       {QStringLiteral("amount_received"), payment.amount},
                       {QStringLiteral("created"), payment.created},
                       {QStringLiteral("currency"), payment.currency},
                       {QStringLiteral("metadata"), metadataObject(payment.metadata)},
                       {QStringLiteral("status"), QStringLiteral("succeeded")},
                       {QStringLiteral("transfer_data"), QJsonObject{{QStringLiteral("destination"), payment.account}}}};
}

QJsonObject balanceObject(qint64 available, const QString &currency)
{
    const auto amounts = [&](qint64 amount) {
        return QJsonArray{QJsonObject{{QStringLiteral("amount"), amount}, {QStringLiteral("currency"), currency}}};
    };
    return QJsonObject{{QStringLiteral("object"), QStringLiteral("balance")},
                       {QStringLiteral("available"), amounts(available)},
                       {QStringLiteral("pending"), amounts(0)},
                       {QStringLiteral("livemode"), false}};
}

QJsonObject balanceTransactionObject(const SandboxBalanceTransaction &transaction)
{
    return QJsonObject{{QStringLiteral("id"), transaction.id},
                       {QStringLiteral("object"), QStringLiteral("balance_transaction")},
                       {QStringLiteral("amount"), transaction.amount},
                       {QStringLiteral("available_on"), transaction.created},
                       {QStringLiteral("created"), transaction.created},
                       {QStringLiteral("currency"), transaction.currency},
                       {QStringLiteral("description"), transaction.description},
                       {QStringLiteral("fee"), 0},
                       {QStringLiteral("net"), transaction.amount},
                       {QStringLiteral("reporting_category"), transaction.type},
                       {QStringLiteral("source"), transaction.source},
                       {QStringLiteral("status"), QStringLiteral("available")},
                       {QStringLiteral("type"), transaction.type}};
}

QJsonObject listObject(const QJsonArray &data, bool hasMore, const QString &url)
{
    return QJsonObject{{QStringLiteral("object"), QStringLiteral("list")},
                       {QStringLiteral("data"), data},
                       {QStringLiteral("has_more"), hasMore},
                       {QStringLiteral("url"), url}};
}

} // namespace verity

#pragma once
// The sandbox's answers in Stripe's shapes, so that a client written against the sandbox
// reads a real provider the same way: refund, list, balance, balance transaction, account,
// payment intent, and the error object {"error": {type, code, message, param}}.

#include "sandboxstate.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>

namespace verity {

struct SandboxError
{
    int status = 400;
    QString type = QStringLiteral("invalid_request_error"); // or api_error, idempotency_error, authentication_error
    QString code;                                            // empty: none
    QString message;
    QString param; // empty: none

    static SandboxError invalid(QString param, QString message, QString code = {});
    static SandboxError missing(QString param, QString message); // resource_missing
};

QByteArray errorBody(const SandboxError &error);
QByteArray jsonBody(const QJsonObject &object);

QJsonObject refundObject(const SandboxRefund &refund);
QJsonObject accountObject(const SandboxAccount &account);
QJsonObject paymentIntentObject(const SandboxPayment &payment);
QJsonObject balanceObject(qint64 available, const QString &currency);
QJsonObject balanceTransactionObject(const SandboxBalanceTransaction &transaction);
QJsonObject listObject(const QJsonArray &data, bool hasMore, const QString &url);

} // namespace verity

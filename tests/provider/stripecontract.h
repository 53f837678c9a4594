#pragma once
// Stripe's published contract, as the excerpt of its OpenAPI description in
// tests/data/stripe-openapi holds it: which parameters each operation takes (name, place,
// style, type, enum) and what its answers look like. check() says, in words, where a request
// or an answer departs from it; nothing said means it keeps to it.

#include "sandbox/sandboxapi.h"

#include <QJsonObject>
#include <QStringList>

namespace verity::test {

class StripeContract
{
public:
    // nullopt-like: an empty contract and `problem` when the file cannot be read.
    static StripeContract load(const QString &path, QString *problem);

    QString version() const { return m_version; }
    // The operation ("GET /v1/payment_intents/search") that a method and path are, or empty.
    QString operationOf(const QString &method, const QString &path) const;
    // Parameters (query or form body), encoding, and the headers Stripe's reference documents.
    QStringList checkRequest(const SandboxRequest &request) const;
    // An answer to `request`: a 2xx against the operation's response schema, others against
    // the error schema.
    QStringList checkAnswer(const SandboxRequest &request, int status, const QByteArray &body) const;
    QStringList checkValue(const QString &schema, const QJsonValue &value, const QString &where) const;
    // Each field a client reads must be one the schema has.
    QStringList checkReads(const QString &schema, const QStringList &fields) const;

private:
    QStringList checkParameter(const QJsonObject &operation, const QString &in, const QString &name,
                               const QString &value) const;
    QStringList checkType(const QJsonValue &type, const QJsonObject &definition, const QJsonValue &value,
                          const QString &where) const;

    QString m_version;
    QJsonObject m_operations;
    QJsonObject m_schemas;
};

} // namespace verity::test

#include "paymentsearch.h"

#include "domain/money.h"
#include "providerhttp.h"
#include "providerreply.h"
#include "providerurl.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

namespace verity {

namespace {

constexpr int searchLimit = 10; // an order paid more often than this is for a person to sort out

QString lagWarning()
{
    return QStringLiteral("the provider's search can lag behind new payments by "
                          "a minute or more, so this "
                          "is not evidence that there is none");
}

// The payment in a search result's `object`, if it is a payment of `orderId`
// with an id: a provider that ignored the query must not lend another order's
// payment.
std::optional<FoundPayment> paymentOf(const QJsonObject &object, const QString &orderId)
{
    if (object.value(QStringLiteral("object")).toString() != u"payment_intent"
        || object.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("order_id")).toString()
                != orderId)
        return std::nullopt;
    FoundPayment payment;
    payment.id = object.value(QStringLiteral("id")).toString();
    payment.amountCents = qint64(object.value(QStringLiteral("amount")).toDouble());
    payment.currency = object.value(QStringLiteral("currency")).toString().toUpper();
    payment.createdMs = qint64(object.value(QStringLiteral("created")).toDouble()) * 1000;
    // latest_charge is an id, or the charge itself when expanded.
    const QJsonValue charge = object.value(QStringLiteral("latest_charge"));
    payment.latestCharge =
            charge.isObject() ? charge.toObject().value(QStringLiteral("id")).toString() : charge.toString();
    if (payment.id.isEmpty())
        return std::nullopt;
    return payment;
}

} // namespace

PaymentSearchOperation::PaymentSearchOperation(ProviderSettings settings, QString orderId, QString account,
                                               QObject *parent)
    : ProviderRead(std::move(settings),
                   ReadTerms{.gaveUp = QStringLiteral("the search gave up"),
                             .cancelled = QStringLiteral("the search was cancelled")},
                   nullptr, parent)
    , m_orderId(std::move(orderId))
    , m_account(std::move(account))
{}

QString PaymentSearchOperation::queryFor(const QString &orderId)
{
    QString escaped = orderId;
    escaped.replace(u'\\', QStringLiteral("\\\\")).replace(u'\'', QStringLiteral("\\'"));
    return QStringLiteral("metadata['order_id']:'%1'").arg(escaped);
}

void PaymentSearchOperation::start()
{
    if (m_started)
        return;
    m_started = true;
    if (m_orderId.isEmpty()) {
        QTimer::singleShot(0, this, [this] {
            finish(QStringLiteral("nothing was searched: the ticket names no order"));
        });
        return;
    }
    if (const Expected<QUrl> baseUrl = checkProviderUrl(settings().baseUrl); !baseUrl) {
        const QString why = baseUrl.message();
        QTimer::singleShot(0, this, [this, why] {
            finish(QStringLiteral("nothing was searched: the provider URL %1").arg(why));
        });
        return;
    }
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("query"), queryFor(m_orderId));
    query.addQueryItem(QStringLiteral("limit"), QString::number(searchLimit));
    // QUrlQuery leaves ' and : alone and would send [ ] as they are: encode the
    // query fully.
    QUrl url = providerhttp::endpoint(settings().baseUrl, QStringLiteral("/v1/payment_intents/search"));
    url.setQuery(query.toString(QUrl::FullyEncoded), QUrl::StrictMode);
    ask(url, m_account);
}

QString PaymentSearchOperation::step(int attempt) const
{
    return QStringLiteral("Searching the provider's payments for order %1 "
                          "(attempt %2 of %3)")
            .arg(m_orderId)
            .arg(attempt)
            .arg(settings().maxLookupAttempts);
}

void PaymentSearchOperation::readAnswer(const ReplyRead &read)
{
    if (read.status < 200 || read.status >= 300) {
        finish(QStringLiteral("the provider would not search its payments (%1)")
                       .arg(providerhttp::providerMessage(read.status, read.body)));
        return;
    }
    readResult(read.body);
}

void PaymentSearchOperation::readResult(const QByteArray &body)
{
    const QJsonObject result = QJsonDocument::fromJson(body).object();
    if (result.value(QStringLiteral("object")).toString() != u"search_result"
        || !result.value(QStringLiteral("data")).isArray()) {
        finish(QStringLiteral("the provider's answer is not a search result; check "
                              "the provider URL"));
        return;
    }
    for (const QJsonValue &value : result.value(QStringLiteral("data")).toArray()) {
        if (std::optional<FoundPayment> payment = paymentOf(value.toObject(), m_orderId))
            m_answer.payments.append(*payment);
    }
    m_answer.answered = true;
    m_answer.more = result.value(QStringLiteral("has_more")).toBool();
    finish(summary());
}

QString PaymentSearchOperation::summary() const
{
    const QString where =
            m_account.isEmpty() ? QString() : QStringLiteral(" on the seller's account %1").arg(m_account);
    if (m_answer.payments.isEmpty()) {
        return QStringLiteral("the provider's search found no payment of order "
                              "%1%2; %3. Try again in a "
                              "minute, or enter the payment as the provider's "
                              "dashboard shows it")
                .arg(m_orderId, where, lagWarning());
    }
    QStringList named;
    for (const FoundPayment &payment : std::as_const(m_answer.payments)) {
        named << QStringLiteral("%1 of %2, made %3")
                         .arg(payment.id, formatMoney(payment.amountCents, payment.currency),
                              QDateTime::fromMSecsSinceEpoch(payment.createdMs, Qt::UTC)
                                      .toString(Qt::ISODate));
    }
    if (m_answer.payments.size() == 1 && !m_answer.more) {
        return QStringLiteral("the provider's search found one payment of order %1%2: %3")
                .arg(m_orderId, where, named.first());
    }
    return QStringLiteral("the provider's search found %1 payments of order %2%3 "
                          "(%4)%5; the newest is offered: "
                          "check that it is the one the refund was for")
            .arg(m_answer.more ? QStringLiteral("more than %1").arg(m_answer.payments.size())
                               : QString::number(m_answer.payments.size()),
                 m_orderId, where, named.join(QStringLiteral("; ")),
                 m_answer.more ? QStringLiteral(", and more") : QString());
}

void PaymentSearchOperation::stop(const QString &reason)
{
    finish(reason);
}

void PaymentSearchOperation::finish(const QString &reason)
{
    if (!markFinished())
        return;
    m_answer.reason = reason;
    m_answer.exchanges = exchanges();
    emit finished(m_answer);
}

PaymentSearchAnswer PaymentSearchOperation::waitFor(PaymentSearchOperation *operation)
{
    runToEnd(operation);
    return operation->answer();
}

} // namespace verity

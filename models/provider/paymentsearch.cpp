#include "paymentsearch.h"

#include "domain/money.h"
#include "providerhttp.h"
#include "providerreply.h"
#include "providerurl.h"

#include <QDateTime>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>

namespace verity {

namespace {

constexpr int searchLimit = 10; // an order paid more often than this is for a person to sort out

QString lagWarning()
{
    return QStringLiteral("the provider's search can lag behind new payments by a minute or more, so this "
                          "is not evidence that there is none");
}

} // namespace

PaymentSearchOperation::PaymentSearchOperation(ProviderSettings settings, QString orderId, QString account,
                                               QObject *parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , m_orderId(std::move(orderId))
    , m_account(std::move(account))
    , m_network(new QNetworkAccessManager(this))
    , m_backoff(new QTimer(this))
{
    m_backoff->setSingleShot(true);
    connect(m_backoff, &QTimer::timeout, this, &PaymentSearchOperation::request);
}

PaymentSearchOperation::~PaymentSearchOperation()
{
    if (m_reply) {
        disconnect(m_reply, nullptr, this, nullptr);
        m_reply->abort();
    }
}

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
    if (const Expected<QUrl> baseUrl = checkProviderUrl(m_settings.baseUrl); !baseUrl) {
        const QString why = baseUrl.message();
        QTimer::singleShot(0, this, [this, why] {
            finish(QStringLiteral("nothing was searched: the provider URL %1").arg(why));
        });
        return;
    }
    request();
}

void PaymentSearchOperation::request()
{
    if (m_finished)
        return;
    ++m_attempt;
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("query"), queryFor(m_orderId));
    query.addQueryItem(QStringLiteral("limit"), QString::number(searchLimit));
    // QUrlQuery leaves ' and : alone and would send [ ] as they are: encode the query fully.
    QUrl url = providerhttp::endpoint(m_settings.baseUrl, QStringLiteral("/v1/payment_intents/search"));
    url.setQuery(query.toString(QUrl::FullyEncoded), QUrl::StrictMode);
    const QNetworkRequest request = providerhttp::request(m_settings, url, m_account);
    emit progress(QStringLiteral("Searching the provider's payments for order %1 (attempt %2 of %3)")
                          .arg(m_orderId)
                          .arg(m_attempt)
                          .arg(m_settings.maxLookupAttempts));
    m_exchange = beginExchange("GET", request);
    m_reply = m_network->get(request);
    connect(m_reply, &QNetworkReply::finished, this, &PaymentSearchOperation::onReplyFinished);
}

void PaymentSearchOperation::onReplyFinished()
{
    QNetworkReply *reply = m_reply;
    if (!reply || m_finished)
        return;
    reply->deleteLater();
    m_reply = nullptr;
    const auto [body, status, transport] = readReply(reply, m_exchange, m_settings.timeoutMs);
    m_answer.exchanges.append(m_exchange);
    if (const std::optional<QString> refused = providerhttp::refusedRedirect(reply, m_settings.baseUrl)) {
        finish(*refused);
        return;
    }
    if (providerhttp::retryableRead(status)) {
        const QString why = status == 0
                ? QStringLiteral("no answer from the provider: %1").arg(transport)
                : QStringLiteral("the provider answered %1").arg(providerhttp::providerMessage(status, body));
        if (m_attempt >= m_settings.maxLookupAttempts) {
            finish(QStringLiteral("the search gave up after %1 attempts: %2").arg(m_attempt).arg(why));
            return;
        }
        const int delay =
                providerhttp::retryDelayMs(m_settings, m_attempt, providerhttp::retryAfterMs(reply));
        emit progress(QStringLiteral("%1; trying again in %2 ms").arg(why).arg(delay));
        m_backoff->start(delay);
        return;
    }
    if (status < 200 || status >= 300) {
        finish(QStringLiteral("the provider would not search its payments (%1)")
                       .arg(providerhttp::providerMessage(status, body)));
        return;
    }
    read(body);
}

void PaymentSearchOperation::read(const QByteArray &body)
{
    const QJsonObject result = QJsonDocument::fromJson(body).object();
    if (result.value(QStringLiteral("object")).toString() != u"search_result"
        || !result.value(QStringLiteral("data")).isArray()) {
        finish(QStringLiteral("the provider's answer is not a search result; check the provider URL"));
        return;
    }
    for (const QJsonValue &value : result.value(QStringLiteral("data")).toArray()) {
        const QJsonObject object = value.toObject();
        // Only what the search was for: a payment of this order (a provider that ignored the
        // query must not lend another order's payment).
        if (object.value(QStringLiteral("object")).toString() != u"payment_intent"
            || object.value(QStringLiteral("metadata"))
                            .toObject()
                            .value(QStringLiteral("order_id"))
                            .toString()
                    != m_orderId)
            continue;
        FoundPayment payment;
        payment.id = object.value(QStringLiteral("id")).toString();
        payment.amountCents = qint64(object.value(QStringLiteral("amount")).toDouble());
        payment.currency = object.value(QStringLiteral("currency")).toString().toUpper();
        payment.createdMs = qint64(object.value(QStringLiteral("created")).toDouble()) * 1000;
        // latest_charge is an id, or the charge itself when expanded.
        const QJsonValue charge = object.value(QStringLiteral("latest_charge"));
        payment.latestCharge = charge.isObject() ? charge.toObject().value(QStringLiteral("id")).toString()
                                                 : charge.toString();
        if (!payment.id.isEmpty())
            m_answer.payments.append(payment);
    }
    m_answer.answered = true;
    m_answer.more = result.value(QStringLiteral("has_more")).toBool();
    const QString where =
            m_account.isEmpty() ? QString() : QStringLiteral(" on the seller's account %1").arg(m_account);
    if (m_answer.payments.isEmpty()) {
        finish(QStringLiteral("the provider's search found no payment of order %1%2; %3. Try again in a "
                              "minute, or enter the payment as the provider's dashboard shows it")
                       .arg(m_orderId, where, lagWarning()));
        return;
    }
    QStringList named;
    for (const FoundPayment &payment : std::as_const(m_answer.payments)) {
        named << QStringLiteral("%1 of %2, made %3")
                         .arg(payment.id, formatMoney(payment.amountCents, payment.currency),
                              QDateTime::fromMSecsSinceEpoch(payment.createdMs, Qt::UTC)
                                      .toString(Qt::ISODate));
    }
    if (m_answer.payments.size() == 1 && !m_answer.more) {
        finish(QStringLiteral("the provider's search found one payment of order %1%2: %3")
                       .arg(m_orderId, where, named.first()));
        return;
    }
    finish(QStringLiteral(
                   "the provider's search found %1 payments of order %2%3 (%4)%5; the newest is offered: "
                   "check that it is the one the refund was for")
                   .arg(m_answer.more ? QStringLiteral("more than %1").arg(m_answer.payments.size())
                                      : QString::number(m_answer.payments.size()),
                        m_orderId, where, named.join(QStringLiteral("; ")),
                        m_answer.more ? QStringLiteral(", and more") : QString()));
}

void PaymentSearchOperation::cancel()
{
    if (m_finished)
        return;
    m_backoff->stop();
    if (m_reply) {
        abandonReply(m_reply, this, m_exchange);
        m_answer.exchanges.append(m_exchange);
    }
    finish(QStringLiteral("the search was cancelled"));
}

void PaymentSearchOperation::finish(const QString &reason)
{
    if (m_finished)
        return;
    m_finished = true;
    m_backoff->stop();
    m_answer.reason = reason;
    emit finished(m_answer);
}

PaymentSearchAnswer PaymentSearchOperation::waitFor(PaymentSearchOperation *operation)
{
    runToEnd(operation);
    return operation->answer();
}

} // namespace verity

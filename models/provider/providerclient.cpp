#include "providerclient.h"

#include "domain/paymentreference.h"
#include "oneshotbody.h"
#include "providerhttp.h"
#include "providerurl.h"

#include <QDateTime>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>

namespace verity {

namespace {

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QByteArray formField(const QString &name, const QString &value)
{
    return QUrl::toPercentEncoding(name) + '=' + QUrl::toPercentEncoding(value);
}

} // namespace

QString RefundIntent::paymentParameter() const
{
    // One rule for what an id is: the domain's.
    const Expected<PaymentReference> payment = readPaymentReference(paymentIntent, QString());
    return payment ? payment->parameter() : QStringLiteral("payment_intent");
}

QByteArray refundFormBody(const RefundIntent &intent)
{
    QList<QByteArray> fields{formField(intent.paymentParameter(), intent.paymentIntent),
                             formField(QStringLiteral("amount"), QString::number(intent.amountCents))};
    if (!intent.reason.isEmpty())
        fields.append(formField(QStringLiteral("reason"), intent.reason));
    for (auto it = intent.metadata.cbegin(); it != intent.metadata.cend(); ++it) {
        if (it.key() != u"intent_key")
            fields.append(formField(QStringLiteral("metadata[%1]").arg(it.key()), it.value()));
    }
    fields.append(formField(QStringLiteral("metadata[intent_key]"), intent.intentKey));
    return fields.join('&');
}

ProviderClient::ProviderClient(ProviderSettings settings, QObject *parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , m_lookups(new QNetworkAccessManager(this))
{}

ProviderClient::~ProviderClient() = default;

QString ProviderClient::redactedAuthorization(const QString &apiKey)
{
    if (apiKey.size() <= 8)
        return QStringLiteral("Bearer …");
    const QString prefix =
            apiKey.startsWith(QStringLiteral("sk_")) || apiKey.startsWith(QStringLiteral("rk_"))
            ? apiKey.left(3)
            : QString();
    return QStringLiteral("Bearer ") + prefix + QStringLiteral("…") + apiKey.right(4);
}

RefundOperation *ProviderClient::refund(const RefundIntent &intent)
{
    auto *operation = new RefundOperation(this);
    operation->start(m_settings, intent);
    return operation;
}

LookupOperation *ProviderClient::lookup(const RefundIntent &intent)
{
    auto *operation = new LookupOperation(m_lookups, m_settings, intent, this);
    // Started from the event loop, so the caller can connect to progress() first.
    QTimer::singleShot(0, operation, [operation] {
        if (!operation->isFinished())
            operation->start();
    });
    return operation;
}

RefundAttempt ProviderClient::waitFor(RefundOperation *operation)
{
    if (!operation->isFinished()) {
        QEventLoop loop;
        connect(operation, &RefundOperation::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return operation->attempt();
}

LookupAnswer ProviderClient::waitFor(LookupOperation *operation)
{
    if (!operation->isFinished()) {
        QEventLoop loop;
        connect(operation, &LookupOperation::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return operation->answer();
}

void RefundOperation::start(const ProviderSettings &settings, const RefundIntent &intent)
{
    // A refund without its key could never be recognised when repeated: refuse to send it.
    QString missing;
    if (intent.intentKey.isEmpty())
        missing = QStringLiteral("an intent key");
    else if (intent.paymentIntent.isEmpty())
        missing = QStringLiteral("a payment");
    else if (intent.amountCents <= 0)
        missing = QStringLiteral("a positive amount");
    const Expected<QUrl> baseUrl = checkProviderUrl(settings.baseUrl);
    if (!missing.isEmpty() || !baseUrl) {
        RefundAttempt refused;
        refused.kind = RefundAttempt::Kind::Refused;
        refused.reason = !missing.isEmpty()
                ? QStringLiteral("not sent: the refund has no %1").arg(missing)
                : QStringLiteral("not sent: the provider URL %1").arg(baseUrl.message());
        QTimer::singleShot(0, this, [this, refused] { finish(refused); });
        return;
    }

    const QByteArray body = refundFormBody(intent);

    QNetworkRequest request = providerhttp::request(
            settings, providerhttp::endpoint(settings.baseUrl, QStringLiteral("/v1/refunds")),
            intent.account);
    request.setRawHeader("Content-Type", "application/x-www-form-urlencoded");
    request.setRawHeader("Idempotency-Key", intent.intentKey.toUtf8());
    // A connection of its own, closed after the answer: never a stale kept-alive one that
    // drops as the POST is written (the classic trigger of a silent re-send).
    request.setRawHeader("Connection", "close");
    request.setHeader(QNetworkRequest::ContentLengthHeader, body.size());
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    // A redirect is the provider's answer to this POST: never followed, not even within the origin.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);

    m_exchange.startedAt = now();
    m_exchange.request = providerhttp::describeRequest("POST", request, body);
    // Its own connection manager, hence its own connection pool: nothing is shared with
    // lookups or another refund.
    m_network = new QNetworkAccessManager(this);
    m_reply = m_network->post(request, new OneShotBody(body, this));
    connect(m_reply, &QNetworkReply::finished, this, &RefundOperation::onReplyFinished);
}

void RefundOperation::onReplyFinished()
{
    QNetworkReply *reply = m_reply;
    if (!reply || m_finished)
        return;
    // An aborted reply (a transfer timeout) is closed: there is nothing to read.
    const QByteArray body = reply->isOpen() ? reply->readAll() : QByteArray();
    const int status = providerhttp::httpStatus(reply);
    const int timeoutMs = reply->request().transferTimeout();
    const QString transport = status == 0 ? providerhttp::transportReason(reply, timeoutMs) : QString();
    m_exchange.finishedAt = now();
    m_exchange.response = providerhttp::describeResponse(reply, body, transport);
    if (status != 0)
        m_exchange.answeredBy = providerhttp::answeredBy(reply);

    RefundAttempt attempt;
    attempt.httpStatus = status;
    attempt.exchanges = {m_exchange};
    using Kind = RefundAttempt::Kind;
    if (status == 0) {
        if (providerhttp::nothingWasSent(reply->error())) {
            attempt.kind = Kind::Refused;
            attempt.reason = QStringLiteral("the request never reached the provider: %1").arg(transport);
        } else {
            attempt.kind = Kind::Ambiguous;
            attempt.reason = QStringLiteral("no answer from the provider (%1); the refund may have been made")
                                     .arg(transport);
        }
    } else if (status >= 200 && status < 300
               && !providerhttp::refundFrom(QJsonDocument::fromJson(body).object())) {
        // A 2xx that names no refund (a proxy's page, a truncated body) proves nothing either way.
        attempt.kind = Kind::Ambiguous;
        attempt.reason =
                QStringLiteral(
                        "the provider answered HTTP %1 but named no refund; the refund may have been made")
                        .arg(status);
    } else if (status >= 200 && status < 300) {
        attempt.kind = Kind::Accepted;
        attempt.replayed =
                reply->rawHeader("Idempotent-Replayed").trimmed().compare("true", Qt::CaseInsensitive) == 0;
        attempt.refund = providerhttp::refundFrom(QJsonDocument::fromJson(body).object());
        attempt.reason = attempt.refund
                ? QStringLiteral("%1 refund %2")
                          .arg(attempt.replayed ? QStringLiteral("the provider replayed")
                                                : QStringLiteral("the provider made"),
                               providerhttp::describeRefund(*attempt.refund))
                : QStringLiteral("the provider accepted (HTTP %1) but its answer names no refund")
                          .arg(status);
    } else if (status >= 500) {
        attempt.kind = Kind::Ambiguous;
        attempt.reason = QStringLiteral("the provider failed (%1); the refund may have been made")
                                 .arg(providerhttp::providerMessage(status, body));
    } else if (const std::optional<QString> redirect =
                       providerhttp::refusedRedirect(reply, reply->request().url());
               redirect && status < 400) {
        // A redirect moved no money where it was sent (today's rule for any answer below 500
        // but a key conflict), and following it would send the refund, and the key, on.
        attempt.kind = Kind::Refused;
        attempt.reason = QStringLiteral("the provider answered with a redirect: %1").arg(*redirect);
    } else {
        const std::optional<providerhttp::ProviderError> error = providerhttp::providerError(body);
        // Any 409 is a conflict with another request (bodies vary), so it proves nothing either way.
        const bool keyUsedBefore =
                (status == 400 && error && error->type == u"idempotency_error") || status == 409;
        attempt.kind = keyUsedBefore ? Kind::Ambiguous : Kind::Refused;
        attempt.reason = keyUsedBefore
                ? QStringLiteral("the intent key was used before (%1); only a lookup can tell whether "
                                 "the refund was made")
                          .arg(providerhttp::providerMessage(status, body))
                : QStringLiteral("the provider refused: %1").arg(providerhttp::providerMessage(status, body));
    }
    finish(attempt);
}

void RefundOperation::cancel()
{
    if (m_finished)
        return;
    const bool underWay = m_reply != nullptr;
    if (m_reply) {
        disconnect(m_reply, nullptr, this, nullptr);
        m_reply->abort();
    }
    RefundAttempt attempt;
    attempt.kind = RefundAttempt::Kind::Ambiguous;
    attempt.reason =
            QStringLiteral("cancelled by the operator; the request may already have reached the provider");
    if (underWay) {
        m_exchange.finishedAt = now();
        m_exchange.response = QStringLiteral("no HTTP answer: cancelled by the operator");
        attempt.exchanges = {m_exchange};
    }
    finish(attempt);
}

void RefundOperation::finish(RefundAttempt attempt)
{
    if (m_finished)
        return;
    m_finished = true;
    m_attempt = std::move(attempt);
    emit finished(m_attempt);
}

} // namespace verity

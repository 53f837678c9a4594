#include "providerhttp.h"

#include "domain/money.h"
#include "providerurl.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

namespace verity::providerhttp {

QUrl endpoint(const QUrl &baseUrl, const QString &path, const QUrlQuery &query)
{
    QUrl url = baseUrl;
    QString prefix = url.path();
    while (prefix.endsWith(u'/'))
        prefix.chop(1);
    url.setPath(prefix + path);
    url.setQuery(query);
    url.setFragment(QString());
    return url;
}

QNetworkRequest request(const ProviderSettings &settings, const QUrl &url, const QString &account)
{
    QNetworkRequest request(url);
    if (!account.isEmpty())
        request.setRawHeader("Stripe-Account", account.toUtf8());
    request.setRawHeader("Authorization", QByteArrayLiteral("Bearer ") + settings.apiKey.toUtf8());
    request.setRawHeader("Accept", "application/json");
    // Pinned: the shapes Verity reads are this version's, whatever the account's default is.
    request.setRawHeader("Stripe-Version", stripeApiVersion);
    // No byte moving for this long ends the request (a stalled answer included).
    request.setTransferTimeout(settings.timeoutMs);
    // Qt's default follows a redirect to any host with the Authorization header still on.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::SameOriginRedirectPolicy);
    request.setMaximumRedirectsAllowed(maxRedirects);
    return request;
}

QUrl answeredBy(QNetworkReply *reply)
{
    return reply->url();
}

std::optional<QString> refusedRedirect(QNetworkReply *reply, const QUrl &baseUrl)
{
    const int status = httpStatus(reply);
    if (status == 0)
        return std::nullopt;
    const QUrl answered = answeredBy(reply);
    const QByteArray location = reply->rawHeader("Location").trimmed();
    if (status >= 300 && status < 400 && !location.isEmpty()) {
        const QUrl target = answered.resolved(QUrl::fromEncoded(location));
        const QString shown = target.isValid() ? target.toString(QUrl::FullyEncoded | QUrl::RemoveUserInfo)
                                               : QString::fromLatin1(location);
        if (reply->error() == QNetworkReply::TooManyRedirectsError)
            return QStringLiteral(
                           "the provider kept redirecting (the last time to %1); Verity stopped following")
                    .arg(shown);
        if (!target.isValid() || !sameOrigin(target, baseUrl))
            return QStringLiteral(
                           "the provider redirected to %1; Verity sends the API key only to %2, so it did "
                           "not follow")
                    .arg(shown, originOf(baseUrl));
        return QStringLiteral("the provider redirected to %1, which Verity did not follow").arg(shown);
    }
    // Qt keeps to the origin; this holds should that ever change.
    if (!sameOrigin(answered, baseUrl))
        return QStringLiteral("the answer came from %1, not from %2; Verity does not take it")
                .arg(answered.toString(QUrl::FullyEncoded | QUrl::RemoveUserInfo), originOf(baseUrl));
    return std::nullopt;
}

QString describeRequest(const QByteArray &method, const QNetworkRequest &request, const QByteArray &body)
{
    QString text = QString::fromLatin1(method) + u' '
            + request.url().toString(QUrl::FullyEncoded
                                     | QUrl::RemoveUserInfo) /* never a password in evidence */
            + u'\n';
    for (const QByteArray &name : request.rawHeaderList()) {
        QString value = QString::fromUtf8(request.rawHeader(name));
        if (name.compare("Authorization", Qt::CaseInsensitive) == 0
            && value.startsWith(QStringLiteral("Bearer ")))
            value = ProviderClient::redactedAuthorization(value.mid(7));
        text += QString::fromLatin1(name) + QStringLiteral(": ") + value + u'\n';
    }
    if (request.header(QNetworkRequest::ContentTypeHeader).isValid() && !request.hasRawHeader("Content-Type"))
        text += QStringLiteral("Content-Type: ")
                + request.header(QNetworkRequest::ContentTypeHeader).toString() + u'\n';
    if (!body.isEmpty())
        text += u'\n' + QString::fromUtf8(body);
    return text;
}

QString describeResponse(QNetworkReply *reply, const QByteArray &body, const QString &transportReason)
{
    const int status = httpStatus(reply);
    if (status == 0)
        return QStringLiteral("no HTTP answer: ") + transportReason;
    QString text = QStringLiteral("HTTP %1 %2\n")
                           .arg(status)
                           .arg(reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString());
    // After a redirect within the origin, the request line names a URL that did not answer.
    text += QStringLiteral("Answered by: ")
            + answeredBy(reply).toString(QUrl::FullyEncoded | QUrl::RemoveUserInfo) + u'\n';
    for (const auto &[name, value] : reply->rawHeaderPairs())
        text += QString::fromLatin1(name) + QStringLiteral(": ") + QString::fromUtf8(value) + u'\n';
    text += u'\n' + QString::fromUtf8(body);
    return text;
}

int httpStatus(QNetworkReply *reply)
{
    return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
}

QString transportReason(QNetworkReply *reply, int timeoutMs)
{
    switch (reply->error()) {
    case QNetworkReply::OperationCanceledError: // Qt 6.4 ends a transfer timeout with abort()
    case QNetworkReply::TimeoutError:
        return QStringLiteral("timed out after %1 ms without an answer").arg(timeoutMs);
    case QNetworkReply::ConnectionRefusedError:
        return QStringLiteral("connection refused (%1)").arg(reply->errorString());
    case QNetworkReply::HostNotFoundError:
        return QStringLiteral("host not found (%1)").arg(reply->errorString());
    case QNetworkReply::RemoteHostClosedError:
        return QStringLiteral("the provider closed the connection without an answer (%1)")
                .arg(reply->errorString());
    case QNetworkReply::InsecureRedirectError:
        return QStringLiteral(
                "the provider redirected to another origin, which Verity does not send the API key "
                "to");
    case QNetworkReply::ContentReSendError:
        return QStringLiteral(
                "the connection dropped after the request was sent, without an answer; it was not "
                "sent again");
    default:
        return reply->errorString();
    }
}

bool nothingWasSent(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::SslHandshakeFailedError: // the request is written only after the handshake
    case QNetworkReply::ProtocolUnknownError:
    case QNetworkReply::ProtocolInvalidOperationError:
        return true;
    default:
        return false;
    }
}

std::optional<ProviderError> providerError(const QByteArray &body)
{
    const QJsonObject error =
            QJsonDocument::fromJson(body).object().value(QStringLiteral("error")).toObject();
    if (error.isEmpty())
        return std::nullopt;
    return ProviderError{error.value(QStringLiteral("type")).toString(),
                         error.value(QStringLiteral("code")).toString(),
                         error.value(QStringLiteral("message")).toString(),
                         error.value(QStringLiteral("param")).toString()};
}

QString providerMessage(int status, const QByteArray &body)
{
    const std::optional<ProviderError> error = providerError(body);
    if (error && !error->message.isEmpty())
        return QStringLiteral("HTTP %1: %2").arg(status).arg(error->message);
    return QStringLiteral("HTTP %1 without an error message").arg(status);
}

std::optional<ProviderRefund> refundFrom(const QJsonObject &object)
{
    const QString id = object.value(QStringLiteral("id")).toString();
    if (id.isEmpty() || object.value(QStringLiteral("object")).toString() != u"refund")
        return std::nullopt;
    ProviderRefund refund;
    refund.id = id;
    refund.paymentIntent = object.value(QStringLiteral("payment_intent")).toString();
    refund.charge = object.value(QStringLiteral("charge")).toString();
    refund.amountCents = object.value(QStringLiteral("amount")).toInteger();
    refund.currency = object.value(QStringLiteral("currency")).toString().toUpper();
    refund.status = object.value(QStringLiteral("status")).toString();
    refund.createdMs = object.value(QStringLiteral("created")).toInteger() * 1000;
    refund.intentKey = object.value(QStringLiteral("metadata"))
                               .toObject()
                               .value(QStringLiteral("intent_key"))
                               .toString();
    return refund;
}

QString describeRefund(const ProviderRefund &refund)
{
    return QStringLiteral("%1 of %2 (%3, created %4)")
            .arg(refund.id,
                 formatMoney(refund.amountCents,
                             refund.currency.isEmpty() ? QStringLiteral("USD") : refund.currency),
                 refund.status.isEmpty() ? QStringLiteral("status not given") : refund.status.text(),
                 QDateTime::fromMSecsSinceEpoch(refund.createdMs, Qt::UTC).toString(Qt::ISODate));
}

bool retryableRead(int status)
{
    return status == 0 || status == 429 || status >= 500;
}

int retryAfterMs(QNetworkReply *reply)
{
    bool valid = false;
    const int seconds = reply->rawHeader("Retry-After").trimmed().toInt(&valid);
    return valid && seconds > 0 ? seconds * 1000 : 0;
}

int retryDelayMs(const ProviderSettings &settings, int attemptsMade, int retryAfterMs)
{
    const int doublings = qBound(0, attemptsMade - 1, 20);
    const qint64 bound = qMin<qint64>(settings.backoffCapMs, qint64(settings.backoffBaseMs) << doublings);
    const qint64 jitter = QRandomGenerator::global()->bounded(qMax<qint64>(bound, 0) + 1);
    return int(qMax<qint64>(jitter, qMin<qint64>(retryAfterMs, settings.backoffCapMs)));
}

} // namespace verity::providerhttp

#include "providerread.h"

#include "providerhttp.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>

namespace verity {

ProviderRead::ProviderRead(ProviderSettings settings, ReadTerms terms, QNetworkAccessManager *network,
                           QObject *parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , m_terms(std::move(terms))
    , m_network(network ? network : new QNetworkAccessManager(this))
    , m_backoff(new QTimer(this))
{
    m_backoff->setSingleShot(true);
    connect(m_backoff, &QTimer::timeout, this, &ProviderRead::send);
}

ProviderRead::~ProviderRead()
{
    // A shared connection manager outlives this read: stop the reply rather than let it run on.
    if (m_reply) {
        disconnect(m_reply, nullptr, this, nullptr);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void ProviderRead::ask(const QUrl &url, const QString &account)
{
    m_url = url;
    m_account = account;
    m_attempt = 0;
    send();
}

void ProviderRead::send()
{
    if (m_finished)
        return;
    ++m_attempt;
    const QNetworkRequest request = providerhttp::request(m_settings, m_url, m_account);
    emit progress(step(m_attempt));
    m_exchange = beginExchange("GET", request);
    QNetworkReply *reply = m_network->get(request);
    m_reply = reply;
    connect(reply, &QNetworkReply::finished, this, [this, reply] { onReplyFinished(reply); });
}

void ProviderRead::onReplyFinished(QNetworkReply *reply)
{
    reply->deleteLater();
    if (reply != m_reply || m_finished)
        return; // abandoned
    m_reply = nullptr;
    const ReplyRead read = readReply(reply, m_exchange, m_settings.timeoutMs);
    m_exchanges.append(m_exchange);

    // Before anything else: an answer from elsewhere, or a redirect there, settles nothing and
    // is not worth asking again.
    if (m_terms.refuseRedirects) {
        if (const std::optional<QString> refused = providerhttp::refusedRedirect(reply, m_settings.baseUrl)) {
            stop(*refused);
            return;
        }
    }
    if (providerhttp::retryableRead(read.status)) {
        retryOrStop(
                read.status == 0
                        ? QStringLiteral("no answer from %1: %2").arg(m_terms.system, read.transport)
                        : QStringLiteral("%1 answered %2")
                                  .arg(m_terms.system, providerhttp::providerMessage(read.status, read.body)),
                providerhttp::retryAfterMs(reply));
        return;
    }
    readAnswer(read);
}

void ProviderRead::retryOrStop(const QString &why, int retryAfterMs)
{
    if (m_attempt >= m_settings.maxLookupAttempts) {
        stop(QStringLiteral("%1 after %2 attempts: %3").arg(m_terms.gaveUp, QString::number(m_attempt), why));
        return;
    }
    const int delay = providerhttp::retryDelayMs(m_settings, m_attempt, retryAfterMs);
    emit progress(QStringLiteral("%1; trying again in %2 ms").arg(why).arg(delay));
    m_backoff->start(delay);
}

std::optional<QString> ProviderRead::refusedKey(const ReplyRead &read) const
{
    if (read.status != 401 && read.status != 403)
        return std::nullopt;
    return QStringLiteral("%1 refused the API key (%2)")
            .arg(m_terms.system, providerhttp::providerMessage(read.status, read.body));
}

void ProviderRead::cancel()
{
    if (m_finished)
        return;
    m_backoff->stop();
    if (m_reply) {
        abandonReply(m_reply, this, m_exchange);
        m_exchanges.append(m_exchange);
    }
    stop(m_terms.cancelled);
}

bool ProviderRead::markFinished()
{
    if (m_finished)
        return false;
    m_finished = true;
    m_backoff->stop();
    return true;
}

} // namespace verity

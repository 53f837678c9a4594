#pragma once
// What every read of an authoritative system does the same way: one GET at a time with the
// settings' key, headers and timeouts; the reply read once and kept as evidence; transport
// errors, 5xx and 429 asked again with capped, jittered backoff (never sooner than Retry-After
// asks, itself capped) until the attempts of one question run out; and a cancel that keeps the
// abandoned exchange. What to ask, how to read an answer and what it proves is the derived
// operation's.

#include "httpexchange.h"
#include "providerreply.h"
#include "providersettings.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <optional>

class QNetworkAccessManager;
class QNetworkReply;
class QTimer;

namespace verity {

// How a read speaks, in the reasons the base gives, of the system it asks and of its end.
struct ReadTerms
{
    QString system = QStringLiteral("the provider"); // "no answer from the provider: …"
    QString gaveUp = QStringLiteral("gave up"); // "gave up after 4 attempts: …"
    QString cancelled = QStringLiteral("cancelled by the operator");
    // A redirect not followed, or an answer from outside the base URL's origin, ends the read
    // with the reason in words; off, such an answer is read like any other.
    bool refuseRedirects = true;
};

class ProviderRead : public QObject
{
    Q_OBJECT

public:
    ~ProviderRead() override;

    // Finishes at once (stop() with the terms' "cancelled"), keeping a request under way as
    // an exchange without an answer.
    void cancel();
    bool isFinished() const { return m_finished; }

signals:
    void progress(const QString &step);

protected:
    // `network`: a connection manager shared with others, or nullptr for one of its own.
    ProviderRead(ProviderSettings settings, ReadTerms terms, QNetworkAccessManager *network, QObject *parent);

    const ProviderSettings &settings() const { return m_settings; }
    // Every exchange so far, in order, the API key redacted.
    const QList<HttpExchange> &exchanges() const { return m_exchanges; }

    // A new question: GET `url` (about the connected `account`, if any), its attempts counted
    // from one. A retry asks the same again.
    void ask(const QUrl &url, const QString &account = {});
    // Marks the read finished, so nothing is asked from now on; false when it already was.
    bool markFinished();
    // "the provider refused the API key (HTTP 401: …)" on a 401 or 403; nothing otherwise.
    std::optional<QString> refusedKey(const ReplyRead &read) const;

    // The progress text of this attempt at the current question.
    virtual QString step(int attempt) const = 0;
    // An answer that is not to be asked again: read it, then ask() more or finish.
    virtual void readAnswer(const ReplyRead &read) = 0;
    // The read ends without a verdict of its own: gave up, refused, cancelled.
    virtual void stop(const QString &reason) = 0;

private:
    void send();
    void onReplyFinished(QNetworkReply *reply);
    void retryOrStop(const QString &why, int retryAfterMs);

    ProviderSettings m_settings;
    ReadTerms m_terms;
    QNetworkAccessManager *m_network;
    QTimer *m_backoff;
    QUrl m_url;
    QString m_account;
    int m_attempt = 0;
    QPointer<QNetworkReply> m_reply;
    HttpExchange m_exchange;
    QList<HttpExchange> m_exchanges;
    bool m_finished = false;
};

} // namespace verity

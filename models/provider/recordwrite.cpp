#include "recordwrite.h"

#include "oneshotbody.h"
#include "providerhttp.h"
#include "providerreply.h"
#include "systemnames.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>

namespace verity {

QByteArray recordWriteBody(const RecordWrite &write)
{
    QList<QByteArray> fields;
    for (const auto &[name, value] : write.form) {
        if (name != u"metadata[intent_key]")
            fields.append(QUrl::toPercentEncoding(name) + '=' + QUrl::toPercentEncoding(value));
    }
    fields.append("metadata%5Bintent_key%5D=" + QUrl::toPercentEncoding(write.intentKey));
    return fields.join('&');
}

RecordWriteOperation::RecordWriteOperation(ProviderSettings settings, RecordWrite write, QObject *parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , m_write(std::move(write))
{}

void RecordWriteOperation::start()
{
    if (m_started || m_finished)
        return;
    m_started = true;
    // A write without its key could never be recognised when repeated: refuse to send it.
    QString missing;
    if (m_write.intentKey.isEmpty())
        missing = QStringLiteral("an intent key");
    else if (!m_write.path.startsWith(u'/'))
        missing = QStringLiteral("a path to post to");
    else if (!m_settings.baseUrl.isValid() || m_settings.baseUrl.isRelative())
        missing = QStringLiteral("a base URL of %1").arg(systemWords(m_write.system));
    if (!missing.isEmpty()) {
        RecordWriteAttempt refused;
        refused.kind = RecordWriteAttempt::Kind::Refused;
        refused.reason = QStringLiteral("not sent: the write has no %1").arg(missing);
        finish(refused);
        return;
    }

    const QByteArray body = recordWriteBody(m_write);

    QNetworkRequest request =
            providerhttp::request(m_settings, providerhttp::endpoint(m_settings.baseUrl, m_write.path));
    request.setRawHeader("Content-Type", "application/x-www-form-urlencoded");
    request.setRawHeader("Idempotency-Key", m_write.intentKey.toUtf8());
    makeOneShot(request, body.size());
    m_exchange = beginExchange("POST", request, body);
    // A connection manager of its own, hence a connection pool of its own: nothing is shared
    // with lookups or another write.
    auto *network = new QNetworkAccessManager(this);
    m_reply = network->post(request, new OneShotBody(body, this));
    connect(m_reply, &QNetworkReply::finished, this, &RecordWriteOperation::onReplyFinished);
}

RecordWriteAttempt RecordWriteOperation::waitFor(RecordWriteOperation *operation)
{
    runToEnd(operation);
    return operation->attempt();
}

void RecordWriteOperation::onReplyFinished()
{
    QNetworkReply *reply = m_reply;
    if (!reply || m_finished)
        return;
    const ReplyRead read = readReply(reply, m_exchange, reply->request().transferTimeout());
    RecordWriteAttempt attempt = classify(read.body, read.status, read.transport, reply);
    attempt.httpStatus = read.status;
    attempt.exchanges = {m_exchange};
    finish(attempt);
}

RecordWriteAttempt RecordWriteOperation::classify(const QByteArray &body, int status,
                                                  const QString &transport, QNetworkReply *reply) const
{
    using Kind = RecordWriteAttempt::Kind;
    RecordWriteAttempt attempt;
    const QString system = systemWords(m_write.system);
    const QString mayHave = QStringLiteral("; %1 may have made it").arg(system);
    if (status == 0) {
        const bool neverSent = providerhttp::nothingWasSent(reply->error());
        attempt.kind = neverSent ? Kind::Refused : Kind::Ambiguous;
        attempt.reason = neverSent
                ? QStringLiteral("the request never reached %1: %2").arg(system, transport)
                : QStringLiteral("no answer from %1 (%2)").arg(system, transport) + mayHave;
        return attempt;
    }
    if (status >= 200 && status < 300) {
        // A 2xx that names no record (a proxy's page, a truncated body) proves nothing either way.
        attempt.record = foundRecordFrom(QJsonDocument::fromJson(body).object());
        attempt.kind = attempt.record ? Kind::Accepted : Kind::Ambiguous;
        attempt.replayed =
                reply->rawHeader("Idempotent-Replayed").trimmed().compare("true", Qt::CaseInsensitive) == 0;
        attempt.reason = !attempt.record
                ? QStringLiteral("%1 answered HTTP %2 but named no record").arg(system).arg(status) + mayHave
                : QStringLiteral("%1 %2 %3")
                          .arg(system, attempt.replayed ? QStringLiteral("replayed") : QStringLiteral("made"),
                               attempt.record->id);
        return attempt;
    }
    const QString message = providerhttp::providerMessage(status, body);
    if (status >= 500) {
        attempt.kind = Kind::Ambiguous;
        attempt.reason = QStringLiteral("%1 failed (%2)").arg(system, message) + mayHave;
        return attempt;
    }
    const std::optional<providerhttp::ProviderError> error = providerhttp::providerError(body);
    // Any 409 is a conflict with another request (bodies vary), so it proves nothing either way.
    if ((status == 400 && error && error->type == u"idempotency_error") || status == 409) {
        attempt.kind = Kind::Ambiguous;
        attempt.reason =
                QStringLiteral("the intent key was used before (%1); only a lookup can tell whether %2 "
                               "made it")
                        .arg(message, system);
        return attempt;
    }
    attempt.kind = Kind::Refused;
    attempt.reason = QStringLiteral("%1 refused: %2").arg(system, message);
    return attempt;
}

void RecordWriteOperation::cancel()
{
    if (m_finished)
        return;
    RecordWriteAttempt attempt;
    // Before start() nothing was sent; after it, the POST may have reached the system.
    attempt.kind = m_started ? RecordWriteAttempt::Kind::Ambiguous : RecordWriteAttempt::Kind::Refused;
    attempt.reason = m_started
            ? QStringLiteral("cancelled by the operator; the request may already have reached %1")
                      .arg(systemWords(m_write.system))
            : QStringLiteral("cancelled by the operator before it was sent; nothing was sent");
    if (m_reply) {
        abandonReply(m_reply, this, m_exchange);
        attempt.exchanges = {m_exchange};
    }
    finish(attempt);
}

void RecordWriteOperation::finish(RecordWriteAttempt attempt)
{
    if (!m_finished) {
        m_finished = true; // start() sends nothing from now on
        m_attempt = std::move(attempt);
        emit finished(m_attempt);
    }
}

} // namespace verity

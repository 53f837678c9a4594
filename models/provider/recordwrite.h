#pragma once
// Sends one pickup or message to the system it goes to: a POST with the call's intent key as
// Idempotency-Key and as metadata[intent_key], sent exactly once. It is never retried here,
// and Qt is kept from sending it again the way the refund POST is (oneshotbody.h). Its answer
// is read as a refund's: accepted, refused, or ambiguous, which only a lookup settles.

#include "recordlookup.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <optional>
#include <utility>

class QNetworkReply;

namespace verity {

struct RecordWrite
{
    QString system; // "courier": for the words a person reads
    QString path; // "/v1/pickups", under the settings' base URL
    QString intentKey; // sent as Idempotency-Key and as metadata[intent_key]
    // The form, in this order: ("order", "SU-88316"), ("metadata[ticket_id]", "T-…"). A
    // metadata[intent_key] given here is replaced by intentKey.
    QList<std::pair<QString, QString>> form;
};

// The write's form body, exactly as sent, metadata[intent_key] last.
QByteArray recordWriteBody(const RecordWrite &write);

struct RecordWriteAttempt
{
    // Accepted: the system answered 2xx naming the record (made now, or on the key's first use).
    // Refused: the system said no, or the request provably never left: nothing happened.
    // Ambiguous: it may or may not have happened; only a lookup can tell. Never retry blind.
    enum class Kind { Accepted, Refused, Ambiguous } kind = Kind::Ambiguous;
    std::optional<FoundRecord> record; // Accepted
    int httpStatus = 0; // 0: no HTTP answer
    bool replayed = false; // Idempotent-Replayed: true (the key was used before)
    QString reason;
    QList<HttpExchange> exchanges;
};

class RecordWriteOperation : public QObject
{
    Q_OBJECT

public:
    RecordWriteOperation(ProviderSettings settings, RecordWrite write, QObject *parent = nullptr);

    // Sends the POST; connect to finished() first. A second call sends nothing.
    void start();
    // Finishes at once: as Ambiguous "cancelled by the operator" once started (a POST under
    // way may have reached the system), as Refused before (nothing was sent, nor will be).
    void cancel();
    bool isFinished() const { return m_finished; }
    const RecordWriteAttempt &attempt() const { return m_attempt; }

    // Starts it if need be and blocks (a local event loop) until it finishes.
    static RecordWriteAttempt waitFor(RecordWriteOperation *operation);

signals:
    void finished(const verity::RecordWriteAttempt &attempt);

private:
    void onReplyFinished();
    RecordWriteAttempt classify(const QByteArray &body, int status, const QString &transport,
                                QNetworkReply *reply) const;
    void finish(RecordWriteAttempt attempt);

    ProviderSettings m_settings;
    RecordWrite m_write;
    QPointer<QNetworkReply> m_reply;
    HttpExchange m_exchange;
    RecordWriteAttempt m_attempt;
    bool m_started = false;
    bool m_finished = false;
};

} // namespace verity

#pragma once
// Talks to the payment provider (the sandbox, or a Stripe-shaped API): one refund POST and
// the lookup that settles an unknown one. A POST is sent exactly once: it is never retried
// here, and Qt is kept from re-sending it (see refund()). A lookup is a read, retried with
// capped exponential backoff and full jitter.
//
// Every answer names what happened in words (`reason`) and carries every HTTP exchange as
// evidence, with the API key redacted.

#include "domain/recordstatus.h"
#include "httpexchange.h"
#include "providerread.h"
#include "providersettings.h"
#include "store/records.h"

#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace verity {

struct RefundIntent
{
    QString intentKey; // sent as Idempotency-Key and as metadata[intent_key]
    QString paymentIntent; // the payment refunded: a PaymentIntent (pi_…) or a Charge (ch_…)
    QString paymentSource; // where that payment was named: "order SU-1", "entered by Dana"
    QString account; // the seller's connected account (Stripe-Account); empty: the platform's payment
    // The payment was named by a person, not by the data. No refund under it proves nothing
    // unless the provider says it paid for this order (metadata[order_id] = metadata's
    // order_id): a payment copied from the wrong row would otherwise "prove" a refund absent.
    bool confirmPayment = false;
    qint64 amountCents = 0;
    QString currency = QStringLiteral("USD"); // the payment's; a refund takes no currency of its own
    QString reason; // Stripe's: "requested_by_customer", "duplicate", "fraudulent"; empty sends none
    QMap<QString, QString> metadata; // metadata[intent_key] is always sent as intentKey

    // The parameter the provider files the payment's refunds under: "charge" or "payment_intent".
    QString paymentParameter() const;
};

// The refund POST's form body, exactly as sent: payment_intent, amount, reason, the metadata,
// then metadata[intent_key]. Evidence of a write about to be sent quotes the same bytes.
QByteArray refundFormBody(const RefundIntent &intent);

struct ProviderRefund
{
    QString id;
    QString paymentIntent;
    QString charge; // the charge refunded, when the provider names it
    qint64 amountCents = 0;
    QString currency; // upper case, as Verity writes currencies: "USD"
    RecordStatus status;
    qint64 createdMs = 0;
    QString intentKey; // from metadata; empty on a refund made without one
};

struct RefundAttempt
{
    // Accepted: the provider answered 2xx (money moved now, or on the first use of the key).
    // Refused: the provider said no, or the request provably never left: nothing happened.
    // Ambiguous: it may or may not have happened; only a lookup can tell. Never retry blind.
    enum class Kind { Accepted, Refused, Ambiguous } kind = Kind::Ambiguous;
    std::optional<ProviderRefund> refund; // Accepted (empty if the 2xx body named no refund)
    int httpStatus = 0; // 0: no HTTP answer
    bool replayed = false; // Idempotent-Replayed: true (the key was used before)
    QString reason;
    QList<HttpExchange> exchanges;
};

struct LookupAnswer
{
    // Found: a refund of the payment carries the intent key. NotFound: the whole list of the
    // payment's refunds was read and none does (nor could be this one made without a key).
    // CouldNotTell: anything else, with the reason; never taken for "not performed".
    LookupVerdict verdict = LookupVerdict::CouldNotTell;
    std::optional<ProviderRefund> refund; // Found: the first created of those with the key
    QList<ProviderRefund> withKey; // Found: every refund carrying the key, oldest first
    QString reason;
    QList<HttpExchange> exchanges;
};

class RefundOperation : public QObject
{
    Q_OBJECT

public:
    // Finishes at once as Ambiguous "cancelled by the operator": a POST already under way
    // may have reached the provider.
    void cancel();
    bool isFinished() const { return m_finished; }
    const RefundAttempt &attempt() const { return m_attempt; }

signals:
    void finished(const verity::RefundAttempt &attempt);

private:
    friend class ProviderClient;
    explicit RefundOperation(QObject *parent)
        : QObject(parent)
    {}
    void start(const ProviderSettings &settings, const RefundIntent &intent);
    void onReplyFinished();
    void finish(RefundAttempt attempt);

    QPointer<QNetworkReply> m_reply;
    QNetworkAccessManager *m_network = nullptr;
    HttpExchange m_exchange;
    RefundAttempt m_attempt;
    bool m_finished = false;
};

class LookupOperation : public ProviderRead
{
    Q_OBJECT

public:
    // cancel() finishes it at once as CouldNotTell "cancelled by the operator".
    const LookupAnswer &answer() const { return m_answer; }

signals:
    void finished(const verity::LookupAnswer &answer);

private:
    friend class ProviderClient;
    LookupOperation(QNetworkAccessManager *network, ProviderSettings settings, RefundIntent intent,
                    QObject *parent);
    void start();
    void askPage();
    void askPayment(); // the payment itself, to tie a payment a person named to the order
    QString step(int attempt) const override;
    void readAnswer(const ReplyRead &read) override;
    void stop(const QString &reason) override;
    // Keeps the refunds of a page and says whether more follow; nullopt: it cannot be read,
    // and the lookup has finished as CouldNotTell.
    std::optional<bool> readPage(int status, const QByteArray &body);
    QString cannotList(const QString &providerMessage) const;
    void readPayment(int status, const QByteArray &body);
    // "Not found", once a payment a person named is known to be the order's.
    void notFound(const QString &reason);
    void decide();
    void finish(LookupVerdict verdict, const QString &reason,
                std::optional<ProviderRefund> refund = std::nullopt);

    RefundIntent m_intent;
    QString m_startingAfter; // the page cursor: the last refund id read
    int m_page = 1;
    QList<ProviderRefund> m_refunds; // every refund of the payment read so far
    bool m_confirming = false; // reading the payment, not its refunds
    QString m_notFound; // what the refunds said, while the payment is being tied to the order
    LookupAnswer m_answer;
};

class ProviderClient : public QObject
{
    Q_OBJECT

public:
    explicit ProviderClient(ProviderSettings settings, QObject *parent = nullptr);
    ~ProviderClient() override;

    const ProviderSettings &settings() const { return m_settings; }

    // POST /v1/refunds once, with Idempotency-Key = intentKey. NEVER retried, by Qt or by us:
    // each POST goes on a fresh connection of its own (a connection manager per operation,
    // "Connection: close", HTTP/1.1 only, no redirects followed), and its body is a device
    // that cannot be rewound, so Qt's internal re-send of a request whose connection dropped
    // fails (as "ambiguous") instead of sending the refund again. A redirect is the provider's
    // answer (refused), never followed.
    RefundOperation *refund(const RefundIntent &intent);
    // GET /v1/refunds?payment_intent=...&limit=100, every page, then matches
    // metadata[intent_key]. A read: retried on transport errors, 5xx and 429. A redirect is
    // followed only within the base URL's origin; one elsewhere is "could not tell".
    LookupOperation *lookup(const RefundIntent &intent);

    // Block (a local event loop) until the operation finishes: the command line and tests.
    static RefundAttempt waitFor(RefundOperation *operation);
    static LookupAnswer waitFor(LookupOperation *operation);

    // "Bearer sk_…abcd": what the evidence shows instead of the key.
    static QString redactedAuthorization(const QString &apiKey);

private:
    ProviderSettings m_settings;
    QNetworkAccessManager *m_lookups; // reads share connections; each POST gets its own
};

} // namespace verity

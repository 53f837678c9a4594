#pragma once
// Finds the payment of an order with the provider's search of payment intents
// by metadata (Stripe: GET
// /v1/payment_intents/search?query=metadata['order_id']:'…'). What it finds is
// offered to a person, who names the payment; it settles nothing. Stripe's
// search index lags behind new payments (about a minute, longer during an
// outage), so an empty result is never evidence that a payment, or a refund of
// it, does not exist.

#include "providerclient.h"
#include "providerread.h"

#include <QList>
#include <QObject>
#include <QString>

namespace verity {

struct FoundPayment
{
    QString id; // "pi_…"
    qint64 amountCents = 0;
    QString currency; // upper case: "USD"
    qint64 createdMs = 0;
    QString latestCharge; // "ch_…", when the provider names it
};

struct PaymentSearchAnswer
{
    bool answered = false; // the provider's search answered and its answer was read
    QList<FoundPayment> payments; // newest first
    bool more = false; // more payments carry the order than were read
    QString reason; // what was found, or why nothing was, in words
    QList<HttpExchange> exchanges;
};

class PaymentSearchOperation : public ProviderRead
{
    Q_OBJECT

public:
    // `account`: the seller's connected account to search in (Stripe-Account);
    // empty: the platform's payments.
    PaymentSearchOperation(ProviderSettings settings, QString orderId, QString account,
                           QObject *parent = nullptr);

    void start(); // once; connect to finished() first
    // cancel() finishes it at once: "the search was cancelled".
    const PaymentSearchAnswer &answer() const { return m_answer; }
    static PaymentSearchAnswer waitFor(PaymentSearchOperation *operation);

    // metadata['order_id']:'SU-1', a quote or backslash in the order escaped.
    static QString queryFor(const QString &orderId);

signals:
    void finished(const verity::PaymentSearchAnswer &answer);

private:
    QString step(int attempt) const override;
    void readAnswer(const ReplyRead &read) override;
    void stop(const QString &reason) override;
    void readResult(const QByteArray &body);
    // What the search found, in words.
    QString summary() const;
    void finish(const QString &reason);

    QString m_orderId;
    QString m_account;
    bool m_started = false;
    PaymentSearchAnswer m_answer;
};

} // namespace verity

#pragma once
// Finds the payment of an order with the provider's search of payment intents by metadata
// (Stripe: GET /v1/payment_intents/search?query=metadata['order_id']:'…'). What it finds is
// offered to a person, who names the payment; it settles nothing. Stripe's search index lags
// behind new payments (about a minute, longer during an outage), so an empty result is never
// evidence that a payment, or a refund of it, does not exist.

#include "providerclient.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

class QNetworkAccessManager;
class QNetworkReply;
class QTimer;

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

class PaymentSearchOperation : public QObject
{
    Q_OBJECT

public:
    // `account`: the seller's connected account to search in (Stripe-Account); empty: the
    // platform's payments.
    PaymentSearchOperation(ProviderSettings settings, QString orderId, QString account,
                           QObject *parent = nullptr);
    ~PaymentSearchOperation() override;

    void start(); // once; connect to finished() first
    void cancel();
    bool isFinished() const { return m_finished; }
    const PaymentSearchAnswer &answer() const { return m_answer; }
    static PaymentSearchAnswer waitFor(PaymentSearchOperation *operation);

    // metadata['order_id']:'SU-1', a quote or backslash in the order escaped.
    static QString queryFor(const QString &orderId);

signals:
    void progress(const QString &step);
    void finished(const verity::PaymentSearchAnswer &answer);

private:
    void request();
    void onReplyFinished();
    void read(const QByteArray &body);
    void finish(const QString &reason);

    ProviderSettings m_settings;
    QString m_orderId;
    QString m_account;
    QNetworkAccessManager *m_network;
    QTimer *m_backoff;
    QPointer<QNetworkReply> m_reply;
    HttpExchange m_exchange;
    int m_attempt = 0;
    bool m_started = false;
    bool m_finished = false;
    PaymentSearchAnswer m_answer;
};

} // namespace verity

#pragma once
// The sandbox provider's API without the HTTP: authentication, routing, idempotency keys,
// faults and the endpoints, from a plain request to a plain answer. SandboxServer carries
// these over HTTP and holds the stalled answers.
//
// The same rules hold for every POST that writes: a refund at the payment provider, a pickup at
// the courier, a message at the seller-messaging service (sandboxrecords.h).
//
// Idempotency, as Stripe documents it and the IETF Idempotency-Key draft specifies:
//  - a POST's key is stored with a hash of its method, path and parameters and the status
//    and body of its answer; the same key and parameters replay that answer byte for byte,
//    with `Idempotent-Replayed: true`, and move no money;
//  - the same key with other parameters is refused (400, idempotency_error);
//  - the same key while its first request is still being answered (a stall) gets 409
//    idempotency_key_in_use;
//  - keys expire after the retention period (24 hours by default) and may then be reused.
// What is stored for a key, decided as Stripe does ("results are saved once the endpoint
// began executing"):
//  - stored: successes, and refusals found while executing (an unknown payment intent, an
//    amount above what remains refundable), because a retry would meet the same refusal;
//  - not stored: requests refused before execution (bad or missing parameters, bad key,
//    401), an injected fail-before-accept, and a failure of the sandbox's own database
//    (rolled back, so nothing happened and a retry may execute);
//  - accept-then-500 stores the committed write's 200 for the key and answers 500: the
//    money moved (the pickup was booked, the message sent), so a retry with the same key
//    replays the success instead of writing again or repeating a 500 that hides a write;
//  - accept-then-stall stores the 200 in the write's own transaction, and the key reads
//    "in progress" until the held answer is sent.

#include "sandboxfault.h"
#include "sandboxform.h"
#include "sandboxobjects.h"
#include "sandboxrecords.h"
#include "sandboxstate.h"

#include <QSet>

#include <functional>
#include <optional>

namespace verity {

struct SandboxOptions
{
    QString apiKey = QStringLiteral("sk_test_sandbox");
    int keyRetentionHours = 24;
    int searchLagSeconds = 0; // how long a new payment is missing from search results
    SandboxFaultPlan faults;
    std::function<qint64()> clock; // ms since the epoch; empty: the system clock
    // A refund's id derived from its payment, its metadata[intent_key] and what the payment
    // had refunded before, instead of random: a simulator replaying the same requests gets the
    // same ids, so its transcripts come out byte for byte the same.
    bool derivedRefundIds = false;
};

struct SandboxRequest
{
    QString method; // "GET", "POST", ...
    QString path;
    QByteArray query; // percent-encoded, without '?'
    QByteArray body;
    QByteArray contentType;
    QByteArray authorization;
    QByteArray idempotencyKey;
    bool hasIdempotencyKey = false;
    QByteArray fault; // Sandbox-Fault
    QByteArray stripeAccount;
    QByteArray stripeVersion; // Stripe-Version, when the client pins one
};

struct SandboxAnswer
{
    int status = 200;
    QByteArray body;
    bool replayed = false;
    QString idempotencyKey; // echoed in the answer's headers
    QByteArray stripeVersion; // the API version answered in, as Stripe says it (Stripe-Version)
    std::optional<int> stallMilliseconds; // hold the answer this long before sending it
    QString keyInProgress; // ...and meanwhile this key answers 409
    QString note; // for the request log: the fault, a replay
};

class SandboxApi
{
public:
    SandboxApi(SandboxState &state, SandboxOptions options);

    // A fault is named per request by the `Sandbox-Fault` header, or, for a client that can
    // only be given a base URL (its HTTP client is not ours to change), by a path prefix:
    // /sandbox-fault/<faults>/v1/... is /v1/... with `Sandbox-Fault: <faults>`; the header
    // wins when both are given. <faults> may list several (SandboxFault::parseList).
    SandboxAnswer handle(const SandboxRequest &request);
    // The held answer was sent (or its client went away): the key is no longer in progress.
    void release(const QString &key) { m_inProgress.remove(key); }
    const SandboxOptions &options() const { return m_options; }

private:
    // What an endpoint did. `executed` is false when it refused the request before doing
    // anything, so nothing is stored for an idempotency key; `accepted` when it committed a
    // write (a refund, a pickup, a message), the point after which accept-then-* faults strike.
    struct Result
    {
        int status = 200;
        QByteArray body;
        bool executed = true;
        bool accepted = false;
    };
    static Result ok(QByteArray body, bool accepted = false);
    static Result refused(const SandboxError &error); // before execution: not stored
    static Result failedWhile(const SandboxError &error); // while executing: stored

    using PostEndpoint = std::function<Result(const SandboxForm &form)>;
    // `written`: what a write POST makes ("refund", "pickup"), for the accept-then-500 message.
    SandboxAnswer post(const SandboxRequest &request, const PostEndpoint &endpoint,
                       std::optional<SandboxFault> fault, const QString &written);
    SandboxAnswer get(const SandboxRequest &request);

    Result createAccount(const SandboxForm &form);
    // `account` is the request's Stripe-Account header: a payment made with one is a direct
    // charge on that seller's account, and only requests that name the same account see it
    // (its refunds, its refund list, its search), as at Stripe.
    Result createPaymentIntent(const SandboxForm &form, const QString &account);
    Result createRefund(const SandboxForm &form, const QString &account);
    Result retrieveRefund(const QString &id);
    Result listRefunds(const SandboxForm &query, const QString &account);
    Result retrievePaymentIntent(const QString &id, const QString &account);
    // Stripe's search query language, the part a lookup uses: metadata['key']:'value'. A payment
    // shows in results only searchLagSeconds after it was made, as Stripe's index lags.
    Result searchPaymentIntents(const SandboxForm &query, const QString &account);
    // The payment a refund or its list names by `payment_intent` or by `charge` (exactly one),
    // as seen from `account`: one on another account is "no such" (resource_missing).
    std::variant<SandboxPayment, SandboxError> paymentNamedIn(const SandboxForm &form,
                                                              const QString &account);
    std::variant<SandboxPayment, SandboxError> paymentNamed(const QString &param, const QString &id,
                                                            const QString &account);
    Result retrieveBalance(const QString &account, const SandboxForm &query);
    Result listBalanceTransactions(const QString &account, const SandboxForm &query);
    Result createRecord(const SandboxRecordKind &kind, const SandboxForm &form);
    Result retrieveRecord(const SandboxRecordKind &kind, const QString &id);
    Result listRecords(const SandboxRecordKind &kind, const SandboxForm &query);
    // The account a Stripe-Account header names, or why it cannot be read.
    std::variant<SandboxAccount, SandboxError> accountOfHeader(const QString &account);

    qint64 nowMs() const;
    qint64 nowSeconds() const { return nowMs() / 1000; }
    static SandboxAnswer answer(const SandboxError &error);
    static SandboxAnswer answer(const Result &result);
    static SandboxError internalError(const QString &what);

    SandboxState &m_state;
    SandboxOptions m_options;
    QSet<QString> m_inProgress;
};

// The parameter checks the endpoints share; each error names the parameter.
std::optional<SandboxError> checkMetadata(const QMap<QString, QString> &metadata);
std::variant<qint64, SandboxError> parseAmount(const QString &param, const QString &text,
                                               bool allowNegative = false);
std::variant<int, SandboxError> parseLimit(const SandboxForm &query);
SandboxError unknownParameter(const QString &name);
const QStringList &createdFilters(); // created[gte], created[gt], created[lte], created[lt]
std::variant<SandboxCreatedRange, SandboxError> parseCreated(const SandboxForm &query);

// The paging of a list: limit, starting_after and Stripe's created[...] filters.
struct SandboxListQuery
{
    int limit = 10;
    QString startingAfter;
    SandboxCreatedRange created;
};
// Refuses any parameter that is neither paging nor one of `filters`.
std::variant<SandboxListQuery, SandboxError> parseListQuery(const SandboxForm &query,
                                                            const QStringList &filters);

} // namespace verity

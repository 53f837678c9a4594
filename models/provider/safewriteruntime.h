#pragma once
// The refund tool as it should have been, as a library the console itself uses. Every path
// ends in one of the four outcomes:
//   ledger already has the intent key        -> already performed (nothing is sent)
//   the provider accepts                      -> performed (or already performed on a replay)
//   the provider refuses                      -> not performed
//   anything ambiguous (timeout, 5xx, a key in use) -> look up before anything else:
//       found -> performed; not found -> not performed, safe to try once more with the same
//       key; cannot tell -> unknown: do not retry, escalate.
// The POST is sent at most once per run, and never again by this code.

#include "domain/outcome.h"
#include "providerclient.h"
#include "store/records.h"

#include <QObject>
#include <QPointer>

namespace verity {

class LedgerStore;

struct SafeWriteResult
{
    Outcome outcome = Outcome::Unknown;
    std::optional<ProviderRefund> refund;
    QString note; // what happened, in words for the operator and the audit log
    std::optional<LookupVerdict> lookupVerdict; // when an ambiguous answer made it look
    QList<HttpExchange> exchanges; // evidence: every request and response
    int postStatus = 0; // the HTTP status of the POST; 0 when none came
};

// Where a refund is recorded in the ledger when it moves money.
struct LedgerContext
{
    std::optional<qint64> toolCallId;
    QString sellerId;
    QString source; // "console write", "runtime", ...
    // False when the caller records the refund itself, with the audit entries that vouch for it.
    bool record = true;
    // When the intent key was first sent to the provider (the original call), if it was. Older
    // than the provider keeps keys (ProviderSettings::keyRetentionHours), the key protects
    // nothing: the refund is looked up immediately before the POST, which goes only if the
    // lookup finds none.
    std::optional<qint64> keyFirstSentMs{};
};

class SafeRefundOperation : public QObject
{
    Q_OBJECT

public:
    void cancel();

signals:
    void progress(const QString &step);
    void finished(const verity::SafeWriteResult &result);

private:
    friend class SafeWriteRuntime;
    explicit SafeRefundOperation(QObject *parent)
        : QObject(parent)
    {}
    void finish(SafeWriteResult result);

    QPointer<RefundOperation> m_refund;
    QPointer<LookupOperation> m_lookup;
    // The lookup made before the POST because the key had expired: its exchanges and words
    // come first in the result.
    QList<HttpExchange> m_checkedFirst;
    QString m_checkNote;
    bool m_finished = false;
    bool m_cancelled = false; // a cancelled POST may still be running at the provider
};

class SafeWriteRuntime : public QObject
{
    Q_OBJECT

public:
    SafeWriteRuntime(LedgerStore &ledger, ProviderClient &provider, QObject *parent = nullptr);

    SafeRefundOperation *refund(const RefundIntent &intent, const LedgerContext &context);
    static SafeWriteResult waitFor(SafeRefundOperation *operation);
    // Why the provider will no longer recognise a key first sent at `firstSentMs`, or empty
    // while it still does: "the provider keeps idempotency keys for 24 hours and this one was
    // first sent 30 hours ago".
    static QString keyExpiry(const ProviderSettings &settings, std::optional<qint64> firstSentMs,
                             qint64 nowMs);

private:
    void post(SafeRefundOperation *operation, const RefundIntent &intent, const LedgerContext &context);
    void afterCheck(SafeRefundOperation *operation, const RefundIntent &intent, const LedgerContext &context,
                    const LookupAnswer &answer);
    void afterPost(SafeRefundOperation *operation, const RefundIntent &intent, const LedgerContext &context,
                   const RefundAttempt &attempt);
    void afterLookup(SafeRefundOperation *operation, const RefundIntent &intent, const LedgerContext &context,
                     SafeWriteResult result, const LookupAnswer &answer);
    // Records the refund under its key; a key recorded meanwhile by another console stands.
    QString recordInLedger(const RefundIntent &intent, const LedgerContext &context,
                           const ProviderRefund &refund);

    LedgerStore &m_ledger;
    ProviderClient &m_provider;
};

} // namespace verity

#pragma once
// The way out of unknown is evidence. For one escalation: look the write up at the provider,
// keep what was asked and answered, and settle the escalation by what was found; only after
// a lookup proved the write absent may it be performed again, with the same key. Every
// lookup, resolution and write goes into the audit log in the same transaction as the change.

#include "domain/expected.h"
#include "provider/providerclient.h"
#include "provider/safewriteruntime.h"
#include "store/records.h"

#include <QObject>
#include <QPointer>

namespace verity {

class Store;

struct ResolutionReport
{
    enum class Kind {
        Resolved,          // settled now by this operator (see resolution)
        StillUnknown,      // the lookup could not tell; the escalation stays open with the reason
        ResolvedElsewhere, // another console settled it first (see resolvedBy)
        NotPossible,       // this escalation cannot be looked up or repeated here (see message)
        Failed,            // the store failed; nothing was settled
    };
    Kind kind = Kind::Failed;
    std::optional<Resolution> resolution;
    QString resolvedBy;
    qint64 resolvedAt = 0;
    QString message;       // one sentence for the operator
    QString customerDraft; // what the customer should now be told, when settled
    std::optional<LookupEvidence> evidence;
};

class ResolutionOperation : public QObject
{
    Q_OBJECT

public:
    void cancel();

signals:
    void progress(const QString &step);
    void finished(const verity::ResolutionReport &report);

private:
    friend class EscalationResolver;
    explicit ResolutionOperation(QObject *parent) : QObject(parent) {}
    void finish(const ResolutionReport &report);

    QPointer<LookupOperation> m_lookup;
    QPointer<SafeRefundOperation> m_write;
    bool m_finished = false;
};

class EscalationResolver : public QObject
{
    Q_OBJECT

public:
    EscalationResolver(Store &store, ProviderClient &provider, QString operatorName, QObject *parent = nullptr);

    ResolutionOperation *lookUp(qint64 escalationId);
    // Only for an escalation a lookup settled as not performed.
    ResolutionOperation *performAgain(qint64 escalationId);
    static ResolutionReport waitFor(ResolutionOperation *operation);

    // The refund a money escalation stands for, or why it cannot be looked up at the provider.
    static Expected<RefundIntent> refundIntentFor(const EscalationDetail &escalation);

private:
    void afterLookup(ResolutionOperation *operation, const EscalationDetail &escalation, qint64 startedAt,
                     const LookupAnswer &answer);
    void afterWrite(ResolutionOperation *operation, const EscalationDetail &escalation, const SafeWriteResult &result);
    ResolutionOperation *finishLater(ResolutionOperation *operation, ResolutionReport report);
    Expected<EscalationDetail> loadEscalation(qint64 escalationId);
    // What to tell the customer; `atProvider` (the refunds a lookup found carrying the key) is
    // the truth when there is one, else the calls of the ticket that share the key.
    QString draftFor(const EscalationDetail &escalation, Resolution resolution,
                     const QList<ProviderRefund> &atProvider = {});

    Store &m_store;
    ProviderClient &m_provider;
    SafeWriteRuntime m_runtime;
    QString m_operator;
};

// Evidence as text and its SHA-256, from the exchanges of one lookup or write.
LookupEvidence evidenceFrom(const QList<HttpExchange> &exchanges);

} // namespace verity

#pragma once
// The way out of unknown is evidence. For one escalation: look the write up at the system it
// went to, keep what was asked and answered, and settle the escalation by what was found;
// only after a lookup proved the write absent, and nothing of its intent took effect, may it
// be performed again, with the same key. Where no system can be asked, a person records what
// they checked (an attestation), which is never shown as verified. A write found absent by a
// person's check is still owed: performing it again asks the system first, and where no system
// can be asked, a later check that it was since performed replaces the first. Every step goes
// into the audit log in the same transaction as the change (settlementwriter.h).

#include "domain/expected.h"
#include "domain/registryselection.h"
#include "escalationhistory.h"
#include "provider/apikeykind.h"
#include "provider/paymentsearch.h"
#include "provider/providerclient.h"
#include "provider/safewriteruntime.h"
#include "resolutionreport.h"
#include "saferecordwrite.h"
#include "settlementwriter.h"
#include "store/records.h"
#include "systemanswer.h"

#include <QObject>
#include <QPointer>

#include <functional>

namespace verity {

class ResolutionStore;

// How an escalation can be settled: looked up at a system, or only by a person's check.
struct EscalationRoute
{
    bool canLookUp = false;
    QString system; // "the payment provider", "the courier", ...: words for a person
    QString whyNot; // when it cannot be looked up
    bool needsPayment = false; // a refund whose payment nobody named: enterPayment() opens the way
    QString payment; // a refund's: "pi_… (get_order result, call c1)"
};

// What a person must see before a write is sent again.
struct RepeatPlan
{
    EscalationDetail escalation;
    QUrl endpoint; // where the POST goes
    QString system; // "the payment provider"
    // Why the provider will no longer recognise the key (SafeWriteRuntime::keyExpiry); empty
    // while it does.
    QString keyExpiry;
    QString keyKind; // "a test secret key (sk_test_…abcd)"
    // Why the key in use cannot send it (none, or a restricted one); empty: it can.
    QString keyRefusal;
    QString payment; // a refund's payment and where it was named: "pi_… (order SU-1)"
    // With a live key, what the person must type to send: the amount as the confirmation
    // shows it ("$118.00"). Empty: a click confirms.
    QString typeToConfirm;
    // Only a person's check found it absent: the system is asked first, with the same key, and
    // it is sent only if that lookup finds no record of it.
    bool lookupFirst = false;
};

// A person's record of a check made in a system Verity cannot ask.
struct Attestation
{
    Resolution resolution = Resolution::Performed; // Performed or NotPerformed
    QString reference; // what they found (a pickup id), or where they looked
    QString note;
    // A check that a write an attested check found absent was since performed (done where no
    // system can be asked, with the same key): it replaces that check, and only that one.
    bool replacesAttestedAbsence = false;
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
    explicit ResolutionOperation(QObject *parent)
        : QObject(parent)
    {}
    void finish(const ResolutionReport &report);

    QPointer<LookupOperation> m_lookup;
    QPointer<SafeRefundOperation> m_write;
    QPointer<RecordLookupOperation> m_recordLookup;
    QPointer<SafeRecordWrite> m_recordWrite;
    QPointer<ResolutionOperation> m_step; // the lookup a repeat waits for
    bool m_finished = false;
};

class EscalationResolver : public QObject
{
    Q_OBJECT

public:
    EscalationResolver(ResolutionStore &store, ProviderClient &provider, QString operatorName,
                       QObject *parent = nullptr);

    // The registries that name each tool's system; without them only refunds can be looked up.
    void setRegistries(RegistrySelection registries) { m_registries = std::move(registries); }
    const QString &operatorName() const { return m_operator; }
    QUrl providerUrl() const;

    Expected<EscalationDetail> escalation(qint64 escalationId);
    Expected<EscalationHistory> history(qint64 escalationId);
    EscalationRoute route(const EscalationDetail &escalation) const;

    ResolutionOperation *lookUp(qint64 escalationId);
    // Why a repeat is not allowed, or what it would send.
    Expected<RepeatPlan> planRepeat(qint64 escalationId);
    // Only for an escalation settled as not performed, with nothing of its intent performed. One
    // a person's check settled is looked up first (RepeatPlan::lookupFirst), and sent only if the
    // lookup found no record of it; found, it is settled as performed and nothing is sent.
    ResolutionOperation *performAgain(qint64 escalationId);
    ResolutionReport attest(qint64 escalationId, const Attestation &attestation);
    static ResolutionReport waitFor(ResolutionOperation *operation);

    // The refund a money escalation stands for, or why it cannot be looked up at the provider:
    // its payment comes from the data or an operator (refundPayment()), never from a guess.
    Expected<RefundIntent> refundIntentFor(const EscalationDetail &escalation) const;
    // Records the payment an operator found at the provider for this escalation, audited.
    // `reference` must read as one (readPaymentReference()).
    Expected<PaymentReference> enterPayment(qint64 escalationId, const QString &reference);
    // Searches the provider's payments for the escalation's order (on the seller's account when
    // sellers are connected accounts), to offer an operator the payment to enter. Started; the
    // caller owns it. What it finds settles nothing and is not stored until a person enters it.
    Expected<PaymentSearchOperation *> findPayment(qint64 escalationId, QObject *parent);

private:
    // The escalation, if it is a refund (the only write looked up under a payment).
    Expected<EscalationDetail> refundEscalation(qint64 escalationId);
    // The registry's entry for the escalation's tool, as the profile that read its ticket has it.
    const ToolSpec *specOf(const EscalationDetail &escalation) const;
    // Why this operator may not act on it now (another's claim holds it), or empty.
    QString claimRefusal(const EscalationDetail &escalation) const;
    QString nounOf(const EscalationDetail &escalation) const; // "refund", "pickup", "message"
    // Where a pickup or a message is looked up, or why it cannot be.
    Expected<RecordQuery> recordQueryOf(const EscalationDetail &escalation) const;
    void afterLookup(ResolutionOperation *operation, const EscalationDetail &escalation, qint64 startedAt,
                     const SystemAnswer &answer);
    // What the lookup then settles: nothing (it could not tell, or a person must judge), performed
    // by the record that is this call's, or not performed.
    void lookupStaysOpen(ResolutionOperation *operation, const EscalationDetail &escalation,
                         Evidence evidence, const QString &why);
    void lookupFound(ResolutionOperation *operation, const EscalationDetail &escalation, Evidence evidence,
                     const SystemRecord &record, const QString &matching);
    void lookupFoundNothing(ResolutionOperation *operation, const EscalationDetail &escalation,
                            Evidence evidence, bool anotherTookEffect);
    // The lookup before a repeat of a write a person's check found absent; then the repeat, or
    // nothing.
    void lookUpBeforeRepeat(ResolutionOperation *operation, const RepeatPlan &plan);
    // Sends the write once more with its key, behind the in-flight mark. `preface` begins the
    // report's message (what the lookup before it found).
    void sendRepeat(ResolutionOperation *operation, const RepeatPlan &plan, const QString &preface = {});
    void afterWrite(ResolutionOperation *operation, const EscalationDetail &escalation,
                    const WriteOutcome &result, const QString &preface);
    // Why this check may not replace the attested "not performed" the escalation stands on, or empty.
    QString replacementRefusal(const EscalationDetail &escalation, const Attestation &attestation);
    // When a repeat of this escalation's write was first sent from a console, if one was.
    std::optional<qint64> repeatSentAt(qint64 escalationId);
    ResolutionOperation *finishLater(ResolutionOperation *operation, ResolutionReport report);
    // Settled before this console acted: who, how, and what to tell the customer now.
    ResolutionReport settledBefore(const EscalationDetail &escalation);
    // The report of a step the store took: settled, or stayed open with `openMessage`.
    ResolutionReport reportOf(const EscalationDetail &escalation, const Expected<SettlementWritten> &written,
                              const QString &settledMessage, const QString &openMessage);

    ResolutionStore &m_store;
    ProviderClient &m_provider;
    SafeWriteRuntime m_runtime;
    QString m_operator;
    RegistrySelection m_registries;
};

// Evidence as text, from the exchanges of one lookup or write (hashed when it is stored).
Evidence evidenceFrom(const QList<HttpExchange> &exchanges);

} // namespace verity

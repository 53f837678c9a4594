#pragma once
// The one door to stored data, with a room for each kind of work. Each part of the program
// asks for the narrowest room it needs (the queue reads tickets, the importer writes them,
// the audit reads its chain), no SQL lives anywhere else, and a second backend (PostgreSQL,
// for teams that share one queue) implements the same rooms. One Store serves one thread.

#include "domain/expected.h"
#include "domain/ticketassessment.h"
#include "financerecords.h"
#include "operatorroles.h"
#include "records.h"
#include "tracerecords.h"

#include <QHash>
#include <QList>
#include <QStringList>

#include <memory>

namespace verity {

class ChangeFeed;
class ImportBatch;

// What every room shares: where the data is, and the transaction a unit of work spans (a
// settlement and its audit entry commit together, whichever rooms they pass through).
class StoreSession
{
public:
    StoreSession(const StoreSession &) = delete;
    StoreSession &operator=(const StoreSession &) = delete;

    virtual QString location() const = 0;
    // The database user this session connected as, where the database knows its users (a
    // team's PostgreSQL database): then the one name the audit may record. Empty for a file.
    virtual QString sessionUser() const { return QString(); }
    // What this session's user may change: everything on a file, their team roles in a team's
    // database (read again on each call: an admin may have granted one since).
    virtual Expected<OperatorRoles> sessionRoles() { return OperatorRoles::everyone(); }
    // What other consoles change, as the database announces it (a team's database); none where
    // nobody else writes (a desk's file). Owned by the store; lives in the store's thread.
    virtual ChangeFeed *changeFeed() { return nullptr; }
    // For a writer whose every caller waits on its commits: the database's own upkeep (SQLite's
    // checkpoints) runs beside it instead of inside one of those commits. Nothing where the
    // server does it anyway.
    virtual void keepUpkeepOffCommits() {}
    // Whether two sessions may each have a write transaction open at once, waiting only where
    // they touch the same rows (a server's database), rather than the second begin() waiting for
    // the first commit (a file).
    virtual bool writesAlongsideOthers() const { return false; }

    // A write transaction: it takes the write lock at once, so two consoles appending to the
    // same audit chain queue up instead of both reading the same last entry.
    virtual Expected<void> begin() = 0;
    virtual Expected<void> commit() = 0;
    virtual void rollback() = 0;
    // A nested unit inside the open transaction: one conversation is stored whole or not at all.
    virtual Expected<void> savepoint() = 0;
    virtual Expected<void> releaseSavepoint() = 0;
    virtual Expected<void> rollbackToSavepoint() = 0;

protected:
    StoreSession() = default;
    ~StoreSession() = default;
};

// The queue and the ticket view: tickets, their transcripts, and their texts whole.
class TicketReads : public virtual StoreSession
{
public:
    virtual Expected<qint64> countTickets(const TicketQuery &query) = 0;
    // A page entered at an anchor (see TicketPage): an index range, however deep in the queue.
    virtual Expected<QList<TicketRow>> ticketPage(const TicketQuery &query, const TicketPage &page) = 0;
    // `limit` tickets from the `offset`th on: a page counted from the start.
    Expected<QList<TicketRow>> tickets(const TicketQuery &query, qint64 offset, int limit)
    {
        return ticketPage(query, TicketPage{std::nullopt, false, offset, limit});
    }
    virtual Expected<std::optional<TicketDetail>> ticket(qint64 ticketId) = 0;
    // The ticket, or an error that names it and the store when it is not there.
    Expected<TicketDetail> existingTicket(qint64 ticketId)
    {
        Expected<std::optional<TicketDetail>> found = ticket(ticketId);
        if (!found)
            return found.error();
        if (!*found)
            return makeError(QStringLiteral("ticket %1 is not in %2").arg(ticketId).arg(location()));
        return **found;
    }
    virtual Expected<std::optional<qint64>> ticketIdByExtId(const QString &extId) = 0;
    // `clipAt` > 0: each message text, arguments and result longer than that many characters
    // comes cut to them, with its whole size in bytes (for the console, which shows a part
    // first: a 50 MB message must not cost 50 MB to open). 0: every text whole.
    virtual Expected<QList<TranscriptEntry>> transcript(qint64 ticketId, qsizetype clipAt = 0) = 0;
    // One text of a ticket whole: a message's (by its seq), or a call's arguments or result.
    virtual Expected<QString> wholeText(qint64 ticketId, const TextPlace &place) = 0;

protected:
    ~TicketReads() = default;
};

// What an assessment reads and writes back. The assessment itself is a domain rule
// (assessTicket), run by the callers (see reassessment.h), never by a backend.
class AssessmentStore : public virtual StoreSession
{
public:
    virtual Expected<QList<CallFacts>> callFacts(qint64 ticketId) = 0;
    // The seq of the ticket's last stored event: the summary says how far it was read. Read
    // before the calls it is assessed from: where sessions write side by side, it locks the
    // ticket until the transaction ends, so the assessment sees every call committed before.
    virtual Expected<qint64> lastSeq(qint64 ticketId) = 0;
    // Writes back the call flags, the ticket summary, and one open escalation per unknown
    // write. Returns the ticket's repeat counts as they were before, so an import can say what
    // it changed.
    virtual Expected<RepeatCounts> applyAssessment(qint64 ticketId, qint64 lastSeq,
                                                   const TicketAssessment &assessment) = 0;
    // The same for a ticket inserted in the open transaction, assessed from the calls the caller
    // stored: it has no marks, summary or escalations yet, so nothing is read back or cleared.
    virtual Expected<void> applyFirstAssessment(qint64 ticketId, qint64 lastSeq,
                                                const TicketAssessment &assessment) = 0;
    // Tickets an upgrade of the stored data left to be assessed again, up to `limit` of them;
    // markReassessed() takes one off the list.
    virtual Expected<QList<qint64>> ticketsAwaitingReassessment(int limit) = 0;
    virtual Expected<void> markReassessed(qint64 ticketId) = 0;

protected:
    ~AssessmentStore() = default;
};

// The importer's writes: tickets, messages, calls and their results, trace events.
class ImportWrites : public virtual AssessmentStore
{
public:
    // A ticket the open transaction goes on to write into. Where sessions write side by side, it
    // is locked until the transaction ends, so its last seq stays the one read here.
    virtual Expected<std::optional<TicketRef>> findTicket(const QString &extId) = 0;
    // The same, locking nothing: what a key is made from before any lock is taken.
    virtual Expected<std::optional<TicketRef>> readTicket(const QString &extId) = 0;
    // The tickets of these names that are stored, in any order (locked as findTicket's, in id
    // order); a name with none is left out.
    virtual Expected<QList<TicketRef>> findTickets(const QStringList &extIds)
    {
        QList<TicketRef> found;
        for (const QString &extId : extIds) {
            Expected<std::optional<TicketRef>> ticket = findTicket(extId);
            if (!ticket)
                return ticket.error();
            if (*ticket)
                found.append(**ticket);
        }
        return found;
    }
    virtual Expected<TicketRef> insertTicket(const NewTicket &ticket) = 0;
    // Returns false when the same message was stored before.
    virtual Expected<bool> insertMessage(const NewMessage &message) = 0;
    virtual Expected<std::optional<ToolCallRef>> findToolCall(qint64 ticketId, const QString &callExtId) = 0;
    virtual Expected<qint64> insertToolCall(const NewToolCall &call) = 0;
    // The id of the ticket's call stored with this print, if any.
    virtual Expected<std::optional<QString>> findToolCallByPrint(qint64 ticketId,
                                                                 const QString &fingerprint) = 0;
    virtual Expected<void> setToolResult(const ToolResultUpdate &result) = 0;
    // A call whose result is already known, in one row: as insertToolCall() then
    // setToolResult() would leave it (the result's callId is not read).
    virtual Expected<qint64> insertAnsweredToolCall(const NewToolCall &call,
                                                    const ToolResultUpdate &result) = 0;
    // Returns false when the same event was stored before.
    virtual Expected<bool> insertTraceEvent(const NewTraceEvent &event) = 0;
    virtual Expected<void> recordImport(const ImportRecord &record) = 0;
    // Writes whose result was still expected (NewToolCall::inFlightUntil) and has not come by
    // `now`: their outcome stays unknown and their escalations open. Returns how many.
    virtual Expected<int> escalateOverdueCalls(qint64 now) = 0;
    // The same in a transaction of its own, for a receiver's timer.
    Expected<int> escalateOverdueCallsAlone(qint64 now)
    {
        if (Expected<void> begun = begin(); !begun)
            return begun.error();
        Expected<int> escalated = escalateOverdueCalls(now);
        if (!escalated) {
            rollback();
            return escalated;
        }
        if (Expected<void> done = commit(); !done)
            return done.error();
        return escalated;
    }
    // The wait for one call's result ends now (its caller gave up, or the line to it dropped):
    // escalateOverdueCalls() then escalates it with the others whose wait is over. False when
    // it was not waiting.
    virtual Expected<bool> endWaitForResult(qint64 callId, qint64 now) = 0;
    // The calls of every ticket that carry `intentKey`, oldest first, the newest `limit` of them:
    // whether this intent was made before, anywhere, and how it ended.
    virtual Expected<QList<IntentCall>> callsOfIntent(const QString &intentKey, int limit) = 0;
    // Until the open transaction ends, no other session passes this for the same key: two that
    // each read an intent's calls and then add one cannot both find none.
    virtual Expected<void> lockIntent(const QString &intentKey) = 0;
    // A conversation known so far only by its trace (its naming span came in a later request)
    // takes its name: the ticket gets `named`'s id, fingerprint and subject, its rows kept.
    virtual Expected<void> renameTicket(qint64 ticketId, const NewTicket &named) = 0;
    // A ticket stored before its data was whole (its first spans named no order, or no customer
    // words) takes what `named` carries where it has nothing yet: the order, the seller and the
    // order's payment, and a subject in place of one that is only its id or its trace. What it has
    // is never changed.
    virtual Expected<void> completeTicket(qint64 ticketId, const NewTicket &named) = 0;
    // ... or, when a ticket of that name is stored already, its rows join that one, after its
    // own (a call id both use gets a suffix), escalations and notes with them, and it goes.
    virtual Expected<void> mergeTicket(qint64 fromId, qint64 intoId) = 0;
    // A ticket's writes (id, tool, arguments), to key them again once it has another name: an
    // intent key holds the ticket's id.
    virtual Expected<QList<StoredCall>> writeCalls(qint64 ticketId) = 0;
    virtual Expected<void> setIntentKey(qint64 callId, const QString &key, const QString &error) = 0;
    // One import's writes, where this backend holds back what a transaction adds to the tickets it
    // opens and writes it together when it commits (PostgreSQL's COPY, where a statement per row
    // costs a round trip each); none where each row is written as it comes. While the batch
    // lasts, its importer reads and writes through it alone, and ends its transactions there.
    virtual std::unique_ptr<ImportBatch> openImportBatch();
    // Whether text may hold U+0000 (PostgreSQL's cannot): the importer refuses such a line.
    virtual bool storesNulCharacters() const { return true; }

protected:
    ~ImportWrites() = default;
};

// What openImportBatch() hands out: the same room, owned by its importer.
class ImportBatch : public ImportWrites
{
public:
    virtual ~ImportBatch() = default;
    std::unique_ptr<ImportBatch> openImportBatch() override { return nullptr; } // one at a time

protected:
    ImportBatch() = default;
};

inline std::unique_ptr<ImportBatch> ImportWrites::openImportBatch()
{
    return nullptr;
}

// Classifying tools the registry did not know.
class ClassificationStore : public virtual AssessmentStore
{
public:
    virtual Expected<QList<UnclassifiedTool>> unclassifiedTools() = 0;
    virtual Expected<QList<StoredCall>> unclassifiedCalls(const QString &tool) = 0;
    // Writes a new reading of a call; the caller reassesses its ticket.
    virtual Expected<void> reclassifyCall(const CallClassification &classification) = 0;

protected:
    ~ClassificationStore() = default;
};

// The escalation queue, and resolving unknowns by evidence.
class EscalationStore : public virtual AssessmentStore
{
public:
    virtual Expected<qint64> countOpenEscalations() = 0;
    virtual Expected<QList<EscalationRow>> openEscalations(qint64 offset, int limit) = 0;
    // Open escalations numbered above `afterId`, newest first, at most `limit`: what arrived
    // since a console last looked (numbers only grow).
    virtual Expected<QList<EscalationRow>> openEscalationsAfter(qint64 afterId, int limit) = 0;
    // Open escalations whose claim `holder` holds at `now`, the soonest to lapse first.
    virtual Expected<QList<EscalationRow>> claimsHeldBy(const QString &holder, qint64 now) = 0;
    virtual Expected<std::optional<EscalationDetail>> escalation(qint64 escalationId) = 0;
    // The ticket's calls that carry `intentKey`, in the order they were made.
    virtual Expected<QList<IntentCall>> intentCalls(qint64 ticketId, const QString &intentKey) = 0;
    virtual Expected<qint64> recordEvidence(const Evidence &evidence) = 0;
    virtual Expected<QList<Evidence>> evidence(qint64 escalationId) = 0; // oldest first
    // Settles an open escalation, moves a verified "not performed" to "performed again", puts a
    // system's answer in place of an attested check, or (replacesAttestedAbsence) a check that
    // it was performed in place of an attested "not performed".
    // Atomic across consoles: the first claim wins and later ones learn who made it. Refused
    // with an error naming the holder while another operator's claim holds it; settling ends the
    // settler's claim.
    virtual Expected<ResolutionClaim> resolveEscalation(const Settlement &settlement) = 0;
    virtual Expected<void> noteEscalation(qint64 escalationId, const QString &note) = 0;
    // The payment an operator found at the provider for this escalation; audited by the caller.
    virtual Expected<void> setEscalationPayment(qint64 escalationId, const QString &reference,
                                                const QString &enteredBy) = 0;
    // Back to the queue: a repeat made from the console came back unknown.
    virtual Expected<void> reopenEscalation(qint64 escalationId, const QString &note) = 0;

    // Claims (EscalationClaim). Atomic across consoles: of two operators claiming at once, one
    // holds it and the other learns who. Taken when nobody holds it, or renewed by its holder,
    // until `until`; a settled escalation cannot be claimed (taken is false, holder empty).
    // `renewsEvery`: how often the holder will renew it (ms; 0 when it will not), kept with it.
    virtual Expected<EscalationClaim> claimEscalation(qint64 escalationId, const QString &operatorName,
                                                      qint64 now, qint64 until, qint64 renewsEvery = 0) = 0;
    // The oldest open escalation nobody holds, claimed; nullopt when there is none. Two
    // operators asking at once get two different ones.
    virtual Expected<std::optional<EscalationClaim>>
    claimNextEscalation(const QString &operatorName, qint64 now, qint64 until, qint64 renewsEvery = 0) = 0;
    // Gives a claim back: `operatorName`'s own, or, with an empty name, anyone's (an admin's
    // release). False when there was no such claim to give back.
    virtual Expected<bool> releaseEscalationClaim(qint64 escalationId, const QString &operatorName) = 0;

protected:
    ~EscalationStore() = default;
};

// The ledger: money moved, one row per refund.
class LedgerStore : public virtual StoreSession
{
public:
    // The first refund recorded for the intent key, if any: whether this intent already paid out.
    virtual Expected<std::optional<LedgerEntry>> ledgerEntry(const QString &intentKey) = 0;
    virtual Expected<std::optional<LedgerEntry>> ledgerEntryOfCall(qint64 toolCallId) = 0;
    // False when the refund (or the call) already has an entry, which is left as it was.
    virtual Expected<bool> recordLedgerEntry(const LedgerEntry &entry) = 0;

protected:
    ~LedgerStore() = default;
};

// Finance: payouts, seller balances, and the marks on duplicate payouts.
class FinanceStore : public virtual StoreSession
{
public:
    // Money writes that moved money or may have (performed, or unknown), made in [fromMs, toMs),
    // with every resolution applied, oldest first.
    virtual Expected<QList<LedgerPayout>> payouts(qint64 fromMs, qint64 toMs) = 0;
    // When the newest of those payouts was made (ms since the epoch, UTC); nullopt when there is none.
    virtual Expected<std::optional<qint64>> newestPayoutAt() = 0;
    // The same of the performed ones alone: the newest refund in Verity's ledger.
    virtual Expected<std::optional<qint64>> newestPerformedPayoutAt() = 0;
    // Every seller, by name, with the latest balance a transcript reported.
    virtual Expected<QList<SellerBalance>> sellerBalances() = 0;
    virtual Expected<SellerHistory> sellerHistory(const QString &sellerId) = 0;
    // Marks on duplicate payouts, oldest first; the last one of a key is its state.
    virtual Expected<QList<PayoutMark>> payoutMarks() = 0;
    // Call inside a transaction with the audit entry that records it.
    virtual Expected<qint64> insertPayoutMark(const PayoutMark &mark) = 0;

protected:
    ~FinanceStore() = default;
};

// Replaying incidents: the trace of each call, and the trainer's notes on its steps.
class TraceStore : public virtual StoreSession
{
public:
    virtual Expected<QList<TraceEvent>> traceEvents(qint64 ticketId) = 0; // in seq order
    virtual Expected<QList<TrainerNote>> trainerNotes(qint64 ticketId) = 0;
    // One note per step: saving replaces the step's note, and empty text removes it.
    virtual Expected<void> saveTrainerNote(qint64 ticketId, const TrainerNote &note) = 0;

protected:
    ~TraceStore() = default;
};

// The audit log (the chain itself is computed by AuditLog), and what the audit checks its
// entries against, a page at a time, by id.
class AuditStore : public virtual StoreSession
{
public:
    virtual Expected<std::optional<AuditEntry>> lastAuditEntry() = 0;
    virtual Expected<void> insertAuditEntry(const AuditEntry &entry) = 0;
    virtual Expected<qint64> countAuditEntries() = 0;
    virtual Expected<QList<AuditEntry>> auditEntries(qint64 offset, int limit) = 0; // oldest first
    virtual Expected<QList<EscalationSettlement>> escalationSettlements(qint64 offset, int limit) = 0;
    virtual Expected<QList<LedgerEntry>> ledgerEntries(qint64 offset, int limit) = 0;
    virtual Expected<QList<Evidence>> evidenceRows(qint64 offset, int limit) = 0;
    // Write calls in id order, after `afterCallId` (keyset: a million calls read in flat time).
    virtual Expected<QList<StoredWriteOutcome>> writeOutcomes(qint64 afterCallId, int limit) = 0;

protected:
    ~AuditStore() = default;
};

// What the file is, for a file made for a purpose (an incident export).
class FileInfoStore : public virtual StoreSession
{
public:
    virtual Expected<QHash<QString, QString>> fileInfo() = 0; // key to value
    virtual Expected<void> setFileInfo(const QString &key, const QString &value) = 0;
    // Leaves the data in one file with nothing beside it (no journal or log files), so it can
    // be copied and mailed on its own and read where nothing may be written.
    virtual Expected<void> makeSelfContained() = 0;

protected:
    ~FileInfoStore() = default;
};

// Doors to more than one room, for work that spans them: each holds nothing of its own, and a
// Store passes through every one.

// Claims on escalations, each taken or given back with its audit entry; and how each escalation
// was settled, as the audit reads it (a person's check, which a provider's record outranks).
class ClaimStore : public virtual EscalationStore, public virtual AuditStore
{
protected:
    ~ClaimStore() = default;
};

// Settling an escalation: the evidence, the settlement and the ledger row it makes, each with
// the audit entry that vouches for it, under the claims that say who may settle it.
class SettlementStore : public virtual ClaimStore, public virtual LedgerStore
{
protected:
    ~SettlementStore() = default;
};

// An escalation as a person reads it: its evidence, its ticket's transcript, and the ledger rows
// of its intent's calls (what the customer should now be told).
class EscalationReads : public virtual EscalationStore, public virtual TicketReads, public virtual LedgerStore
{
protected:
    ~EscalationReads() = default;
};

// Resolving escalations from the console: reading each, looking it up, settling it.
class ResolutionStore : public virtual SettlementStore, public virtual EscalationReads
{
protected:
    ~ResolutionStore() = default;
};

// Finance's marks on duplicate payouts, each stored with its audit entry.
class PayoutRecoveryStore : public virtual FinanceStore, public virtual AuditStore
{
protected:
    ~PayoutRecoveryStore() = default;
};

// What finance reviews and acts on: payouts and balances, the marks on duplicate payouts, and
// the refunds a provider's statement proves, settled.
class FinanceReviewStore : public virtual PayoutRecoveryStore, public virtual SettlementStore
{
protected:
    ~FinanceReviewStore() = default;
};

// Verifying the audit: its chain, and what its entries vouch for, the ledger's rows among them.
class AuditCheckStore : public virtual AuditStore, public virtual LedgerStore
{
protected:
    ~AuditCheckStore() = default;
};

// Replaying an incident, or exporting it: the ticket and its transcript, the trace of its
// calls, and the trainers' notes.
class ReplayStore : public virtual TicketReads, public virtual TraceStore
{
protected:
    ~ReplayStore() = default;
};

// Every room and every door: what a backend implements, and what start-up wiring holds. Each
// room is a virtual base, so a Store holds it once, whichever door it is reached through.
class Store : public virtual TicketReads,
              public virtual ImportWrites,
              public virtual ClassificationStore,
              public virtual EscalationStore,
              public virtual LedgerStore,
              public virtual FinanceStore,
              public virtual TraceStore,
              public virtual AuditStore,
              public virtual FileInfoStore,
              public virtual ClaimStore,
              public virtual SettlementStore,
              public virtual EscalationReads,
              public virtual ResolutionStore,
              public virtual PayoutRecoveryStore,
              public virtual FinanceReviewStore,
              public virtual AuditCheckStore,
              public virtual ReplayStore
{
public:
    virtual ~Store() = default;

protected:
    Store() = default;
};

} // namespace verity

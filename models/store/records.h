#pragma once
// Plain records that cross the store interface. They carry no SQL and no Qt models, so a
// second backend fills the same shapes.

#include "domain/intentkey.h"
#include "domain/outcome.h"
#include "domain/settlement.h"
#include "domain/ticketassessment.h"
#include "domain/toolclass.h"

#include <QList>
#include <QString>
#include <QVariant>

#include <optional>

namespace verity {

enum class MessageKind { Customer, Agent, System, Reply };
QString messageKindId(MessageKind kind); // "customer", "agent", "system", "reply"
std::optional<MessageKind> messageKindFromId(QStringView id);

// Where an escalation stands: waiting in the queue, or settled by evidence.
enum class EscalationState { Open, Resolved };
QString escalationStateId(EscalationState state); // "open", "resolved"
// An unknown word reads as open: an escalation nobody can place stays in front of a person.
EscalationState escalationStateFromId(QStringView id);

struct SellerRecord
{
    QString id;
    QString name;
    std::optional<qint64> balanceCents;
    qint64 balanceAsOf = 0; // ms since the epoch, UTC

    bool operator==(const SellerRecord &) const = default;
};

struct OrderItemRecord
{
    QString id;
    QString title;
    qint64 quantity = 1;
    qint64 amountCents = 0;

    bool operator==(const OrderItemRecord &) const = default;
};

struct OrderRecord
{
    QString id;
    QString paymentIntent; // the provider's payment for the order, when the data names one
    QString currency = QStringLiteral("USD");
    QString customerName;
    QString customerEmail;
    QList<OrderItemRecord> items;

    bool operator==(const OrderRecord &) const = default;
};

// ---- what the importer writes ----

// Where a ticket's opening time comes from: its own turns, or, for a transcript without
// times (τ-bench), the file's own date or else the file's modification time.
enum class TicketDating { OwnTimes, FileDate, FileModified };
QString ticketDatingId(TicketDating dating); // "", "file", "file_modified"
TicketDating ticketDatingFromId(QStringView id);

struct NewTicket
{
    QString extId;
    qint64 openedAt = 0;
    QString subject;
    OrderRecord order;
    SellerRecord seller; // empty id: the transcript names no seller
    QString fingerprint; // of the ticket_opened event, to tell a re-import from a conflict
    QString sourceFormat = QStringLiteral("native"); // transcriptFormatId() of the file it came from
    QString registry = QStringLiteral("default"); // the registry profile that read its calls
    // For a ticket with no order or seller: what identifies it ("task 7 · trial 0") and where it
    // comes from ("retail · gpt-4.1"). Empty when the transcript says nothing of it.
    QString task;
    QString origin;
    TicketDating dating = TicketDating::OwnTimes;
};

struct TicketRef
{
    qint64 id = 0;
    QString fingerprint;
    TicketFacts facts; // ticket_id, order_id, seller_id for intent keys
    qint64 lastSeq = 0;
    QString registry; // the registry profile its calls are read with
};

struct NewMessage
{
    qint64 ticketId = 0;
    qint64 seq = 0;
    qint64 at = 0;
    MessageKind kind = MessageKind::Customer;
    QString text;
    QString fingerprint;
};

struct NewToolCall
{
    qint64 ticketId = 0;
    qint64 seq = 0;
    QString callExtId;
    QString tool;
    ToolClass toolClass = ToolClass::Unclassified;
    QString argumentsJson;
    qint64 calledAt = 0;
    QString intentKey;
    // With a key: why the registry's intent fields could not make it, so it is from all of the
    // call's arguments. Without one: why there is none.
    QString intentError;
    std::optional<qint64> amountCents;
    QString amountError; // the amount the call named is no money Verity can count, and why
    // No registry knows the tool: why it is taken for `toolClass` (inferToolClass), until a
    // person confirms a class. Empty when a registry gave the class.
    QString classInferred;
    std::optional<Outcome> outcome; // a write starts Unknown until its result says otherwise
    QString outcomeReason;
    QString fingerprint;
    // A write whose result may still come (an agent's live stream): not escalated before this
    // moment (ms since the epoch) unless its result says unknown first.
    std::optional<qint64> inFlightUntil;
};

struct ToolCallRef
{
    qint64 id = 0;
    QString tool;
    ToolClass toolClass = ToolClass::Unclassified;
    QString fingerprint;
    QString resultFingerprint; // empty while the call has no result
};

struct ToolResultUpdate
{
    qint64 callId = 0;
    QString rawResult;
    qint64 at = 0;
    std::optional<qint64> durationMs;
    std::optional<Outcome> outcome; // writes only
    QString outcomeReason;
    bool readFailed = false;
    bool errorFlag = false; // the transcript itself marked the result an error
    QString errorType;
    QString fingerprint;
};

struct ImportRecord
{
    QString path;
    QString sha256;
    qint64 startedAt = 0;
    qint64 linesRead = 0;
    qint64 linesRejected = 0;
};

// ---- what the console reads ----

enum class TicketFilter { All, NeedsAttention, Unknown, RepeatedIntent, DuplicateEffect, RetryAfterError };
enum class TicketSortKey { Opened, Attention, Ticket, Order, Seller, Writes, WorstOutcome };

struct TicketQuery
{
    TicketFilter filter = TicketFilter::All;
    QString search; // prefix of a ticket, order or seller name
    TicketSortKey sortKey = TicketSortKey::Opened;
    bool descending = true;
};

// What a person calls a ticket: its id, except that one the receiver knows only by its trace
// ("trace:4bf92f35…") is called by the order its calls name, when they name one.
QString ticketName(const QString &extId, const QString &orderId);

struct TicketRow
{
    qint64 id = 0;
    QString extId;
    QString orderId;
    QString sellerName;
    QString subject;
    qint64 openedAt = 0;
    int writeCount = 0;
    std::optional<Outcome> worstOutcome;
    bool duplicateEffect = false; // worse than any outcome: shown as "Duplicate effect"
    bool needsAttention = false;
    bool hasUnknown = false;
    bool hasRepeatedIntent = false;
    RepeatCounts repeats;
    QString sourceFormat;
    QString task; // see NewTicket
    QString origin;
    TicketDating dating = TicketDating::OwnTimes;
    TicketState state = TicketState::NoWrites;
    bool unknownInFlight = false; // its unknown writes all wait for their results still

    bool operator==(const TicketRow &) const = default;
};

// Where a page of the queue starts, so that no page costs more than its own rows: after the
// ticket with this sort value and id (reading backwards: before it), then `skip` rows further.
// Without an anchor, from the first ticket (backwards: the last). Rows come in the queue's order.
struct TicketAnchor
{
    QVariant sortValue;
    qint64 id = 0;
};

struct TicketPage
{
    std::optional<TicketAnchor> anchor;
    bool backwards = false;
    qint64 skip = 0;
    int limit = 0;
};

// Whether the queue's order under `key` can be entered at an anchor: its column is never NULL.
bool anchorsOrder(TicketSortKey key);
// The value `row` has in the column `key` sorts on.
QVariant ticketSortValue(const TicketRow &row, TicketSortKey key);

struct TicketDetail
{
    TicketRow row;
    QString registry; // the registry profile that read its calls
    QString sellerId;
    std::optional<qint64> sellerBalanceCents;
    qint64 sellerBalanceAsOf = 0;
    OrderRecord order;

    bool operator==(const TicketDetail &) const = default;
};

struct ToolCallRow
{
    qint64 id = 0;
    QString callExtId;
    QString tool;
    ToolClass toolClass = ToolClass::Unclassified;
    QString classInferred; // NewToolCall::classInferred
    QString argumentsJson;
    qint64 calledAt = 0;
    bool hasResult = false;
    QString rawResult;
    std::optional<qint64> resultAt;
    std::optional<qint64> durationMs;
    QString intentKey;
    // With a key: why the registry's intent fields could not make it, so it is from all of the
    // call's arguments. Without one: why there is none.
    QString intentError;
    std::optional<Outcome> outcome;
    QString outcomeReason;
    bool readFailed = false;
    bool repeated = false;
    QStringList repeatedWith; // call ids of the other calls with the same intent key
    std::optional<RepeatKind> repeatKind; // set on a call that repeats an earlier intent
    QString repeatOfCallId; // the call it repeats
    bool resultError = false; // the transcript marked the result an error
    QString resultErrorType;
    std::optional<qint64> amountCents;
    QString amountError; // the amount named is no money Verity can count, and why
    std::optional<qint64> escalationId;
    std::optional<EscalationState> escalationState; // when escalated
    std::optional<Resolution> resolution; // how a person settled it, by evidence
    SettlementBasis settlementBasis = SettlementBasis::Lookup;
    QString settledReference; // the refund, pickup or message that settled it
    QString resolvedBy;
    qint64 resolvedAt = 0;
    QString escalationNote; // why the last lookup could not tell
    std::optional<qint64> inFlightUntil; // its result may still come until then (ms since the epoch)
    qint64 argumentsClippedBytes = 0; // whole sizes in UTF-8 bytes when clipped, else 0
    qint64 resultClippedBytes = 0;

    bool operator==(const ToolCallRow &) const = default;
};

// What is known now of a write's outcome: what the evidence settled, else what the tool said,
// but for a harmless repeat, which found the effect already there.
std::optional<Outcome> knownOutcome(const ToolCallRow &call);
// Settled "not performed", and the tool's own answer (come after) says it took effect: the answer
// stands (tookEffect), and the settlement is shown as contradicted.
bool settlementContradicted(const ToolCallRow &call);

// Where one text of a ticket lies, for reading it whole after it came clipped.
struct TextPlace
{
    enum class Part { Message, Arguments, Result };
    Part part = Part::Message;
    qint64 seq = 0; // a message's
    qint64 callId = 0; // a call's
};

struct TranscriptEntry
{
    qint64 seq = 0;
    qint64 at = 0;
    bool isToolCall = false;
    MessageKind kind = MessageKind::Customer; // messages
    QString text; // messages
    qint64 clippedBytes = 0; // the whole text's size in UTF-8 bytes when clipped, else 0
    ToolCallRow call; // tool calls

    bool operator==(const TranscriptEntry &) const = default;
};

struct EscalationRow
{
    qint64 id = 0;
    qint64 ticketId = 0;
    QString ticketExtId;
    qint64 callId = 0;
    QString callExtId;
    QString tool;
    qint64 openedAt = 0;
    std::optional<qint64> amountCents;
    QString currency;
    EscalationState state = EscalationState::Open;
    QString claimedBy; // who claimed it last; the claim holds until claimedUntil (see claimHeld)
    qint64 claimedUntil = 0; // ms since the epoch, UTC
    qint64 claimRenewedAt = 0; // when the claim was last taken or renewed
    qint64 claimRenewsEvery = 0; // how often its holder renews it; 0 when nobody does
    QString orderId; // the ticket's order, empty when it names none

    bool operator==(const EscalationRow &) const = default;
};

// ---- resolving unknown writes ----

enum class LookupVerdict { Found, NotFound, CouldNotTell };
QString lookupVerdictId(LookupVerdict verdict); // "found", "not_found", "could_not_tell"
std::optional<LookupVerdict> lookupVerdictFromId(QStringView id);

// Everything a lookup or a repeat of one unknown write needs, and where it stands.
struct EscalationDetail
{
    qint64 id = 0;
    qint64 ticketId = 0;
    QString ticketExtId;
    qint64 callId = 0;
    QString callExtId;
    QString tool;
    ToolClass toolClass = ToolClass::Unclassified;
    QString argumentsJson;
    QString intentKey;
    std::optional<qint64> amountCents;
    QString currency;
    QString orderId;
    QString paymentIntent; // the order's, when its data named one; never guessed
    QString enteredPayment; // a payment an operator entered for this escalation (pi_… or ch_…)
    QString enteredPaymentBy;
    QString sellerId;
    QString sellerName;
    QString customerName;
    qint64 calledAt = 0;
    qint64 openedAt = 0;
    QString ticketRegistry; // the registry profile that read the ticket's calls
    EscalationState state = EscalationState::Open;
    std::optional<Resolution> resolution;
    SettlementBasis basis = SettlementBasis::Lookup;
    QString reference; // the refund, pickup or message that settled it; empty when none
    QString resolvedBy;
    qint64 resolvedAt = 0;
    QString lastNote; // why the last lookup could not tell
    QString claimedBy;
    qint64 claimedUntil = 0;
    std::optional<Outcome> reported; // the call's outcome as the tool reported it

    bool operator==(const EscalationDetail &) const = default;
};

// Who holds an escalation: an operator claims it before acting, for a lease that their console
// renews while they work on it and gives back when they are done. A lapsed claim holds nobody.
struct EscalationClaim
{
    qint64 escalationId = 0;
    QString holder; // empty: nobody holds it
    qint64 until = 0; // ms since the epoch, UTC
    bool taken = false; // this request took or renewed it; else `holder` had it already

    bool operator==(const EscalationClaim &) const = default;
};
// Whether a claim by `holder` until `until` still holds at `now`.
inline bool claimHeld(const QString &holder, qint64 until, qint64 now)
{
    return !holder.isEmpty() && until > now;
}

// What evidence is: a lookup at the system the write went to, a write sent from the console
// (the POST with its Idempotency-Key and the answer), a person's attested check, or a
// provider's record that a reconciliation read.
enum class EvidenceKind { Lookup, Write, Attestation, Reconciliation };
QString evidenceKindId(EvidenceKind kind); // "lookup", "write", "attestation", "reconciliation"
std::optional<EvidenceKind> evidenceKindFromId(QStringView id);

// One piece of evidence about an escalation, kept as it was: what was asked, what came back,
// when, by whom. Its SHA-256 covers every field a person is shown (evidenceHash()).
struct Evidence
{
    qint64 id = 0;
    qint64 escalationId = 0;
    EvidenceKind kind = EvidenceKind::Lookup;
    QString operatorName;
    qint64 startedAt = 0;
    qint64 finishedAt = 0;
    // Found: the write happened; NotFound: it did not; CouldNotTell: the evidence cannot say.
    LookupVerdict verdict = LookupVerdict::CouldNotTell;
    QString request;
    QString response;
    QString recordId; // the refund, pickup or message found; empty when none
    QString reason;
    QString evidenceSha256;

    bool operator==(const Evidence &) const = default;
};

// The SHA-256 an evidence row carries, lowercase hex, of this encoding (netstrings, as for
// intent keys; integers in decimal, text as UTF-8):
//   netstring("verity-evidence-v1") netstring(escalation id) netstring(kind) netstring(operator)
//   netstring(started at) netstring(finished at) netstring(verdict) netstring(record id)
//   netstring(reason) netstring(request) netstring(response)
QString evidenceHash(const Evidence &evidence);
// Lookups stored before schema 11 hashed only their request, a blank line, and their response.
QString legacyEvidenceHash(const Evidence &evidence);

// The answer to "settle this escalation": either this operator settled it, or someone else
// already had (and who, when, how).
struct ResolutionClaim
{
    bool claimed = false;
    QString resolvedBy;
    qint64 resolvedAt = 0;
    std::optional<Resolution> resolution;
    SettlementBasis basis = SettlementBasis::Lookup;
    QString reference;
};

// One settlement of an escalation, as the store writes it.
struct Settlement
{
    qint64 escalationId = 0;
    Resolution resolution = Resolution::Performed;
    SettlementBasis basis = SettlementBasis::Lookup;
    QString reference; // the refund, pickup or message that proves it; empty when none
    QString operatorName;
    qint64 at = 0;
    // A check that it was performed (done since where no system can be asked) replacing a check
    // that found it not performed: stored only while the escalation still stands on that check.
    bool replacesAttestedAbsence = false;
};

// A call of one ticket carrying a given intent key, with what is known of its effect: what
// matching calls to the records at a provider needs (recordmatching.h).
struct IntentCall
{
    qint64 id = 0;
    QString ticketExtId;
    QString callExtId;
    qint64 calledAt = 0;
    std::optional<Outcome> outcome; // as the tool reported it
    std::optional<qint64> escalationId;
    std::optional<Resolution> resolution; // when its escalation was settled
    bool attested = false; // settled by a person's check, which a system's answer outranks
    // The record this call is known to have made: the ledger's refund for it, its settlement's
    // reference, or the id its own result names. Empty when nothing names one.
    QString recordId;
    QString reference; // what its settlement recorded (a record, or where a person looked)
    // Stored live, its result still awaited until then (ms; NewToolCall::inFlightUntil): nobody
    // knows yet.
    std::optional<qint64> inFlightUntil;

    bool operator==(const IntentCall &) const = default;
};

// An escalation as the audit can check it: where it stands, and the ledger row of its call.
struct EscalationSettlement
{
    qint64 escalationId = 0;
    qint64 callId = 0;
    EscalationState state = EscalationState::Open;
    std::optional<Resolution> resolution;
    SettlementBasis basis = SettlementBasis::Lookup;
    QString reference;
    QString resolvedBy;
    qint64 resolvedAt = 0;

    bool operator==(const EscalationSettlement &) const = default;
};

// A write call as the audit reads it again: its recorded result, and the outcome stored for it.
struct StoredWriteOutcome
{
    qint64 callId = 0;
    QString callExtId;
    QString ticketExtId;
    QString registry; // the profile that read the ticket's calls
    bool hasResult = false;
    QString rawResult; // JSON text
    bool resultError = false;
    std::optional<Outcome> outcome;
    bool escalated = false; // an escalation (open or settled) was opened for it
    bool inFlight = false; // reported live, its result still awaited: escalated when the wait ends
};

// Money moved: one row per refund, linked to the call that made it. Several refunds may carry
// one intent key (an old tool's duplicates); the console's own writes check the key first.
struct LedgerEntry
{
    QString intentKey;
    std::optional<qint64> toolCallId;
    QString refundId;
    qint64 amountCents = 0;
    QString currency;
    QString sellerId;
    qint64 recordedAt = 0;
    QString source; // "provider lookup", "console write", ...

    bool operator==(const LedgerEntry &) const = default;
};

// A tool the registry in force did not know when its calls were imported: unclassified, or of
// a class inferred and not yet confirmed.
struct UnclassifiedTool
{
    QString tool;
    qint64 calls = 0;
    qint64 tickets = 0;
    // One call's arguments and its raw result (empty when it has none), to show which fields an
    // intent could use and to suggest what the tool does: the call with a result that is not an
    // error, when there is one.
    QString sampleArguments;
    QString sampleResult;
    // Its calls are judged as this class, taken from what their source said of the tool, until a
    // person confirms one; Unclassified when nothing said what it is.
    ToolClass inferredClass = ToolClass::Unclassified;
    QString inferredBecause; // NewToolCall::classInferred

    bool operator==(const UnclassifiedTool &) const = default;
};

// A stored call, with what it takes to read it again under another registry.
struct StoredCall
{
    qint64 id = 0;
    qint64 ticketId = 0;
    QString tool;
    QString argumentsJson;
    bool hasResult = false;
    QString rawResult;
    bool resultError = false;
    TicketFacts facts;
    QString registry; // the profile that read the ticket

    bool operator==(const StoredCall &) const = default;
};

// A call's class, key and outcome, as a registry reads them.
struct CallClassification
{
    qint64 callId = 0;
    ToolClass toolClass = ToolClass::Unclassified;
    QString intentKey;
    // With a key: why the registry's intent fields could not make it, so it is from all of the
    // call's arguments. Without one: why there is none.
    QString intentError;
    std::optional<qint64> amountCents;
    QString amountError;
    std::optional<Outcome> outcome;
    QString outcomeReason;
    bool readFailed = false;
};

struct AuditEntry
{
    qint64 seq = 0;
    qint64 at = 0;
    QString operatorName;
    QString action; // an auditaction.h id: "lookup", "settle", "write", ...
    std::optional<qint64> escalationId;
    QString detail;
    QString evidenceSha256;
    QString prevHash;
    QString hash;

    bool operator==(const AuditEntry &) const = default;
};

} // namespace verity

#pragma once
// Plain records the simulator's parts share: the two refund policies, a generated ticket and
// its seller, one simulated event, and what one ticket's run ended with.

#include <QList>
#include <QString>
#include <QStringView>

#include <nlohmann/json.hpp>

#include <optional>

namespace verity {

// JSON that keeps its fields in the order written: lines read "type", "ticket", "at" first.
using SimJson = nlohmann::ordered_json;

// The two ways the refund tool can be built (see refundtools.h).
enum class SimPolicy {
    AsShipped, // a fresh random key per attempt; a timeout reported as "failed"
    IntentKey, // the safe runtime: the intent key, a lookup after any ambiguous answer
};
QString simPolicyId(SimPolicy policy); // "as-shipped", "intent-key"
std::optional<SimPolicy> simPolicyFromId(QStringView id);
QString simPolicyLabel(SimPolicy policy); // "As shipped", "Intent key"

struct SimSeller
{
    QString id; // also the sandbox account id
    QString name;
    qint64 openingBalanceCents = 0;
    qint64 balanceAsOf = 0; // virtual ms: the balance held before the run's first ticket
};

struct SimTicket
{
    int index = 0; // 0-based position in the run: faults and generators derive from it
    QString ticketId; // "T-SIM-42-00001"
    qint64 openedAt = 0; // virtual ms since the epoch, UTC
    QString subject;
    QString customerName;
    QString customerEmail;
    QString customerText; // the customer's message
    QString orderId;
    QString paymentIntent; // the sandbox payment refunds of this order draw on
    // What that payment took at checkout. The buyer's checkout paid for more than this order
    // (see ticketgenerator.h), so the provider's "more than was paid" check never stops a
    // duplicate: in the March incident nothing stopped the second refund either.
    qint64 paymentCents = 0;
    QString itemId;
    QString itemTitle;
    qint64 amountCents = 0; // the item's price: the refund asked for
    QString currency = QStringLiteral("USD");
    int sellerIndex = 0;
    SimSeller seller;
    qint64 firstRefundAt = 0; // virtual ms of the first issue_refund call; 0: when the model gets there
};

// One thing that happened on a simulated ticket, as a native JSONL line and as a sentence.
struct SimulatedEvent
{
    enum class Kind { TicketOpened, Message, ToolCall, ToolResult, Http, Provider, Reply };
    Kind kind = Kind::Message;
    qint64 at = 0; // virtual ms since the epoch
    QString callId;
    QString summary; // for a person: "issue_refund answered {"error": ...}"
    SimJson line; // the complete native line: type, ticket, at, fields
};

// A refund the provider holds for a ticket's payment (the provider is the truth).
struct AuditedRefund
{
    QString id;
    qint64 amountCents = 0;
    QString key; // metadata[intent_key]: the Idempotency-Key of the POST that made it
};

struct SimEscalation
{
    QString callId; // the escalate_to_human call
    QString reason; // why the model escalated, in the policy's words
};

struct TicketOutcome
{
    int index = 0;
    QString ticketId;
    QString sellerId;
    int refundCalls = 0; // issue_refund calls the model made
    int postsSent = 0; // refund POSTs that went out
    QList<AuditedRefund> refunds; // at the provider, oldest first
    int unknownAnswers = 0; // tool answers that said outcome "unknown"
    bool retriedAfterUnknown = false; // an issue_refund call after an "unknown" answer
    std::optional<SimEscalation> escalation;
    QString finalReply;
    // The fault schedule's view: the first POST met accept-then-stall, the reads were down.
    bool firstPostStalled = false;
    bool readsDown = false;
    // Set when the provider answered in a way the fault schedule did not call for: a request
    // timed out that no fault stalled (the machine was too slow for the compressed timing), a
    // POST met a fault the schedule did not ask for (a sandbox with faults of its own), a
    // stalled POST was answered in time. The numbers are then not the simulation's.
    QString problem;
    QList<SimulatedEvent> events; // in time order
};

} // namespace verity

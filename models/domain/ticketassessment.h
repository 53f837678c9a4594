#pragma once
// What a ticket's tool calls add up to: how many writes, the worst outcome, which writes
// repeat an intent and what each repeat means, and whether a person needs to look. Pure: the
// store feeds it the calls and writes back what it says.

#include "outcome.h"
#include "toolclass.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <optional>

namespace verity {

// What a write that repeats an earlier intent on the same ticket amounts to. A model that
// retries does so as a fresh decision, so no retry counter sees these; only the key does.
enum class RepeatKind {
    Retry, // no earlier call with the key took effect: a retry after an unknown or error
    DuplicateEffect, // an earlier call took effect and this one did too: money or an effect twice
    Harmless, // already performed, refused after the effect, or the effect's very result again
    Unsettled, // an earlier call took effect and this one's outcome is unknown
};
QString repeatKindId(RepeatKind kind); // "retry", "duplicate_effect", "harmless", "unsettled"
std::optional<RepeatKind> repeatKindFromId(QStringView id);
QString repeatKindLabel(RepeatKind kind); // words for a card: "Duplicate effect", ...

struct CallFacts
{
    qint64 id = 0;
    ToolClass toolClass = ToolClass::Unclassified;
    std::optional<Outcome> outcome; // writes only
    QString intentKey; // empty when the key could not be made
    bool intentError = false;
    std::optional<qint64> amountCents;
    bool amountError = false; // it named an amount that is no money Verity can count
    // Settled "not performed", by a lookup or by a person's check (settledAbsent): unless another
    // call of its intent took effect, it is still owed, and a person must send it again (or do it
    // where it is done) or tell the customer.
    bool settledAbsent = false;
    // SHA-256 of a structured result that names an id, exactly as the tool returned it; empty
    // otherwise. A repeat that got back the very record of the call that took effect changed
    // nothing (a reservation updated to what it already was): harmless, not a second effect.
    QByteArray resultDigest;
    // The first id that result names ("reservation_id": "4WQ150"), with its key: the object the
    // write left in that state. A later write's result with the same bytes is that state again.
    QString resultObject;
    bool resultSaysNoChange = false; // "already cancelled", "no changes were made"
    // Reported live and waiting for its result (unknown until the result or the grace ends).
    bool inFlight = false;
    // `verity guard` answered it itself and never sent it: its outcome says what the model was
    // told, not what a system did, so it is no ticket's worst outcome.
    bool answeredByGuard = false;
};

// Fills in the result facts from the result as stored. A result of 64 KiB or more is not
// compared: no tool's answer to the same request is that long twice by chance.
void noteResult(CallFacts &call, const QString &rawResult);
constexpr qsizetype comparedResultLimit = 65536;

struct RepeatLink
{
    RepeatKind kind = RepeatKind::Retry;
    // The latest earlier call with the same key that took effect; when none did, the latest one.
    qint64 repeatOf = 0;
};

// How many repeats of each kind a ticket has: what the queue filters and the import summary count.
struct RepeatCounts
{
    int retries = 0;
    int duplicateEffects = 0;
    int harmless = 0;
    int unsettled = 0;
    qint64 duplicateCents = 0; // money moved twice (or more), by the duplicate effects

    RepeatCounts &operator+=(const RepeatCounts &other);
    RepeatCounts operator-(const RepeatCounts &other) const;
    bool operator==(const RepeatCounts &) const = default;
};

struct TicketAssessment
{
    int writeCount = 0;
    std::optional<Outcome> worstOutcome;
    bool hasUnknown = false;
    bool hasRepeatedIntent = false;
    RepeatCounts repeats;
    bool needsAttention = false;
    bool owesWrite = false; // a write settled not performed, with nothing of its intent done
    // Every unknown write is still in flight: the ticket shows "In flight", not "Unknown".
    bool unknownInFlight = false;
    QSet<qint64> repeatedCalls; // every call whose intent key another write on the ticket shares
    QHash<qint64, RepeatLink> repeatOf; // each repeat (not the first call of a key): its kind and link
};

// `calls` in the order they were made.
TicketAssessment assessTicket(const QList<CallFacts> &calls);

// How bad a ticket is, for the queue's worst-outcome column and its sort: 0 without writes,
// then each outcome's severity (outcomeSeverity), and above them all a duplicate effect,
// money paid or an effect done twice.
constexpr int duplicateEffectSeverity = 5;
int ticketSeverity(const TicketAssessment &assessment);

// The worst thing on a ticket, in the order a person must see them: what the queue's Attention
// column says and sorts on. Its int value is the rank stored with the ticket.
enum class TicketState {
    NoWrites = 0,
    Performed = 1, // every write took effect, or already had
    NotPerformed = 2, // a write was refused
    NeedsLook = 3, // a person is needed for another reason: a write owed, a call nobody can classify or key
    Retry = 4, // a write repeated after an error, with no effect twice
    Unsettled = 5, // a repeat after an effect came back unknown
    Unknown = 6, // a write's outcome is unknown: a lookup must settle it
    DuplicateEffect = 7, // money paid or an effect done twice
};
TicketState ticketState(const TicketAssessment &assessment);
TicketState ticketStateFromRank(int rank);
QString ticketStateLabel(TicketState state); // "Duplicate effect", "Unknown", "Retry", ...

} // namespace verity

#pragma once
// The four outcomes of a write tool call. There is deliberately no "failed": a write either
// happened (now or earlier), did not happen, or nobody knows yet, and those call for
// opposite next moves.

#include <QString>
#include <QStringView>

#include <optional>

namespace verity {

enum class Outcome {
    Performed, // the effect happened on this call
    AlreadyPerformed, // the effect had happened before; this call changed nothing
    NotPerformed, // nothing happened; trying again with the same key is legitimate
    Unknown, // nobody knows: never retry, escalate to a human who looks it up
};

inline constexpr Outcome allOutcomes[] = {Outcome::Performed, Outcome::AlreadyPerformed,
                                          Outcome::NotPerformed, Outcome::Unknown};

// Stable identifier used in files and in the database: "performed", "already_performed", ...
QString outcomeId(Outcome outcome);
std::optional<Outcome> outcomeFromId(QStringView id);

// Not an outcome: an unknown write reported live whose result may still come, as views name
// it ("in_flight"). It becomes plain unknown, and is escalated, when its grace ends.
inline QString inFlightId()
{
    return QStringLiteral("in_flight");
}

// What a person reads: "Performed", "Already performed", "Not performed", "Unknown: do not retry".
QString outcomeLabel(Outcome outcome);

// How bad the outcome is for a queue sorted by concern; 0 is reserved for "no write".
int outcomeSeverity(Outcome outcome);
std::optional<Outcome> outcomeFromSeverity(int severity);

// Unknown is the only outcome that opens an escalation, and the only one that forbids any
// further attempt until a lookup has settled it.
bool outcomeNeedsEscalation(Outcome outcome);
// Whether the tool answered that the write took effect (performed, or already performed). Such
// an answer outranks a settlement that the write was not performed: it came after the person
// checked, or a lookup missed a record the system had not indexed yet; a repeat would be a
// second effect.
bool tookEffect(const std::optional<Outcome> &outcome);
bool outcomeAllowsRepeatWithSameKey(Outcome outcome);

} // namespace verity

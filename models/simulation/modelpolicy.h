#pragma once
// The simulated model: a fixed, documented policy, not a language model. It reads what the
// refund tool returned and picks its next move from this table, and nothing else:
//
//   what the model read from issue_refund              | calls so far | next move
//   ---------------------------------------------------+--------------+-------------------------------------------
//   performed: {"outcome":"performed"}, or a refund id  | any          | tell the customer it is refunded;
//   stop already performed: {"outcome":"already_performed"}  | any          | tell the customer it was
//   already refunded;
//                                                       |              | no new call
//   not performed, safe to try once more with the same  | 1            | call issue_refund again, same
//   arguments key: {"outcome":"not_performed","retry":"same_key"} | 2 or more    | escalate_to_human; tell
//   the customer a
//                                                       |              | person will follow up
//   refused: {"outcome":"not_performed"} without        | any          | escalate_to_human; tell the customer
//   it "retry":"same_key"                                  |              | could not be done here unknown:
//   {"outcome":"unknown"}                      | any          | never retry; escalate_to_human; tell the
//                                                       |              | customer a person will confirm
//   failed: {"error": "...failed..."} (any error text)  | 1 or 2       | call issue_refund again, same
//   arguments
//                                                       | 3            | escalate_to_human; apologise
//   anything else (unreadable)                          | any          | as unknown
//
// The as-shipped tool only ever answers a refund id or an error text; the intent-key tool
// only ever answers one of the four outcomes. The replies are fixed sentences (replyText).

#include "simulationtypes.h"

#include <QString>

namespace verity {

enum class ToolReading {
    Performed,
    AlreadyPerformed,
    NotPerformedRetryable, // nothing happened; the tool says the same key may be tried once more
    Refused, // nothing happened, and trying again would meet the same refusal
    Unknown,
    Failed, // an error text: what the as-shipped tool says, whatever happened
};

enum class ModelMove {
    ReplyRefunded,
    ReplyAlreadyRefunded,
    RetrySameArguments,
    EscalateNotPerformedTwice,
    EscalateRefused,
    EscalateUnknown,
    EscalateAfterFailures,
};

struct ModelPolicy
{
    static constexpr int maxCallsAfterFailure = 3; // "failed": at most three calls in all
    static constexpr int maxCallsAfterNotPerformed = 2; // "not performed": once more, no more

    static ToolReading read(const SimJson &result);
    // callsSoFar: issue_refund calls made on the ticket, the one just answered included.
    static ModelMove nextMove(ToolReading reading, int callsSoFar);

    static bool escalates(ModelMove move);
    static bool retries(ModelMove move) { return move == ModelMove::RetrySameArguments; }
    // The reason the model gives escalate_to_human.
    static QString escalationReason(ModelMove move);
    // What the model writes to the customer when it stops; `amount` is formatted money.
    static QString replyText(ModelMove move, const QString &amount);
    // What the model notes to itself before its next call (a `message` from the agent).
    static QString agentNote(ToolReading reading, ModelMove move);

    static QString readingId(ToolReading reading); // "performed", "failed", ...
    static QString moveId(ModelMove move); // "reply_refunded", "retry_same_arguments", ...
    // The table above as plain text, for `verity simulate --help` and resources/docs/training.md.
    static QString tableText();
};

} // namespace verity

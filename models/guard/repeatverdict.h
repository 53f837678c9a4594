#pragma once
// Whether a write may be sent, judged by every earlier call of the same intent, in any ticket:
// one still running, or whose outcome nobody knows, holds it (a person is checking); one that
// was performed answers it (the effect is there already); one that did not happen lets it go,
// once, with the same key. And what the guard says to the model instead of the tool's answer.

#include "store/records.h"

#include <QList>
#include <QString>

#include <nlohmann/json.hpp>

namespace verity {

struct RepeatVerdict
{
    enum class Kind {
        Send, // no earlier call stands in the way
        Hold, // an earlier call is in flight or unknown: not sent
        AnswerPerformed, // an earlier call was performed: answered without sending
    };
    Kind kind = Kind::Send;
    IntentCall earlier; // the call that decided it (Hold, AnswerPerformed)
    // Send after an earlier call of this intent did not happen: the repeat carries the intent's
    // key where the tool takes one.
    bool repeatsNotPerformed = false;
};

RepeatVerdict judgeRepeat(const QList<IntentCall> &earlier);

// What the call is recorded with instead of a result: "held: repeat of call g1-3 in ticket
// mcp-4f2a, whose outcome is unknown (escalation 12)". Empty for Send.
QString verdictReason(const RepeatVerdict &verdict);

// The CallToolResult the model gets instead of the tool's: words it follows (do not retry; tell
// the customer it is being checked, or that it is done). Null for Send.
nlohmann::json verdictAnswer(const RepeatVerdict &verdict, const QString &tool);

// The answer to a write the guard refuses because it cannot record it (`why`).
nlohmann::json unrecordedAnswer(const QString &tool, const QString &why);

// The answer to a call that never reached its server (`why`: the connection was refused).
nlohmann::json undeliveredAnswer(const QString &tool, const QString &why);

} // namespace verity

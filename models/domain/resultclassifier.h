#pragma once
// Reads what a tool returned and says what it means. A write result that states its outcome
// is taken at its word; any other write result is read by the registry's rules, which look
// for errors that leave the state unknown before they look for refusals, so that
// "refund failed: upstream timeout" is Unknown and never Not performed.

#include "outcome.h"
#include "toolregistry.h"

#include <QString>

#include <nlohmann/json_fwd.hpp>

namespace verity {

struct WriteVerdict
{
    Outcome outcome = Outcome::Unknown;
    // Why, in words a support agent can check against the raw result: the name of the registry's
    // rule that matched and the words it matched, or what was seen when no rule matched.
    QString reason;
};

// `result` is null when the call has no result at all. `errorFlagged` is the transcript's own
// mark (Anthropic is_error, τ² "error": true, a span status ERROR): the result is then read as
// an error, and only the rules can say whether it was refused or left unknown.
WriteVerdict classifyWriteResult(const nlohmann::json *result, const OutcomeRules &rules,
                                 bool errorFlagged = false);

// Whether a result reads as an error (for reads, which succeed or fail and may be retried).
bool resultLooksLikeError(const nlohmann::json &result, bool errorFlagged = false);

} // namespace verity

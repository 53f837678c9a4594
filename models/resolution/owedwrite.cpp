#include "owedwrite.h"

#include "domain/settlement.h"
#include "store/store.h"

namespace verity {

Expected<bool> stillOwed(EscalationStore &store, const EscalationDetail &escalation)
{
    if (escalation.state != EscalationState::Resolved
        || !settledAbsent(escalation.reported, escalation.resolution) || escalation.intentKey.isEmpty())
        return false;
    Expected<QList<IntentCall>> calls = store.intentCalls(escalation.ticketId, escalation.intentKey);
    if (!calls)
        return calls.error();
    for (const IntentCall &call : std::as_const(*calls)) {
        if (call.id != escalation.callId && tookEffect(settledOutcome(call.outcome, call.resolution)))
            return false;
    }
    return true;
}

} // namespace verity

#include "ticketassessment.h"

#include <QHash>

namespace verity {

TicketAssessment assessTicket(const QList<CallFacts> &calls)
{
    TicketAssessment result;
    QHash<QString, QList<const CallFacts *>> byKey;
    bool unclassifiedOrKeyless = false;

    for (const CallFacts &call : calls) {
        if (call.toolClass == ToolClass::Unclassified)
            unclassifiedOrKeyless = true;
        if (!isWrite(call.toolClass))
            continue;
        ++result.writeCount;
        if (call.intentError)
            unclassifiedOrKeyless = true;
        if (call.outcome) {
            if (!result.worstOutcome || outcomeSeverity(*call.outcome) > outcomeSeverity(*result.worstOutcome))
                result.worstOutcome = call.outcome;
            if (*call.outcome == Outcome::Unknown)
                result.hasUnknown = true;
        }
        if (!call.intentKey.isEmpty())
            byKey[call.intentKey].append(&call);
    }

    for (const QList<const CallFacts *> &group : std::as_const(byKey)) {
        if (group.size() < 2)
            continue;
        result.hasRepeatedIntent = true;
        int performed = 0;
        for (const CallFacts *call : group) {
            result.repeatedCalls.insert(call->id);
            if (call->outcome == Outcome::Performed)
                ++performed;
        }
        if (performed > 1)
            result.duplicateEffects += performed - 1;
    }

    // A repeat that came back "already performed" is the fix working and needs nobody; an
    // unknown, a second performed effect, or a call nobody can key does.
    result.needsAttention = result.hasUnknown || result.duplicateEffects > 0 || unclassifiedOrKeyless;
    return result;
}

} // namespace verity

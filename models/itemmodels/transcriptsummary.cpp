#include "transcriptsummary.h"

#include "domain/settlement.h"

#include <QSet>

namespace verity {

std::optional<QString> TranscriptSummary::firstToShow() const
{
    for (const QStringList *calls :
         {&duplicateEffects, &unknowns, &inFlight, &unsettledRepeats, &retries, &owed}) {
        if (!calls->isEmpty())
            return calls->first();
    }
    return std::nullopt;
}

TranscriptSummary summarizeTranscript(const QList<TranscriptEntry> &entries)
{
    TranscriptSummary summary;
    // The intents something took effect for: a write settled absent is owed only without one.
    QSet<QString> done;
    QList<const ToolCallRow *> absent;
    for (const TranscriptEntry &entry : entries) {
        if (!entry.isToolCall || !isWrite(entry.call.toolClass))
            continue;
        const ToolCallRow &call = entry.call;
        ++summary.writes;
        const std::optional<Outcome> outcome = knownOutcome(call);
        if (outcome == Outcome::Unknown && call.inFlightUntil && !call.escalationId) {
            summary.inFlight.append(call.callExtId);
        } else if (outcome) {
            ++summary.writesByOutcome[*outcome];
            if (outcome == Outcome::Unknown)
                summary.unknowns.append(call.callExtId);
        }
        if (tookEffect(outcome) && !call.intentKey.isEmpty())
            done.insert(call.intentKey);
        if (settledAbsent(call.outcome, call.resolution))
            absent.append(&call);
        if (!call.repeatKind)
            continue;
        switch (*call.repeatKind) {
        case RepeatKind::DuplicateEffect:
            summary.duplicateEffects.append(call.callExtId);
            break;
        case RepeatKind::Unsettled:
            summary.unsettledRepeats.append(call.callExtId);
            break;
        case RepeatKind::Retry:
            summary.retries.append(call.callExtId);
            break;
        case RepeatKind::Harmless:
            summary.harmlessRepeats.append(call.callExtId);
            break;
        }
    }
    for (const ToolCallRow *call : std::as_const(absent)) {
        if (call->intentKey.isEmpty() || !done.contains(call->intentKey))
            summary.owed.append(call->callExtId);
    }
    return summary;
}

} // namespace verity

#include "transcriptsummary.h"

namespace verity {

std::optional<QString> TranscriptSummary::firstToShow() const
{
    for (const QStringList *calls : {&duplicateEffects, &unknowns, &inFlight, &unsettledRepeats, &retries}) {
        if (!calls->isEmpty())
            return calls->first();
    }
    return std::nullopt;
}

TranscriptSummary summarizeTranscript(const QList<TranscriptEntry> &entries)
{
    TranscriptSummary summary;
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
    return summary;
}

} // namespace verity

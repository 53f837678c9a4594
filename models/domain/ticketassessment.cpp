#include "ticketassessment.h"

namespace verity {

QString repeatKindId(RepeatKind kind)
{
    switch (kind) {
    case RepeatKind::Retry: return QStringLiteral("retry");
    case RepeatKind::DuplicateEffect: return QStringLiteral("duplicate_effect");
    case RepeatKind::Harmless: return QStringLiteral("harmless");
    case RepeatKind::Unsettled: return QStringLiteral("unsettled");
    }
    Q_UNREACHABLE();
}

std::optional<RepeatKind> repeatKindFromId(QStringView id)
{
    for (RepeatKind kind : {RepeatKind::Retry, RepeatKind::DuplicateEffect, RepeatKind::Harmless, RepeatKind::Unsettled}) {
        if (id == repeatKindId(kind))
            return kind;
    }
    return std::nullopt;
}

QString repeatKindLabel(RepeatKind kind)
{
    switch (kind) {
    case RepeatKind::Retry: return QStringLiteral("Retry after an error");
    case RepeatKind::DuplicateEffect: return QStringLiteral("Duplicate effect");
    case RepeatKind::Harmless: return QStringLiteral("Harmless repeat");
    case RepeatKind::Unsettled: return QStringLiteral("Repeat after success, outcome unknown");
    }
    Q_UNREACHABLE();
}

RepeatCounts &RepeatCounts::operator+=(const RepeatCounts &other)
{
    retries += other.retries;
    duplicateEffects += other.duplicateEffects;
    harmless += other.harmless;
    unsettled += other.unsettled;
    duplicateCents += other.duplicateCents;
    return *this;
}

RepeatCounts RepeatCounts::operator-(const RepeatCounts &other) const
{
    return {retries - other.retries, duplicateEffects - other.duplicateEffects, harmless - other.harmless,
            unsettled - other.unsettled, duplicateCents - other.duplicateCents};
}

namespace {

bool tookEffect(const std::optional<Outcome> &outcome)
{
    return outcome == Outcome::Performed || outcome == Outcome::AlreadyPerformed;
}

RepeatKind classifyRepeat(const std::optional<Outcome> &outcome, bool earlierTookEffect)
{
    if (outcome == Outcome::AlreadyPerformed)
        return RepeatKind::Harmless; // the idempotency key did its job
    if (!earlierTookEffect)
        return RepeatKind::Retry;
    if (outcome == Outcome::Performed)
        return RepeatKind::DuplicateEffect;
    if (outcome == Outcome::NotPerformed)
        return RepeatKind::Harmless;
    return RepeatKind::Unsettled;
}

} // namespace

TicketAssessment assessTicket(const QList<CallFacts> &calls)
{
    TicketAssessment result;
    struct KeyHistory
    {
        qint64 firstCall = 0;
        qint64 latestCall = 0;
        bool tookEffect = false;
    };
    QHash<QString, KeyHistory> byKey;
    QSet<QString> provedAbsent; // keys of calls a lookup proved not performed
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
        if (call.intentKey.isEmpty())
            continue;
        if (call.provedAbsent)
            provedAbsent.insert(call.intentKey);

        auto seen = byKey.find(call.intentKey);
        if (seen == byKey.end()) {
            byKey.insert(call.intentKey, KeyHistory{call.id, call.id, tookEffect(call.outcome)});
            continue;
        }
        const RepeatKind kind = classifyRepeat(call.outcome, seen->tookEffect);
        result.repeatOf.insert(call.id, RepeatLink{kind, seen->latestCall});
        result.repeatedCalls.insert(seen->firstCall);
        result.repeatedCalls.insert(call.id);
        result.hasRepeatedIntent = true;
        switch (kind) {
        case RepeatKind::Retry: ++result.repeats.retries; break;
        case RepeatKind::DuplicateEffect:
            ++result.repeats.duplicateEffects;
            if (call.toolClass == ToolClass::WriteMoney && call.amountCents)
                result.repeats.duplicateCents += *call.amountCents;
            break;
        case RepeatKind::Harmless: ++result.repeats.harmless; break;
        case RepeatKind::Unsettled: ++result.repeats.unsettled; break;
        }
        seen->latestCall = call.id;
        seen->tookEffect = seen->tookEffect || tookEffect(call.outcome);
    }

    // A repeat that came back "already performed" is the fix working and needs nobody; an
    // unknown, a second effect, or a call nobody can key does.
    for (const QString &key : std::as_const(provedAbsent))
        result.owesWrite = result.owesWrite || !byKey.value(key).tookEffect;
    result.needsAttention =
        result.hasUnknown || result.repeats.duplicateEffects > 0 || unclassifiedOrKeyless || result.owesWrite;
    return result;
}

int ticketSeverity(const TicketAssessment &assessment)
{
    if (assessment.repeats.duplicateEffects > 0)
        return duplicateEffectSeverity;
    return assessment.worstOutcome ? outcomeSeverity(*assessment.worstOutcome) : 0;
}

} // namespace verity

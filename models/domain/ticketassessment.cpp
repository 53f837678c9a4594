#include "ticketassessment.h"

#include "mcpcallresult.h"
#include "sha256.h"

#include <QRegularExpression>

namespace verity {

QString repeatKindId(RepeatKind kind)
{
    switch (kind) {
    case RepeatKind::Retry:
        return QStringLiteral("retry");
    case RepeatKind::DuplicateEffect:
        return QStringLiteral("duplicate_effect");
    case RepeatKind::Harmless:
        return QStringLiteral("harmless");
    case RepeatKind::Unsettled:
        return QStringLiteral("unsettled");
    }
    Q_UNREACHABLE();
}

std::optional<RepeatKind> repeatKindFromId(QStringView id)
{
    for (RepeatKind kind :
         {RepeatKind::Retry, RepeatKind::DuplicateEffect, RepeatKind::Harmless, RepeatKind::Unsettled}) {
        if (id == repeatKindId(kind))
            return kind;
    }
    return std::nullopt;
}

QString repeatKindLabel(RepeatKind kind)
{
    switch (kind) {
    case RepeatKind::Retry:
        return QStringLiteral("Retry after an error");
    case RepeatKind::DuplicateEffect:
        return QStringLiteral("Duplicate effect");
    case RepeatKind::Harmless:
        return QStringLiteral("Harmless repeat");
    case RepeatKind::Unsettled:
        return QStringLiteral("Repeat after success, outcome unknown");
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

void noteResult(CallFacts &call, const QString &rawResult)
{
    call.resultDigest.clear();
    call.resultObject.clear();
    call.resultSaysNoChange = false;
    call.answeredByGuard = false;
    if (rawResult.isEmpty() || rawResult.size() >= comparedResultLimit)
        return;
    if (guardAnswerReason(rawResult)) {
        call.answeredByGuard = true;
        return;
    }
    // Text is stored as a JSON string, which may itself hold JSON ("{\"reservation_id\": ...").
    QString text = rawResult.trimmed();
    if (text.startsWith(u'"'))
        text = text.mid(1).trimmed();
    if (text.startsWith(u'{') || text.startsWith(u'[')) {
        // A record that names its id, answered again byte for byte, is that record reported
        // again. "Refund issued" twice, or {"status": "ok"} twice, says nothing either way.
        static const QRegularExpression namesAnId(
                QStringLiteral(R"(\\?"((?:\w+_)?id)\\?"\s*:\s*(\\?"([^"\\]{1,200})\\?"|-?\d{1,30})?)"),
                QRegularExpression::CaseInsensitiveOption);
        const QRegularExpressionMatch id = namesAnId.match(text);
        if (id.hasMatch()) {
            call.resultDigest = sha256Hex(rawResult.toUtf8());
            const QString value = id.captured(3).isEmpty() ? id.captured(2) : id.captured(3);
            if (!value.isEmpty())
                call.resultObject = id.captured(1).toLower() + u'=' + value;
        }
        return;
    }
    // Words a tool uses when the request asked for what already was. Only a plain-text answer
    // is read for them: a structured one may quote anybody's words.
    static const QRegularExpression noChange(
            QStringLiteral(
                    R"(\b(already\s+(been\s+)?\w+|no\s+changes?\b|nothing\s+(to\s+(update|change)|changed)|unchanged)\b)"),
            QRegularExpression::CaseInsensitiveOption);
    call.resultSaysNoChange = noChange.match(text).hasMatch();
}

namespace {

// `latestState`: the digest of the newest result that took effect on the object the call's
// result names, whichever write left it so.
RepeatKind classifyRepeat(const CallFacts &call, bool earlierTookEffect,
                          const QSet<QByteArray> &effectResults, const QByteArray &latestState)
{
    if (call.outcome == Outcome::AlreadyPerformed)
        return RepeatKind::Harmless; // the idempotency key did its job
    if (!earlierTookEffect)
        return RepeatKind::Retry;
    if (call.outcome == Outcome::Performed) {
        // A new effect shows in its answer (a new refund id, a changed reservation); the same
        // bytes as an effect already made are that effect reported again.
        // So is the state another write left the object in (flights set again after a baggage
        // change, answered with the reservation exactly as the baggage call left it).
        if (call.resultSaysNoChange
            || (!call.resultDigest.isEmpty()
                && (effectResults.contains(call.resultDigest) || call.resultDigest == latestState)))
            return RepeatKind::Harmless;
        return RepeatKind::DuplicateEffect;
    }
    if (call.outcome == Outcome::NotPerformed)
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
        qint64 latestEffect = 0; // 0 while none took effect
        QSet<QByteArray> effectResults; // digests of the results of the calls that took effect

        void add(const CallFacts &call)
        {
            latestCall = call.id;
            if (tookEffect(call.outcome)) {
                latestEffect = call.id;
                if (!call.resultDigest.isEmpty())
                    effectResults.insert(call.resultDigest);
            }
        }
    };
    QHash<QString, KeyHistory> byKey;
    QSet<QString> settledAbsent; // keys of calls settled not performed, whichever way
    // Each object's newest state, as the last write that took effect on it answered.
    QHash<QString, QByteArray> latestStates;
    const auto noteState = [&latestStates](const CallFacts &call) {
        if (tookEffect(call.outcome) && !call.resultObject.isEmpty() && !call.resultDigest.isEmpty())
            latestStates.insert(call.resultObject, call.resultDigest);
    };
    bool unclassifiedOrKeyless = false;

    for (const CallFacts &call : calls) {
        if (call.toolClass == ToolClass::Unclassified)
            unclassifiedOrKeyless = true;
        if (!isWrite(call.toolClass))
            continue;
        ++result.writeCount;
        if (call.intentError)
            unclassifiedOrKeyless = true;
        // Money may have moved that no sum counts: a person must read the amount at the provider.
        if (call.amountError && call.outcome != Outcome::NotPerformed)
            unclassifiedOrKeyless = true;
        if (call.outcome && !call.answeredByGuard) {
            if (!result.worstOutcome
                || outcomeSeverity(*call.outcome) > outcomeSeverity(*result.worstOutcome))
                result.worstOutcome = call.outcome;
            if (*call.outcome == Outcome::Unknown) {
                result.unknownInFlight = (!result.hasUnknown || result.unknownInFlight) && call.inFlight;
                result.hasUnknown = true;
            }
        }
        const QByteArray latestState = latestStates.value(call.resultObject);
        noteState(call);
        if (call.intentKey.isEmpty())
            continue;
        if (call.settledAbsent)
            settledAbsent.insert(call.intentKey);

        auto seen = byKey.find(call.intentKey);
        if (seen == byKey.end()) {
            KeyHistory first;
            first.firstCall = call.id;
            first.add(call);
            byKey.insert(call.intentKey, first);
            continue;
        }
        const RepeatKind kind =
                classifyRepeat(call, seen->latestEffect != 0, seen->effectResults, latestState);
        result.repeatOf.insert(
                call.id, RepeatLink{kind, seen->latestEffect != 0 ? seen->latestEffect : seen->latestCall});
        result.repeatedCalls.insert(seen->firstCall);
        result.repeatedCalls.insert(call.id);
        result.hasRepeatedIntent = true;
        switch (kind) {
        case RepeatKind::Retry:
            ++result.repeats.retries;
            break;
        case RepeatKind::DuplicateEffect:
            ++result.repeats.duplicateEffects;
            if (call.toolClass == ToolClass::WriteMoney && call.amountCents)
                result.repeats.duplicateCents += *call.amountCents;
            break;
        case RepeatKind::Harmless:
            ++result.repeats.harmless;
            break;
        case RepeatKind::Unsettled:
            ++result.repeats.unsettled;
            break;
        }
        seen->add(call);
    }

    // A repeat that came back "already performed" is the fix working and needs nobody; an
    // unknown, a second effect, or a call nobody can key does.
    for (const QString &key : std::as_const(settledAbsent))
        result.owesWrite = result.owesWrite || byKey.value(key).latestEffect == 0;
    result.needsAttention = result.hasUnknown || result.repeats.duplicateEffects > 0 || unclassifiedOrKeyless
            || result.owesWrite;
    return result;
}

TicketState ticketState(const TicketAssessment &assessment)
{
    if (assessment.repeats.duplicateEffects > 0)
        return TicketState::DuplicateEffect;
    if (assessment.hasUnknown)
        return TicketState::Unknown;
    if (assessment.repeats.unsettled > 0)
        return TicketState::Unsettled;
    if (assessment.repeats.retries > 0)
        return TicketState::Retry;
    if (assessment.needsAttention)
        return TicketState::NeedsLook;
    if (!assessment.worstOutcome)
        return TicketState::NoWrites;
    return *assessment.worstOutcome == Outcome::NotPerformed ? TicketState::NotPerformed
                                                             : TicketState::Performed;
}

TicketState ticketStateFromRank(int rank)
{
    return rank >= int(TicketState::NoWrites) && rank <= int(TicketState::DuplicateEffect)
            ? TicketState(rank)
            : TicketState::NoWrites;
}

QString ticketStateLabel(TicketState state)
{
    switch (state) {
    case TicketState::NoWrites:
        return QStringLiteral("No writes");
    case TicketState::Performed:
        return QStringLiteral("Performed");
    case TicketState::NotPerformed:
        return QStringLiteral("Not performed");
    case TicketState::NeedsLook:
        return QStringLiteral("Needs a look");
    case TicketState::Retry:
        return QStringLiteral("Retry");
    case TicketState::Unsettled:
        return QStringLiteral("Unsettled repeat");
    case TicketState::Unknown:
        return QStringLiteral("Unknown");
    case TicketState::DuplicateEffect:
        return QStringLiteral("Duplicate effect");
    }
    return QString();
}

int ticketSeverity(const TicketAssessment &assessment)
{
    if (assessment.repeats.duplicateEffects > 0)
        return duplicateEffectSeverity;
    return assessment.worstOutcome ? outcomeSeverity(*assessment.worstOutcome) : 0;
}

} // namespace verity

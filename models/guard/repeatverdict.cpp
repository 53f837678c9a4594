#include "repeatverdict.h"

namespace verity {

using nlohmann::json;

namespace {

enum class Standing { Waiting, Unknown, Performed, NotPerformed };

// Where a call stands once every settlement is applied: a person's or a system's settlement
// outranks what the tool said, except that a tool's answer that the write took effect (one that
// came after it was settled "not performed") outranks a settlement that it did not.
Standing standingOf(const IntentCall &call)
{
    if (call.inFlightUntil)
        return Standing::Waiting;
    if (call.resolution && (*call.resolution != Resolution::NotPerformed || !tookEffect(call.outcome)))
        return *call.resolution == Resolution::NotPerformed ? Standing::NotPerformed : Standing::Performed;
    if (!call.outcome || *call.outcome == Outcome::Unknown)
        return Standing::Unknown;
    if (*call.outcome == Outcome::NotPerformed)
        return Standing::NotPerformed;
    return Standing::Performed;
}

QString callName(const IntentCall &call)
{
    return QStringLiteral("call %1 in ticket %2").arg(call.callExtId, call.ticketExtId);
}

json textResult(const QString &text, bool isError)
{
    return json{{"content", json::array({json{{"type", "text"}, {"text", text.toStdString()}}})},
                {"isError", isError}};
}

} // namespace

RepeatVerdict judgeRepeat(const QList<IntentCall> &earlier)
{
    RepeatVerdict verdict;
    const IntentCall *performed = nullptr;
    for (const IntentCall &call : earlier) {
        switch (standingOf(call)) {
        case Standing::Waiting:
        case Standing::Unknown:
            // The oldest: the one a person checks first.
            return RepeatVerdict{RepeatVerdict::Kind::Hold, call, false};
        case Standing::Performed:
            if (!performed || (performed->recordId.isEmpty() && !call.recordId.isEmpty()))
                performed = &call;
            break;
        case Standing::NotPerformed:
            verdict.repeatsNotPerformed = true;
            break;
        }
    }
    if (performed) {
        verdict.kind = RepeatVerdict::Kind::AnswerPerformed;
        verdict.earlier = *performed;
        verdict.repeatsNotPerformed = false;
    }
    return verdict;
}

QString verdictReason(const RepeatVerdict &verdict)
{
    const IntentCall &call = verdict.earlier;
    switch (verdict.kind) {
    case RepeatVerdict::Kind::Send:
        return {};
    case RepeatVerdict::Kind::Hold:
        if (call.inFlightUntil)
            return QStringLiteral("held: repeat of %1, which was still awaiting its result")
                    .arg(callName(call));
        if (call.escalationId)
            return QStringLiteral("held: repeat of %1, whose outcome is unknown (escalation %2)")
                    .arg(callName(call))
                    .arg(*call.escalationId);
        return QStringLiteral("held: repeat of %1, whose outcome is unknown").arg(callName(call));
    case RepeatVerdict::Kind::AnswerPerformed:
        return call.recordId.isEmpty()
                ? QStringLiteral("answered without sending: %1 already performed it").arg(callName(call))
                : QStringLiteral("answered without sending: %1 already performed it (%2)")
                          .arg(callName(call), call.recordId);
    }
    return {};
}

json verdictAnswer(const RepeatVerdict &verdict, const QString &tool)
{
    const IntentCall &call = verdict.earlier;
    switch (verdict.kind) {
    case RepeatVerdict::Kind::Send:
        return nullptr;
    case RepeatVerdict::Kind::Hold: {
        const QString checking = call.escalationId
                ? QStringLiteral("A person is checking it with the system it went to (escalation %1).")
                          .arg(*call.escalationId)
                : QStringLiteral("It is still being waited on, and a person will check it if no answer "
                                 "comes.");
        return textResult(
                QStringLiteral("NOT SENT. An identical earlier %1 call (%2) has an unknown outcome: it may "
                               "already have taken effect. %3 Do not retry this call, and do not change "
                               "its arguments to get around this. Tell the customer that their request is "
                               "being checked and that they will hear back; do not tell them it failed, "
                               "and do not tell them it succeeded.")
                        .arg(tool, callName(call), checking),
                true);
    }
    case RepeatVerdict::Kind::AnswerPerformed: {
        const QString record = !call.recordId.isEmpty()
                ? QStringLiteral(" Its record is %1.").arg(call.recordId)
                : call.reference.isEmpty()
                ? QString()
                : QStringLiteral(" The person who checked it recorded: %1.").arg(call.reference);
        return textResult(QStringLiteral("ALREADY DONE. An identical earlier %1 call (%2) was performed, "
                                         "so it was not performed again.%3 Do not call it again for this "
                                         "request; tell the customer it has been done.")
                                  .arg(tool, callName(call), record),
                          false);
    }
    }
    return nullptr;
}

json unrecordedAnswer(const QString &tool, const QString &why)
{
    return textResult(QStringLiteral("NOT SENT. This %1 call could not be recorded, so it was not sent: %2. "
                                     "Nothing was done. Do not retry it now; tell the customer their "
                                     "request will be handled shortly, and hand it to a person.")
                              .arg(tool, why),
                      true);
}

json undeliveredAnswer(const QString &tool, const QString &why)
{
    return textResult(
            QStringLiteral("NOT SENT. The server of the %1 tool could not be reached (%2), so this call "
                           "did not happen. It is safe to try again later.")
                    .arg(tool, why),
            true);
}

} // namespace verity

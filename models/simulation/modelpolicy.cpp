#include "modelpolicy.h"

#include "domain/jsontext.h"

namespace verity {

ToolReading ModelPolicy::read(const SimJson &result)
{
    if (!result.is_object())
        return ToolReading::Unknown;
    const auto text = [&](const char *field) {
        const auto it = result.find(field);
        return it != result.end() && it->is_string() ? fromUtf8String(it->get<std::string>()) : QString();
    };
    if (result.contains("outcome")) {
        const QString outcome = text("outcome");
        if (outcome == u"performed")
            return ToolReading::Performed;
        if (outcome == u"already_performed")
            return ToolReading::AlreadyPerformed;
        if (outcome == u"not_performed")
            return text("retry") == u"same_key" ? ToolReading::NotPerformedRetryable : ToolReading::Refused;
        return ToolReading::Unknown;
    }
    if (!text("refund_id").isEmpty())
        return ToolReading::Performed;
    if (result.contains("error"))
        return ToolReading::Failed;
    return ToolReading::Unknown;
}

ModelMove ModelPolicy::nextMove(ToolReading reading, int callsSoFar)
{
    switch (reading) {
    case ToolReading::Performed:
        return ModelMove::ReplyRefunded;
    case ToolReading::AlreadyPerformed:
        return ModelMove::ReplyAlreadyRefunded;
    case ToolReading::NotPerformedRetryable:
        return callsSoFar < maxCallsAfterNotPerformed ? ModelMove::RetrySameArguments
                                                      : ModelMove::EscalateNotPerformedTwice;
    case ToolReading::Refused:
        return ModelMove::EscalateRefused;
    case ToolReading::Unknown:
        return ModelMove::EscalateUnknown;
    case ToolReading::Failed:
        return callsSoFar < maxCallsAfterFailure ? ModelMove::RetrySameArguments
                                                 : ModelMove::EscalateAfterFailures;
    }
    return ModelMove::EscalateUnknown;
}

bool ModelPolicy::escalates(ModelMove move)
{
    return move == ModelMove::EscalateNotPerformedTwice || move == ModelMove::EscalateRefused
            || move == ModelMove::EscalateUnknown || move == ModelMove::EscalateAfterFailures;
}

QString ModelPolicy::escalationReason(ModelMove move)
{
    switch (move) {
    case ModelMove::EscalateUnknown:
        return QStringLiteral("refund outcome unknown: the tool could not tell whether the refund was made; "
                              "do not retry, look it up at the provider");
    case ModelMove::EscalateRefused:
        return QStringLiteral("refund refused by the provider; a person must decide what to do instead");
    case ModelMove::EscalateNotPerformedTwice:
        return QStringLiteral("refund not performed after a second attempt with the same key");
    case ModelMove::EscalateAfterFailures:
        return QStringLiteral("refund failed %1 times").arg(maxCallsAfterFailure);
    default:
        return {};
    }
}

QString ModelPolicy::replyText(ModelMove move, const QString &amount)
{
    switch (move) {
    case ModelMove::ReplyRefunded:
        return QStringLiteral("Done. I've refunded %1 to your original payment method; it normally shows "
                              "within 3 to "
                              "5 business days. You don't need to return the item.")
                .arg(amount);
    case ModelMove::ReplyAlreadyRefunded:
        return QStringLiteral(
                       "Your refund of %1 has already been made to your original payment method, so there is "
                       "nothing more to do; it normally shows within 3 to 5 business days.")
                .arg(amount);
    case ModelMove::EscalateUnknown:
        return QStringLiteral(
                       "I've asked for your refund of %1, but the payment system didn't confirm it in time. "
                       "A colleague will check whether it went through and confirm it to you by email; "
                       "please don't request it again meanwhile.")
                .arg(amount);
    case ModelMove::EscalateRefused:
        return QStringLiteral(
                       "I'm sorry, I couldn't issue the refund of %1 from here. I've passed your case to a "
                       "colleague who will sort it out and write to you.")
                .arg(amount);
    case ModelMove::EscalateNotPerformedTwice:
    case ModelMove::EscalateAfterFailures:
        return QStringLiteral("I'm sorry, the refund of %1 didn't go through on my side. I've passed it to a "
                              "colleague "
                              "who will make sure it's done and write to you.")
                .arg(amount);
    case ModelMove::RetrySameArguments:
        break;
    }
    return {};
}

QString ModelPolicy::agentNote(ToolReading reading, ModelMove move)
{
    if (move == ModelMove::RetrySameArguments)
        return reading == ToolReading::Failed
                ? QStringLiteral("The refund failed. Trying again.")
                : QStringLiteral("Not performed, and safe to try once more with the "
                                 "same key. Trying again.");
    if (move == ModelMove::EscalateUnknown)
        return QStringLiteral("The refund's outcome is unknown. Not retrying; escalating to a person.");
    if (escalates(move))
        return QStringLiteral("The refund could not be completed. Escalating to a person.");
    return {};
}

QString ModelPolicy::readingId(ToolReading reading)
{
    switch (reading) {
    case ToolReading::Performed:
        return QStringLiteral("performed");
    case ToolReading::AlreadyPerformed:
        return QStringLiteral("already_performed");
    case ToolReading::NotPerformedRetryable:
        return QStringLiteral("not_performed_retryable");
    case ToolReading::Refused:
        return QStringLiteral("refused");
    case ToolReading::Unknown:
        return QStringLiteral("unknown");
    case ToolReading::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

QString ModelPolicy::moveId(ModelMove move)
{
    switch (move) {
    case ModelMove::ReplyRefunded:
        return QStringLiteral("reply_refunded");
    case ModelMove::ReplyAlreadyRefunded:
        return QStringLiteral("reply_already_refunded");
    case ModelMove::RetrySameArguments:
        return QStringLiteral("retry_same_arguments");
    case ModelMove::EscalateNotPerformedTwice:
        return QStringLiteral("escalate_not_performed_twice");
    case ModelMove::EscalateRefused:
        return QStringLiteral("escalate_refused");
    case ModelMove::EscalateUnknown:
        return QStringLiteral("escalate_unknown");
    case ModelMove::EscalateAfterFailures:
        return QStringLiteral("escalate_after_failures");
    }
    return {};
}

QString ModelPolicy::tableText()
{
    return QStringLiteral(
            "The simulated model is a fixed policy, not a language model. What it read from issue_refund "
            "decides its\n"
            "next move (\"calls\" counts the ticket's issue_refund calls, the one just answered included):\n"
            "  performed ({\"outcome\":\"performed\"} or a refund id)   -> tell the customer it is refunded; "
            "stop\n"
            "  already performed ({\"outcome\":\"already_performed\"})  -> tell the customer it was already "
            "refunded; no new call\n"
            "  not performed, \"retry\":\"same_key\"                    -> calls 1: call again with the same "
            "arguments;\n"
            "                                                          calls 2+: escalate_to_human, a person "
            "will follow up\n"
            "  refused (not performed, no \"retry\":\"same_key\")       -> escalate_to_human; tell the "
            "customer it could not be done\n"
            "  unknown ({\"outcome\":\"unknown\"})                      -> never retry; escalate_to_human; a "
            "person will confirm\n"
            "  failed ({\"error\": ...}, any error text)              -> calls 1-2: call again with the same "
            "arguments;\n"
            "                                                          calls 3: escalate_to_human; "
            "apologise\n"
            "  anything else                                        -> as unknown\n");
}

} // namespace verity

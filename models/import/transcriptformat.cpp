#include "transcriptformat.h"

#include "domain/jsontext.h"
#include "formats/anthropicmessages.h"
#include "formats/openaichat.h"
#include "formats/openairesponses.h"
#include "formats/otlptraces.h"
#include "formats/taubench.h"

namespace verity {

using nlohmann::json;

QString transcriptFormatName(const QString &format)
{
    if (format == formats::native)
        return QStringLiteral("Verity events");
    if (format == formats::openAiChat)
        return QStringLiteral("OpenAI Chat Completions");
    if (format == formats::openAiResponses)
        return QStringLiteral("OpenAI Responses");
    if (format == formats::anthropic)
        return QStringLiteral("Anthropic Messages");
    if (format == formats::otlp)
        return QStringLiteral("OpenTelemetry traces");
    if (format == formats::tauV1)
        return QStringLiteral("τ-bench");
    if (format == formats::tau2)
        return QStringLiteral("τ²-bench");
    return format;
}

bool looksLikeNativeEvent(const json &value)
{
    // By its type alone, so a line with a mistyped field still reads as a native event and the
    // native parser can say which field is wrong.
    if (!value.is_object() || !value.contains("type") || !value.at("type").is_string()
        || value.contains("role"))
        return false;
    const std::string &type = value.at("type").get_ref<const std::string &>();
    return type == "ticket_opened" || type == "message" || type == "tool_call" || type == "tool_result"
            || type == "reply";
}

namespace {

QString describe(const json &value)
{
    if (!value.is_object())
        return QStringLiteral("a JSON %1").arg(QString::fromLatin1(value.type_name()));
    QStringList keys;
    for (auto it = value.begin(); it != value.end() && keys.size() < 6; ++it)
        keys << u'"' + fromUtf8String(it.key()) + u'"';
    if (keys.isEmpty())
        return QStringLiteral("an empty object");
    return QStringLiteral("an object with %1%2")
            .arg(keys.join(QStringLiteral(", ")), value.size() > 6 ? QStringLiteral(", ...") : QString());
}

void one(QList<ReadConversation> &out, const QString &format, Expected<Conversation> conversation)
{
    out.append(ReadConversation{format, std::move(conversation)});
}

QList<ReadConversation> conversationsAt(const json &value, ConversationContext &context, int depth);

} // namespace

QList<ReadConversation> conversationsIn(const json &value, ConversationContext &context)
{
    return conversationsAt(value, context, 0);
}

namespace {

QList<ReadConversation> conversationsAt(const json &value, ConversationContext &context, int depth)
{
    QList<ReadConversation> out;
    if (looksLikeOtlpTraces(value)) {
        ++context.ordinal;
        for (Expected<Conversation> &conversation : readOtlpTraces(value, context))
            one(out, formats::otlp, std::move(conversation));
        return out;
    }
    if (depth == 0 && value.is_object() && value.contains("simulations")
        && value.at("simulations").is_array()) {
        // A τ² results file held whole (one JSONL line, or a small document).
        if (auto stamp = value.find("timestamp"); stamp != value.end() && stamp->is_string())
            context.fileTimestamp = fromUtf8String(stamp->get<std::string>());
        for (const json &simulation : value.at("simulations"))
            out += conversationsAt(simulation, context, depth + 2);
        return out;
    }
    // The order matters where shapes overlap: τ runs are OpenAI-like messages with more around them.
    struct Adapter
    {
        const QString &format;
        bool (*looksLike)(const json &);
        Expected<Conversation> (*read)(const json &, const ConversationContext &);
    };
    static const Adapter adapters[] = {
            {formats::tau2, looksLikeTau2Simulation, readTau2Simulation},
            {formats::tauV1, looksLikeTauV1Trajectory, readTauV1Trajectory},
            {formats::openAiResponses, looksLikeOpenAiResponses, readOpenAiResponses},
            {formats::anthropic, looksLikeAnthropicMessages, readAnthropicMessages},
            {formats::openAiChat, looksLikeOpenAiChat, readOpenAiChat},
    };
    for (const Adapter &adapter : adapters) {
        if (adapter.looksLike(value)) {
            ++context.ordinal;
            one(out, adapter.format, adapter.read(value, context));
            return out;
        }
    }
    if (value.is_array() && !value.empty() && depth == 0) {
        // A list of conversations (a bare list of messages was taken above as one).
        for (const json &element : value)
            out += conversationsAt(element, context, depth + 1);
        return out;
    }
    ++context.ordinal;
    one(out, QString(),
        makeError(QStringLiteral(
                          "expected a conversation (OpenAI chat messages or Responses items, Anthropic "
                          "messages, a τ-bench trajectory or simulation) or an OTLP trace export, got %1")
                          .arg(describe(value))));
    return out;
}

} // namespace

} // namespace verity

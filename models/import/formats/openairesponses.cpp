#include "openairesponses.h"

#include "chatcontent.h"

#include <QSet>

namespace verity {

using namespace chatformats;

namespace {

class ResponsesReader
{
public:
    explicit ResponsesReader(Conversation &conversation)
        : m_conversation(conversation)
    {}

    void readItems(const json &items, const QString &path)
    {
        for (std::size_t i = 0; i < items.size(); ++i)
            readItem(items[i], indexed(path, i));
    }

    void readItem(const json &item, const QString &path)
    {
        if (!item.is_object())
            reject(path, QStringLiteral("an item object"), &item);
        const json *typeValue = member(item, "type");
        if (typeValue && !typeValue->is_string() && !typeValue->is_null())
            reject(path + QStringLiteral(".type"), QStringLiteral("a string"), typeValue);
        const QString type = optionalString(item, "type");
        const std::optional<qint64> at = ownTime(item);

        if (type == QLatin1String("message") || (type.isEmpty() && member(item, "role"))) {
            readMessage(item, path, at);
        } else if (type == QLatin1String("function_call")) {
            Turn turn;
            turn.kind = Turn::Kind::ToolCall;
            turn.at = at;
            turn.callId = requiredString(item, "call_id", path, QStringLiteral("a string (the call's id)"));
            turn.tool = requiredString(item, "name", path, QStringLiteral("a string (the tool's name)"));
            turn.arguments = argumentsObject(member(item, "arguments"), path + QStringLiteral(".arguments"));
            turn.argumentsText = argumentsAsWritten(member(item, "arguments"));
            m_conversation.turns.append(turn);
        } else if (type == QLatin1String("function_call_output")) {
            Turn turn;
            turn.kind = Turn::Kind::ToolResult;
            turn.at = at;
            turn.callId = requiredString(item, "call_id", path, QStringLiteral("a string (the call's id)"));
            turn.result = toolResult(member(item, "output"), path + QStringLiteral(".output"));
            m_conversation.turns.append(turn);
        } else if (type == QLatin1String("reasoning")) {
            // The readable summary of the model's reasoning (the full text when given instead);
            // encrypted_content is for the model alone.
            QString text = partsText(member(item, "summary"), path + QStringLiteral(".summary"));
            if (text.trimmed().isEmpty())
                text = partsText(member(item, "content"), path + QStringLiteral(".content"));
            addMessage(m_conversation, MessageKind::Agent, text, at);
        } else if (!m_skippedTypes.contains(type)) {
            // Hosted tools (web_search_call, file_search_call…) and item references.
            m_skippedTypes.insert(type);
            m_conversation.notices.append(
                    QStringLiteral("%1: \"%2\" items are not read; skipped")
                            .arg(path, type.isEmpty() ? QStringLiteral("untyped") : type.left(40)));
        }
    }

private:
    void readMessage(const json &item, const QString &path, std::optional<qint64> at)
    {
        const json *roleValue = member(item, "role");
        if (!roleValue || !roleValue->is_string())
            reject(path + QStringLiteral(".role"), QStringLiteral("a string"), roleValue);
        const QString role = fromUtf8String(roleValue->get<std::string>());
        const QString text = contentText(member(item, "content"), path + QStringLiteral(".content"));
        if (role == QLatin1String("user"))
            addMessage(m_conversation, MessageKind::Customer, text, at);
        else if (role == QLatin1String("assistant"))
            addMessage(m_conversation, MessageKind::Reply, text, at);
        else if (role == QLatin1String("system") || role == QLatin1String("developer"))
            addMessage(m_conversation, MessageKind::System, text, at);
        else
            m_conversation.notices.append(
                    QStringLiteral("%1: role \"%2\" is not one of the Responses API's; skipped")
                            .arg(path, role.left(40)));
    }

    // summary_text / reasoning_text parts: `{type, text}`.
    static QString partsText(const json *parts, const QString &path)
    {
        if (!parts || !parts->is_array())
            return {};
        QStringList texts;
        for (std::size_t i = 0; i < parts->size(); ++i) {
            const json *text = member((*parts)[i], "text");
            if (!text || !text->is_string())
                reject(indexed(path, i) + QStringLiteral(".text"), QStringLiteral("a string"), text);
            texts.append(fromUtf8String(text->get<std::string>()));
        }
        return texts.join(u'\n');
    }

    Conversation &m_conversation;
    QSet<QString> m_skippedTypes;
};

bool isResponsesItemType(const QString &type)
{
    return type == QLatin1String("function_call") || type == QLatin1String("function_call_output")
            || type == QLatin1String("reasoning") || type == QLatin1String("item_reference")
            || type.endsWith(QLatin1String("_call")) || type.endsWith(QLatin1String("_call_output"));
}

// What only the Responses API writes: its item types and its input_/output_ content parts.
// Anthropic's tool blocks rule it out (the two share "type": "message").
int responsesSigns(const json &items)
{
    int signs = 0;
    for (const json &item : items) {
        if (!item.is_object())
            return -1;
        if (member(item, "tool_calls") || member(item, "tool_call_id"))
            return -1;
        if (isResponsesItemType(optionalString(item, "type")))
            ++signs;
        const json *content = member(item, "content");
        if (!content || !content->is_array())
            continue;
        for (const json &part : *content) {
            const QString type = optionalString(part, "type");
            if (type == QLatin1String("tool_use") || type == QLatin1String("tool_result"))
                return -1;
            if (type.startsWith(QLatin1String("input_")) || type.startsWith(QLatin1String("output_")))
                ++signs;
        }
    }
    return signs;
}

} // namespace

bool looksLikeOpenAiResponses(const json &value)
{
    return guardedTest([&] {
        if (value.is_array())
            return responsesSigns(value) > 0;
        if (!value.is_object() || member(value, "messages"))
            return false;
        const json *input = member(value, "input");
        const json *output = member(value, "output");
        if (optionalString(value, "object") == QLatin1String("response") && output && output->is_array())
            return responsesSigns(*output) >= 0;
        // A request or a logged exchange: `input` (text or items), perhaps with its `output`.
        if (output && output->is_array())
            return responsesSigns(*output) >= 0
                    && (!input || !input->is_array() || responsesSigns(*input) >= 0);
        if (input && input->is_array())
            return responsesSigns(*input) > 0;
        return input && input->is_string() && member(value, "model");
    });
}

Expected<Conversation> readOpenAiResponses(const json &value, const ConversationContext &context)
{
    return guardedRead([&] {
        Conversation conversation;
        ResponsesReader reader(conversation);
        if (value.is_array()) {
            reader.readItems(value, QString());
            finish(conversation, value, context, std::nullopt);
            return Expected<Conversation>(std::move(conversation));
        }
        if (!value.is_object())
            reject(QStringLiteral("conversation"),
                   QStringLiteral("a response object, an object with \"input\", or an array of items"),
                   &value);
        const json *input = member(value, "input");
        const json *output = member(value, "output");
        if ((!input || input->is_null()) && (!output || output->is_null()))
            reject(QStringLiteral("output"), QStringLiteral("an array of items (or an \"input\")"), output);

        addMessage(conversation, MessageKind::System, optionalString(value, "instructions"), {});
        if (input && input->is_string())
            addMessage(conversation, MessageKind::Customer, fromUtf8String(input->get<std::string>()), {});
        else if (input && input->is_array())
            reader.readItems(*input, QStringLiteral("input"));
        else if (input && !input->is_null())
            reject(QStringLiteral("input"), QStringLiteral("a string or an array of items"), input);
        if (output && output->is_array())
            reader.readItems(*output, QStringLiteral("output"));
        else if (output && !output->is_null())
            reject(QStringLiteral("output"), QStringLiteral("an array of items"), output);

        // The id: a stored conversation's (`conversation` is "conv_…" or {id}) or the log's own
        // conversation keys first; else the response's own "resp_…", which is stable. Responses
        // chained by previous_response_id are not joined: each object is read as it stands.
        const json *conversationKey = member(value, "conversation");
        if (std::optional<QString> id = idText(conversationKey ? member(*conversationKey, "id") : nullptr))
            conversation.id = *id;
        else if (std::optional<QString> key = idText(conversationKey))
            conversation.id = *key;
        const QString previous = optionalString(value, "previous_response_id");
        if (!previous.isEmpty())
            conversation.notices.append(
                    QStringLiteral("continues response %1; turns before it are not in this object")
                            .arg(previous.left(80)));
        const QString status = optionalString(value, "status");
        if (status == QLatin1String("failed") || status == QLatin1String("incomplete")
            || status == QLatin1String("cancelled"))
            conversation.notices.append(QStringLiteral("the response's status is \"%1\"").arg(status));
        finish(conversation, value, context, ownTime(value));
        return Expected<Conversation>(std::move(conversation));
    });
}

} // namespace verity

#include "anthropicmessages.h"

#include "chatcontent.h"

#include <QSet>

namespace verity {

using namespace chatformats;

namespace {

class AnthropicReader
{
public:
    explicit AnthropicReader(Conversation &conversation)
        : m_conversation(conversation)
    {}

    // Top-level `system`: a string or an array of text blocks.
    void readSystem(const json &system)
    {
        if (!system.is_null())
            addMessage(m_conversation, MessageKind::System, contentText(&system, QStringLiteral("system")),
                       {});
    }

    void read(const json &message, const QString &path)
    {
        if (!message.is_object())
            reject(path, QStringLiteral("a message object"), &message);
        const json *roleValue = member(message, "role");
        if (!roleValue || !roleValue->is_string())
            reject(path + QStringLiteral(".role"), QStringLiteral("a string"), roleValue);
        const QString role = fromUtf8String(roleValue->get<std::string>());
        MessageKind kind = MessageKind::Customer;
        if (role == QLatin1String("assistant"))
            kind = MessageKind::Reply;
        else if (role == QLatin1String("system"))
            kind = MessageKind::System;
        else if (role != QLatin1String("user")) {
            m_conversation.notices.append(QStringLiteral("%1: role \"%2\" is not one of Anthropic's; skipped")
                                                  .arg(path, role.left(40)));
            return;
        }
        const std::optional<qint64> at = ownTime(message);
        const json *content = member(message, "content");
        const QString contentPath = path + QStringLiteral(".content");
        if (!content || content->is_null() || content->is_string()) {
            addMessage(m_conversation, kind, contentText(content, contentPath), at);
            return;
        }
        if (!content->is_array())
            reject(contentPath, QStringLiteral("a string or an array of content blocks"), content);

        // Text and attachments next to each other make one message; a tool block or reasoning
        // between them splits it, so that the turns keep the transcript's order.
        QStringList pending;
        const auto flush = [&] {
            addMessage(m_conversation, kind, pending.join(u'\n'), at);
            pending.clear();
        };
        for (std::size_t i = 0; i < content->size(); ++i) {
            const json &block = (*content)[i];
            const QString blockPath = indexed(contentPath, i);
            const json *type = member(block, "type");
            if (!type || !type->is_string())
                reject(block.is_object() ? blockPath + QStringLiteral(".type") : blockPath,
                       QStringLiteral("a content block object with a string \"type\""),
                       block.is_object() ? type : &block);
            const QString blockType = fromUtf8String(type->get<std::string>());
            if (blockType == QLatin1String("text") || blockType == QLatin1String("image")
                || blockType == QLatin1String("document")) {
                pending.append(partText(block, blockPath));
            } else if (blockType == QLatin1String("thinking")) {
                flush();
                addMessage(m_conversation, MessageKind::Agent, optionalString(block, "thinking"), at);
            } else if (blockType == QLatin1String("redacted_thinking")) {
                continue; // encrypted: nothing a person can read
            } else if (blockType == QLatin1String("tool_use")) {
                flush();
                m_conversation.turns.append(toolUse(block, blockPath, at));
            } else if (blockType == QLatin1String("tool_result")) {
                flush();
                m_conversation.turns.append(toolResultTurn(block, blockPath, at));
            } else if (!m_skippedTypes.contains(blockType)) {
                // Server tools (web search, code execution) run at Anthropic, not at the desk.
                m_skippedTypes.insert(blockType);
                m_conversation.notices.append(QStringLiteral("%1: \"%2\" blocks are not read; skipped")
                                                      .arg(blockPath, blockType.left(40)));
            }
        }
        flush();
    }

private:
    static Turn toolUse(const json &block, const QString &path, std::optional<qint64> at)
    {
        Turn turn;
        turn.kind = Turn::Kind::ToolCall;
        turn.at = at;
        turn.callId = requiredString(block, "id", path, QStringLiteral("a string (the tool_use id)"));
        turn.tool = requiredString(block, "name", path, QStringLiteral("a string (the tool's name)"));
        const json *input = member(block, "input");
        const QString inputPath = path + QStringLiteral(".input");
        // `input` is an object; a string is read as OpenAI arguments are (some proxies log it so).
        if (input && !input->is_object() && !input->is_string() && !input->is_null())
            reject(inputPath, QStringLiteral("an object"), input);
        turn.arguments = argumentsObject(input, inputPath);
        turn.argumentsText = argumentsAsWritten(input);
        return turn;
    }

    static Turn toolResultTurn(const json &block, const QString &path, std::optional<qint64> at)
    {
        Turn turn;
        turn.kind = Turn::Kind::ToolResult;
        turn.at = at;
        turn.callId = requiredString(block, "tool_use_id", path,
                                     QStringLiteral("a string (the tool_use id it answers)"));
        turn.result = toolResult(member(block, "content"), path + QStringLiteral(".content"));
        const json *isError = member(block, "is_error");
        if (isError && !isError->is_null() && !isError->is_boolean())
            reject(path + QStringLiteral(".is_error"), QStringLiteral("true or false"), isError);
        turn.errorFlag = isError && isError->is_boolean() && isError->get<bool>();
        return turn;
    }

    Conversation &m_conversation;
    QSet<QString> m_skippedTypes;
};

bool isAnthropicBlock(const QString &type)
{
    // tool_use, tool_result and the server and MCP variants (server_tool_use, mcp_tool_result…)
    return type.endsWith(QLatin1String("tool_use")) || type.endsWith(QLatin1String("tool_result"))
            || type == QLatin1String("thinking") || type == QLatin1String("redacted_thinking")
            || type == QLatin1String("text") || type == QLatin1String("image")
            || type == QLatin1String("document");
}

} // namespace

bool looksLikeAnthropicMessages(const json &value)
{
    return guardedTest([&] {
        const json *messages = value.is_array() ? &value : member(value, "messages");
        if (!messages || !messages->is_array() || messages->empty())
            return false;
        // A top-level system prompt, or a Claude model, is Anthropic's request shape.
        bool anthropic = (member(value, "system") && !member(value, "system")->is_null())
                || optionalString(value, "model").startsWith(QLatin1String("claude"));
        for (const json &message : *messages) {
            const QString role = optionalString(message, "role");
            // Only user and assistant speak; tool answers ride in user turns, never role "tool".
            if ((role != QLatin1String("user") && role != QLatin1String("assistant"))
                || member(message, "tool_calls") || member(message, "function_call")
                || member(message, "tool_call_id"))
                return false;
            const json *content = member(message, "content");
            if (!content || !content->is_array())
                continue;
            for (const json &block : *content) {
                if (!isAnthropicBlock(optionalString(block, "type")))
                    return false; // image_url, input_text, refusal…: OpenAI's parts
                anthropic = true;
            }
        }
        // Plain strings alone read the same either way; those are left to the chat reader.
        return anthropic;
    });
}

Expected<Conversation> readAnthropicMessages(const json &value, const ConversationContext &context)
{
    return guardedRead([&] {
        if (!value.is_array() && !value.is_object())
            reject(QStringLiteral("conversation"),
                   QStringLiteral("an object with \"messages\" or an array of messages"), &value);
        const json *messages = value.is_array() ? &value : member(value, "messages");
        const QString prefix = value.is_array() ? QString() : QStringLiteral("messages");
        if (!messages || !messages->is_array())
            reject(prefix, QStringLiteral("an array of messages"), messages);

        Conversation conversation;
        AnthropicReader reader(conversation);
        if (const json *system = member(value, "system"))
            reader.readSystem(*system);
        for (std::size_t i = 0; i < messages->size(); ++i)
            reader.read((*messages)[i], indexed(prefix, i));
        finish(conversation, value, context, ownTime(value));
        return Expected<Conversation>(std::move(conversation));
    });
}

} // namespace verity

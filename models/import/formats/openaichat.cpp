#include "openaichat.h"

#include "anthropicmessages.h"
#include "chatcontent.h"
#include "openairesponses.h"

namespace verity {

using namespace chatformats;

namespace {

class ChatReader
{
public:
    explicit ChatReader(Conversation &conversation)
        : m_conversation(conversation)
    {}

    // One message; `index` is its position in the transcript, for the legacy function_call's id.
    void read(const json &message, const QString &path, std::size_t index)
    {
        if (!message.is_object())
            reject(path, QStringLiteral("a message object"), &message);
        const json *roleValue = member(message, "role");
        if (!roleValue || !roleValue->is_string())
            reject(path + QStringLiteral(".role"), QStringLiteral("a string"), roleValue);
        const QString role = fromUtf8String(roleValue->get<std::string>());
        const std::optional<qint64> at = ownTime(message);
        const QString contentPath = path + QStringLiteral(".content");

        if (role == QLatin1String("user")) {
            addMessage(m_conversation, MessageKind::Customer,
                       contentText(member(message, "content"), contentPath), at);
        } else if (role == QLatin1String("system") || role == QLatin1String("developer")) {
            addMessage(m_conversation, MessageKind::System,
                       contentText(member(message, "content"), contentPath), at);
        } else if (role == QLatin1String("assistant")) {
            readAssistant(message, path, index, at);
        } else if (role == QLatin1String("tool")) {
            Turn turn = resultTurn(message, contentPath, at);
            turn.callId =
                    requiredString(message, "tool_call_id", path, QStringLiteral("a string (the call's id)"));
            m_conversation.turns.append(turn);
        } else if (role == QLatin1String("function")) {
            // Legacy: the answer to the latest assistant function_call, which carried no id. With
            // none pending, an id of its own: the shared pairing reports a result without a call.
            Turn turn = resultTurn(message, contentPath, at);
            turn.callId = m_pendingFunctionCall.isEmpty() ? QStringLiteral("function@%1").arg(index)
                                                          : m_pendingFunctionCall;
            m_pendingFunctionCall.clear();
            m_conversation.turns.append(turn);
        } else {
            m_conversation.notices.append(
                    QStringLiteral("%1: role \"%2\" is not one of a chat transcript; skipped")
                            .arg(path, role.left(40)));
        }
    }

private:
    void readAssistant(const json &message, const QString &path, std::size_t index, std::optional<qint64> at)
    {
        // Reasoning as some OpenAI-compatible servers return it: the agent's own notes.
        addMessage(m_conversation, MessageKind::Agent, optionalString(message, "reasoning_content"), at);
        QString text = contentText(member(message, "content"), path + QStringLiteral(".content"));
        if (text.trimmed().isEmpty())
            text = optionalString(message, "refusal");
        addMessage(m_conversation, MessageKind::Reply, text, at);

        const json *calls = member(message, "tool_calls");
        const QString callsPath = path + QStringLiteral(".tool_calls");
        if (calls && !calls->is_null()) {
            if (!calls->is_array())
                reject(callsPath, QStringLiteral("an array of tool calls"), calls);
            for (std::size_t i = 0; i < calls->size(); ++i)
                readToolCall((*calls)[i], indexed(callsPath, i), at);
        }

        const json *legacy = member(message, "function_call");
        if (legacy && !legacy->is_null()) {
            const QString legacyPath = path + QStringLiteral(".function_call");
            Turn turn = callTurn(legacy, legacyPath, at);
            turn.callId = QStringLiteral("function_call@%1").arg(index);
            m_pendingFunctionCall = turn.callId;
            m_conversation.turns.append(turn);
        }
    }

    void readToolCall(const json &call, const QString &path, std::optional<qint64> at)
    {
        if (!call.is_object())
            reject(path, QStringLiteral("a tool call object"), &call);
        const QString callId = requiredString(call, "id", path, QStringLiteral("a string (the call's id)"));
        const QString type = optionalString(call, "type");
        if (!type.isEmpty() && type != QLatin1String("function")) {
            m_conversation.notices.append(
                    QStringLiteral("%1: a \"%2\" tool call is not a function call; skipped")
                            .arg(path, type.left(40)));
            return;
        }
        Turn turn = callTurn(member(call, "function"), path + QStringLiteral(".function"), at);
        turn.callId = callId;
        m_conversation.turns.append(turn);
    }

    // `{name, arguments}`, as both tool_calls[].function and the legacy function_call write it.
    static Turn callTurn(const json *function, const QString &path, std::optional<qint64> at)
    {
        if (!function || !function->is_object())
            reject(path, QStringLiteral("an object with \"name\" and \"arguments\""), function);
        Turn turn;
        turn.kind = Turn::Kind::ToolCall;
        turn.at = at;
        turn.tool = requiredString(*function, "name", path, QStringLiteral("a string (the tool's name)"));
        turn.arguments = argumentsObject(member(*function, "arguments"), path + QStringLiteral(".arguments"));
        turn.argumentsText = argumentsAsWritten(member(*function, "arguments"));
        return turn;
    }

    static Turn resultTurn(const json &message, const QString &contentPath, std::optional<qint64> at)
    {
        Turn turn;
        turn.kind = Turn::Kind::ToolResult;
        turn.at = at;
        turn.tool = optionalString(message, "name");
        turn.result = toolResult(member(message, "content"), contentPath);
        return turn;
    }

    Conversation &m_conversation;
    QString m_pendingFunctionCall;
};

// τ-bench writes OpenAI-like messages with its own tool-call shape; its adapter reads those.
bool isTauBench(const json &value)
{
    return member(value, "termination_reason") || (member(value, "task_id") && member(value, "trial"));
}

} // namespace

bool looksLikeOpenAiChat(const json &value)
{
    return guardedTest([&] {
        const json *messages = value.is_array() ? &value : member(value, "messages");
        if (!messages || !messages->is_array() || (value.is_array() && messages->empty())
            || isTauBench(value))
            return false;
        for (const json &message : *messages) {
            const json *role = member(message, "role");
            if (!role || !role->is_string())
                return false;
            if (const json *calls = member(message, "tool_calls"); calls && calls->is_array()) {
                for (const json &call : *calls) {
                    if (!member(call, "function")) // τ² style `{id, name, arguments}`
                        return false;
                }
            }
        }
        // The same messages could be Anthropic's or Responses items; those readers know their
        // own signs, and a transcript of plain strings is left to this one.
        return !looksLikeAnthropicMessages(value) && !looksLikeOpenAiResponses(value);
    });
}

Expected<Conversation> readOpenAiChat(const json &value, const ConversationContext &context)
{
    return guardedRead([&] {
        const json *messages = value.is_array() ? &value : member(value, "messages");
        const QString prefix = value.is_array() ? QString() : QStringLiteral("messages");
        if (!value.is_array() && !value.is_object())
            reject(QStringLiteral("conversation"),
                   QStringLiteral("an object with \"messages\" or an array of messages"), &value);
        if (!messages || !messages->is_array())
            reject(prefix, QStringLiteral("an array of messages"), messages);

        Conversation conversation;
        ChatReader reader(conversation);
        for (std::size_t i = 0; i < messages->size(); ++i)
            reader.read((*messages)[i], indexed(prefix, i), i);
        // A logged completion: the request's messages, then the answer (the first choice).
        if (const json *choices = member(value, "choices");
            choices && choices->is_array() && !choices->empty()) {
            if (const json *answer = member(choices->front(), "message"))
                reader.read(*answer, QStringLiteral("choices[0].message"), messages->size());
        }
        // `created` of a completion object, or a log's own time; finish() takes the earliest.
        finish(conversation, value, context, ownTime(value));
        return Expected<Conversation>(std::move(conversation));
    });
}

} // namespace verity

#include "taubench.h"

#include "chatcontent.h"
#include "domain/jsontext.h"
#include "domain/sha256.h"
#include "domain/timestamp.h"

#include <QHash>
#include <QSet>

namespace verity {

using nlohmann::json;

namespace {

using chatformats::member; // shared with the chat adapters: τ runs are chat messages
using chatformats::messageTurn;

// At most `limit` characters, "…" when cut; never splits a surrogate pair.
QString shortened(const QString &text, qsizetype limit)
{
    if (text.size() <= limit)
        return text;
    qsizetype cut = limit - 1;
    if (cut > 0 && text.at(cut - 1).isHighSurrogate())
        --cut;
    return text.left(cut) + QStringLiteral("…");
}

// Compact JSON for messages. `replace` keeps dump() from throwing on invalid UTF-8 that a
// caller may have put in a json value by hand.
QString compactJson(const json &value)
{
    return fromUtf8String(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

Error wrongType(const QString &path, const QString &expected, const json &found)
{
    const QString where = path.isEmpty() ? QStringLiteral("the conversation") : path;
    // The excerpt is at most 80 characters: enough to recognise the value, never a whole payload.
    const QString excerpt = found.is_null() ? QString() : u' ' + shortened(compactJson(found), 80);
    return makeError(QStringLiteral("%1: expected %2, found %3%4")
                             .arg(where, expected, QString::fromLatin1(found.type_name()), excerpt));
}

QString textOf(const json &string)
{
    return fromUtf8String(string.get_ref<const std::string &>());
}

QString firstLine(const QString &text, qsizetype limit)
{
    const QString trimmed = text.trimmed();
    return shortened(trimmed.left(trimmed.indexOf(u'\n')).trimmed(), limit);
}

// A message's text: a string, null or absent (no text), or OpenAI content parts whose "text"
// fields are joined; anything else is a wrong type.
Expected<QString> contentText(const json &message, const QString &path)
{
    const json *content = member(message, "content");
    if (!content || content->is_null())
        return QString();
    if (content->is_string())
        return textOf(*content);
    if (!content->is_array())
        return wrongType(path + QStringLiteral(".content"), QStringLiteral("a string or null"), *content);
    QStringList parts;
    for (const json &part : *content) {
        const json *text = member(part, "text");
        if (text && text->is_string())
            parts.append(textOf(*text));
    }
    return parts.join(u'\n');
}

// An optional string field: absent and null give an empty text.
Expected<QString> optionalString(const json &object, const char *key, const QString &path)
{
    const json *value = member(object, key);
    if (!value || value->is_null())
        return QString();
    if (!value->is_string())
        return wrongType(path + u'.' + QLatin1String(key), QStringLiteral("a string"), *value);
    return textOf(*value);
}

// Tool arguments: an object, or (OpenAI) that object written as JSON text. An empty text is
// a call without arguments.
Expected<json> argumentsObject(const json *value, const QString &path)
{
    if (!value || value->is_null())
        return json::object();
    if (value->is_object())
        return *value;
    if (!value->is_string())
        return wrongType(path, QStringLiteral("an object or a JSON object as text"), *value);
    const std::string &text = value->get_ref<const std::string &>();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        return json::object();
    json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object())
        return wrongType(path, QStringLiteral("a JSON object as text"), *value);
    return parsed;
}

// A task or trial number as the benchmark writes it: an integer, or text for τ² task ids.
Expected<QString> idPart(const json &object, const char *key, const QString &fallback)
{
    const json *value = member(object, key);
    if (!value || value->is_null())
        return fallback;
    if (value->is_string() && !value->get_ref<const std::string &>().empty())
        return textOf(*value);
    if (value->is_number_integer()) {
        if (std::optional<qint64> number = wholeNumber(*value))
            return QString::number(*number);
    }
    return wrongType(QLatin1String(key), QStringLiteral("an integer or a non-empty string"), *value);
}

// What both τ formats read first of every message: it is an object, its role, its text.
struct MessageHead
{
    QString role;
    QString text;
};

Expected<MessageHead> messageHead(const json &message, const QString &path)
{
    if (!message.is_object())
        return wrongType(path, QStringLiteral("a message object"), message);
    const json *roleValue = member(message, "role");
    if (!roleValue || !roleValue->is_string())
        return wrongType(path + QStringLiteral(".role"), QStringLiteral("a string"),
                         roleValue ? *roleValue : json());
    Expected<QString> text = contentText(message, path);
    if (!text)
        return text.error();
    return MessageHead{textOf(*roleValue), *text};
}

void setSubjectFrom(Conversation &conversation, const QString &customerText)
{
    if (conversation.subject.isEmpty())
        conversation.subject = firstLine(customerText, 120);
}

void noteSkippedRole(Conversation &conversation, QSet<QString> &noted, const QString &role,
                     const QString &path)
{
    if (noted.contains(role))
        return;
    noted.insert(role);
    conversation.notices.append(QStringLiteral("%1: messages with role \"%2\" were skipped").arg(path, role));
}

// ---- τ-bench v1 -------------------------------------------------------------------------

Expected<QList<Turn>> readV1ToolCalls(const json &message, const QString &path)
{
    QList<Turn> turns;
    const json *calls = member(message, "tool_calls");
    if (!calls || calls->is_null())
        return turns;
    if (!calls->is_array())
        return wrongType(path + QStringLiteral(".tool_calls"), QStringLiteral("an array"), *calls);
    for (std::size_t i = 0; i < calls->size(); ++i) {
        const json &call = (*calls)[i];
        const QString callPath = QStringLiteral("%1.tool_calls[%2]").arg(path).arg(i);
        if (!call.is_object())
            return wrongType(callPath, QStringLiteral("an object"), call);
        const json *function = member(call, "function");
        if (!function || !function->is_object())
            return wrongType(callPath + QStringLiteral(".function"), QStringLiteral("an object"),
                             function ? *function : json());
        const json *name = member(*function, "name");
        if (!name || !name->is_string() || name->get_ref<const std::string &>().empty())
            return wrongType(callPath + QStringLiteral(".function.name"),
                             QStringLiteral("a non-empty string"), name ? *name : json());
        Expected<QString> id = optionalString(call, "id", callPath);
        if (!id)
            return id.error();
        Expected<json> arguments = argumentsObject(member(*function, "arguments"),
                                                   callPath + QStringLiteral(".function.arguments"));
        if (!arguments)
            return arguments.error();
        Turn turn;
        turn.kind = Turn::Kind::ToolCall;
        turn.callId = *id;
        turn.tool = textOf(*name);
        turn.arguments = std::move(*arguments);
        turn.argumentsText = chatformats::argumentsAsWritten(member(*function, "arguments"));
        turns.append(std::move(turn));
    }
    return turns;
}

} // namespace

bool looksLikeTauV1Trajectory(const json &value)
{
    const json *traj = member(value, "traj");
    return traj && traj->is_array();
}

Expected<Conversation> readTauV1Trajectory(const json &value, const ConversationContext &context)
{
    if (!value.is_object())
        return wrongType(QString(), QStringLiteral("a τ-bench trajectory {task_id, trial, traj}"), value);
    const json *traj = member(value, "traj");
    if (!traj || !traj->is_array())
        return wrongType(QStringLiteral("traj"), QStringLiteral("an array of messages"),
                         traj ? *traj : json());

    Conversation conversation;
    Expected<QString> task = idPart(value, "task_id", QString());
    if (!task)
        return task.error();
    Expected<QString> trial = idPart(value, "trial", QStringLiteral("0"));
    if (!trial)
        return trial.error();
    // The file's name is no part of the id: a renamed copy is the same run. Its content tells
    // two runs (two models, say) of one task and trial apart.
    conversation.id = task->isEmpty()
            ? fallbackConversationId(context)
            : QStringLiteral("tau-bench/task-%1/trial-%2/%3")
                      .arg(*task, *trial,
                           QString::fromLatin1(
                                   sha256Hex(QByteArray::fromStdString(value.dump(
                                                     -1, ' ', false, json::error_handler_t::replace)))
                                           .left(8)));
    conversation.task = *task;
    conversation.trial = *trial;

    QSet<QString> skippedRoles;
    for (std::size_t i = 0; i < traj->size(); ++i) {
        const json &message = (*traj)[i];
        const QString path = QStringLiteral("traj[%1]").arg(i);
        Expected<MessageHead> head = messageHead(message, path);
        if (!head)
            return head.error();
        const QString &role = head->role;
        const QString &text = head->text;

        if (role == QLatin1String("system") || role == QLatin1String("developer")) {
            if (!text.trimmed().isEmpty())
                conversation.turns.append(messageTurn(MessageKind::System, text, std::nullopt));
        } else if (role == QLatin1String("user")) {
            if (!text.trimmed().isEmpty()) {
                setSubjectFrom(conversation, text);
                conversation.turns.append(messageTurn(MessageKind::Customer, text, std::nullopt));
            }
        } else if (role == QLatin1String("assistant")) {
            if (!text.trimmed().isEmpty())
                conversation.turns.append(messageTurn(MessageKind::Reply, text, std::nullopt));
            Expected<QList<Turn>> calls = readV1ToolCalls(message, path);
            if (!calls)
                return calls.error();
            conversation.turns.append(*calls);
        } else if (role == QLatin1String("tool")) {
            // The result stays the text the tool returned: "Error: ..." is read by the registry's
            // rules, and a JSON payload is not parsed into something the tool did not say.
            const json *callId = member(message, "tool_call_id");
            if (!callId || !callId->is_string())
                return wrongType(path + QStringLiteral(".tool_call_id"), QStringLiteral("a string"),
                                 callId ? *callId : json());
            Expected<QString> name = optionalString(message, "name", path);
            if (!name)
                return name.error();
            Turn turn;
            turn.kind = Turn::Kind::ToolResult;
            turn.callId = textOf(*callId);
            turn.tool = *name;
            turn.result = json(text.toStdString());
            conversation.turns.append(std::move(turn));
        } else {
            noteSkippedRole(conversation, skippedRoles, role, path);
        }
    }
    return conversation;
}

// ---- τ²-bench ---------------------------------------------------------------------------

namespace {

struct DeviceResult
{
    QString text;
    std::optional<qint64> at;
};

// Calls the simulated customer makes on their own phone (telecom) are not the agent's tools:
// they become one line of context each, with the result that answered them.
struct DeviceActions
{
    QSet<QString> callIds;
    QHash<QString, QList<DeviceResult>> results; // by call id, in order

    static bool isUserRequest(const json &node)
    {
        const json *requestor = member(node, "requestor");
        return requestor && requestor->is_string() && *requestor == "user";
    }

    // Tolerant: the main pass reports malformed messages.
    void scan(const json &messages)
    {
        for (const json &message : messages) {
            const json *calls = member(message, "tool_calls");
            if (calls && calls->is_array()) {
                for (const json &call : *calls) {
                    const json *id = member(call, "id");
                    if (isUserRequest(call) && id && id->is_string())
                        callIds.insert(textOf(*id));
                }
            }
        }
        for (const json &message : messages) {
            const json *role = member(message, "role");
            const json *id = member(message, "id");
            if (!role || *role != "tool" || !id || !id->is_string() || !isResult(message))
                continue;
            Expected<QString> text = contentText(message, QString());
            const json *time = member(message, "timestamp");
            results[textOf(*id)].append(
                    {text ? *text : QString(),
                     time && time->is_string() ? parseLooseTimestamp(textOf(*time)) : std::nullopt});
        }
    }

    // Whether a tool message answers the customer's device rather than the agent.
    bool isResult(const json &message) const
    {
        if (isUserRequest(message))
            return true;
        const json *requestor = member(message, "requestor");
        const json *id = member(message, "id");
        return (!requestor || requestor->is_null()) && id && id->is_string() && callIds.contains(textOf(*id));
    }

    std::optional<DeviceResult> takeResult(const QString &callId)
    {
        auto it = results.find(callId);
        if (it == results.end() || it->isEmpty())
            return std::nullopt;
        return it->takeFirst();
    }
};

Expected<std::optional<qint64>> messageTime(const json &message, const QString &path)
{
    const json *time = member(message, "timestamp");
    if (!time || time->is_null())
        return std::optional<qint64>();
    if (!time->is_string())
        return wrongType(path + QStringLiteral(".timestamp"), QStringLiteral("an ISO 8601 time as a string"),
                         *time);
    return parseLooseTimestamp(textOf(*time));
}

Expected<QList<Turn>> readTau2ToolCalls(const json &message, const QString &path, std::optional<qint64> at,
                                        DeviceActions &device)
{
    QList<Turn> turns;
    const json *calls = member(message, "tool_calls");
    if (!calls || calls->is_null())
        return turns;
    if (!calls->is_array())
        return wrongType(path + QStringLiteral(".tool_calls"), QStringLiteral("an array or null"), *calls);
    for (std::size_t i = 0; i < calls->size(); ++i) {
        const json &call = (*calls)[i];
        const QString callPath = QStringLiteral("%1.tool_calls[%2]").arg(path).arg(i);
        if (!call.is_object())
            return wrongType(callPath, QStringLiteral("an object"), call);
        const json *name = member(call, "name");
        if (!name || !name->is_string() || name->get_ref<const std::string &>().empty())
            return wrongType(callPath + QStringLiteral(".name"), QStringLiteral("a non-empty string"),
                             name ? *name : json());
        Expected<QString> id = optionalString(call, "id", callPath);
        if (!id)
            return id.error();
        Expected<json> arguments =
                argumentsObject(member(call, "arguments"), callPath + QStringLiteral(".arguments"));
        if (!arguments)
            return arguments.error();

        if (DeviceActions::isUserRequest(call)) {
            const std::optional<DeviceResult> result = device.takeResult(*id);
            const QString outcome = result ? firstLine(result->text, 100) : QStringLiteral("(no result)");
            turns.append(
                    messageTurn(MessageKind::System,
                                QStringLiteral("Customer's device: %1 %2 → %3")
                                        .arg(textOf(*name), shortened(compactJson(*arguments), 60), outcome),
                                result && result->at ? result->at : at));
            continue;
        }
        Turn turn;
        turn.kind = Turn::Kind::ToolCall;
        turn.at = at;
        turn.callId = *id;
        turn.tool = textOf(*name);
        turn.arguments = std::move(*arguments);
        turns.append(std::move(turn));
    }
    return turns;
}

std::optional<qint64> simulationTime(const json &simulation)
{
    for (const char *key : {"start_time", "timestamp"}) {
        const json *time = member(simulation, key);
        if (time && time->is_string()) {
            if (std::optional<qint64> at = parseLooseTimestamp(textOf(*time)))
                return at;
        }
    }
    return std::nullopt;
}

} // namespace

bool looksLikeTau2Simulation(const json &value)
{
    const json *messages = member(value, "messages");
    return messages && messages->is_array() && member(value, "task_id")
            && (member(value, "termination_reason") || member(value, "trial"));
}

Expected<Conversation> readTau2Simulation(const json &value, const ConversationContext &context)
{
    if (!value.is_object())
        return wrongType(QString(), QStringLiteral("a τ² simulation {id, task_id, messages}"), value);
    const json *messages = member(value, "messages");
    if (!messages || !messages->is_array())
        return wrongType(QStringLiteral("messages"), QStringLiteral("an array of messages"),
                         messages ? *messages : json());

    Conversation conversation;
    const json *id = member(value, "id");
    if (id && !id->is_null() && !id->is_string())
        return wrongType(QStringLiteral("id"), QStringLiteral("a string"), *id);
    conversation.id = id && id->is_string() && !id->get_ref<const std::string &>().empty()
            ? textOf(*id)
            : fallbackConversationId(context);
    Expected<QString> task = idPart(value, "task_id", QString());
    if (!task)
        return task.error();
    Expected<QString> trial = idPart(value, "trial", QString());
    if (!trial)
        return trial.error();
    conversation.task = *task;
    conversation.trial = *trial;

    DeviceActions device;
    device.scan(*messages);
    QSet<QString> skippedRoles;
    bool timeNoticed = false;
    for (std::size_t i = 0; i < messages->size(); ++i) {
        const json &message = (*messages)[i];
        const QString path = QStringLiteral("messages[%1]").arg(i);
        Expected<MessageHead> head = messageHead(message, path);
        if (!head)
            return head.error();
        const QString &role = head->role;
        const QString &text = head->text;
        Expected<std::optional<qint64>> at = messageTime(message, path);
        if (!at)
            return at.error();
        if (!*at && !timeNoticed && member(message, "timestamp")
            && member(message, "timestamp")->is_string()) {
            timeNoticed = true; // once: the turns keep their order, only their times are missing
            conversation.notices.append(QStringLiteral("%1.timestamp: not a time Verity can read; such turns "
                                                       "have no time")
                                                .arg(path));
        }

        if (role == QLatin1String("assistant") || role == QLatin1String("user")) {
            const bool customer = role == QLatin1String("user");
            if (!text.trimmed().isEmpty()) {
                if (customer)
                    setSubjectFrom(conversation, text);
                conversation.turns.append(
                        messageTurn(customer ? MessageKind::Customer : MessageKind::Reply, text, *at));
            }
            Expected<QList<Turn>> calls = readTau2ToolCalls(message, path, *at, device);
            if (!calls)
                return calls.error();
            conversation.turns.append(*calls);
        } else if (role == QLatin1String("tool")) {
            const json *callId = member(message, "id");
            if (!callId || !callId->is_string())
                return wrongType(path + QStringLiteral(".id"), QStringLiteral("a string"),
                                 callId ? *callId : json());
            const json *error = member(message, "error");
            if (error && !error->is_null() && !error->is_boolean())
                return wrongType(path + QStringLiteral(".error"), QStringLiteral("true or false"), *error);
            if (device.isResult(message))
                continue; // told with its call, as the customer's device
            Turn turn;
            turn.kind = Turn::Kind::ToolResult;
            turn.at = *at;
            turn.callId = textOf(*callId);
            turn.result = json(text.toStdString());
            turn.errorFlag = error && error->is_boolean() && error->get<bool>();
            conversation.turns.append(std::move(turn));
        } else if (role == QLatin1String("system")) {
            if (!text.trimmed().isEmpty())
                conversation.turns.append(messageTurn(MessageKind::System, text, *at));
        } else {
            noteSkippedRole(conversation, skippedRoles, role, path);
        }
    }

    for (const Turn &turn : std::as_const(conversation.turns)) {
        if (turn.at) {
            conversation.openedAt = turn.at;
            break;
        }
    }
    if (!conversation.openedAt)
        conversation.openedAt = simulationTime(value);
    if (!conversation.openedAt && !context.fileTimestamp.isEmpty()) {
        conversation.openedAt = parseLooseTimestamp(context.fileTimestamp);
        if (conversation.openedAt)
            conversation.dating = TicketDating::FileDate;
    }
    return conversation;
}

} // namespace verity

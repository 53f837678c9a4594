#include "mcprelay.h"

#include "domain/intentkey.h"
#include "domain/mcpcallresult.h"
#include "store/storefactory.h"

#include <QDateTime>

#include <algorithm>

namespace verity {

using nlohmann::json;

namespace {

std::optional<json> parsed(const QByteArray &message)
{
    json value = json::parse(message.constBegin(), message.constEnd(), nullptr, false);
    if (value.is_discarded() || !value.is_object())
        return std::nullopt;
    return value;
}

QString textOf(const json &value, const char *key)
{
    const auto member = value.find(key);
    return member != value.end() && member->is_string() ? QString::fromStdString(member->get<std::string>())
                                                        : QString();
}

// An id as a key: 1 and "1" are two ids.
QString idKey(const json &id)
{
    return QString::fromStdString(id.dump());
}

// An id as part of a call's name: 7, or the string's own text.
QString idName(const json &id)
{
    return id.is_string() ? QString::fromStdString(id.get<std::string>()) : QString::fromStdString(id.dump());
}

// A name a client gave, as a ticket id: one line of at most 200 characters, else none.
QString ticketName(const QString &name)
{
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty() || trimmed.size() > 200)
        return {};
    for (const QChar c : trimmed) {
        if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format)
            return {};
    }
    return trimmed;
}

// MCP's defaults for what a server leaves unsaid: not read-only, destructive, not idempotent.
ToolHint withMcpDefaults(ToolHint hint)
{
    if (hint.source.isEmpty())
        hint.source = QStringLiteral("MCP's defaults (the server did not list the tool)");
    if (!hint.readOnly)
        hint.readOnly = false;
    if (!hint.destructive)
        hint.destructive = true;
    if (!hint.idempotent)
        hint.idempotent = false;
    return hint;
}

} // namespace

QString conversationInMeta(const json &params)
{
    if (!params.is_object())
        return {};
    const auto meta = params.find("_meta");
    if (meta == params.end() || !meta->is_object())
        return {};
    for (const char *key :
         {"dev.verity/conversation", "gen_ai.conversation.id", "conversationId", "conversation_id"}) {
        if (const QString named = ticketName(textOf(*meta, key)); !named.isEmpty())
            return named;
    }
    return {};
}

McpRelay::McpRelay(RecorderSource recorder, RelayOptions options, Sinks sinks)
    : m_recorder(std::move(recorder))
    , m_options(std::move(options))
    , m_sinks(std::move(sinks))
{
    // A server that never answers the guard's tools/list does not keep calls waiting for long:
    // they are judged by MCP's defaults then.
    m_listWait.setSingleShot(true);
    m_listWait.setInterval(2000);
    QObject::connect(&m_listWait, &QTimer::timeout, [this] {
        m_ownListId.clear();
        sendWaitingCalls();
    });
}

void McpRelay::sendWaitingCalls()
{
    m_listWait.stop();
    for (auto &[message, request] : std::exchange(m_waitingCalls, {}))
        callTool(message, std::move(request));
}

QString McpRelay::invalidCall(const json &request)
{
    const auto id = request.find("id");
    if (id == request.end() || !(id->is_string() || id->is_number_integer()))
        return QStringLiteral("its id must be a string or a whole number");
    const auto params = request.find("params");
    if (params == request.end() || !params->is_object())
        return QStringLiteral("its params must be an object");
    const auto name = params->find("name");
    if (name == params->end() || !name->is_string() || name->get<std::string>().empty())
        return QStringLiteral("params.name must name the tool");
    const auto arguments = params->find("arguments");
    if (arguments != params->end() && !arguments->is_object() && !arguments->is_null())
        return QStringLiteral("params.arguments must be an object");
    return {};
}

void McpRelay::refuse(const json &id, int code, const QString &why)
{
    const json response{
            {"jsonrpc", "2.0"},
            {"id", id},
            {"error", {{"code", code}, {"message", (QStringLiteral("verity guard: ") + why).toStdString()}}}};
    m_sinks.toClient(QByteArray::fromStdString(response.dump()));
}

bool McpRelay::idInUse(const json &id) const
{
    // 1 and "1" are two ids, but one call name: the second would share the first's record.
    const QString name = idName(id);
    const auto clashes = [&name, &id](const json &other) {
        return idKey(other) == idKey(id) || (!other.is_null() && idName(other) == name);
    };
    return m_ownIds.contains(idKey(id))
            || std::any_of(m_pending.cbegin(), m_pending.cend(),
                           [&](const Pending &pending) { return clashes(pending.id); })
            || std::any_of(m_waitingCalls.cbegin(), m_waitingCalls.cend(),
                           [&](const auto &waiting) { return clashes(waiting.second.value("id", json())); });
}

bool McpRelay::refusedBatch(const json &batch)
{
    if (!batch.is_array())
        return false;
    const bool calls = std::any_of(batch.begin(), batch.end(), [](const json &element) {
        return element.is_object() && textOf(element, "method") == QLatin1String("tools/call");
    });
    if (!calls)
        return false; // not the guard's to judge
    // MCP has had no batches since 2025-06-18; calls in one could not be judged one by one.
    json answers = json::array();
    for (const json &element : batch) {
        if (element.is_object() && element.contains("id") && element.contains("method"))
            answers.push_back({{"jsonrpc", "2.0"},
                               {"id", element["id"]},
                               {"error",
                                {{"code", -32600},
                                 {"message",
                                  "verity guard: a batch with tools/call in it is not sent; send "
                                  "one message at a time"}}}});
    }
    m_sinks.log(QStringLiteral("a JSON-RPC batch with tools/call in it was refused, unsent"));
    m_sinks.toClient(QByteArray::fromStdString(answers.dump()));
    return true;
}

qint64 McpRelay::now() const
{
    return m_options.clock ? m_options.clock() : QDateTime::currentMSecsSinceEpoch();
}

void McpRelay::fromClient(const QByteArray &message)
{
    if (nestingOf(message) > deepestJsonRead) {
        m_sinks.log(QStringLiteral("a message nested deeper than %1 levels was refused, unsent")
                            .arg(deepestJsonRead));
        refuse(json(), -32700,
               QStringLiteral("the message is nested deeper than %1 levels; it was not sent")
                       .arg(deepestJsonRead));
        return;
    }
    // JSON text has no byte order mark (RFC 8259): the server would not read what the guard did.
    json value = message.startsWith("\xEF\xBB\xBF")
            ? json(json::value_t::discarded)
            : json::parse(message.constBegin(), message.constEnd(), nullptr, false);
    if (value.is_discarded()) {
        // Not JSON this guard can read (no JSON at all, a number past a double's range, a lone
        // UTF-16 surrogate): it may be a tools/call that could be neither judged nor recorded.
        m_sinks.log(QStringLiteral("a message that is not JSON the guard can read was refused, unsent"));
        refuse(json(), -32700,
               QStringLiteral("the message is not JSON the guard can read (numbers must fit a double, "
                              "strings must be whole UTF-16); it was not sent"));
        return;
    }
    if (!value.is_object()) {
        if (refusedBatch(value))
            return;
        m_sinks.toServer(message); // not the guard's to judge: the server answers it
        return;
    }
    std::optional<json> request = std::move(value);
    const QString method = textOf(*request, "method");
    const auto id = request->find("id");
    const bool hasId = id != request->end() && !id->is_null();
    const json params = request->value("params", json::object());
    if (hasId && request->contains("method") && idInUse(*id)) {
        // Its answer could not be told from the first one's: a ping answered would settle a refund.
        m_sinks.log(
                QStringLiteral("a request with the id %1 of a request still in flight was refused, unsent")
                        .arg(idKey(*id)));
        refuse(*id, -32600,
               QStringLiteral("the id %1 is already used by a request of this session still waiting for its "
                              "answer; this request was not sent")
                       .arg(idKey(*id)));
        return;
    }
    if (method == QLatin1String("initialize") && hasId) {
        m_conversation = conversationInMeta(params);
        m_initializeId = idKey(*id);
    } else if (method == QLatin1String("tools/list") && hasId) {
        m_listRequests.insert(idKey(*id));
    } else if (method == QLatin1String("tools/call")) {
        // Never sent unless it can be judged: a call the guard cannot read is refused as JSON-RPC
        // refuses it, and a call before the server's tools are known waits for them.
        if (const QString invalid = invalidCall(*request); !invalid.isEmpty()) {
            m_sinks.log(QStringLiteral("a tools/call was refused: %1").arg(invalid));
            refuse(hasId ? *id : json(), hasId ? -32602 : -32600, invalid);
        } else if (m_options.callsWaitForToolList && !m_ownListId.isEmpty() && m_waitingCalls.size() < 1000) {
            m_waitingCalls.append({message, std::move(*request)});
            m_listWait.start();
        } else {
            callTool(message, std::move(*request));
        }
        return;
    } else if (method == QLatin1String("notifications/initialized")) {
        m_sinks.toServer(message);
        listTools();
        return;
    } else if (method == QLatin1String("notifications/cancelled") && params.is_object()) {
        const auto cancelled = params.find("requestId");
        if (cancelled != params.end()) {
            const auto pending = m_pending.find(idKey(*cancelled));
            if (pending != m_pending.end()) {
                const QString reason = textOf(params, "reason");
                giveUp(*pending,
                       reason.isEmpty() ? QStringLiteral("the client cancelled it")
                                        : QStringLiteral("the client cancelled it (%1)").arg(reason));
                // A write already sent may have taken effect: the server is not told to drop its
                // answer, which, when it comes, is recorded and settles the call.
                if (pending->write && pending->storedCallId != 0) {
                    pending->cancelledByClient = true;
                    return;
                }
            }
        }
    }
    m_sinks.toServer(message);
}

void McpRelay::fromServer(const QByteArray &message)
{
    if (nestingOf(message) > deepestJsonRead) {
        // Not read, so not recorded: a write it answers stays unknown until its deadline.
        m_sinks.log(QStringLiteral("the server sent a message nested deeper than %1 levels: passed on unread")
                            .arg(deepestJsonRead));
        m_sinks.toClient(message);
        return;
    }
    std::optional<json> response = parsed(message);
    const auto id = response ? response->find("id") : json::iterator();
    if (!response || response->contains("method") || id == response->end()) {
        if (response && textOf(*response, "method") == QLatin1String("notifications/tools/list_changed"))
            listTools();
        m_sinks.toClient(message); // the server's requests and notifications pass as they are
        return;
    }
    const QString key = idKey(*id);
    const json result = response->value("result", json());
    if (m_ownIds.remove(key)) {
        if (key == m_ownListId)
            m_ownListId.clear();
        if (result.is_object()) {
            readToolList(result);
            if (result.contains("nextCursor") && result["nextCursor"].is_string())
                listTools(result["nextCursor"]);
        }
        if (m_ownListId.isEmpty())
            sendWaitingCalls();
        return;
    }
    if (key == m_initializeId) {
        m_initializeId.clear();
        if (result.is_object() && result.contains("serverInfo") && result["serverInfo"].is_object())
            m_serverName = textOf(result["serverInfo"], "name");
    }
    if (m_listRequests.remove(key) && result.is_object())
        readToolList(result);
    const auto pending = m_pending.find(key);
    if (pending == m_pending.end()) {
        m_sinks.toClient(message);
        return;
    }
    Pending answered = std::move(*pending);
    m_pending.erase(pending);
    if (!answered.cancelledByClient)
        m_sinks.toClient(message); // the client first: recording it never delays the answer
    settle(std::move(answered), *response);
}

void McpRelay::listTools(const json &cursor)
{
    if (!m_ownListId.isEmpty() && cursor.is_null())
        return; // one is on its way
    // A string id of the guard's own: a client's ids are its own to choose, and the SDKs count.
    const json id = QStringLiteral("verity-guard-tools-%1").arg(++m_ownLists).toStdString();
    m_ownListId = idKey(id);
    m_ownIds.insert(m_ownListId);
    json request{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/list"}};
    if (!cursor.is_null())
        request["params"] = json{{"cursor", cursor}};
    m_sinks.toServer(QByteArray::fromStdString(request.dump()));
}

void McpRelay::readToolList(const json &result)
{
    const auto tools = result.find("tools");
    if (tools == result.end() || !tools->is_array())
        return;
    for (const json &tool : *tools) {
        std::optional<NamedToolHint> named =
                readToolDefinition(tool, QStringLiteral("the MCP server's tools/list"));
        if (!named)
            continue;
        ServerTool known;
        known.hint = named->hint;
        const json schema = tool.value("inputSchema", json::object());
        if (schema.is_object() && schema.contains("properties") && schema["properties"].is_object()) {
            for (auto property = schema["properties"].begin(); property != schema["properties"].end();
                 ++property) {
                if (isIdempotencyKeyName(QString::fromStdString(property.key()))) {
                    known.keyField = QString::fromStdString(property.key());
                    break;
                }
            }
        }
        known.hasOutputSchema = tool.contains("outputSchema") && tool["outputSchema"].is_object();
        if (!m_tools.contains(named->tool))
            m_toolNames.append(named->tool);
        m_tools.insert(named->tool, known);
    }
}

GuardedCall McpRelay::guardedCall(const json &id, const json &params) const
{
    GuardedCall call;
    call.conversation = conversationInMeta(params);
    if (call.conversation.isEmpty())
        call.conversation = m_conversation;
    call.conversationNamed = !call.conversation.isEmpty();
    if (!call.conversationNamed)
        call.conversation = m_options.sessionId;
    call.callId = QStringLiteral("%1-%2").arg(m_options.callPrefix, idName(id));
    call.sourceId = QStringLiteral("mcp %1 %2").arg(m_options.callPrefix, idKey(id));
    call.tool = textOf(params, "name");
    const auto arguments = params.find("arguments");
    if (arguments != params.end() && arguments->is_object())
        call.arguments = *arguments;
    const auto known = m_tools.constFind(call.tool);
    call.hint = withMcpDefaults(known != m_tools.cend() ? known->hint : ToolHint());
    call.serverTools = m_toolNames;
    call.origin = m_serverName;
    call.at = now();
    return call;
}

void McpRelay::answer(const json &id, json result)
{
    const json response{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
    m_sinks.toClient(
            QByteArray::fromStdString(response.dump(-1, ' ', false, json::error_handler_t::replace)));
}

void McpRelay::callTool(const QByteArray &message, json request)
{
    const json id = request["id"];
    json &params = request["params"];
    Pending pending;
    pending.id = id;
    pending.call = guardedCall(id, params);
    const GuardedTool tool = guardedTool(m_options.registries, pending.call);
    pending.write = isWrite(tool.spec.toolClass);
    if (!pending.write) {
        m_pending.insert(idKey(id), pending);
        m_sinks.toServer(message);
        return;
    }
    const GuardedCall &call = pending.call;
    QString whyNot;
    GuardRecorder *recorder = m_recorder(whyNot);
    if (!recorder && m_options.passWhenStoreDown) {
        m_sinks.log(
                QStringLiteral("%1 (%2): relayed unrecorded, since %3").arg(call.callId, call.tool, whyNot));
        m_pending.insert(idKey(id), pending);
        m_sinks.toServer(message);
        return;
    }
    const auto known = m_tools.constFind(call.tool);
    const QString keyField = known != m_tools.cend() ? known->keyField : QString();
    Expected<WriteAdmission> admitted = recorder ? recorder->admitWrite(pending.call, keyField)
                                                 : Expected<WriteAdmission>(makeError(whyNot));
    if (!admitted && recorder && m_options.recorderFailed && !reopeningCannotMend(admitted.error().code)) {
        // Nothing was stored or sent. Its session may be one the server dropped, or one it chose
        // to end a deadlock with: tried once more, on a new one.
        m_options.recorderFailed();
        if (GuardRecorder *again = m_recorder(whyNot)) {
            admitted = again->admitWrite(pending.call, keyField);
            if (!admitted)
                m_options.recorderFailed();
        }
    }
    if (!admitted) {
        m_sinks.log(QStringLiteral("%1 (%2): not sent, since it cannot be recorded: %3")
                            .arg(call.callId, call.tool, admitted.message()));
        // The reason, with the database's address, is for the people running the guard.
        answer(id,
               unrecordedAnswer(call.tool,
                                QStringLiteral("Verity's record of tool calls cannot be written now")));
        return;
    }
    const RepeatVerdict &verdict = admitted->verdict;
    if (verdict.kind != RepeatVerdict::Kind::Send) {
        json reply = admitted->answer;
        // A client checks a tool's structured output unless the result is an error; the
        // guard has none to give.
        if (known != m_tools.cend() && known->hasOutputSchema)
            reply["isError"] = true;
        m_sinks.log(QStringLiteral("%1 (%2): %3").arg(call.callId, call.tool, verdictReason(verdict)));
        answer(id, std::move(reply));
        return;
    }
    pending.storedCallId = admitted->storedCallId;
    m_pending.insert(idKey(id), pending);
    if (admitted->keyFilled) {
        m_sinks.log(QStringLiteral("%1 (%2): sent again after it was found not performed, with %3 set to its "
                                   "intent's key")
                            .arg(call.callId, call.tool, keyField));
        params["arguments"] = call.arguments;
        m_sinks.toServer(
                QByteArray::fromStdString(request.dump(-1, ' ', false, json::error_handler_t::replace)));
        return;
    }
    m_sinks.toServer(message);
}

void McpRelay::settle(Pending pending, const json &response)
{
    json result;
    bool isError = false;
    QString errorType;
    if (response.contains("result")) {
        result = response["result"];
        const auto flag = result.is_object() ? result.find("isError") : result.end();
        isError = flag != result.end() && flag->is_boolean() && flag->get<bool>();
    } else {
        // A JSON-RPC error: read by the registry's rules like any error a tool gives.
        result = json{{"error", response.value("error", json())}};
        isError = true;
        const json error = response.value("error", json::object());
        errorType = error.is_object() && error.contains("code")
                ? QStringLiteral("JSON-RPC error %1").arg(QString::fromStdString(error["code"].dump()))
                : QStringLiteral("JSON-RPC error");
    }
    if (pending.write && pending.storedCallId == 0)
        return; // relayed unrecorded while the store was away: nothing stored to settle
    QString whyNot;
    GuardRecorder *recorder = m_recorder(whyNot);
    if (recorder)
        recorder->recordResult(pending.call, result, isError, errorType, now());
    else
        m_sinks.log(QStringLiteral("%1 (%2): the answer could not be recorded: %3%4")
                            .arg(pending.call.callId, pending.call.tool, whyNot,
                                 pending.write ? QStringLiteral("; the write stays unknown and is escalated")
                                               : QString()));
    if (recorder && pending.givenUp)
        m_sinks.log(QStringLiteral("%1 (%2): its answer came after all, and settles it")
                            .arg(pending.call.callId, pending.call.tool));
}

void McpRelay::giveUp(Pending &pending, const QString &why)
{
    if (!pending.write || pending.givenUp || pending.storedCallId == 0)
        return;
    pending.givenUp = true;
    QString whyNot;
    GuardRecorder *recorder = m_recorder(whyNot);
    Expected<void> done =
            recorder ? recorder->giveUp(pending.storedCallId) : Expected<void>(makeError(whyNot));
    if (!done && recorder && m_options.recorderFailed)
        m_options.recorderFailed();
    m_sinks.log(done ? QStringLiteral("%1 (%2): %3 while it was in flight; its outcome is unknown and it is "
                                      "escalated")
                                .arg(pending.call.callId, pending.call.tool, why)
                     : QStringLiteral(
                               "%1 (%2): %3 while it was in flight, and it could not be escalated now (%4); "
                               "it is escalated when its deadline passes")
                                .arg(pending.call.callId, pending.call.tool, why, done.message()));
}

void McpRelay::abandoned(const QByteArray &request, const QString &why)
{
    const std::optional<json> parsedRequest = parsed(request);
    if (!parsedRequest || !parsedRequest->contains("id"))
        return;
    const auto pending = m_pending.find(idKey((*parsedRequest)["id"]));
    if (pending != m_pending.end())
        giveUp(*pending, why);
}

void McpRelay::notDelivered(const QByteArray &request, const QString &why)
{
    const json sent = json::parse(request.constBegin(), request.constEnd(), nullptr, false);
    const auto id = sent.is_object() ? sent.find("id") : sent.end();
    if (id == sent.end())
        return;
    const auto pending = m_pending.find(idKey(*id));
    if (pending == m_pending.end())
        return;
    const Pending undelivered = std::move(*pending);
    m_pending.erase(pending);
    const QString tool = undelivered.call.tool;
    const json reply = undeliveredAnswer(tool, why);
    answer(*id, reply);
    m_sinks.log(QStringLiteral("%1 (%2): not delivered: %3").arg(undelivered.call.callId, tool, why));
    if (!undelivered.write || undelivered.storedCallId == 0)
        return;
    QString whyNot;
    if (GuardRecorder *recorder = m_recorder(whyNot)) {
        recorder->recordResult(
                undelivered.call,
                guardAnswerRecord(Outcome::NotPerformed, QStringLiteral("not delivered: %1").arg(why), reply),
                false, QString(), now());
    }
}

void McpRelay::connectionLost(const QString &why)
{
    for (Pending &pending : m_pending)
        giveUp(pending, why);
}

} // namespace verity

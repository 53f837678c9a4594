#include "otlptraces.h"

#include "domain/jsontext.h"
#include "domain/sha256.h"
#include "otlpattributes.h"
#include "otlpcarriedtools.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

namespace verity {

namespace {

using namespace otlp;

constexpr qint64 nanosPerMs = 1000000;
constexpr qint64 never = std::numeric_limits<qint64>::max(); // sorts spans without a time last

// What a span is to a conversation: a tool call (in one of the conventions below), an LLM call
// whose messages tell the conversation, an agent's own span (whose messages may carry tool
// calls), or nothing (HTTP, database).
enum class Role { Other, Tool, Chat, Agent };
// The tool-span conventions read: OpenTelemetry GenAI `execute_tool`, MCP `tools/call`,
// OpenInference `TOOL`, the AI SDK's own `ai.toolCall`, OpenLLMetry (Traceloop) `tool`.
enum class ToolConvention { GenAi, Mcp, OpenInference, AiSdk, Traceloop };

struct Span
{
    const json *raw = nullptr;
    QString where; // "resourceSpans[0].scopeSpans[1].spans[3]"
    QString name;
    QString traceId; // empty when missing or invalid
    QString spanId;
    QString parentId;
    AttributeMap attributes;
    UnixNanos start;
    UnixNanos end;
    Role role = Role::Other;
    ToolConvention tool = ToolConvention::GenAi; // for a Tool
    ChatConvention chat = ChatConvention::GenAi; // for a Chat or Agent
    QString conversationId; // what its own attributes name the conversation
    QString sessionId; // ... or the session
    QString sameCallAs; // a tool span inside it, read in an earlier request, made this call
    QString problem; // why it is refused; empty when it can be read
    QStringList notices; // what could not be read as expected and was kept as it came
};

// "resourceSpans[0].scopeSpans[1].spans[3] (span 5f2a90c1…)"
QString spanPlace(const Span &span)
{
    return span.spanId.isEmpty() ? span.where
                                 : QStringLiteral("%1 (span %2\u2026)").arg(span.where, span.spanId.left(8));
}

QString spanError(const Span &span)
{
    return spanPlace(span) + QStringLiteral(": ") + span.problem;
}

void fail(Span &span, const QString &problem)
{
    if (span.problem.isEmpty())
        span.problem = problem;
}

QString attributeName(const char *key)
{
    return QStringLiteral("attribute \"%1\"").arg(QLatin1String(key));
}

// An attribute as plain JSON; nullopt when absent or null. One that is no AnyValue is kept as
// the JSON it came as, with a notice: one odd value never costs the call.
std::optional<json> attribute(Span &span, const char *key)
{
    const auto it = span.attributes.find(key);
    if (it == span.attributes.end())
        return std::nullopt;
    std::optional<json> plain = plainValue(*it->second);
    if (!plain) {
        span.notices.append(
                QStringLiteral("%1: expected an OTLP AnyValue such as {\"stringValue\": \u2026}, got "
                               "%2; kept as it came")
                        .arg(attributeName(key), excerpt(it->second)));
        return tooDeep(*it->second) ? json(excerpt(it->second).toStdString()) : *it->second;
    }
    return !plain->is_null() ? plain : std::nullopt;
}

// A text attribute; a number is read as its digits, anything else is noted and read as nothing.
QString stringAttribute(Span &span, const char *key)
{
    const std::optional<json> value = attribute(span, key);
    if (!value)
        return QString();
    if (value->is_string())
        return fromUtf8String(value->get<std::string>());
    if (value->is_number_integer() || value->is_number_unsigned())
        return QString::fromStdString(value->dump());
    span.notices.append(
            QStringLiteral("%1: expected text, got %2; left out").arg(attributeName(key), excerpt(&*value)));
    return QString();
}

// A grouping attribute read quietly (its span may be no tool or chat span at all).
QString quietString(const AttributeMap &attributes, const char *key)
{
    const auto it = attributes.find(key);
    const std::optional<json> value = it == attributes.end() ? std::nullopt : plainValue(*it->second);
    return value && value->is_string() ? fromUtf8String(value->get<std::string>()).trimmed() : QString();
}

// The conversation or session a framework's own attributes name: the AI SDK's telemetry
// metadata and context (ai.telemetry.metadata.conversationId, ai.settings.context.sessionId),
// OpenLLMetry's association properties (traceloop.association.properties.conversation_id).
QString frameworkId(const AttributeMap &attributes, std::initializer_list<const char *> names)
{
    for (const char *name : names) {
        for (const char *prefix :
             {"ai.telemetry.metadata.", "ai.settings.context.", "traceloop.association.properties."}) {
            for (auto it = attributes.lower_bound(prefix);
                 it != attributes.end() && it->first.starts_with(prefix); ++it) {
                QString field = QString::fromStdString(it->first.substr(std::strlen(prefix))).toLower();
                field.remove(u'_');
                field.remove(u'-');
                if (field != QLatin1String(name))
                    continue;
                const std::optional<json> value = plainValue(*it->second);
                if (value && value->is_string() && !value->get_ref<const std::string &>().empty())
                    return fromUtf8String(value->get<std::string>()).trimmed();
            }
        }
    }
    return QString();
}

QString conversationOf(const AttributeMap &attributes)
{
    const QString own = quietString(attributes, "gen_ai.conversation.id");
    return !own.isEmpty() ? own : frameworkId(attributes, {"conversationid", "threadid", "chatid"});
}

QString sessionOf(const AttributeMap &attributes)
{
    const QString own = quietString(attributes, "session.id");
    return !own.isEmpty() ? own : frameworkId(attributes, {"sessionid"});
}

// OTLP/JSON writes a span's kind as a number or its enum name.
bool isServerSpan(const json &raw)
{
    const json *kind = member(raw, "kind");
    return kind && (*kind == 2 || *kind == "SPAN_KIND_SERVER");
}

void classify(Span &span)
{
    const AttributeMap &a = span.attributes;
    const QString operation = quietString(a, "gen_ai.operation.name");
    const QString inference = quietString(a, "openinference.span.kind").toUpper();
    const QString aiSdk = quietString(a, "ai.operationId");
    const QString traceloop = quietString(a, "traceloop.span.kind").toLower();
    const QString mcpMethod = quietString(a, "mcp.method.name");
    if (mcpMethod == QLatin1String("tools/call")) {
        // The server's span of a call whose client traced it (the trace came along with the
        // request) is that same call: the client's span is the one read.
        if (!(isServerSpan(*span.raw) && !span.parentId.isEmpty())) {
            span.role = Role::Tool;
            span.tool = ToolConvention::Mcp;
        }
    } else if (operation == QLatin1String("execute_tool")
               || (operation.isEmpty() && inference.isEmpty() && a.contains("gen_ai.tool.name"))) {
        // Earlier GenAI conventions and some instrumentations name the tool without the operation.
        span.role = Role::Tool;
        span.tool = ToolConvention::GenAi;
    } else if (inference == QLatin1String("TOOL")) {
        span.role = Role::Tool;
        span.tool = ToolConvention::OpenInference;
    } else if (aiSdk == QLatin1String("ai.toolCall") || a.contains("ai.toolCall.name")) {
        span.role = Role::Tool;
        span.tool = ToolConvention::AiSdk;
    } else if (traceloop == QLatin1String("tool")) {
        span.role = Role::Tool;
        span.tool = ToolConvention::Traceloop;
    } else if (operation == QLatin1String("chat") || operation == QLatin1String("generate_content")
               || operation == QLatin1String("text_completion")
               || (operation.isEmpty() && a.contains("gen_ai.prompt.0.role"))) {
        span.role = Role::Chat;
        span.chat = ChatConvention::GenAi;
    } else if (inference == QLatin1String("LLM")) {
        span.role = Role::Chat;
        span.chat = ChatConvention::OpenInference;
    } else if (aiSdk.endsWith(QLatin1String(".doGenerate")) || aiSdk.endsWith(QLatin1String(".doStream"))) {
        span.role = Role::Chat;
        span.chat = ChatConvention::AiSdk;
    } else if (operation == QLatin1String("invoke_agent") || aiSdk == QLatin1String("ai.generateText")
               || aiSdk == QLatin1String("ai.streamText")) {
        span.role = Role::Agent; // its messages may carry tool calls no span of their own records
    }
}

Span readSpan(const json &raw, const QString &where)
{
    Span span;
    span.raw = &raw;
    span.where = where;
    const json *name = member(raw, "name");
    span.name = name && name->is_string() ? fromUtf8String(name->get<std::string>()) : QString();
    span.traceId = hexId(member(raw, "traceId"), 32);
    span.spanId = hexId(member(raw, "spanId"), 16);
    span.parentId = hexId(member(raw, "parentSpanId"), 16);
    span.start = unixNanos(raw, "startTimeUnixNano");
    span.end = unixNanos(raw, "endTimeUnixNano");
    Attributes attributes = attributeMap(member(raw, "attributes"));
    span.attributes = std::move(attributes.values);
    classify(span);
    // A span that is none of these (HTTP, database) is nothing to a conversation, broken or not;
    // one whose attributes cannot be read at all might have been anything, and is refused.
    const json *list = member(raw, "attributes");
    if (list && !list->is_null() && !list->is_array())
        fail(span, attributes.problem + QStringLiteral(" (what the span is cannot be told)"));
    else if (span.role != Role::Other && !attributes.problem.isEmpty())
        span.notices.append(attributes.problem + QStringLiteral("; that attribute is left out"));
    span.conversationId = conversationOf(span.attributes);
    span.sessionId = sessionOf(span.attributes);
    return span;
}

struct ToolKeys
{
    const char *name;
    const char *callId; // nullptr: the convention names calls by their span
    const char *arguments;
    const char *result;
};

ToolKeys keysOf(ToolConvention convention)
{
    switch (convention) {
    case ToolConvention::GenAi:
    case ToolConvention::Mcp:
        return {"gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.call.arguments",
                "gen_ai.tool.call.result"};
    case ToolConvention::OpenInference:
        return {"tool.name", "tool_call.id", "input.value", "output.value"};
    case ToolConvention::AiSdk:
        return {"ai.toolCall.name", "ai.toolCall.id", "ai.toolCall.args", "ai.toolCall.result"};
    case ToolConvention::Traceloop:
        return {"traceloop.entity.name", nullptr, "traceloop.entity.input", "traceloop.entity.output"};
    }
    Q_UNREACHABLE();
}

// OpenLLMetry records a tool's input as {"args": [...], "kwargs": {...}}: the one object passed,
// else the keyword arguments, else the list.
json traceloopArguments(const json &input)
{
    // Its MCP instrumentation: {"tool_name", "arguments"}.
    if (const json *arguments = member(input, "arguments"); arguments && member(input, "tool_name"))
        return *arguments;
    const json *args = member(input, "args");
    const json *kwargs = member(input, "kwargs");
    if (!args && !kwargs)
        return input;
    const bool noKeywords = !kwargs || !kwargs->is_object() || kwargs->empty();
    if (args && args->is_array() && args->size() == 1 && noKeywords)
        return (*args)[0];
    if (!noKeywords && (!args || !args->is_array() || args->empty()))
        return *kwargs;
    return input;
}

// The arguments as an object. A JSON object, or JSON text of one; a bare string (OpenInference's
// text/plain input of a one-argument tool) or any other value is the argument itself, kept as
// {"input": value}. Text that looks like JSON but does not parse is kept as its text, with a
// notice. nullopt when not recorded (GenAI makes them opt-in).
std::optional<json> toolArguments(Span &span, const ToolKeys &keys, ToolConvention convention)
{
    std::optional<json> value = attribute(span, keys.arguments);
    if (!value)
        return std::nullopt;
    if (value->is_string()) {
        const std::string &text = value->get_ref<const std::string &>();
        const auto first = text.find_first_not_of(" \t\r\n");
        if (first == std::string::npos)
            return std::nullopt;
        try {
            json parsed = json::parse(text);
            if (tooDeep(parsed)) {
                span.notices.append(
                        QStringLiteral("%1: nested deeper than any real arguments; kept as its text")
                                .arg(attributeName(keys.arguments)));
                return json{{"input", *value}};
            }
            value = std::move(parsed);
        } catch (const json::exception &error) {
            if (text[first] == '{' || text[first] == '[')
                span.notices.append(
                        QStringLiteral("%1: expected JSON, got %2 (%3); kept as its text")
                                .arg(attributeName(keys.arguments), excerpt(&*value), parseReason(error)));
            return json{{"input", *value}};
        }
    }
    if (convention == ToolConvention::Traceloop)
        value = traceloopArguments(*value);
    // A bare string is a one-argument tool's input as OpenInference allows it; a list, a number
    // or null is no set of arguments, and is said to be kept as the input.
    if (!value->is_object() && !value->is_string())
        span.notices.append(QStringLiteral("%1: expected a JSON object, got %2; kept as {\"input\": \u2026}")
                                    .arg(attributeName(keys.arguments), excerpt(&*value)));
    return value->is_null() ? json{{"input", nullptr}} : argumentsObject(*value);
}

// A result as given; JSON text stays text (the outcome rules read it either way). OpenLLMetry
// wraps a tool's output in JSON text once more.
std::optional<json> toolResult(Span &span, const ToolKeys &keys, ToolConvention convention)
{
    std::optional<json> value = attribute(span, keys.result);
    if (value && convention == ToolConvention::Traceloop && value->is_string()) {
        json parsed = json::parse(value->get_ref<const std::string &>(), nullptr, false);
        if (!parsed.is_discarded() && !tooDeep(parsed))
            value = std::move(parsed);
    }
    return value;
}

struct Unwrapped
{
    json result;
    QString callId; // the call id the wrapper names, if it names one
    bool error = false;
};

// What a framework wrapped around a tool's answer. OpenInference's LangChain output is the
// serialised ToolMessage {"output": {"lc": 1, "id": […, "ToolMessage"], "kwargs": {"content",
// "tool_call_id", "status"}}}; OpenLLMetry's MCP output is {"result", "is_error"}.
Unwrapped unwrapResult(ToolConvention convention, const json &result)
{
    Unwrapped out{result, QString(), false};
    const json parsed =
            result.is_string() ? json::parse(result.get_ref<const std::string &>(), nullptr, false) : result;
    if (!parsed.is_object() || tooDeep(parsed))
        return out;
    if (convention == ToolConvention::OpenInference) {
        const json *message = member(parsed, "output");
        const json *kwargs = message ? member(*message, "kwargs") : nullptr;
        const json *id = message ? member(*message, "id") : nullptr;
        const bool toolMessage = id && id->is_array() && !id->empty() && id->back() == "ToolMessage";
        if (!toolMessage || !kwargs || !member(*kwargs, "content"))
            return out;
        out.result = *member(*kwargs, "content");
        const json *callId = member(*kwargs, "tool_call_id");
        out.callId = callId && callId->is_string() ? fromUtf8String(callId->get<std::string>()) : QString();
        const json *status = member(*kwargs, "status");
        out.error = status && *status == "error";
    } else if (convention == ToolConvention::Traceloop && member(parsed, "result")) {
        const json *error = member(parsed, "is_error");
        if (parsed.size() == (error ? 2u : 1u)) {
            out.result = *member(parsed, "result");
            out.error = error && *error == true;
        }
    }
    return out;
}

QString toolName(Span &span, const ToolKeys &keys)
{
    QString tool = quietString(span.attributes, keys.name);
    // MCP names the tool in the span's name too: "tools/call get_order".
    if (tool.isEmpty() && span.tool == ToolConvention::Mcp
        && span.name.startsWith(QLatin1String("tools/call ")))
        tool = span.name.mid(11).trimmed();
    if (tool.isEmpty() && span.tool == ToolConvention::Traceloop
        && span.name.endsWith(QLatin1String(".tool")))
        tool = span.name.chopped(5).trimmed();
    return tool;
}

// One tool span: the call at its start and, when it has an outcome, the result at its end. Only
// a span that names no tool is refused; whatever else is odd is kept, with a notice.
void readToolSpan(Span &span, QList<Turn> &turns, int &unrecordedArguments)
{
    const ToolKeys keys = keysOf(span.tool);
    const QString tool = toolName(span, keys);
    if (tool.isEmpty()) {
        const auto named = span.attributes.find(keys.name);
        const std::optional<json> value =
                named == span.attributes.end() ? std::nullopt : plainValue(*named->second);
        fail(span,
             attributeName(keys.name)
                     + (value && !value->is_null()
                                ? QStringLiteral(": expected the tool's name as text, got %1")
                                          .arg(excerpt(&*value))
                                : QStringLiteral(": expected the tool's name, got nothing")));
        return;
    }
    QString callId = keys.callId ? stringAttribute(span, keys.callId).trimmed() : QString();
    const std::optional<json> arguments = toolArguments(span, keys, span.tool);
    std::optional<json> result = toolResult(span, keys, span.tool);
    Status status = spanStatus(*span.raw);
    if (!status.problem.isEmpty()) {
        span.notices.append(status.problem + QStringLiteral("; read as unset"));
        status = Status{};
    }
    if (result) {
        Unwrapped unwrapped = unwrapResult(span.tool, *result);
        result = std::move(unwrapped.result);
        status.error = status.error || unwrapped.error;
        if (callId.isEmpty())
            callId = unwrapped.callId;
    }
    if (callId.isEmpty()) // the convention names no call id: the span names the call
        callId = !span.spanId.isEmpty() ? span.spanId
                                        : QStringLiteral("span-")
                        + QString::fromLatin1(sha256Hex(QByteArray::fromStdString(span.raw->dump(
                                                      -1, ' ', false, json::error_handler_t::replace))))
                                  .left(16);
    const QString errorType = stringAttribute(span, "error.type").trimmed();
    const std::optional<qint64> startNs = span.start.ns ? span.start.ns : span.end.ns;
    if (!span.start.ns)
        span.notices.append(
                (span.start.problem.isEmpty()
                         ? QStringLiteral("startTimeUnixNano: expected the call's start time, got nothing")
                         : span.start.problem)
                + (startNs ? QStringLiteral("; dated by its end") : QStringLiteral("; left undated")));
    if (!span.end.problem.isEmpty())
        span.notices.append(span.end.problem + QStringLiteral("; its duration is not known"));

    Turn call;
    call.kind = Turn::Kind::ToolCall;
    if (!span.sameCallAs.isEmpty()) {
        callId = span.sameCallAs;
        call.carried = true; // the call its inner span stored; this one only fills nothing in
    }
    if (startNs)
        call.at = *startNs / nanosPerMs;
    call.callId = callId;
    call.tool = tool;
    call.arguments = arguments.value_or(json::object());
    if (!span.spanId.isEmpty())
        call.sourceId = QStringLiteral("%1/%2 call").arg(span.traceId, span.spanId);
    unrecordedArguments += arguments ? 0 : 1;
    turns.append(call);

    const bool failed = status.error || !errorType.isEmpty();
    if (!result && !failed)
        return; // no outcome recorded: the tool may never have answered
    const auto [exceptionType, exceptionMessage] = exceptionEvent(*span.raw);
    Turn answer = call;
    answer.kind = Turn::Kind::ToolResult;
    answer.arguments = json();
    if (!span.spanId.isEmpty())
        answer.sourceId = QStringLiteral("%1/%2 result").arg(span.traceId, span.spanId);
    if (span.end.ns && startNs && *span.end.ns >= *startNs) {
        answer.at = *span.end.ns / nanosPerMs;
        answer.durationMs = (*span.end.ns - *startNs) / nanosPerMs;
    }
    answer.errorFlag = failed;
    answer.errorType = failed && errorType.isEmpty() ? exceptionType : errorType;
    // As given (a string stays a string); without one, what the status says went wrong, so that
    // the outcome rules have something to read.
    const QString said = !status.message.isEmpty() ? status.message
            : !exceptionMessage.isEmpty()          ? exceptionMessage
            : !answer.errorType.isEmpty()          ? answer.errorType
                                                   : QStringLiteral("STATUS_CODE_ERROR");
    answer.result = result ? *result : json(said.toStdString());
    turns.append(answer);
}

struct MessageState
{
    QSet<QString> systemTexts;
    QString lastUser;
    qsizetype lastUserCount = 0;
};

// LLM spans repeat the history, so from each one only what is new: system prompts not seen yet,
// the last user message unless the previous span already ended with it, and the reply.
void readChatSpan(const Span &span, MessageState &state, QList<Turn> &turns, bool &unreadable)
{
    const ChatMessages messages = chatMessages(span.attributes, span.chat);
    unreadable = unreadable || messages.unreadable;
    if (!span.start.ns) {
        unreadable = unreadable || messages.input || messages.output;
        return;
    }
    const qint64 startMs = *span.start.ns / nanosPerMs;
    const qint64 endMs = span.end.ns && *span.end.ns >= *span.start.ns ? *span.end.ns / nanosPerMs : startMs;
    int added = 0;
    // What the history repeats (the system prompt, the customer's n-th message) is named by its
    // place in the history, so that every span of the trace that repeats it, in any request,
    // names the same message; a reply is its span's own.
    const auto add = [&turns, &span, &added](MessageKind kind, qint64 at, const QString &text,
                                             const QString &inHistory = QString()) {
        Turn turn;
        turn.at = at;
        turn.messageKind = kind;
        turn.text = text;
        const QString digest = QString::fromLatin1(sha256Hex(text.toUtf8()).left(16));
        if (!inHistory.isEmpty() && !span.traceId.isEmpty())
            turn.sourceId = QStringLiteral("%1/%2 %3").arg(span.traceId, inHistory, digest);
        else if (!span.spanId.isEmpty())
            turn.sourceId = QStringLiteral("%1/%2 message %3").arg(span.traceId, span.spanId).arg(++added);
        turns.append(turn);
    };
    QStringList users;
    for (const ChatMessage &message : messages.input.value_or(QList<ChatMessage>())) {
        const bool system =
                message.role == QLatin1String("system") || message.role == QLatin1String("developer");
        if (system && !message.text.isEmpty() && !state.systemTexts.contains(message.text)) {
            state.systemTexts.insert(message.text);
            add(MessageKind::System, startMs, message.text, QStringLiteral("system"));
        } else if ((message.role == QLatin1String("user") || message.role == QLatin1String("human"))
                   && !message.text.isEmpty()) {
            users.append(message.text);
        }
    }
    if (!users.isEmpty() && (users.last() != state.lastUser || users.size() > state.lastUserCount))
        add(MessageKind::Customer, startMs, users.last(), QStringLiteral("customer %1").arg(users.size()));
    if (!users.isEmpty()) {
        state.lastUser = users.last();
        state.lastUserCount = users.size();
    }
    // An agent's own span holds the whole run's reply, which its model spans tell in turn: only
    // what it was asked is read from it (the customer's words, where no model span records them).
    if (span.role == Role::Agent)
        return;
    for (const ChatMessage &message : messages.output.value_or(QList<ChatMessage>())) {
        if (!message.text.isEmpty() && (message.role.isEmpty() || message.role == QLatin1String("assistant")))
            add(MessageKind::Reply, endMs, message.text);
    }
}

struct Group
{
    QString id;
    QString traceId; // when grouped by its trace, for the subject
    std::optional<qint64> openedNs;
    std::vector<Span *> spans; // its tool, chat and agent spans that can be read
    QStringList refused; // its spans that cannot, each with why
    bool relevant = false; // has a tool or chat span; a trace of HTTP calls is no conversation
};

// A tool span inside another tool span of the same tool (a framework's execute_tool around the
// MCP client's tools/call) is that same call: the outer one is read, filled in from the inner.
void foldNestedCalls(std::vector<Span *> &spans, const QHash<QString, Span *> &byId)
{
    std::vector<Span *> kept;
    for (Span *span : spans) {
        Span *outer = nullptr;
        QSet<QString> seen;
        for (Span *up = byId.value(span->parentId); up && !seen.contains(up->spanId);
             up = byId.value(up->parentId)) {
            seen.insert(up->spanId);
            if (span->role == Role::Tool && up->role == Role::Tool && up != span)
                outer = up;
        }
        if (!outer) {
            kept.push_back(span);
            continue;
        }
        // What the outer span did not record, the inner one may have.
        const ToolKeys inner = keysOf(span->tool);
        const ToolKeys keys = keysOf(outer->tool);
        for (const auto &[from, to] :
             {std::pair{inner.arguments, keys.arguments}, std::pair{inner.result, keys.result}}) {
            const auto value = span->attributes.find(from);
            if (value != span->attributes.end() && !outer->attributes.contains(to))
                outer->attributes.emplace(to, value->second);
        }
    }
    spans = std::move(kept);
}

// Calls that only the messages of chat and agent spans carry (an agent whose tools are not
// traced): each once, at the span that first carries it, its response at the first that
// answers it. A call a tool span of the conversation records is left to that span.
void addCarriedCalls(const std::vector<Span *> &spans, const QList<Turn> &spanTurns, QList<Turn> &turns,
                     const QHash<QString, QString> *aliases)
{
    // A call its inner span stored under another id is carried under that one.
    const auto stored = [aliases](const QString &id) { return aliases ? aliases->value(id, id) : id; };
    QSet<QString> known;
    for (const Turn &turn : spanTurns) {
        if (turn.kind == Turn::Kind::ToolCall)
            known.insert(turn.callId);
    }
    QSet<QString> answered;
    for (const Span *span : spans) {
        if (span->role != Role::Chat && span->role != Role::Agent)
            continue;
        const CarriedTools carried = carriedTools(span->attributes, *span->raw);
        const std::optional<qint64> at =
                span->start.ns ? std::optional<qint64>(*span->start.ns / nanosPerMs) : std::nullopt;
        for (const CarriedCall &call : carried.calls) {
            const QString id = stored(call.id);
            if (known.contains(id))
                continue;
            known.insert(id);
            Turn turn;
            turn.kind = Turn::Kind::ToolCall;
            turn.at = at;
            turn.callId = id;
            turn.tool = call.tool;
            turn.arguments = call.arguments;
            turn.carried = true;
            turn.sourceId = QStringLiteral("carried %1 call").arg(id);
            turns.append(turn);
        }
        for (const CarriedResponse &response : carried.responses) {
            const QString id = stored(response.id);
            if (answered.contains(id) || !known.contains(id))
                continue;
            const auto call = std::find_if(turns.cbegin(), turns.cend(), [&](const Turn &turn) {
                return turn.carried && turn.kind == Turn::Kind::ToolCall && turn.callId == id;
            });
            if (call == turns.cend())
                continue; // a tool span's own call: its span tells the result
            answered.insert(id);
            Turn turn;
            turn.kind = Turn::Kind::ToolResult;
            turn.at = at;
            turn.callId = id;
            turn.tool = call->tool;
            turn.result = response.response;
            turn.errorFlag = response.error;
            turn.carried = true;
            turn.sourceId = QStringLiteral("carried %1 result").arg(id);
            turns.append(turn);
        }
    }
}

Conversation buildConversation(Group &group, const QHash<QString, Span *> &byId,
                               const QHash<QString, QString> *aliases)
{
    std::stable_sort(group.spans.begin(), group.spans.end(), [](const Span *a, const Span *b) {
        return a->start.ns.value_or(a->end.ns.value_or(never))
                < b->start.ns.value_or(b->end.ns.value_or(never));
    });
    foldNestedCalls(group.spans, byId);
    Conversation conversation;
    conversation.id = group.id;
    if (group.openedNs)
        conversation.openedAt = *group.openedNs / nanosPerMs;
    MessageState state;
    int calls = 0;
    int unrecordedArguments = 0;
    bool unreadableMessages = false;
    QList<Turn> spanTurns;
    for (Span *span : group.spans) {
        if (span->role == Role::Tool) {
            const qsizetype before = spanTurns.size();
            readToolSpan(*span, spanTurns, unrecordedArguments);
            if (!span->problem.isEmpty()) {
                group.refused.append(spanError(*span));
                continue;
            }
            ++calls;
            const QString call = spanTurns.at(before).callId;
            for (const QString &notice : std::as_const(span->notices))
                conversation.notices.append(
                        QStringLiteral("call \"%1\" (%2), %3: %4")
                                .arg(call, spanTurns.at(before).tool, spanPlace(*span), notice));
            ++conversation.spans;
        } else if (span->role == Role::Chat) {
            readChatSpan(*span, state, spanTurns, unreadableMessages);
            ++conversation.spans;
        } else {
            bool ignored = false; // an agent span's messages are best effort
            readChatSpan(*span, state, spanTurns, ignored);
        }
    }
    conversation.turns = spanTurns;
    addCarriedCalls(group.spans, spanTurns, conversation.turns, aliases);
    std::stable_sort(conversation.turns.begin(), conversation.turns.end(), [](const Turn &a, const Turn &b) {
        return a.at.value_or(never) < b.at.value_or(never);
    });

    const auto customer =
            std::find_if(conversation.turns.cbegin(), conversation.turns.cend(), [](const Turn &turn) {
                return turn.kind == Turn::Kind::Message && turn.messageKind == MessageKind::Customer;
            });
    if (customer != conversation.turns.cend()) {
        conversation.subject = customer->text.section(u'\n', 0, 0).trimmed();
        if (conversation.subject.size() > 120)
            conversation.subject = conversation.subject.left(119) + QChar(u'\u2026');
    } else {
        conversation.subject =
                group.traceId.isEmpty() ? group.id : QStringLiteral("Trace ") + group.traceId.left(8);
    }
    if (unrecordedArguments > 0)
        conversation.notices.append(
                QStringLiteral("%1 of %2 tool calls have no recorded arguments (the instrumentation "
                               "did not capture them); they read as {}")
                        .arg(unrecordedArguments)
                        .arg(calls));
    if (unreadableMessages)
        conversation.notices.append(
                QStringLiteral("Some chat messages in the trace could not be read and are left out"));
    return conversation;
}

const char *scopeListKey(const json &resource)
{
    return member(resource, "scopeSpans") ? "scopeSpans" : "instrumentationLibrarySpans";
}

// Every span object in the request, in order; structure too broken to reach a span goes to
// `orphans`, since no conversation can own it.
std::vector<Span> collectSpans(const json &resourceSpans, QStringList &orphans)
{
    std::vector<Span> spans;
    const auto expected = [&orphans](const QString &where, const char *what, const json *got) {
        orphans.append(
                QStringLiteral("%1: expected %2, got %3").arg(where, QLatin1String(what), excerpt(got)));
    };
    for (std::size_t r = 0; r < resourceSpans.size(); ++r) {
        const json &resource = resourceSpans[r];
        const QString resourceWhere = QStringLiteral("resourceSpans[%1]").arg(r);
        const char *scopesKey = scopeListKey(resource);
        const json *scopes = member(resource, scopesKey);
        if (!resource.is_object())
            expected(resourceWhere, "an object", &resource);
        else if (scopes && !scopes->is_null() && !scopes->is_array())
            expected(resourceWhere + u'.' + QLatin1String(scopesKey), "an array", scopes);
        for (std::size_t s = 0; s < elements(scopes).size(); ++s) {
            const json &scope = (*scopes)[s];
            const QString scopeWhere =
                    QStringLiteral("%1.%2[%3]").arg(resourceWhere, QLatin1String(scopesKey)).arg(s);
            const json *list = member(scope, "spans");
            if (!scope.is_object())
                expected(scopeWhere, "an object", &scope);
            else if (list && !list->is_null() && !list->is_array())
                expected(scopeWhere + QStringLiteral(".spans"), "an array", list);
            for (std::size_t i = 0; i < elements(list).size(); ++i) {
                const QString where = QStringLiteral("%1.spans[%2]").arg(scopeWhere).arg(i);
                if ((*list)[i].is_object())
                    spans.push_back(readSpan((*list)[i], where));
                else
                    expected(where, "a span object", &(*list)[i]);
            }
        }
    }
    return spans;
}

// Names the conversation of each span: its own id, else one another span of its trace carries in
// this request, else (the root span may have come in another batch) the file's first pass.
class TraceNames
{
public:
    TraceNames(const std::vector<Span> &spans, const QHash<QString, QString> *fileTraces)
        : m_fileTraces(fileTraces)
    {
        for (const Span &span : spans) {
            if (!span.conversationId.isEmpty() && !m_conversations.contains(span.traceId))
                m_conversations.insert(span.traceId, span.conversationId);
            if (!span.sessionId.isEmpty() && !m_sessions.contains(span.traceId))
                m_sessions.insert(span.traceId, span.sessionId);
        }
        m_conversations.remove(QString());
        m_sessions.remove(QString());
    }

    // Empty when nothing names it and it has no trace either.
    QString idOf(const Span &span, bool &byTrace) const
    {
        QString id = span.conversationId;
        id = id.isEmpty() && !span.traceId.isEmpty() ? m_conversations.value(span.traceId) : id;
        id = id.isEmpty() ? span.sessionId : id;
        id = id.isEmpty() && !span.traceId.isEmpty() ? m_sessions.value(span.traceId) : id;
        if (id.isEmpty() && m_fileTraces && !span.traceId.isEmpty())
            id = m_fileTraces->value(span.traceId);
        byTrace = id.isEmpty() && !span.traceId.isEmpty();
        return byTrace ? QStringLiteral("trace:") + span.traceId : id;
    }

private:
    // A conversation or session id on any span of a trace names the whole trace: often only the
    // root agent span carries it.
    QHash<QString, QString> m_conversations;
    QHash<QString, QString> m_sessions;
    const QHash<QString, QString> *m_fileTraces;
};

// Links tool spans to the ones inside them read in earlier requests, and remembers this
// request's for the requests after it.
void linkNestedCalls(std::vector<Span> &spans, QHash<QString, QPair<QString, QString>> *within,
                     QHash<QString, QString> *aliases)
{
    if (!within || !aliases)
        return;
    if (within->size() > 100000 || aliases->size() > 100000) {
        within->clear(); // a bound: a span older than that is long exported
        aliases->clear();
    }
    for (Span &span : spans) {
        if (span.role != Role::Tool || span.spanId.isEmpty())
            continue;
        const auto inner = within->constFind(span.spanId);
        const ToolKeys keys = keysOf(span.tool);
        if (inner == within->cend() || inner->first != toolName(span, keys))
            continue;
        span.sameCallAs = inner->second;
        const QString own = keys.callId ? quietString(span.attributes, keys.callId) : QString();
        if (!own.isEmpty() && own != inner->second)
            aliases->insert(own, inner->second);
    }
    for (Span &span : spans) {
        if (span.role != Role::Tool || span.parentId.isEmpty())
            continue;
        const ToolKeys keys = keysOf(span.tool);
        QString callId = keys.callId ? quietString(span.attributes, keys.callId) : QString();
        callId = !span.sameCallAs.isEmpty() ? span.sameCallAs : callId.isEmpty() ? span.spanId : callId;
        within->insert(span.parentId, {toolName(span, keys), callId});
    }
}

QList<Expected<Conversation>> readRequest(const json &value, const ConversationContext &context)
{
    const QHash<QString, QString> *fileTraces = context.traceConversations;
    int *spansRead = context.spansRead;
    const json *resourceSpans = member(value, "resourceSpans");
    if (!value.is_object())
        return {makeError(
                QStringLiteral("expected an OTLP trace export {\"resourceSpans\": [\u2026]}, got %1")
                        .arg(excerpt(&value)))};
    if (!resourceSpans || !resourceSpans->is_array())
        return {makeError(
                QStringLiteral("resourceSpans: expected an array, got %1").arg(excerpt(resourceSpans)))};
    QStringList orphans;
    std::vector<Span> spans = collectSpans(*resourceSpans, orphans);
    linkNestedCalls(spans, context.toolSpansWithin, context.callAliases);
    const TraceNames names(spans, fileTraces);
    QHash<QString, Span *> byId; // every span of the request, for the nesting of tool spans
    for (Span &span : spans) {
        if (!span.spanId.isEmpty())
            byId.insert(span.spanId, &span);
    }

    std::vector<Group> groups;
    QHash<QString, std::size_t> groupIndex;
    std::vector<std::pair<const Span *, QString>> others;
    for (Span &span : spans) {
        const bool relevant = span.role == Role::Tool || span.role == Role::Chat;
        if ((relevant || !span.problem.isEmpty()) && spansRead)
            ++*spansRead;
        if (span.role == Role::Other && !span.problem.isEmpty()) {
            orphans.append(spanError(span));
            continue;
        }
        bool byTrace = false;
        const QString id = names.idOf(span, byTrace);
        if (id.isEmpty()) {
            // Nothing ties it to a conversation: no trace, and no conversation of its own.
            if (span.role == Role::Tool) {
                fail(span,
                     QStringLiteral("traceId: expected 32 hex digits, got %1 (and the span names no "
                                    "conversation)")
                             .arg(excerpt(member(*span.raw, "traceId"))));
                orphans.append(spanError(span));
            }
            continue;
        }
        if (span.role == Role::Other) {
            others.push_back({&span, id});
            continue; // an HTTP or database span opens no conversation: it may date one
        }
        if (!groupIndex.contains(id)) {
            groupIndex.insert(id, groups.size());
            groups.push_back(Group{id, byTrace ? span.traceId : QString(), {}, {}, {}, false});
        }
        Group &group = groups[groupIndex.value(id)];
        // Every span of the conversation dates it, the root agent's too.
        const std::optional<qint64> at = span.start.ns ? span.start.ns : span.end.ns;
        if (at)
            group.openedNs = std::min(group.openedNs.value_or(never), *at);
        group.relevant = group.relevant || relevant;
        if (span.role != Role::Other)
            group.spans.push_back(&span);
    }

    for (const auto &[span, id] : others) {
        const std::optional<qint64> at = span->start.ns ? span->start.ns : span->end.ns;
        if (at && groupIndex.contains(id)) {
            Group &group = groups[groupIndex.value(id)];
            group.openedNs = std::min(group.openedNs.value_or(never), *at);
        }
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Group &a, const Group &b) {
        return a.openedNs.value_or(never) < b.openedNs.value_or(never);
    });
    QList<Expected<Conversation>> out;
    for (Group &group : groups) {
        if (!group.relevant)
            continue; // an agent span alone, its tools and model calls in another batch
        Conversation conversation = buildConversation(group, byId, context.callAliases);
        // Chat spans whose messages were not recorded make no conversation either; they were
        // read, and nothing of them is refused.
        if (!conversation.turns.isEmpty() || !conversation.notices.isEmpty())
            out.append(std::move(conversation));
        else if (spansRead)
            *spansRead -= conversation.spans;
        // A span that cannot be read is refused alone; its conversation is stored without it.
        for (const QString &refused : std::as_const(group.refused))
            out.append(makeError(QStringLiteral("conversation \"%1\": %2").arg(group.id, refused)));
    }
    for (const QString &orphan : std::as_const(orphans))
        out.append(makeError(orphan));
    return out;
}

} // namespace

bool looksLikeOtlpTraces(const nlohmann::json &value)
{
    const json *resourceSpans = member(value, "resourceSpans");
    return resourceSpans && resourceSpans->is_array();
}

QList<Expected<Conversation>> readOtlpTraces(const nlohmann::json &value, const ConversationContext &context)
{
    // OTLP trace and span ids are global, so conversations are named by them, not by the file's
    // stem or position.
    try {
        if (context.spansRead)
            *context.spansRead = 0;
        return readRequest(value, context);
    } catch (const std::exception &error) {
        // Every access above is guarded; this only keeps a bug here from taking the import down.
        return {makeError(
                QStringLiteral("could not read the trace export: %1").arg(QString::fromUtf8(error.what())))};
    }
}

namespace {

// Every span object of a request, in order, stepping past anything malformed.
template<typename Visit>
void forEachSpan(const json &request, const Visit &visit)
{
    for (const json &resource : elements(member(request, "resourceSpans"))) {
        for (const json &scope : elements(member(resource, scopeListKey(resource)))) {
            for (const json &span : elements(member(scope, "spans")))
                visit(span);
        }
    }
}

} // namespace

void collectTraceConversations(const nlohmann::json &request, QHash<QString, QString> &traceToConversation)
{
    try {
        // This request's names, the first of each kind per trace; a conversation id outranks a
        // session id, as in readRequest.
        QHash<QString, QString> conversations;
        QHash<QString, QString> sessions;
        forEachSpan(request, [&conversations, &sessions](const json &span) {
            const QString traceId = hexId(member(span, "traceId"), 32);
            const AttributeMap attributes = attributeMap(member(span, "attributes")).values;
            const QString conversation = conversationOf(attributes);
            const QString session = sessionOf(attributes);
            if (!traceId.isEmpty() && !conversation.isEmpty() && !conversations.contains(traceId))
                conversations.insert(traceId, conversation);
            if (!traceId.isEmpty() && !session.isEmpty() && !sessions.contains(traceId))
                sessions.insert(traceId, session);
        });
        for (auto it = sessions.cbegin(); it != sessions.cend(); ++it) {
            if (!conversations.contains(it.key()))
                conversations.insert(it.key(), it.value());
        }
        for (auto it = conversations.cbegin(); it != conversations.cend(); ++it) {
            if (!traceToConversation.contains(it.key()))
                traceToConversation.insert(it.key(), it.value());
        }
    } catch (const std::exception &) {
        // Every access above is guarded; a first pass that stops early only leaves traces unnamed.
    }
}

} // namespace verity

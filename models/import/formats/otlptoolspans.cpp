#include "otlptoolspans.h"

#include "domain/jsontext.h"
#include "domain/sha256.h"
#include "otlpcarriedtools.h"

namespace verity::otlp {

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

namespace {

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

} // namespace

QString toolName(const Span &span, const ToolKeys &keys)
{
    QString tool = quietString(span.attributes, keys.name);
    // MCP names the tool in the span's name too: "tools/call get_order".
    if (tool.isEmpty() && span.tool == ToolConvention::Mcp
        && span.name.startsWith(QLatin1String("tools/call ")))
        tool = span.name.mid(11).trimmed();
    if (tool.isEmpty() && span.tool == ToolConvention::Traceloop
        && span.name.endsWith(QLatin1String(".tool")))
        tool = span.name.chopped(5).trimmed();
    // GenAI names its span "execute_tool NAME"; OpenInference names a TOOL span by its tool.
    if (tool.isEmpty() && span.tool == ToolConvention::GenAi
        && span.name.startsWith(QLatin1String("execute_tool ")))
        tool = span.name.mid(13).trimmed();
    if (tool.isEmpty() && span.tool == ToolConvention::OpenInference)
        tool = span.name.trimmed();
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

} // namespace verity::otlp

#include "otlpspan.h"

#include "domain/jsontext.h"

#include <cstring>

namespace verity::otlp {

namespace {

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

} // namespace

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

} // namespace verity::otlp

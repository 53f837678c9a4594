#pragma once
// One span of an OTLP trace export as the trace adapter reads it: what it is to a conversation
// (a tool call in one of the conventions read, a model call, an agent's own span, or nothing),
// its ids and times, the conversation or session its attributes name, and what could not be read
// as expected. Nothing here throws.

#include "otlpattributes.h"

#include <QStringList>

#include <limits>

namespace verity::otlp {

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

// "resourceSpans[0].scopeSpans[1].spans[3] (span 5f2a90c1…)", and with ": <problem>".
QString spanPlace(const Span &span);
QString spanError(const Span &span);
// Sets the span's problem unless it has one.
void fail(Span &span, const QString &problem);
QString attributeName(const char *key); // "attribute \"gen_ai.tool.name\""
// An attribute as plain JSON; nullopt when absent or null. One that is no AnyValue is kept as
// the JSON it came as, with a notice on the span.
std::optional<json> attribute(Span &span, const char *key);
// A text attribute; a number is read as its digits, anything else is noted and read as nothing.
QString stringAttribute(Span &span, const char *key);
// A text attribute read quietly (trimmed), for what only groups or classifies spans.
QString quietString(const AttributeMap &attributes, const char *key);
// The conversation, else the session, the attributes name (see agent-telemetry.md).
QString conversationOf(const AttributeMap &attributes);
QString sessionOf(const AttributeMap &attributes);
// A span object at `where`, classified.
Span readSpan(const json &raw, const QString &where);

} // namespace verity::otlp

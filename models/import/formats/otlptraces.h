#pragma once
// OTLP/JSON trace exports (one ExportTraceServiceRequest, as the OpenTelemetry Collector's
// file exporter writes one per line): GenAI `execute_tool` spans and OpenInference `TOOL`
// spans become tool calls with their results, grouped into conversations by
// `gen_ai.conversation.id` (else `session.id`, else the trace).

#include "import/conversation.h"

namespace verity {

bool looksLikeOtlpTraces(const nlohmann::json &value);
// One entry per conversation found in the request, in order of first span; a conversation
// that cannot be read is an error naming it, and the others still come back.
// A trace whose spans in this request name no conversation takes its id from
// context.traceConversations when given, else "trace:<id>".
QList<Expected<Conversation>> readOtlpTraces(const nlohmann::json &value, const ConversationContext &context);

// Records the conversation id (as readOtlpTraces names it) of every trace in one request that has
// a span naming its conversation (gen_ai.conversation.id, else session.id), for a first pass over
// a whole file: a collector may export a trace's tool spans before the root span that names it.
// A trace already recorded keeps its id. Ignores anything malformed; never throws.
void collectTraceConversations(const nlohmann::json &request, QHash<QString, QString> &traceToConversation);

// Adds what one request's spans say of tools (otlptoolhints.h) to `hints`, for the same first
// pass: a model span's tool definitions may come after the tool's own span. Never throws.
void collectToolHints(const nlohmann::json &request, QHash<QString, ToolHint> &hints);

} // namespace verity

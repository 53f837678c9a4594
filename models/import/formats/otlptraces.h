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
QList<Expected<Conversation>> readOtlpTraces(const nlohmann::json &value, const ConversationContext &context);

} // namespace verity

#pragma once
// What spans say of the tools an agent may call, besides the calls: the tool definitions a model
// span was given (GenAI `gen_ai.tool.definitions`, the AI SDK's `ai.prompt.tools`, OpenInference
// `llm.tools.N.tool.json_schema`, OpenLLMetry's `llm.request.functions.N.*`), a tool span's own
// description (`gen_ai.tool.description`, OpenInference `tool.description`/`tool.parameters`),
// and an MCP server's `tools/list` answer where a span records it (OpenLLMetry's
// `traceloop.entity.output`). See agent-telemetry.md.

#include "domain/toolhint.h"
#include "otlpattributes.h"

#include <QHash>

namespace verity::otlp {

// Adds what one span's attributes say of tools to `hints` (mergeToolHint: what was known stays).
// Anything malformed is skipped: a hint only ever suggests.
void addToolHints(const AttributeMap &attributes, const QString &spanName, QHash<QString, ToolHint> &hints);

// What of a span's tool definitions cannot be read ("attribute \"gen_ai.tool.definitions\": …"),
// for a notice; empty when all can.
QStringList toolHintProblems(const AttributeMap &attributes);

// Keeps one request's hints in `memory` (may be null) for later requests: a newer definition of a
// tool replaces an older one. Bounded: a memory that grew past any real agent's tools is emptied
// and starts again, so a new definition is never ignored.
void rememberToolHints(const QHash<QString, ToolHint> &request, QHash<QString, ToolHint> *memory);

} // namespace verity::otlp

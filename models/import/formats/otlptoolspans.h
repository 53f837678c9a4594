#pragma once
// A tool span read as a tool call, in each convention's own attributes (agent-telemetry.md):
// the call at the span's start and, when it has an outcome, the result at its end. Only a span
// that names no tool is refused; anything else odd is kept as it came, with a notice.

#include "import/conversation.h"
#include "otlpspan.h"

namespace verity::otlp {

struct ToolKeys
{
    const char *name;
    const char *callId; // nullptr: the convention names calls by their span
    const char *arguments;
    const char *result;
};

ToolKeys keysOf(ToolConvention convention);

// The tool's name: its convention's attribute, else what the span's name says (MCP's
// "tools/call NAME", OpenLLMetry's "NAME.tool"); empty when neither names one.
QString toolName(const Span &span, const ToolKeys &keys);

// Appends the call and its result to `turns`, or sets the span's problem; counts a call whose
// arguments were not recorded.
void readToolSpan(Span &span, QList<Turn> &turns, int &unrecordedArguments);

} // namespace verity::otlp

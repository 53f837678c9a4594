#pragma once
// Tool calls an OTLP span carries in its messages rather than as a tool span of their own:
// GenAI's message parts (gen_ai.input.messages / gen_ai.output.messages: "tool_call",
// "tool_call_response"), the AI SDK's (ai.prompt.messages: "tool-call", "tool-result";
// ai.response.toolCalls), OpenAI-style "tool_calls" and "tool" messages, and the span events
// of earlier GenAI conventions (gen_ai.choice, gen_ai.assistant.message, gen_ai.tool.message).
// An agent's spans repeat its history, so the same call is met many times: by its id.

#include "otlpattributes.h"

namespace verity::otlp {

struct CarriedCall
{
    QString id;
    QString tool;
    json arguments; // an object; {"input": …} for arguments that were not one
};

struct CarriedResponse
{
    QString id;
    json response; // as the message gives it
    bool error = false; // the message marks it an error (AI SDK's "error-text", "error-json")
};

struct CarriedTools
{
    QList<CarriedCall> calls;
    QList<CarriedResponse> responses;
};

// What one span's message attributes and events carry; malformed parts are stepped over.
CarriedTools carriedTools(const AttributeMap &attributes, const json &span);

// Arguments as a call object keeps them: an object as it is, JSON text of an object parsed,
// anything else (a bare string, a list) as {"input": value}.
json argumentsObject(const json &value);

} // namespace verity::otlp

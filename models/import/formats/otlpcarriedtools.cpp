#include "otlpcarriedtools.h"

#include "domain/jsontext.h"

namespace verity::otlp {

namespace {

QString textOf(const json *value)
{
    if (value && value->is_string())
        return fromUtf8String(value->get_ref<const std::string &>()).trimmed();
    if (value && (value->is_number_integer() || value->is_number_unsigned()))
        return QString::fromStdString(value->dump());
    return QString();
}

// A value held as JSON text (attributes, OpenAI's arguments) read as JSON; other values as they are.
json parsedText(const json &value)
{
    if (!value.is_string())
        return value;
    json parsed = json::parse(value.get_ref<const std::string &>(), nullptr, false);
    return parsed.is_discarded() || tooDeep(parsed) ? value : parsed;
}

void addCall(CarriedTools &out, const json *id, const json *tool, const json *arguments)
{
    CarriedCall call{textOf(id), textOf(tool), argumentsObject(arguments ? *arguments : json::object())};
    if (!call.id.isEmpty() && !call.tool.isEmpty())
        out.calls.append(std::move(call));
}

void addResponse(CarriedTools &out, const json *id, const json *response, bool error)
{
    CarriedResponse answer{textOf(id), response ? *response : json(), error};
    if (!answer.id.isEmpty())
        out.responses.append(std::move(answer));
}

// The AI SDK's result part: {"output": {"type": "json" | "text" | "error-text" | …, "value"}},
// or the older {"result": …}.
void addAiSdkResult(CarriedTools &out, const json &part)
{
    const json *output = member(part, "output");
    if (output && output->is_object()) {
        const json *type = member(*output, "type");
        const bool error =
                type && type->is_string() && type->get_ref<const std::string &>().starts_with("error");
        addResponse(out, member(part, "toolCallId"), member(*output, "value"), error);
        return;
    }
    addResponse(out, member(part, "toolCallId"), member(part, "result"), false);
}

void readPart(CarriedTools &out, const json &part)
{
    const json *type = member(part, "type");
    const std::string kind = type && type->is_string() ? type->get<std::string>() : std::string();
    if (kind == "tool_call")
        addCall(out, member(part, "id"), member(part, "name"), member(part, "arguments"));
    else if (kind == "tool_call_response")
        addResponse(out, member(part, "id"),
                    member(part, "response") ? member(part, "response") : member(part, "result"), false);
    else if (kind == "tool-call")
        addCall(out, member(part, "toolCallId"), member(part, "toolName"),
                member(part, "input") ? member(part, "input") : member(part, "args"));
    else if (kind == "tool-result")
        addAiSdkResult(out, part);
}

// One message in any of the shapes above.
void readMessage(CarriedTools &out, const json &message)
{
    for (const json &part : elements(member(message, "parts")))
        readPart(out, part);
    const json *content = member(message, "content");
    for (const json &part : elements(content && content->is_array() ? content : nullptr))
        readPart(out, part);
    for (const json &call : elements(member(message, "tool_calls"))) {
        const json *function = member(call, "function");
        addCall(out, member(call, "id"), function ? member(*function, "name") : member(call, "name"),
                function ? member(*function, "arguments") : member(call, "arguments"));
    }
    const json *role = member(message, "role");
    if (role && *role == "tool" && member(message, "tool_call_id"))
        addResponse(out, member(message, "tool_call_id"), content, false);
}

void readMessages(CarriedTools &out, const json &value)
{
    const json messages = parsedText(value);
    if (messages.is_array()) {
        for (const json &message : messages)
            readMessage(out, message);
    } else if (messages.is_object()) {
        readMessage(out, messages);
    }
}

std::optional<json> attributeValue(const AttributeMap &attributes, const char *key)
{
    const auto it = attributes.find(key);
    return it == attributes.end() ? std::nullopt : plainValue(*it->second);
}

// Span events of the GenAI conventions before 1.37, made into messages.
void readEvents(CarriedTools &out, const json &span)
{
    for (const json &event : elements(member(span, "events"))) {
        const json *name = member(event, "name");
        if (!name || !name->is_string())
            continue;
        const std::string kind = name->get<std::string>();
        if (kind != "gen_ai.choice" && kind != "gen_ai.assistant.message" && kind != "gen_ai.tool.message")
            continue;
        const AttributeMap attributes = attributeMap(member(event, "attributes")).values;
        json message = json::object();
        for (const char *key : {"message", "gen_ai.event.content", "body"}) {
            if (const std::optional<json> value = attributeValue(attributes, key)) {
                const json parsed = parsedText(*value);
                if (parsed.is_object())
                    message = parsed.contains("message") && parsed["message"].is_object() ? parsed["message"]
                                                                                          : parsed;
            }
        }
        if (const std::optional<json> calls = attributeValue(attributes, "tool_calls"))
            message["tool_calls"] = parsedText(*calls);
        if (kind == "gen_ai.tool.message") {
            message["role"] = "tool";
            if (const std::optional<json> id = attributeValue(attributes, "id"))
                message["tool_call_id"] = *id;
            if (const std::optional<json> content = attributeValue(attributes, "content"))
                message["content"] = *content;
        }
        readMessage(out, message);
    }
}

} // namespace

json argumentsObject(const json &value)
{
    if (value.is_object())
        return value;
    if (value.is_null())
        return json::object();
    const json parsed = parsedText(value);
    if (parsed.is_object())
        return parsed;
    return json{{"input", parsed}};
}

CarriedTools carriedTools(const AttributeMap &attributes, const json &span)
{
    CarriedTools out;
    for (const char *key : {"gen_ai.input.messages", "gen_ai.output.messages", "ai.prompt.messages"}) {
        if (const std::optional<json> value = attributeValue(attributes, key))
            readMessages(out, *value);
    }
    if (const std::optional<json> value = attributeValue(attributes, "ai.response.toolCalls")) {
        const json calls = parsedText(*value);
        for (const json &call : elements(&calls)) {
            if (call.is_object())
                addCall(out, member(call, "toolCallId"), member(call, "toolName"),
                        member(call, "input") ? member(call, "input") : member(call, "args"));
        }
    }
    readEvents(out, span);
    return out;
}

} // namespace verity::otlp

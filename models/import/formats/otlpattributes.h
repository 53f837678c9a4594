#pragma once
// Values as OTLP/JSON (protobuf's JSON mapping) writes them, for the trace adapter: AnyValues,
// trace and span ids, nanosecond times, attribute lists, and the chat messages that GenAI,
// OpenInference and OpenLLMetry store in attributes. Nothing here throws; what cannot be read
// comes back empty, and excerpt() quotes the offending value briefly for an error message.

#include <QList>
#include <QString>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace verity::otlp {

using json = nlohmann::json;

// The member of an object, or nullptr when absent or not an object.
const json *member(const json &object, const char *key);
// The elements of an array, or none when it is anything else.
const json &elements(const json *value);

// A value quoted as compact JSON in at most 80 characters (cut with "…"), however large or deep
// it is; "nothing" for a missing one.
QString excerpt(const json *value);
// Why JSON text did not parse, in a few words, without echoing the text.
QString parseReason(const json::exception &error);

// A trace (32) or span (16) id: lowercase hex; empty when missing, malformed or all zeros.
QString hexId(const json *value, std::size_t digits);

struct UnixNanos
{
    std::optional<qint64> ns; // empty when absent or 0 (protobuf's unset)
    QString problem; // set when present but not a time
};
// A time field such as "startTimeUnixNano": a decimal string or a number.
UnixNanos unixNanos(const json &object, const char *key);

// Whether a value nests deeper than any real one (64 levels); such garbage would exhaust the stack
// in nlohmann's recursive copy and dump. Looks no deeper than that itself.
bool tooDeep(const json &value);

// An AnyValue as plain JSON: {"stringValue": "x"} is "x", an arrayValue an array, a kvlistValue
// an object, an empty AnyValue null; nullopt when it is not an AnyValue.
std::optional<json> plainValue(const json &anyValue);

struct Status
{
    bool error = false; // STATUS_CODE_ERROR
    QString message;
    QString problem; // set when the status is malformed
};
// A span's status {"code": 0, 1, 2 or "STATUS_CODE_…", "message"}; absent is unset.
Status spanStatus(const json &span);
// The type and message of the `exception` event OpenTelemetry records on a failed span; empty
// when it has none. Read leniently, since they only fill in.
std::pair<QString, QString> exceptionEvent(const json &span);

using AttributeMap = std::map<std::string, const json *, std::less<>>; // key -> its AnyValue
struct Attributes
{
    AttributeMap values;
    QString problem; // the first malformed part, with its place ("attributes[2]: expected …")
};
// An attribute list [{"key", "value"}]; the first of a repeated key wins. Null or absent is empty.
Attributes attributeMap(const json *attributes);

struct ChatMessage
{
    QString role; // lowercase: "user", "assistant", "system", …
    QString text; // the text parts joined; empty when it has none (a tool call)
};
struct ChatMessages
{
    std::optional<QList<ChatMessage>> input; // nullopt when the span records none
    std::optional<QList<ChatMessage>> output;
    bool unreadable = false; // some were recorded but could not be read
};
// The messages an LLM span records. GenAI: gen_ai.input.messages / gen_ai.output.messages
// (structured or JSON text), else the legacy gen_ai.prompt / gen_ai.completion (JSON text, plain
// text, or OpenLLMetry's indexed gen_ai.prompt.0.role / .content). OpenInference: the indexed
// llm.input_messages.0.message.role / .content and llm.output_messages. The AI SDK's own spans:
// ai.prompt.messages and the reply in ai.response.text.
enum class ChatConvention { GenAi, OpenInference, AiSdk };
ChatMessages chatMessages(const AttributeMap &attributes, ChatConvention convention);

} // namespace verity::otlp

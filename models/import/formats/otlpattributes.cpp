#include "otlpattributes.h"

#include "domain/jsontext.h"

#include <QStringList>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

namespace verity::otlp {

namespace {

// Quoted values stay short: a broken 40 kB argument string must not flood the import report.
constexpr std::size_t excerptLimit = 80;
// AnyValues nest (arrayValue, kvlistValue); nothing real goes this deep, and garbage must not
// recurse without end.
constexpr int maxDepth = 64;

std::string dumpScalar(const json &value)
{
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Compact JSON, stopping soon after `limit` bytes, so quoting a huge or deep value costs nothing.
void appendCompact(const json &value, std::string &out, std::size_t limit)
{
    if (!value.is_structured()) {
        out += dumpScalar(value);
        return;
    }
    out += value.is_object() ? '{' : '[';
    for (auto it = value.begin(); it != value.end() && out.size() <= limit; ++it) {
        out += it == value.begin() ? "" : ",";
        if (value.is_object())
            out += dumpScalar(json(it.key())) + ':';
        appendCompact(it.value(), out, limit);
    }
    out += value.is_object() ? '}' : ']';
}

bool deeperThan(const json &value, int levels)
{
    if (!value.is_structured())
        return false;
    if (levels == 0)
        return true;
    return std::any_of(value.begin(), value.end(),
                       [levels](const json &child) { return deeperThan(child, levels - 1); });
}

std::optional<json> plainValueAt(const json &any, int depth)
{
    if (!any.is_object() || depth > maxDepth || any.size() > 1)
        return std::nullopt;
    if (any.empty())
        return json();
    const std::string &kind = any.begin().key();
    const json &inner = any.begin().value();
    if (kind == "stringValue" || kind == "bytesValue")
        return inner.is_string() ? std::optional<json>(inner) : std::nullopt;
    if (kind == "boolValue")
        return inner.is_boolean() ? std::optional<json>(inner) : std::nullopt;
    if (kind == "intValue") {
        const std::optional<qint64> number = wholeNumber(inner); // a decimal string, as int64s are
        return number ? std::optional<json>(*number) : std::nullopt;
    }
    if (kind == "doubleValue")
        return inner.is_number() ? std::optional<json>(inner.get<double>()) : std::nullopt;
    const json *values = member(inner, "values");
    if ((kind != "arrayValue" && kind != "kvlistValue") || !inner.is_object()
        || (values && !values->is_array() && !values->is_null()))
        return std::nullopt;
    const bool list = kind == "arrayValue";
    json out = list ? json::array() : json::object();
    for (const json &element : elements(values)) {
        const json *key = list ? nullptr : member(element, "key");
        const json *nested = list ? &element : member(element, "value");
        std::optional<json> plain = nested ? plainValueAt(*nested, depth + 1) : std::optional<json>(json());
        if (!plain || (!list && (!key || !key->is_string())))
            return std::nullopt;
        if (list)
            out.push_back(std::move(*plain));
        else
            out[key->get<std::string>()] = std::move(*plain);
    }
    return out;
}

// A message's text in the GenAI shape {"role", "parts": [{"type": "text", "content"}]} or the
// older {"role", "content"}; tool-call and other parts are not text.
ChatMessage chatMessage(const json &message)
{
    ChatMessage out;
    const json *role = member(message, "role");
    if (role && role->is_string())
        out.role = fromUtf8String(role->get<std::string>()).toLower();
    QStringList texts;
    for (const json &part : elements(member(message, "parts"))) {
        const json *type = member(part, "type");
        const json *text = member(part, "content");
        if (type && *type == "text" && text && text->is_string())
            texts.append(fromUtf8String(text->get<std::string>()));
    }
    const json *content = member(message, "content");
    if (texts.isEmpty() && content && content->is_string())
        texts.append(fromUtf8String(content->get<std::string>()));
    // The AI SDK's {"content": [{"type": "text", "text"}]}.
    for (const json &part : elements(content && content->is_array() ? content : nullptr)) {
        const json *type = member(part, "type");
        const json *text = member(part, "text");
        if (type && *type == "text" && text && text->is_string())
            texts.append(fromUtf8String(text->get<std::string>()));
    }
    out.text = texts.join(u'\n').trimmed();
    return out;
}

// A message list held in one attribute, structured or as JSON text. Text that is not a JSON list is
// one message of `plainRole` when given (legacy gen_ai.prompt), else unreadable. nullopt when absent.
std::optional<QList<ChatMessage>> messageList(const AttributeMap &attributes, const char *key,
                                              const char *plainRole, bool &unreadable)
{
    const auto it = attributes.find(key);
    if (it == attributes.end())
        return std::nullopt;
    std::optional<json> value = plainValue(*it->second);
    if (value && value->is_string()) {
        const std::string text = value->get<std::string>();
        value = json::parse(text, nullptr, false);
        if (!value->is_array() && plainRole)
            return QList<ChatMessage>{{QLatin1String(plainRole), fromUtf8String(text).trimmed()}};
    }
    QList<ChatMessage> messages;
    for (const json &message : elements(value ? &*value : nullptr))
        messages.append(chatMessage(message));
    unreadable = unreadable || !value || !value->is_array();
    return messages;
}

// Messages flattened into indexed attributes (llm.input_messages.0.message.role, gen_ai.prompt.0.role);
// nullopt when there are none.
std::optional<QList<ChatMessage>> indexedMessages(const AttributeMap &attributes, std::string_view prefix,
                                                  std::string_view roleField, std::string_view textField)
{
    std::map<unsigned, ChatMessage> byIndex;
    for (auto it = attributes.lower_bound(prefix); it != attributes.end() && it->first.starts_with(prefix);
         ++it) {
        const std::string_view rest = std::string_view(it->first).substr(prefix.size());
        unsigned index = 0;
        const auto [next, error] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
        const std::optional<json> value = plainValue(*it->second);
        if (error != std::errc() || next == rest.data() + rest.size() || *next != '.' || !value
            || !value->is_string())
            continue;
        const std::string_view field = rest.substr(static_cast<std::size_t>(next - rest.data()) + 1);
        if (field == roleField)
            byIndex[index].role = fromUtf8String(value->get<std::string>()).toLower();
        else if (field == textField)
            byIndex[index].text = fromUtf8String(value->get<std::string>()).trimmed();
    }
    if (byIndex.empty())
        return std::nullopt;
    QList<ChatMessage> messages;
    for (const auto &entry : byIndex)
        messages.append(entry.second);
    return messages;
}

} // namespace

const json *member(const json &object, const char *key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

const json &elements(const json *value)
{
    static const json none = json::array();
    return value && value->is_array() ? *value : none;
}

QString excerpt(const json *value)
{
    if (!value)
        return QStringLiteral("nothing");
    std::string compact;
    appendCompact(*value, compact, excerptLimit);
    QString text = fromUtf8String(compact);
    if (text.size() > qsizetype(excerptLimit)) {
        qsizetype cut = qsizetype(excerptLimit) - 1;
        cut -= text.at(cut - 1).isHighSurrogate() ? 1 : 0;
        text = text.left(cut) + QChar(u'\u2026');
    }
    return text;
}

QString parseReason(const json::exception &error)
{
    // "syntax error while parsing object - unexpected end of input; last read: '…'; expected ':'":
    // the clause after the dash, without the token it echoes (which can be kilobytes).
    QString reason = jsonParseErrorReason(error.what());
    const qsizetype dash = reason.indexOf(QLatin1String(" - "));
    reason = dash >= 0 ? reason.mid(dash + 3) : reason;
    const qsizetype lastRead = reason.indexOf(QLatin1String("; last read: '"));
    const qsizetype expected = reason.indexOf(QLatin1String("'; expected "), lastRead);
    if (lastRead >= 0)
        reason = reason.left(lastRead) + (expected >= 0 ? reason.mid(expected + 1) : QString());
    return reason;
}

QString hexId(const json *value, std::size_t digits)
{
    if (!value || !value->is_string() || value->get_ref<const std::string &>().size() != digits)
        return {};
    bool nonZero = false;
    for (const char c : value->get_ref<const std::string &>()) {
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            return {};
        nonZero = nonZero || c != '0';
    }
    return nonZero ? fromUtf8String(value->get<std::string>()).toLower() : QString();
}

UnixNanos unixNanos(const json &object, const char *key)
{
    const json *value = member(object, key);
    if (!value || value->is_null())
        return {};
    const std::optional<qint64> ns = wholeNumber(*value);
    if (!ns || *ns < 0)
        return {std::nullopt,
                QStringLiteral("%1: expected nanoseconds since the epoch as a decimal string, got %2")
                        .arg(QLatin1String(key), excerpt(value))};
    return {*ns == 0 ? std::nullopt : ns, {}};
}

bool tooDeep(const json &value)
{
    return deeperThan(value, maxDepth);
}

std::optional<json> plainValue(const json &anyValue)
{
    return plainValueAt(anyValue, 0);
}

Attributes attributeMap(const json *attributes)
{
    static const json emptyAnyValue = json::object();
    Attributes out;
    if (attributes && !attributes->is_null() && !attributes->is_array())
        out.problem = QStringLiteral("attributes: expected an array of {\"key\", \"value\"}, got %1")
                              .arg(excerpt(attributes));
    const json &list = elements(attributes);
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json *key = member(list[i], "key");
        const json *value = member(list[i], "value");
        if (key && key->is_string())
            out.values.emplace(key->get<std::string>(), value && !value->is_null() ? value : &emptyAnyValue);
        else if (out.problem.isEmpty())
            out.problem =
                    QStringLiteral(
                            "attributes[%1]: expected {\"key\": \"\u2026\", \"value\": {\u2026}}, got %2")
                            .arg(i)
                            .arg(excerpt(&list[i]));
    }
    return out;
}

Status spanStatus(const json &span)
{
    Status status;
    const json *raw = member(span, "status");
    const json *code = raw ? member(*raw, "code") : nullptr;
    const json *message = raw ? member(*raw, "message") : nullptr;
    if (raw && !raw->is_null() && !raw->is_object())
        status.problem = QStringLiteral("status: expected an object, got %1").arg(excerpt(raw));
    if (code && !code->is_null()) {
        // -1 for "not a number", so no optional is compared (GCC misreads that as uninitialised).
        const qint64 number = code->is_string() ? -1 : wholeNumber(*code).value_or(-1);
        const std::string name = code->is_string() ? code->get<std::string>() : std::string();
        status.error = number == 2 || name == "STATUS_CODE_ERROR";
        const bool known =
                number == 0 || number == 1 || name == "STATUS_CODE_UNSET" || name == "STATUS_CODE_OK";
        if (!status.error && !known)
            status.problem =
                    QStringLiteral(
                            "status.code: expected 0, 1, 2 or \"STATUS_CODE_UNSET\", \"STATUS_CODE_OK\", "
                            "\"STATUS_CODE_ERROR\", got %1")
                            .arg(excerpt(code));
    }
    if (message && message->is_string())
        status.message = fromUtf8String(message->get<std::string>()).trimmed();
    else if (message && !message->is_null() && status.problem.isEmpty())
        status.problem = QStringLiteral("status.message: expected a string, got %1").arg(excerpt(message));
    return status;
}

std::pair<QString, QString> exceptionEvent(const json &span)
{
    for (const json &event : elements(member(span, "events"))) {
        const json *name = member(event, "name");
        if (!name || *name != "exception")
            continue;
        const AttributeMap attributes = attributeMap(member(event, "attributes")).values;
        const auto text = [&attributes](const char *key) {
            const auto it = attributes.find(key);
            const std::optional<json> value = it == attributes.end() ? std::nullopt : plainValue(*it->second);
            return value && value->is_string() ? fromUtf8String(value->get<std::string>()) : QString();
        };
        return {text("exception.type"), text("exception.message")};
    }
    return {};
}

ChatMessages chatMessages(const AttributeMap &attributes, ChatConvention convention)
{
    ChatMessages out;
    // The AI SDK's own attributes; a processor that rewrote them (OpenLLMetry's) left GenAI's.
    if (convention == ChatConvention::AiSdk && attributes.contains("ai.prompt.messages")) {
        out.input = messageList(attributes, "ai.prompt.messages", nullptr, out.unreadable);
        const auto reply = attributes.find("ai.response.text");
        const std::optional<json> text =
                reply == attributes.end() ? std::nullopt : plainValue(*reply->second);
        if (text && text->is_string())
            out.output = QList<ChatMessage>{
                    {QStringLiteral("assistant"), fromUtf8String(text->get<std::string>()).trimmed()}};
        return out;
    }
    if (convention == ChatConvention::OpenInference) {
        out.input = indexedMessages(attributes, "llm.input_messages.", "message.role", "message.content");
        out.output = indexedMessages(attributes, "llm.output_messages.", "message.role", "message.content");
        return out;
    }
    out.input = messageList(attributes, "gen_ai.input.messages", nullptr, out.unreadable);
    if (!out.input)
        out.input = messageList(attributes, "gen_ai.prompt", "user", out.unreadable);
    if (!out.input)
        out.input = indexedMessages(attributes, "gen_ai.prompt.", "role", "content");
    out.output = messageList(attributes, "gen_ai.output.messages", nullptr, out.unreadable);
    if (!out.output)
        out.output = messageList(attributes, "gen_ai.completion", "assistant", out.unreadable);
    if (!out.output)
        out.output = indexedMessages(attributes, "gen_ai.completion.", "role", "content");
    return out;
}

} // namespace verity::otlp

#pragma once
// What the three chat-transcript adapters (OpenAI Chat Completions, OpenAI Responses, Anthropic
// Messages) read the same way: content parts, tool arguments and results, times, ids, subject.
// Header-only on purpose, so that it needs no build registration; only those adapters include it.
//
// A rejection unwinds the nested reading with a Rejection, which the adapter's entry point
// (guardedRead) turns into an Error: nothing throws out of an adapter.

#include "domain/jsontext.h"
#include "domain/timestamp.h"
#include "import/conversation.h"

#include <cmath>
#include <exception>
#include <optional>
#include <string>

namespace verity::chatformats {

using nlohmann::json;

struct Rejection
{
    QString message;
};

// The field of an object, or nullptr when the value is no object or has no such field.
inline const json *member(const json &object, const char *key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

inline QString dumped(const json &value)
{
    // replace: a value built in memory may hold invalid UTF-8, which dump() would throw on.
    return fromUtf8String(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

// A short quotation of a string value, as JSON (quotes and escapes included), at most 80 chars.
inline QString excerpt(const json &string)
{
    QString text = dumped(string);
    if (text.size() <= 80)
        return text;
    qsizetype cut = 79;
    if (text.at(cut - 1).isHighSurrogate())
        --cut;
    return text.left(cut) + QChar(0x2026);
}

// What was found where something else was expected, for error messages.
inline QString describe(const json *value)
{
    if (!value)
        return QStringLiteral("nothing (the field is missing)");
    switch (value->type()) {
    case json::value_t::null:
        return QStringLiteral("null");
    case json::value_t::string:
        return value->get_ref<const std::string &>().empty() ? QStringLiteral("an empty string")
                                                             : excerpt(*value);
    case json::value_t::boolean:
        return QStringLiteral("boolean %1").arg(dumped(*value));
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
        return QStringLiteral("number %1").arg(dumped(*value).left(40));
    case json::value_t::object:
        return QStringLiteral("an object");
    case json::value_t::array:
        return QStringLiteral("an array");
    default:
        return QString::fromLatin1(value->type_name());
    }
}

[[noreturn]] inline void reject(const QString &path, const QString &expected, const json *found)
{
    throw Rejection{QStringLiteral("%1: expected %2, got %3").arg(path, expected, describe(found))};
}

inline QString indexed(const QString &path, std::size_t index)
{
    return QStringLiteral("%1[%2]").arg(path).arg(index);
}

// A string field, or an empty string when it is missing or of another type.
inline QString optionalString(const json &object, const char *key)
{
    const json *value = member(object, key);
    return value && value->is_string() ? fromUtf8String(value->get<std::string>()) : QString();
}

// An id as a string: a non-empty string, or a whole number written out.
inline std::optional<QString> idText(const json *value)
{
    if (value && value->is_string()) {
        const QString text = fromUtf8String(value->get<std::string>()).trimmed();
        if (!text.isEmpty())
            return text;
    }
    if (value && value->is_number_integer())
        return dumped(*value);
    return std::nullopt;
}

// A call id or a tool name: required, a non-empty string (a whole number is written out).
inline QString requiredString(const json &object, const char *key, const QString &path, const QString &what)
{
    const json *value = member(object, key);
    if (std::optional<QString> text = idText(value))
        return *text;
    reject(path + u'.' + QLatin1String(key), what, value);
}

// Nesting depth of a JSON text, ignoring strings. No tool takes arguments nested hundreds deep,
// and a value that deep would later be copied recursively: such a string is refused unparsed.
inline int nestingDepth(const std::string &text)
{
    return jsonNestingDepth(text.data(), text.data() + text.size());
}

// Tool arguments as the formats encode them, always ending up an object: a JSON string holding
// an object, "" (or nothing) for none, or an object as such (some logs store it decoded).
// The arguments as the transcript wrote them, when it wrote them as JSON text; else empty.
inline QString argumentsAsWritten(const json *value)
{
    return value && value->is_string() ? QString::fromStdString(value->get<std::string>()) : QString();
}

inline json argumentsObject(const json *value, const QString &path)
{
    static const QString expected = QStringLiteral("a JSON object encoded as a string");
    if (!value || value->is_null())
        return json::object();
    if (value->is_object())
        return *value;
    if (!value->is_string())
        reject(path, expected, value);
    const std::string &text = value->get_ref<const std::string &>();
    if (QByteArray::fromStdString(text).trimmed().isEmpty())
        return json::object();
    const auto refuse = [&](const QString &why) {
        throw Rejection{
                QStringLiteral("%1: expected %2, got %3 (%4)").arg(path, expected, describe(value), why)};
    };
    if (nestingDepth(text) > maxJsonNesting)
        refuse(tooDeepReason());
    json parsed;
    try {
        parsed = json::parse(text);
    } catch (const json::parse_error &error) {
        // A string cut off mid-way is the usual case (a model stopped by its token limit).
        const QString reason = jsonParseErrorReason(error.what());
        if (reason.contains(QLatin1String("unexpected end of input"))
            || reason.contains(QLatin1String("missing closing quote")))
            refuse(QStringLiteral("truncated JSON: unexpected end of input"));
        refuse(QStringLiteral("not JSON: ") + reason.left(80));
    }
    if (!parsed.is_object())
        refuse(QStringLiteral("a JSON %1, not an object").arg(QString::fromLatin1(parsed.type_name())));
    return parsed;
}

inline bool isTextPartType(const QString &type)
{
    return type == QLatin1String("text") || type == QLatin1String("input_text")
            || type == QLatin1String("output_text");
}

// The text of one content part: the text of a text part, a refusal's words, or a placeholder
// for what is not text (an image, a file). Text is plain text; nothing in it is interpreted.
inline QString partText(const json &part, const QString &path)
{
    if (part.is_string()) // lenient: a bare string among the parts
        return fromUtf8String(part.get<std::string>());
    if (!part.is_object())
        reject(path, QStringLiteral("a content part object"), &part);
    const QString type = optionalString(part, "type");
    if (isTextPartType(type) || (type.isEmpty() && member(part, "text"))) {
        const json *text = member(part, "text");
        if (!text || !text->is_string())
            reject(path + QStringLiteral(".text"), QStringLiteral("a string"), text);
        return fromUtf8String(text->get<std::string>());
    }
    if (type == QLatin1String("refusal"))
        return optionalString(part, "refusal");
    if (type.contains(QLatin1String("image")))
        return QStringLiteral("[image]");
    if (type.contains(QLatin1String("audio")))
        return QStringLiteral("[audio]");
    if (type.contains(QLatin1String("file")) || type == QLatin1String("document")) {
        QString name = optionalString(part, "filename");
        if (const json *file = member(part, "file"); name.isEmpty() && file)
            name = optionalString(*file, "filename");
        if (name.isEmpty())
            name = optionalString(part, "title");
        return name.isEmpty() ? QStringLiteral("[file]") : QStringLiteral("[file: %1]").arg(name.left(80));
    }
    return QStringLiteral("[%1]").arg(type.isEmpty() ? QStringLiteral("attachment") : type.left(40));
}

// Message content: nothing, a string, or an array of parts joined with newlines.
inline QString contentText(const json *content, const QString &path)
{
    if (!content || content->is_null())
        return {};
    if (content->is_string())
        return fromUtf8String(content->get<std::string>());
    if (!content->is_array())
        reject(path, QStringLiteral("a string or an array of content parts"), content);
    QStringList parts;
    for (std::size_t i = 0; i < content->size(); ++i)
        parts.append(partText((*content)[i], indexed(path, i)));
    return parts.join(u'\n');
}

// What a tool returned, kept as it came: a string stays a JSON string (never parsed), text parts
// become one string, and parts that are not all text stay the JSON they are; no content is "".
inline json toolResult(const json *content, const QString &path)
{
    if (!content || content->is_null())
        return json(std::string());
    if (content->is_string())
        return *content;
    if (!content->is_array())
        reject(path, QStringLiteral("a string or an array of content parts"), content);
    bool allText = true;
    for (std::size_t i = 0; i < content->size(); ++i) {
        const json &part = (*content)[i];
        if (!part.is_object())
            reject(indexed(path, i), QStringLiteral("a content part object"), &part);
        allText = allText && isTextPartType(optionalString(part, "type"));
    }
    if (!allText)
        return *content;
    return contentText(content, path).toStdString();
}

// A time as the formats write it: unix seconds (fractions allowed; milliseconds when the number
// is too large for seconds) or an RFC 3339 / ISO 8601 string.
inline std::optional<qint64> timeValue(const json *value)
{
    if (!value)
        return std::nullopt;
    if (value->is_string())
        return parseLooseTimestamp(fromUtf8String(value->get<std::string>()));
    if (!value->is_number())
        return std::nullopt;
    const double number = value->get<double>();
    if (!std::isfinite(number) || number <= 0 || number > 1.0e14)
        return std::nullopt;
    return static_cast<qint64>(std::llround(number < 1.0e11 ? number * 1000.0 : number));
}

// A message's or item's own time, when the log carries one.
inline std::optional<qint64> ownTime(const json &object)
{
    for (const char *key : {"timestamp", "created_at", "created"}) {
        if (std::optional<qint64> at = timeValue(member(object, key)))
            return at;
    }
    return std::nullopt;
}

// The conversation's own id: the keys that name a conversation first, then the object's id.
inline std::optional<QString> ownConversationId(const json &root)
{
    const json *metadata = member(root, "metadata");
    for (const json *candidate :
         {member(root, "conversation_id"), metadata ? member(*metadata, "conversation_id") : nullptr,
          metadata ? member(*metadata, "ticket_id") : nullptr, member(root, "id")}) {
        if (std::optional<QString> id = idText(candidate))
            return id;
    }
    return std::nullopt;
}

inline Turn messageTurn(MessageKind kind, const QString &text, std::optional<qint64> at)
{
    Turn turn;
    turn.kind = Turn::Kind::Message;
    turn.messageKind = kind;
    turn.text = text;
    turn.at = at;
    return turn;
}

// Adds a message turn unless its text is blank.
inline void addMessage(Conversation &conversation, MessageKind kind, const QString &text,
                       std::optional<qint64> at)
{
    if (!text.trimmed().isEmpty())
        conversation.turns.append(messageTurn(kind, text, at));
}

// A line partText() put in for an attachment: no subject (Anthropic puts images before text).
inline bool isPlaceholderLine(const QString &line)
{
    return line == QLatin1String("[image]") || line == QLatin1String("[audio]")
            || line == QLatin1String("[file]") || line == QLatin1String("[attachment]")
            || (line.startsWith(QLatin1String("[file: ")) && line.endsWith(u']'));
}

// The first line of the customer's first message, at most 120 characters, cut between words.
inline QString subjectOf(const QList<Turn> &turns)
{
    for (const Turn &turn : turns) {
        if (turn.kind != Turn::Kind::Message || turn.messageKind != MessageKind::Customer)
            continue;
        QString line;
        for (const QString &candidate : turn.text.split(u'\n')) {
            line = candidate.trimmed();
            if (!line.isEmpty() && !isPlaceholderLine(line))
                break;
            line.clear();
        }
        if (line.isEmpty())
            continue; // only attachments: the next message may say what it is about
        if (line.size() <= 120)
            return line;
        qsizetype cut = 119;
        const qsizetype space = line.lastIndexOf(u' ', cut);
        if (space > 60)
            cut = space;
        else if (line.at(cut - 1).isHighSurrogate())
            --cut;
        return line.left(cut).trimmed() + QChar(0x2026);
    }
    return {};
}

// Settles what every adapter derives the same way: id, subject, opening time, order.
inline void finish(Conversation &conversation, const json &root, const ConversationContext &context,
                   std::optional<qint64> openedAt)
{
    if (conversation.id.isEmpty())
        conversation.id = ownConversationId(root).value_or(fallbackConversationId(context));
    conversation.subject = subjectOf(conversation.turns);
    for (const Turn &turn : conversation.turns) {
        if (turn.at && (!openedAt || *turn.at < *openedAt))
            openedAt = turn.at;
    }
    conversation.openedAt = openedAt;
    if (const json *metadata = member(root, "metadata"))
        conversation.orderId = optionalString(*metadata, "order_id");
    // A logged request names the tools the model was given: what they are for, their arguments.
    if (const json *tools = member(root, "tools")) {
        if (const QString problem = toolDefinitionsProblem(*tools); !problem.isEmpty())
            conversation.notices.append(
                    QStringLiteral("tools: %1; those tools are judged without them").arg(problem));
        for (NamedToolHint &named :
             readToolDefinitions(*tools, QStringLiteral("the transcript's \"tools\""))) {
            if (!named.hint.isEmpty() && !conversation.toolHints.contains(named.tool))
                conversation.toolHints.insert(named.tool, std::move(named.hint));
        }
    }
}

// Runs a reader, turning a rejection (or anything else thrown) into an Error.
template<typename Read>
Expected<Conversation> guardedRead(Read &&read)
{
    try {
        return read();
    } catch (const Rejection &rejection) {
        return makeError(rejection.message);
    } catch (const std::exception &error) {
        return makeError(QStringLiteral("unreadable conversation: %1").arg(QString::fromUtf8(error.what())));
    }
}

// For the looksLike predicates, which must answer false rather than throw.
template<typename Test>
bool guardedTest(Test &&test) noexcept
{
    try {
        return test();
    } catch (...) {
        return false;
    }
}

} // namespace verity::chatformats

#include "resultclassifier.h"
#include "jsontext.h"

#include <QRegularExpression>

#include <nlohmann/json.hpp>

namespace verity {

using nlohmann::json;

namespace {

bool truthy(const json &value)
{
    if (value.is_boolean())
        return value.get<bool>();
    if (value.is_number())
        return value.get<double>() != 0.0;
    if (value.is_string())
        return !value.get<std::string>().empty();
    if (value.is_array() || value.is_object())
        return !value.empty();
    return !value.is_null();
}

bool textLooksLikeError(const QString &text)
{
    static const QRegularExpression errorWords(
        QStringLiteral(R"(^\s*error\b|\b(fail(ed|ure|s)?|errors?|exception|timed out|timeout|unavailable)\b)"),
        QRegularExpression::CaseInsensitiveOption);
    return errorWords.match(text).hasMatch();
}

// Words a tool uses to say the thing was done. Bare text that says so and no error word is a
// success, whatever else it mentions ("refund of 450 cents issued", "item was rejected; message sent").
bool textSaysNotDone(const QString &text);

bool textSaysDone(const QString &text)
{
    static const QRegularExpression doneWords(
        QStringLiteral(R"(\b(issued|sent|scheduled|booked|queued|created|refunded|done|succeeded|success(ful(ly)?)?|completed|confirmed)\b)"),
        QRegularExpression::CaseInsensitiveOption);
    return doneWords.match(text).hasMatch() && !textSaysNotDone(text);
}

// "Refund not issued: card declined" says the opposite of done, and is read as an error.
bool textSaysNotDone(const QString &text)
{
    static const QRegularExpression negatedDone(
        QStringLiteral(R"(\b(not|never|no longer|n't|was not|wasn't|could not|couldn't)\s+(been\s+|be\s+|yet\s+)?(issued|sent|scheduled|booked|queued|created|refunded|done|completed|confirmed)\b)"),
        QRegularExpression::CaseInsensitiveOption);
    return negatedDone.match(text).hasMatch();
}

// Status words of a structured result that mean it did not simply succeed.
bool statusWordIsError(const QString &status)
{
    static const QStringList words{QStringLiteral("error"),   QStringLiteral("failed"),    QStringLiteral("failure"),
                                   QStringLiteral("declined"), QStringLiteral("rejected"), QStringLiteral("refused"),
                                   QStringLiteral("denied"),  QStringLiteral("timeout"),   QStringLiteral("timed_out"),
                                   QStringLiteral("unknown"), QStringLiteral("invalid"),   QStringLiteral("unavailable")};
    return words.contains(status.trimmed().toLower());
}

bool objectLooksLikeError(const json &object)
{
    for (const char *key : {"error", "errors", "is_error", "exception", "fault"}) {
        auto it = object.find(key);
        if (it != object.end() && truthy(*it))
            return true;
    }
    for (const char *key : {"success", "ok"}) {
        auto it = object.find(key);
        if (it != object.end() && (it->is_boolean() || it->is_number()) && !truthy(*it))
            return true;
    }
    for (const char *key : {"status", "status_code", "http_status", "state", "result"}) {
        auto it = object.find(key);
        if (it == object.end())
            continue;
        if (it->is_number_integer() && it->get<qint64>() >= 400)
            return true;
        if (it->is_string() && statusWordIsError(fromUtf8String(it->get<std::string>())))
            return true;
    }
    // A lone message is how many tools report failure: {"message": "Gateway timeout ..."}.
    for (const char *key : {"message", "detail", "reason"}) {
        auto it = object.find(key);
        if (it != object.end() && it->is_string() && textLooksLikeError(fromUtf8String(it->get<std::string>())))
            return true;
    }
    return false;
}

const QRegularExpression *firstMatch(const QList<QRegularExpression> &patterns, const QString &text)
{
    for (const QRegularExpression &pattern : patterns) {
        if (pattern.match(text).hasMatch())
            return &pattern;
    }
    return nullptr;
}

// Many transcripts keep a tool's JSON answer as text ("content": "{\"success\": 0}"). Such
// text is read as the structure it encodes, so a soft failure in it is seen as one.
std::optional<json> structureInText(const json &result)
{
    if (!result.is_string())
        return std::nullopt;
    const std::string &text = result.get_ref<const std::string &>();
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || text[first] != '{')
        return std::nullopt;
    if (jsonNestingDepth(text.data(), text.data() + text.size()) > maxJsonNesting)
        return std::nullopt; // read as text: too deep to be a tool's answer
    json parsed = json::parse(text, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
        return std::nullopt;
    return parsed;
}

} // namespace

bool resultLooksLikeError(const json &result, bool errorFlagged)
{
    if (errorFlagged)
        return true;
    if (std::optional<json> structure = structureInText(result))
        return objectLooksLikeError(*structure);
    if (result.is_object())
        return objectLooksLikeError(result);
    if (result.is_string())
        return textLooksLikeError(fromUtf8String(result.get<std::string>()));
    if (result.is_boolean())
        return !result.get<bool>();
    return result.is_null();
}

namespace {

// The words of a structured result that can say why it failed: the rules read these, never the
// whole payload, whose amounts and ids ("amount_cents": 450) would pass for status codes.
QString errorFieldsText(const json &object)
{
    QStringList parts;
    for (const char *key : {"error", "errors", "message", "detail", "details", "reason", "description", "status",
                            "status_code", "http_status", "code", "fault", "exception"}) {
        auto it = object.find(key);
        if (it == object.end() || it->is_null())
            continue;
        parts << (it->is_string() ? fromUtf8String(it->get<std::string>()) : fromUtf8String(it->dump()));
    }
    return parts.join(u' ');
}

// The text parts of a result given as a list (content blocks, several strings).
std::optional<QString> textOfParts(const json &parts)
{
    QStringList texts;
    for (const json &part : parts) {
        if (part.is_string())
            texts << fromUtf8String(part.get<std::string>());
        else if (part.is_object() && part.contains("text") && part.at("text").is_string())
            texts << fromUtf8String(part.at("text").get<std::string>());
    }
    if (texts.isEmpty())
        return std::nullopt;
    return texts.join(u'\n');
}

WriteVerdict byRules(const QString &text, bool textIsError, const OutcomeRules &rules, bool errorFlagged)
{
    if (const QRegularExpression *rule = firstMatch(rules.unknown, text))
        return {Outcome::Unknown,
                QStringLiteral("an error that leaves the state unknown (matches \"%1\")").arg(rule->pattern())};
    if (!textIsError && textSaysDone(text))
        return {Outcome::Performed, QStringLiteral("the tool reported success")};
    if (const QRegularExpression *rule = firstMatch(rules.notPerformed, text))
        return {Outcome::NotPerformed, QStringLiteral("an explicit refusal (matches \"%1\")").arg(rule->pattern())};
    if (!textIsError)
        return {Outcome::Performed, QStringLiteral("the tool reported success")};
    // An error nobody can place could have happened before or after the effect.
    if (errorFlagged)
        return {Outcome::Unknown, QStringLiteral("marked an error by the transcript, and says neither refused nor done")};
    return {Outcome::Unknown, QStringLiteral("an error that says neither refused nor done")};
}

} // namespace

WriteVerdict classifyWriteResult(const json *result, const OutcomeRules &rules, bool errorFlagged)
{
    if (!result || result->is_null())
        return {Outcome::Unknown, QStringLiteral("no result was recorded for this call")};
    if (std::optional<json> structure = structureInText(*result))
        return classifyWriteResult(&*structure, rules, errorFlagged);

    if (result->is_array()) {
        // Content blocks: judged by their text; a list with none cannot say what happened.
        if (std::optional<QString> text = textOfParts(*result)) {
            const json asText(text->toStdString());
            return classifyWriteResult(&asText, rules, errorFlagged);
        }
        return {Outcome::Unknown, QStringLiteral("a result with no text or fields to read")};
    }

    if (result->is_object()) {
        auto stated = result->find("outcome");
        if (stated != result->end()) {
            std::optional<Outcome> outcome;
            if (stated->is_string())
                outcome = outcomeFromId(fromUtf8String(stated->get<std::string>()));
            if (!outcome)
                return {Outcome::Unknown, QStringLiteral("the tool stated an outcome Verity does not know: %1")
                                                  .arg(fromUtf8String(stated->dump()))};
            if (errorFlagged && (*outcome == Outcome::Performed || *outcome == Outcome::AlreadyPerformed))
                return {Outcome::Unknown, QStringLiteral("the tool stated %1, but the transcript marks the result "
                                                         "an error")
                                                  .arg(outcomeId(*outcome))};
            return {*outcome, QStringLiteral("the tool stated its outcome")};
        }
        // A structured success payload may hold ids full of digits, so it is only read for
        // rules once it looks like an error, and then only its error fields.
        if (!errorFlagged && !resultLooksLikeError(*result))
            return {Outcome::Performed, QStringLiteral("the tool reported success")};
        const QString text = errorFieldsText(*result);
        if (text.trimmed().isEmpty())
            return {Outcome::Unknown, errorFlagged ? QStringLiteral("marked an error by the transcript, with no "
                                                                    "message to read")
                                                   : QStringLiteral("an error with no message to read")};
        return byRules(text, true, rules, errorFlagged);
    }

    if (result->is_string()) {
        // Bare text carries no marker: it is read by the rules unless it plainly says the thing was done.
        const QString text = fromUtf8String(result->get<std::string>());
        if (text.trimmed().isEmpty())
            return {Outcome::Unknown, QStringLiteral("the tool returned nothing")};
        return byRules(text, errorFlagged || textLooksLikeError(text) || textSaysNotDone(text), rules, errorFlagged);
    }

    // A bare number or true/false.
    if (!errorFlagged && !resultLooksLikeError(*result))
        return {Outcome::Performed, QStringLiteral("the tool reported success")};
    return {Outcome::Unknown, QStringLiteral("an error that says neither refused nor done")};
}

} // namespace verity

#include "resultclassifier.h"

#include "jsontext.h"
#include "mcpcallresult.h"

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
            QStringLiteral(
                    R"(^\s*error\b|\b(fail(ed|ure|s)?|errors?|exception|timed out|timeout|unavailable)\b)"),
            QRegularExpression::CaseInsensitiveOption);
    return errorWords.match(text).hasMatch();
}

bool textSaysNotDone(const QString &text);

// Words a tool uses to say the thing was done. Bare text that says so and no error word is a
// success, whatever else it mentions ("refund of 450 cents issued", "item was rejected; message sent").
// No match when the text has none, or says not done.
QRegularExpressionMatch doneWordIn(const QString &text)
{
    static const QRegularExpression doneWords(
            QStringLiteral(
                    R"(\b(issued|sent|scheduled|booked|queued|created|refunded|done|succeeded|success(ful(ly)?)?|completed|confirmed)\b)"),
            QRegularExpression::CaseInsensitiveOption);
    QRegularExpressionMatch match = doneWords.match(text);
    if (match.hasMatch() && textSaysNotDone(text))
        return {};
    return match;
}

// "Refund not issued: card declined" says the opposite of done, and is read as an error.
bool textSaysNotDone(const QString &text)
{
    static const QRegularExpression negatedDone(
            QStringLiteral(
                    R"(\b(not|never|no longer|n't|was not|wasn't|could not|couldn't)\s+(been\s+|be\s+|yet\s+)?(issued|sent|scheduled|booked|queued|created|refunded|done|completed|confirmed)\b)"),
            QRegularExpression::CaseInsensitiveOption);
    return negatedDone.match(text).hasMatch();
}

// Status words of a structured result that mean it did not simply succeed.
bool statusWordIsError(const QString &status)
{
    static const QStringList words{
            QStringLiteral("error"),    QStringLiteral("failed"),   QStringLiteral("failure"),
            QStringLiteral("declined"), QStringLiteral("rejected"), QStringLiteral("refused"),
            QStringLiteral("denied"),   QStringLiteral("timeout"),  QStringLiteral("timed_out"),
            QStringLiteral("unknown"),  QStringLiteral("invalid"),  QStringLiteral("unavailable")};
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
        if (it != object.end() && it->is_string()
            && textLooksLikeError(fromUtf8String(it->get<std::string>())))
            return true;
    }
    return false;
}

struct RuleMatch
{
    const OutcomeRule *rule = nullptr;
    QRegularExpressionMatch match;
};

RuleMatch firstMatch(const QList<OutcomeRule> &rules, const QString &text)
{
    for (const OutcomeRule &rule : rules) {
        QRegularExpressionMatch match = rule.pattern.match(text);
        if (match.hasMatch())
            return {&rule, match};
    }
    return {};
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
    if (std::optional<McpCallResult> mcp = readMcpCallResult(result))
        return resultLooksLikeError(mcp->body, mcp->isError);
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
    for (const char *key : {"error", "errors", "message", "detail", "details", "reason", "description",
                            "status", "status_code", "http_status", "code", "fault", "exception"}) {
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

// ---- the words a reason quotes ----------------------------------------------------------

bool isWordCharacter(QChar c)
{
    return c.isLetterOrNumber() || c == u'_';
}

// Inside a word: "can't", "re-try" and "5.0" are one word each.
bool inWord(const QString &text, qsizetype i)
{
    if (isWordCharacter(text[i]))
        return true;
    const bool joiner = text[i] == u'\'' || text[i] == u'-' || text[i] == u'.' || text[i] == QChar(0x2019);
    return joiner && i > 0 && i + 1 < text.size() && isWordCharacter(text[i - 1])
            && isWordCharacter(text[i + 1]);
}

bool isBlank(QChar c)
{
    return c == u' ' || c == u'\t';
}

// The marks that end a phrase: "refund failed: upstream timeout" is two phrases.
bool endsPhrase(const QString &text, qsizetype i)
{
    static const QString marks = QStringLiteral(".,;:!?()[]{}\"\u201C\u201D\u00AB\u00BB\n\r");
    return marks.contains(text[i]) && !inWord(text, i);
}

// Words that say nothing on their own, so a quote is not widened by them ("timed out after").
bool isLittleWord(QStringView word)
{
    static const QStringList words{
            QStringLiteral("a"),   QStringLiteral("an"),    QStringLiteral("the"),   QStringLiteral("of"),
            QStringLiteral("to"),  QStringLiteral("by"),    QStringLiteral("for"),   QStringLiteral("from"),
            QStringLiteral("in"),  QStringLiteral("on"),    QStringLiteral("at"),    QStringLiteral("with"),
            QStringLiteral("and"), QStringLiteral("or"),    QStringLiteral("is"),    QStringLiteral("are"),
            QStringLiteral("was"), QStringLiteral("were"),  QStringLiteral("be"),    QStringLiteral("been"),
            QStringLiteral("as"),  QStringLiteral("after"), QStringLiteral("before")};
    for (const QString &little : words) {
        if (word.compare(little, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

// A quote stays on one line of a card.
constexpr qsizetype longestQuote = 60;

QString shortened(const QString &words)
{
    if (words.size() <= longestQuote)
        return words;
    constexpr qsizetype part = (longestQuote - 3) / 2;
    QString head = words.left(part);
    if (const qsizetype space = head.lastIndexOf(u' '); space > 0)
        head.truncate(space);
    QString tail = words.right(part);
    if (const qsizetype space = tail.indexOf(u' '); space >= 0 && space + 1 < tail.size())
        tail.remove(0, space + 1);
    return head + QStringLiteral(" … ") + tail;
}

// The words of `text` from `start` to `end`, as a reason quotes them: the whole phrase they are
// in when it is short, so a match of "timeout" in "refund failed: upstream timeout" quotes
// "upstream timeout" and a match of "400" quotes "400 Bad Request"; in a long phrase, the match
// widened to whole words and to the nearest word of meaning either side ("Error: The number").
// On one line, and short.
QString quotedWords(const QString &text, qsizetype start, qsizetype end)
{
    while (start < end && text[start].isSpace())
        ++start;
    while (end > start && text[end - 1].isSpace())
        --end;
    if (start == end)
        return {};
    while (start > 0 && inWord(text, start) && inWord(text, start - 1))
        --start;
    while (end < text.size() && inWord(text, end - 1) && inWord(text, end))
        ++end;

    qsizetype phraseStart = start;
    while (phraseStart > 0 && !endsPhrase(text, phraseStart - 1))
        --phraseStart;
    qsizetype phraseEnd = end;
    while (phraseEnd < text.size() && !endsPhrase(text, phraseEnd))
        ++phraseEnd;
    const QString phrase = text.mid(phraseStart, phraseEnd - phraseStart).simplified();
    if (phrase.size() <= longestQuote)
        return phrase;

    // Outwards on each side, through little words, to the first word of meaning in the phrase.
    for (qsizetype at = start, words = 0; words < 3; ++words) {
        qsizetype wordEnd = at;
        while (wordEnd > 0 && isBlank(text[wordEnd - 1]))
            --wordEnd;
        if (wordEnd == at || wordEnd == 0 || !inWord(text, wordEnd - 1))
            break;
        qsizetype wordStart = wordEnd;
        while (wordStart > 0 && inWord(text, wordStart - 1))
            --wordStart;
        at = wordStart;
        if (!isLittleWord(QStringView(text).mid(wordStart, wordEnd - wordStart))) {
            start = wordStart;
            break;
        }
    }
    for (qsizetype at = end, words = 0; words < 3; ++words) {
        qsizetype wordStart = at;
        while (wordStart < text.size() && isBlank(text[wordStart]))
            ++wordStart;
        if (wordStart == at || wordStart == text.size() || !inWord(text, wordStart))
            break;
        qsizetype wordEnd = wordStart;
        while (wordEnd < text.size() && inWord(text, wordEnd))
            ++wordEnd;
        at = wordEnd;
        if (!isLittleWord(QStringView(text).mid(wordStart, wordEnd - wordStart))) {
            end = wordEnd;
            break;
        }
    }
    return shortened(text.mid(start, end - start).simplified());
}

QString quotedWords(const QString &text)
{
    return quotedWords(text, 0, text.size());
}

QString ruleReason(const RuleMatch &found, const QString &text)
{
    const QString words = quotedWords(text, found.match.capturedStart(), found.match.capturedEnd());
    if (words.isEmpty()) // a pattern that matches no characters at all
        return QStringLiteral("the registry's %1 rule matched this result").arg(found.rule->name);
    return QStringLiteral("the registry's %1 rule matched \"%2\"").arg(found.rule->name, words);
}

// An error no rule places: it may have happened before or after the effect.
QString unplacedErrorReason(const QString &words, bool errorFlagged)
{
    return errorFlagged
            ? QStringLiteral("the transcript marks \"%1\" an error that does not say it was refused, so "
                             "whether it happened is unknown")
                      .arg(words)
            : QStringLiteral("the error \"%1\" does not say it was refused, so whether it happened is "
                             "unknown")
                      .arg(words);
}

WriteVerdict byRules(const QString &text, bool textIsError, const OutcomeRules &rules, bool errorFlagged)
{
    if (const RuleMatch found = firstMatch(rules.unknown, text); found.rule)
        return {Outcome::Unknown, ruleReason(found, text)};
    if (!textIsError) {
        if (const QRegularExpressionMatch done = doneWordIn(text); done.hasMatch())
            return {Outcome::Performed,
                    QStringLiteral("the result says it was done: \"%1\"")
                            .arg(quotedWords(text, done.capturedStart(), done.capturedEnd()))};
    }
    if (const RuleMatch found = firstMatch(rules.notPerformed, text); found.rule)
        return {Outcome::NotPerformed, ruleReason(found, text)};
    if (!textIsError)
        return {Outcome::Performed,
                QStringLiteral("the result shows no error: \"%1\"").arg(quotedWords(text))};
    return {Outcome::Unknown, unplacedErrorReason(quotedWords(text), errorFlagged)};
}

QString statedReason(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Performed:
        return QStringLiteral("the tool stated it was performed");
    case Outcome::AlreadyPerformed:
        return QStringLiteral("the tool stated it was already performed");
    case Outcome::NotPerformed:
        return QStringLiteral("the tool stated it was not performed");
    case Outcome::Unknown:
        break;
    }
    return QStringLiteral("the tool stated its outcome is unknown");
}

// A JSON-RPC error of the codes the protocol keeps for a request refused before anything ran
// (unreadable, not a request, no such method, parameters that do not fit: MCP's unknown tool and
// arguments its schema refuses); every other code may come after the effect.
std::optional<QString> refusedBeforeRunning(const json &result)
{
    const auto error = result.find("error");
    if (error == result.end() || !error->is_object())
        return std::nullopt;
    const auto code = error->find("code");
    if (code == error->end() || !code->is_number_integer())
        return std::nullopt;
    const auto number = code->get<std::int64_t>();
    if (number != -32700 && number != -32600 && number != -32601 && number != -32602)
        return std::nullopt;
    const auto message = error->find("message");
    return QStringLiteral("the server refused the request before running it (JSON-RPC error %1: %2)")
            .arg(number)
            .arg(message != error->end() && message->is_string() ? fromUtf8String(message->get<std::string>())
                                                                 : QStringLiteral("no message"));
}

// The same error as the official MCP SDK words it in a tool's result ("MCP error -32602: Tool x
// not found"): an unknown tool, or arguments its schema refused, before the tool ran.
std::optional<QString> refusedBeforeRunning(const QString &text)
{
    static const QRegularExpression sdkError(
            QStringLiteral(R"(^\s*MCP error (-3260[12]|-32600|-32700):\s*(.*)$)"),
            QRegularExpression::DotMatchesEverythingOption);
    const QRegularExpressionMatch match = sdkError.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    return QStringLiteral("the server refused the request before running it (JSON-RPC error %1: %2)")
            .arg(match.captured(1), match.captured(2).trimmed());
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
        return {Outcome::Unknown, QStringLiteral("the result has no text to read")};
    }

    if (result->is_object()) {
        auto stated = result->find("outcome");
        if (stated != result->end()) {
            std::optional<Outcome> outcome;
            if (stated->is_string())
                outcome = outcomeFromId(fromUtf8String(stated->get<std::string>()));
            if (!outcome)
                return {Outcome::Unknown,
                        QStringLiteral("the tool stated %1, which is not one of the four outcomes")
                                .arg(fromUtf8String(stated->dump()))};
            if (errorFlagged && (*outcome == Outcome::Performed || *outcome == Outcome::AlreadyPerformed))
                return {Outcome::Unknown,
                        statedReason(*outcome)
                                + QStringLiteral(", but the transcript marks the result an error")};
            // The guard answers a call it did not send, and says why in its own words.
            if (auto guard = result->find("guard"); guard != result->end() && guard->is_string())
                return {*outcome, fromUtf8String(guard->get<std::string>())};
            return {*outcome, statedReason(*outcome)};
        }
        if (std::optional<McpCallResult> mcp = readMcpCallResult(*result))
            return classifyWriteResult(&mcp->body, rules, errorFlagged || mcp->isError);
        // A structured success payload may hold ids full of digits, so it is only read for
        // rules once it looks like an error, and then only its error fields.
        if (!errorFlagged && !resultLooksLikeError(*result))
            return {Outcome::Performed, QStringLiteral("the result shows no error")};
        if (std::optional<QString> refused = refusedBeforeRunning(*result))
            return {Outcome::NotPerformed, *refused};
        const QString text = errorFieldsText(*result);
        if (text.trimmed().isEmpty())
            return {Outcome::Unknown,
                    errorFlagged ? QStringLiteral("the transcript marks the result an error, and "
                                                  "it gives no message")
                                 : QStringLiteral("the result says it did not succeed, and gives "
                                                  "no message")};
        return byRules(text, true, rules, errorFlagged);
    }

    if (result->is_string()) {
        // Bare text carries no marker: it is read by the rules unless it plainly says the thing was done.
        const QString text = fromUtf8String(result->get<std::string>());
        if (text.trimmed().isEmpty())
            return {Outcome::Unknown, QStringLiteral("the tool returned empty text")};
        if (std::optional<QString> refused = refusedBeforeRunning(text))
            return {Outcome::NotPerformed, *refused};
        return byRules(text, errorFlagged || textLooksLikeError(text) || textSaysNotDone(text), rules,
                       errorFlagged);
    }

    // A bare number or true/false.
    const QString value = fromUtf8String(result->dump());
    if (!errorFlagged && !resultLooksLikeError(*result))
        return {Outcome::Performed, QStringLiteral("the tool returned %1").arg(value)};
    if (errorFlagged)
        return {Outcome::Unknown, unplacedErrorReason(value, true)};
    return {Outcome::Unknown,
            QStringLiteral("the tool returned %1, which does not say it was refused, so whether "
                           "it happened is unknown")
                    .arg(value)};
}

} // namespace verity

#pragma once
// The one crossing between nlohmann/json's std::string (UTF-8) and QString.

#include <QByteArrayView>
#include <QString>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace verity {

inline QString fromUtf8String(const std::string &text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

} // namespace verity

namespace verity {

// nlohmann's parse error without its library prefix and location: "[json.exception.parse_error.101]
// parse error at line 1, column 5: syntax error ..." becomes "syntax error ..."; the caller says
// where, in the file's own terms.
inline QString jsonParseErrorReason(const char *what)
{
    QString text = QString::fromUtf8(what);
    const qsizetype bracket = text.indexOf(QLatin1String("] "));
    if (text.startsWith(u'[') && bracket > 0)
        text.remove(0, bracket + 2);
    if (text.startsWith(QLatin1String("parse error at "))) {
        const qsizetype colon = text.indexOf(QLatin1String(": "));
        text.remove(0, colon > 0 ? colon + 2 : 15);
    }
    // nlohmann quotes everything it read of the bad token, which can be a whole paragraph.
    const qsizetype lastRead = text.indexOf(QLatin1String("; last read: '"));
    if (lastRead >= 0 && text.size() - lastRead > 60) {
        const qsizetype start = lastRead + 14;
        text = text.left(start) + QStringLiteral("…") + text.mid(text.size() - 41, 40) + u'\'';
    }
    return text;
}

// Why a line of a file is not JSON, where in it: "not valid JSON at column 12: syntax error …".
// A line that ends before its JSON does (cut short, or broken across lines) says that instead of
// what the parser made of the line's end. `line` may end in its newline.
inline QString jsonLineError(const nlohmann::json::parse_error &error, QByteArrayView line)
{
    while (line.endsWith('\n') || line.endsWith('\r'))
        line.chop(1);
    if (error.byte > std::size_t(line.size()))
        return QStringLiteral("not valid JSON at column %1: the line ends before its JSON does (cut short?)")
                .arg(error.byte);
    return QStringLiteral("not valid JSON at column %1: %2")
            .arg(error.byte)
            .arg(jsonParseErrorReason(error.what()));
}

} // namespace verity

namespace verity {

// A whole number as agents send it: 11800, "11800" or 11800.0; nothing else (118.5, "abc", or a
// number beyond 64 bits, which must never wrap into another amount).
inline std::optional<qint64> wholeNumber(const nlohmann::json &value)
{
    if (value.is_number_unsigned()) {
        const auto number = value.get<std::uint64_t>();
        if (number > std::uint64_t(std::numeric_limits<qint64>::max()))
            return std::nullopt;
        return qint64(number);
    }
    if (value.is_number_integer())
        return value.get<qint64>();
    if (value.is_number_float()) {
        const double number = value.get<double>();
        if (std::isfinite(number) && std::trunc(number) == number && std::fabs(number) < 9.0e15)
            return qint64(number);
        return std::nullopt;
    }
    if (value.is_string()) {
        bool ok = false;
        const qint64 number = fromUtf8String(value.get<std::string>()).trimmed().toLongLong(&ok);
        if (ok)
            return number;
    }
    return std::nullopt;
}

} // namespace verity

namespace verity {

// How deep a JSON value may nest. nlohmann copies and prints values recursively, so a line of
// 20,000 '[' would exhaust the stack; no transcript nests anywhere near this.
constexpr int maxJsonNesting = 128;

// Follows JSON text a character at a time and knows the depth of brackets outside strings;
// enough to find where a value ends or how deep it nests, without building anything.
class JsonBracketScanner
{
public:
    // The depth after `c`; a closing bracket that ends a value brings it back to 0.
    int feed(char c)
    {
        if (m_inString) {
            if (m_escaped)
                m_escaped = false;
            else if (c == '\\')
                m_escaped = true;
            else if (c == '"')
                m_inString = false;
        } else if (c == '"') {
            m_inString = true;
        } else if (c == '{' || c == '[') {
            ++m_depth;
        } else if (c == '}' || c == ']') {
            --m_depth;
        }
        return m_depth;
    }

private:
    int m_depth = 0;
    bool m_inString = false;
    bool m_escaped = false;
};

// The deepest nesting of brackets in JSON text, outside strings; cheap enough to run on every
// line before it is parsed.
inline int jsonNestingDepth(const char *begin, const char *end)
{
    JsonBracketScanner scanner;
    int deepest = 0;
    for (const char *p = begin; p != end; ++p)
        deepest = std::max(deepest, scanner.feed(*p));
    return deepest;
}

inline QString tooDeepReason()
{
    return QStringLiteral("JSON nested deeper than %1 levels").arg(maxJsonNesting);
}

} // namespace verity

#pragma once
// The one crossing between nlohmann/json's std::string (UTF-8) and QString.

#include <QString>

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
    return text;
}

} // namespace verity

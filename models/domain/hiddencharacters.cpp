#include "hiddencharacters.h"

namespace verity {

namespace {

struct CodePoint
{
    char32_t value;
    qsizetype length; // in UTF-16 units
};

CodePoint codePointAt(QStringView text, qsizetype i)
{
    const QChar c = text.at(i);
    if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate())
        return {QChar::surrogateToUcs4(c, text.at(i + 1)), 2};
    return {c.unicode(), 1};
}

bool hidden(char32_t c, LineBreaks breaks)
{
    if (breaks == LineBreaks::Allowed && (c == u'\n' || c == u'\t'))
        return false;
    switch (QChar::category(c)) {
    case QChar::Other_Control: // C0, DEL, C1: escapes, carriage returns
    case QChar::Other_Format: // bidi overrides and isolates, zero-width characters
    case QChar::Separator_Line: // U+2028
    case QChar::Separator_Paragraph: // U+2029
    case QChar::Other_Surrogate: // half of a pair, alone
        return true;
    default:
        return false;
    }
}

// "202E": upper-case hex, at least four digits, as Unicode writes code points.
QString hex(char32_t c)
{
    return QString::number(quint32(c), 16).toUpper().rightJustified(4, u'0');
}

} // namespace

std::optional<qsizetype> firstHiddenCharacter(QStringView text, LineBreaks breaks)
{
    for (qsizetype i = 0; i < text.size();) {
        const CodePoint c = codePointAt(text, i);
        if (hidden(c.value, breaks))
            return i;
        i += c.length;
    }
    return std::nullopt;
}

Expected<void> checkShownAsTyped(QStringView field, QStringView text, LineBreaks breaks)
{
    const std::optional<qsizetype> at = firstHiddenCharacter(text, breaks);
    if (!at)
        return {};
    return makeError(
            QStringLiteral("%1 holds U+%2 (a control or formatting character) at character %3: type it "
                           "as plain text")
                    .arg(field, hex(codePointAt(text, *at).value))
                    .arg(*at + 1));
}

QString visibleText(QStringView text, LineBreaks breaks)
{
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size();) {
        const CodePoint c = codePointAt(text, i);
        if (hidden(c.value, breaks))
            out += QStringLiteral("\\u{%1}").arg(hex(c.value));
        else
            out += text.mid(i, c.length);
        i += c.length;
    }
    return out;
}

Expected<void> checkPersonName(QStringView field, QStringView name)
{
    if (const Expected<void> shown = checkShownAsTyped(field, name); !shown)
        return shown;
    constexpr qsizetype longest = 100;
    if (name.size() > longest)
        return makeError(
                QStringLiteral("%1 is %2 characters long; a name may be at most %3: nothing was recorded")
                        .arg(field.toString())
                        .arg(name.size())
                        .arg(longest));
    return {};
}

} // namespace verity

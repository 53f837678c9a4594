#include "sandboxjson.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace verity {

namespace {

char hexDigit(uint value)
{
    return char(value < 10 ? '0' + value : 'a' + value - 10);
}

char *unicodeEscape(char *at, char16_t unit)
{
    *at++ = '\\';
    *at++ = 'u';
    for (int shift = 12; shift >= 0; shift -= 4)
        *at++ = hexDigit((unit >> shift) & 0xf);
    return at;
}

// As QJsonDocument escapes: '"', '\\' and control characters; the rest as UTF-8, and a lone
// surrogate (which has no UTF-8) as \uXXXX. Written straight into room made for the worst
// case (six bytes a unit): appending a byte at a time cost more than all the rest.
void appendEscaped(QByteArray &out, QStringView text)
{
    const qsizetype start = out.size();
    out.resize(start + 6 * text.size());
    char *at = out.data() + start;
    const char16_t *from = text.utf16();
    const char16_t *const end = from + text.size();
    while (from != end) {
        const char16_t unit = *from++;
        if (unit >= 0x20 && unit < 0x80 && unit != u'"' && unit != u'\\') {
            *at++ = char(unit);
        } else if (unit < 0x80) {
            *at++ = '\\';
            switch (unit) {
            case u'"':
                *at++ = '"';
                break;
            case u'\\':
                *at++ = '\\';
                break;
            case u'\b':
                *at++ = 'b';
                break;
            case u'\f':
                *at++ = 'f';
                break;
            case u'\n':
                *at++ = 'n';
                break;
            case u'\r':
                *at++ = 'r';
                break;
            case u'\t':
                *at++ = 't';
                break;
            default:
                at = unicodeEscape(at - 1, unit);
            }
        } else if (QChar::isHighSurrogate(unit) && from != end && QChar::isLowSurrogate(*from)) {
            const char32_t code = QChar::surrogateToUcs4(unit, *from++);
            *at++ = char(0xf0 | (code >> 18));
            *at++ = char(0x80 | ((code >> 12) & 0x3f));
            *at++ = char(0x80 | ((code >> 6) & 0x3f));
            *at++ = char(0x80 | (code & 0x3f));
        } else if (QChar::isSurrogate(unit)) {
            at = unicodeEscape(at, unit);
        } else if (unit < 0x800) {
            *at++ = char(0xc0 | (unit >> 6));
            *at++ = char(0x80 | (unit & 0x3f));
        } else {
            *at++ = char(0xe0 | (unit >> 12));
            *at++ = char(0x80 | ((unit >> 6) & 0x3f));
            *at++ = char(0x80 | (unit & 0x3f));
        }
    }
    out.truncate(at - out.constData());
}

void appendEscaped(QByteArray &out, QLatin1StringView text)
{
    for (char c : text) {
        if (uchar(c) < 0x20 || uchar(c) >= 0x80 || c == '"' || c == '\\') {
            appendEscaped(out, QString(text)); // rare: keys and literals are plain ASCII
            return;
        }
    }
    out.append(text.data(), text.size());
}

} // namespace

void SandboxJson::indent(qsizetype depth)
{
    static constexpr char spaces[] = "                                                                ";
    for (qsizetype left = 4 * depth; left > 0; left -= sizeof spaces - 1)
        m_out.append(spaces, std::min<qsizetype>(left, sizeof spaces - 1));
}

void SandboxJson::beforeValue()
{
    if (m_levels.isEmpty() || !m_levels.last().array)
        return; // at the top, or after key()
    Level &array = m_levels.last();
    if (!array.empty)
        m_out += ",\n";
    array.empty = false;
    indent(m_levels.size());
}

void SandboxJson::beforeKey()
{
    Level &object = m_levels.last();
    if (!object.empty)
        m_out += ",\n";
    object.empty = false;
    indent(m_levels.size());
}

void SandboxJson::open(bool array)
{
    beforeValue();
    m_out += array ? "[\n" : "{\n";
    m_levels.append(Level{array, true});
}

void SandboxJson::close()
{
    const Level level = m_levels.last();
    m_levels.removeLast();
    if (!level.empty)
        m_out += '\n';
    indent(m_levels.size());
    m_out += level.array ? ']' : '}';
}

void SandboxJson::beginObject()
{
    open(false);
}

void SandboxJson::endObject()
{
    close();
}

void SandboxJson::beginArray()
{
    open(true);
}

void SandboxJson::endArray()
{
    close();
}

void SandboxJson::key(QLatin1StringView name)
{
    beforeKey();
    m_out += '"';
    appendEscaped(m_out, name);
    m_out += "\": ";
}

void SandboxJson::key(const QString &name)
{
    beforeKey();
    m_out += '"';
    appendEscaped(m_out, name);
    m_out += "\": ";
}

void SandboxJson::string(QLatin1StringView text)
{
    beforeValue();
    m_out += '"';
    appendEscaped(m_out, text);
    m_out += '"';
}

void SandboxJson::string(const QString &text)
{
    beforeValue();
    m_out += '"';
    appendEscaped(m_out, text);
    m_out += '"';
}

void SandboxJson::number(qint64 value)
{
    beforeValue();
    char digits[24];
    const std::to_chars_result written = std::to_chars(digits, digits + sizeof digits, value);
    m_out.append(digits, written.ptr - digits);
}

void SandboxJson::boolean(bool value)
{
    beforeValue();
    m_out += value ? "true" : "false";
}

void SandboxJson::null()
{
    beforeValue();
    m_out += "null";
}

QByteArray SandboxJson::take()
{
    m_out += '\n';
    return std::exchange(m_out, QByteArray());
}

} // namespace verity

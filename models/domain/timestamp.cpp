#include "timestamp.h"

#include <QDateTime>
#include <QRegularExpression>

namespace verity {

namespace {

// One character's code, for text read as a QString or as the line's UTF-8 bytes.
char16_t codeOf(QChar c)
{
    return c.unicode();
}

char16_t codeOf(char c)
{
    return char16_t(static_cast<unsigned char>(c));
}

// The common case read by hand: ASCII digits, a real calendar day and time, an offset under a
// day. Anything else is left to Qt below, whose answer stands for every unusual text.
template<typename Text>
std::optional<qint64> parsePlainTimestamp(const Text &text)
{
    const qsizetype size = qsizetype(text.size());
    if (size < 20)
        return std::nullopt;
    const auto digits = [&](qsizetype at, qsizetype count) -> int {
        int value = 0;
        for (qsizetype i = at; i < at + count; ++i) {
            const char16_t c = codeOf(text[i]);
            if (c < u'0' || c > u'9')
                return -1;
            value = value * 10 + (c - u'0');
        }
        return value;
    };
    const auto is = [&](qsizetype at, char16_t c) { return codeOf(text[at]) == c; };
    if (!is(4, u'-') || !is(7, u'-') || !is(10, u'T') || !is(13, u':') || !is(16, u':'))
        return std::nullopt;
    const int year = digits(0, 4);
    const int month = digits(5, 2);
    const int day = digits(8, 2);
    const int hour = digits(11, 2);
    const int minute = digits(14, 2);
    const int second = digits(17, 2);
    if (year < 1 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59
        || second < 0 || second > 59)
        return std::nullopt;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    constexpr int monthDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (day > monthDays[month - 1] + (month == 2 && leap ? 1 : 0))
        return std::nullopt;

    qsizetype at = 19;
    int millis = 0;
    if (is(at, u'.')) {
        // Qt reads at most milliseconds; finer fractions are cut, not rounded.
        qsizetype count = 0;
        while (at + 1 + count < size && codeOf(text[at + 1 + count]) >= u'0'
               && codeOf(text[at + 1 + count]) <= u'9')
            ++count;
        if (count < 1 || count > 9)
            return std::nullopt;
        const int kept = digits(at + 1, qMin<qsizetype>(count, 3));
        millis = count >= 3 ? kept : count == 2 ? kept * 10 : kept * 100;
        at += 1 + count;
    }
    qint64 offsetSeconds = 0;
    if (at + 1 == size && is(at, u'Z')) {
        offsetSeconds = 0;
    } else if (at + 6 == size && (is(at, u'+') || is(at, u'-')) && is(at + 3, u':')) {
        const int offsetHours = digits(at + 1, 2);
        const int offsetMinutes = digits(at + 4, 2);
        if (offsetHours < 0 || offsetHours > 23 || offsetMinutes < 0 || offsetMinutes > 59)
            return std::nullopt;
        offsetSeconds = (offsetHours * 60 + offsetMinutes) * 60 * (is(at, u'-') ? -1 : 1);
    } else {
        return std::nullopt;
    }

    // Days since 1970-01-01 in the proleptic Gregorian calendar, as QDate counts them.
    const int y = year - (month <= 2 ? 1 : 0);
    const int era = y / 400;
    const int yearOfEra = y - era * 400;
    const int dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    const qint64 days = qint64(era) * 146097 + dayOfEra - 719468;
    const qint64 seconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds;
    return seconds * 1000 + millis;
}

} // namespace

std::optional<qint64> parseTimestamp(const QString &text)
{
    if (std::optional<qint64> plain = parsePlainTimestamp(QStringView(text)))
        return plain;
    static const QRegularExpression rfc3339(
            QStringLiteral(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$)"));
    if (!rfc3339.match(text).hasMatch())
        return std::nullopt;
    QString normalized = text;
    // Qt reads at most milliseconds; finer fractions are cut, not rounded.
    static const QRegularExpression longFraction(QStringLiteral(R"((\.\d{3})\d+)"));
    normalized.replace(longFraction, QStringLiteral("\\1"));
    const QDateTime parsed = QDateTime::fromString(normalized, Qt::ISODateWithMs);
    if (!parsed.isValid())
        return std::nullopt;
    return parsed.toMSecsSinceEpoch();
}

std::optional<qint64> parseCommonTimestamp(std::string_view utf8)
{
    return parsePlainTimestamp(utf8);
}

std::optional<qint64> parseLooseTimestamp(const QString &text)
{
    if (std::optional<qint64> zoned = parseTimestamp(text))
        return zoned;
    // Python tools (τ² among them) write "2025-08-01T16:16:37.295213" or with a space and no
    // zone; such times are UTC in practice. Qt reads milliseconds, so finer digits are cut.
    static const QRegularExpression loose(
            QStringLiteral(R"(^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(\.\d{1,3})?\d*(Z|[+-]\d\d:\d\d)?$)"));
    const QRegularExpressionMatch match = loose.match(text.trimmed());
    if (!match.hasMatch())
        return std::nullopt;
    const QString zone = match.captured(4).isEmpty() ? QStringLiteral("Z") : match.captured(4);
    const QDateTime time = QDateTime::fromString(
            match.captured(1) + u'T' + match.captured(2) + match.captured(3) + zone, Qt::ISODateWithMs);
    if (!time.isValid())
        return std::nullopt;
    return time.toMSecsSinceEpoch();
}

} // namespace verity

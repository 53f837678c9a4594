#include "domain/providerstatement.h"

#include <QDateTime>
#include <QRegularExpression>

namespace verity {

namespace {

// Strictly YYYY-MM-DD: QDate::fromString alone would take "2026-3-1" and similar.
std::optional<QDate> strictDate(const QString &text)
{
    static const QRegularExpression shape(QStringLiteral("^[0-9]{4}-[0-9]{2}-[0-9]{2}$"));
    if (!shape.match(text).hasMatch())
        return std::nullopt;
    const QDate date = QDate::fromString(text, QStringLiteral("yyyy-MM-dd"));
    return date.isValid() ? std::optional<QDate>(date) : std::nullopt;
}

qint64 midnightMs(const QDate &date)
{
    return QDateTime(date, QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
}

} // namespace

Expected<Period> periodFromDates(const QString &from, const QString &to)
{
    const auto fail = [](const QString &message) { return makeError(InputErrc::Invalid, message); };
    const std::optional<QDate> first = strictDate(from);
    if (!first) {
        return fail(QStringLiteral("from: \"%1\" is not a date; expected YYYY-MM-DD, such as 2026-03-01")
                            .arg(from));
    }
    const std::optional<QDate> last = strictDate(to);
    if (!last)
        return fail(
                QStringLiteral("to: \"%1\" is not a date; expected YYYY-MM-DD, such as 2026-03-31").arg(to));
    if (*last < *first) {
        return fail(
                QStringLiteral("to: %1 is before from (%2); the period ends on or after the day it starts")
                        .arg(to, from));
    }
    // `to` is inclusive: the period runs to the next day's midnight.
    return Period{midnightMs(*first), midnightMs(last->addDays(1))};
}

QString periodText(const Period &period)
{
    const QDate first = QDateTime::fromMSecsSinceEpoch(period.fromMs, Qt::UTC).date();
    // toMs is excluded: the last day is the one holding the millisecond before it.
    const QDate last = QDateTime::fromMSecsSinceEpoch(qMax(period.fromMs, period.toMs - 1), Qt::UTC).date();
    return QStringLiteral("%1 to %2 (UTC)").arg(first.toString(Qt::ISODate), last.toString(Qt::ISODate));
}

} // namespace verity

#pragma once
// Instants as the store and the provider keep them: milliseconds since the epoch, in UTC.
// Tests state their times as dates so a reader can check them; these turn them into numbers.

#include "domain/providerstatement.h"

#include <QDateTime>
#include <QString>
#include <QTimeZone>

namespace verity::test {

// The UTC date and time, to the millisecond.
inline qint64 utcMs(int year, int month, int day, int hour = 0, int minute = 0, int second = 0, int ms = 0)
{
    return QDateTime(QDate(year, month, day), QTime(hour, minute, second, ms), QTimeZone::utc())
            .toMSecsSinceEpoch();
}

// An ISO 8601 date and time with its zone ("2026-03-05T08:00:00.250Z"), as a test's data table
// writes one.
inline qint64 utcMs(const QString &iso)
{
    return QDateTime::fromString(iso, Qt::ISODate).toMSecsSinceEpoch();
}

// March 2026, the month the demo data and the finance tests are set in: [1 March, 1 April) UTC.
inline Period march2026()
{
    return Period{utcMs(2026, 3, 1), utcMs(2026, 4, 1)};
}

} // namespace verity::test

#pragma once
// How times and waits read in the console: one format everywhere.

#include <QString>

namespace verity {

// "2026-03-17 14:32:07" in the local time zone.
QString formatTime(qint64 msSinceEpoch);
// "45 s", "12 min", "3 h 05 min", "4 d 2 h".
QString formatWait(qint64 milliseconds);

} // namespace verity

namespace verity {

// Stored JSON made readable: indented, and a bare JSON string shown as its text.
QString prettyJson(const QString &json);

} // namespace verity

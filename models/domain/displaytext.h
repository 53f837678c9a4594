#pragma once
// How times and waits read in the console: one format everywhere.

#include <QString>

namespace verity {

// "2026-03-17 14:32:07" in the local time zone.
QString formatTime(qint64 msSinceEpoch);
// "45 s", "12 min", "3 h 05 min", "4 d 2 h".
QString formatWait(qint64 milliseconds);
// Finance states times in UTC: "2026-04-01", "2026-03-17 14:32 UTC", and for files other
// programs read "2026-03-17T14:32:07.000Z".
QString formatUtcDate(qint64 msSinceEpoch);
QString formatUtcTime(qint64 msSinceEpoch);
// "14:32:07.412": a replay step, where the milliseconds tell the story.
QString formatStepTime(qint64 msSinceEpoch);
QString isoUtcTime(qint64 msSinceEpoch);

} // namespace verity

namespace verity {

// Stored JSON made readable: indented, and a bare JSON string shown as its text.
QString prettyJson(const QString &json);

} // namespace verity

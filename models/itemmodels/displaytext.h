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

// One palette for outcomes in every view, the chart included: performed green, unknown amber,
// a duplicate effect red. A colour never stands alone: words or an icon say the same.
namespace palette {
inline constexpr const char *performed = "#135c2b";
inline constexpr const char *performedBackground = "#e6f4ea";
inline constexpr const char *alreadyPerformed = "#174e97";
inline constexpr const char *alreadyPerformedBackground = "#e8f0fe";
inline constexpr const char *notPerformed = "#3c4043";
inline constexpr const char *notPerformedBackground = "#ecedef";
inline constexpr const char *unknown = "#8a4b00";
inline constexpr const char *unknownBackground = "#fff4e5";
inline constexpr const char *unknownBorder = "#e37400";
inline constexpr const char *duplicate = "#9c1c14";
inline constexpr const char *duplicateBackground = "#fce8e6";
inline constexpr const char *duplicateBorder = "#d93025";
} // namespace palette

// Finance's colours: money owed or at risk (a duplicate's red), money settled (performed's
// green), money waiting on someone (unknown's amber).
inline constexpr const char *negativeMoneyColor = palette::duplicate;
inline constexpr const char *settledMoneyColor = palette::performed;
inline constexpr const char *pendingMoneyColor = palette::unknown;

} // namespace verity

namespace verity {

// Stored JSON made readable: indented, and a bare JSON string shown as its text.
QString prettyJson(const QString &json);

} // namespace verity

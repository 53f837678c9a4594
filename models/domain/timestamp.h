#pragma once
// Reading the times transcripts and provider exports write. Every reader of a time goes
// through here, so "2026-03-17T14:32:07Z" means the same instant to the importer and to
// finance.

#include <QString>

#include <optional>
#include <string_view>

namespace verity {

// RFC 3339 with a zone ("Z" or "+01:00"); fractions of a second allowed. Milliseconds since
// the epoch, or nullopt.
std::optional<qint64> parseTimestamp(const QString &text);

// The same for the common form read straight from a line's UTF-8 bytes, without making a
// QString. nullopt means "not the common form", not "not a time": ask parseTimestamp then.
std::optional<qint64> parseCommonTimestamp(std::string_view utf8);

// parseTimestamp, and also a time without a zone, taken as UTC (τ² writes them so).
std::optional<qint64> parseLooseTimestamp(const QString &text);

} // namespace verity

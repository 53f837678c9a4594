#pragma once
// `verity-bench import`: import throughput per transcript format, and the importer run alone
// (in a child process, so that its peak resident size is its own).

#include <QStringList>

namespace verity::bench {

// A synthetic file of `megabytes` MB per format imported into a fresh database; prints MB/s,
// tickets/s and the peak. Memory should stay flat as the size grows: run it at 50 and 2000.
int runImportThroughput(const QStringList &formats, qint64 megabytes);

// The child: imports `file` into `database` and prints "ms", "tickets", "events" and
// "rss_peak_kb" as "name value" lines.
int importOne(const QString &file, const QString &database);

} // namespace verity::bench

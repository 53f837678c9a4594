#pragma once
// verity-bench guard: what `verity guard` adds to each tools/call. The MCP SDK's Client calls the
// SDK's McpServer at a steady rate, reads and writes mixed, first directly and then through the
// guard on a new SQLite file and on a throwaway PostgreSQL cluster; the guard's added latency is
// the difference of the two at p50 and p99 (target: p99 under 5 ms), and its memory is sampled
// every second (--seconds 600 for ten minutes).

#include <QStringList>

namespace verity::bench {

struct GuardBenchOptions
{
    QStringList backends{QStringLiteral("sqlite"), QStringLiteral("postgresql")};
    int rate = 200; // calls a second
    int seconds = 20;
};

int runGuardBenchmark(const GuardBenchOptions &options);

} // namespace verity::bench

#pragma once
// verity-bench live: the telemetry receiver under load. A receiver runs in a child process on a
// SQLite file or a team database; several senders post OTLP trace exports to it as fast as it
// answers, and a probe sends, one at a time, a refund that timed out and times how long until
// a console's escalation queue model, fed by the database's change announcements, counts it.
// Prints spans per second sustained, the probe's p50/p99, and the receiver's memory over time.

#include <QStringList>

namespace verity::bench {

struct LiveOptions
{
    QStringList backends{QStringLiteral("sqlite"), QStringLiteral("postgresql")};
    int senders = 4;
    int seconds = 60;
    int spansPerRequest = 200;
};

int runLiveBenchmark(const LiveOptions &options);

// The child: `verity-bench collect-child LOCATION` receives on 127.0.0.1 (a free port, printed
// as "port N") until it is stopped.
int runCollectChild(int argc, char **argv, const QString &location);

} // namespace verity::bench

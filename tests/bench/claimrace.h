#pragma once
// The morning a team opens its queue at once: WORKERS processes, each claiming the next
// escalation nobody holds and recording a check on it, until none is left. It prints the claims
// per second and whether every escalation was settled exactly once, none skipped and none
// twice, with the audit chain intact. On PostgreSQL (a throwaway cluster of its own) each
// process is its own database user with the support role, as a team's consoles are.

#include <QString>

class QTextStream;

namespace verity::bench {

struct RaceOptions
{
    QString backend = QStringLiteral("sqlite"); // or "postgresql"
    int escalations = 2000;
    int workers = 8;
};

// 0 when every escalation was settled exactly once; 1 when not; 2 when the race could not run.
int runClaimRace(const RaceOptions &options, QTextStream &out);
// One racing process (`verity-bench race-worker LOCATION NAME`): prints "settled N".
int runRaceWorker(const QString &location, const QString &name);

} // namespace verity::bench

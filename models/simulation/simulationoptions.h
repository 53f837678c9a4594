#pragma once
// What `verity simulate` (and a test) asks for, turned into a run: generated tickets, the
// seeded fault schedule, the sandbox to use.

#include "simulationrun.h"

namespace verity {

struct SimulationOptions
{
    SimPolicy policy = SimPolicy::IntentKey;
    int tickets = 100;
    double faultRate = 0.05;
    quint32 seed = 1;
    QUrl sandboxUrl; // empty: the run starts a sandbox of its own
    QString apiKey = QStringLiteral("sk_test_sandbox");
    int concurrency = 48;
    bool keepEvents = false; // true to write transcripts
    RealTiming timing;
};

// Ticket ids read "T-SIM<seed>-AS-00001" (as shipped) or "T-SIM<seed>-IK-00001", so both
// policies' transcripts of one seed can be imported into one database side by side.
SimulationSetup simulationSetup(const SimulationOptions &options);

} // namespace verity

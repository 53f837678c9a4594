#include "simulationoptions.h"

#include "ticketgenerator.h"

#include <QRandomGenerator>

namespace verity {

SimulationSetup simulationSetup(const SimulationOptions &options)
{
    TicketGeneration generation;
    generation.seed = options.seed;
    generation.count = options.tickets;
    generation.ticketPrefix = QStringLiteral("T-SIM%1-%2")
                                      .arg(options.seed)
                                      .arg(options.policy == SimPolicy::AsShipped ? QStringLiteral("AS")
                                                                                  : QStringLiteral("IK"));
    if (!options.sandboxUrl.isEmpty()) {
        // A shared sandbox keeps earlier runs' accounts and payments: this run's ids must be
        // new there. Only ids change; no number depends on the suffix.
        static const QString alphabet = QStringLiteral("abcdefghijklmnopqrstuvwxyz0123456789");
        for (int i = 0; i < 8; ++i)
            generation.idSuffix +=
                    alphabet.at(int(QRandomGenerator::global()->bounded(int(alphabet.size()))));
    }
    const GeneratedTickets generated = generateTickets(generation);

    SimulationSetup setup;
    setup.policy = options.policy;
    setup.seed = options.seed;
    setup.sellers = generated.sellers;
    setup.tickets = generated.tickets;
    setup.faults = FaultSchedule(options.seed, options.faultRate);
    setup.sandboxUrl = options.sandboxUrl;
    setup.apiKey = options.apiKey;
    setup.timing = options.timing;
    setup.concurrency = options.concurrency;
    setup.keepEvents = options.keepEvents;
    return setup;
}

} // namespace verity

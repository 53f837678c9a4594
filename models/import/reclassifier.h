#pragma once
// Reads the stored calls of a tool again once the registry knows it: its class, intent key,
// amount and outcome, then each affected ticket's repeats and escalations. Nothing is
// re-imported; the raw results stored at import are read by the rules in force now.

#include "domain/expected.h"
#include "domain/registryselection.h"
#include "domain/ticketassessment.h"

namespace verity {

class ClassificationStore;

struct Reclassification
{
    qint64 calls = 0;
    qint64 tickets = 0;
    RepeatCounts repeats; // what changed in those tickets
};

// One transaction: all of the tool's calls, or none when the store fails.
Expected<Reclassification> reclassifyTool(ClassificationStore &store, const RegistrySelection &registries,
                                          const QString &tool);

} // namespace verity

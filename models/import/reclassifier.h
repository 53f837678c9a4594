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

// Every tool whose calls are stored unclassified, or of a class inferred, although the registry now
// knows it: a confirmation cut short between saving the registry and reading the calls again, or
// a registry file edited by hand. Until read again, a new call of it is keyed by the registry and
// the stored ones are not, and a retry between them would go uncaught. The tools read again.
Expected<QStringList> reclassifyKnownTools(ClassificationStore &store, const RegistrySelection &registries);

} // namespace verity

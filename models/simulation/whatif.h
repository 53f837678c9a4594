#pragma once
// The what-if run of one stored incident: its ticket again, in the simulator, against a
// sandbox of its own, with the same fault at the same moment, under one policy. The console
// runs it once per policy and shows the two side by side.
//
// "The same fault at the same moment": the refund run again is the first issue_refund call
// whose outcome was performed or unknown, with a positive amount (a call the provider refused
// moved no money, so it is not the refund). Attempts count from that call, and every one whose
// stored outcome is unknown (its result read as a timeout, an upstream error...) was one
// whose answer never came, so it meets accept-then-stall, in the same order: the provider
// commits the refund and the client times out. Every other attempt meets no fault. The
// first refund call happens at the incident's own time; the seller starts from the balance
// the ticket recorded.
//
// Blocking or not: runWhatIf blocks, running the event loop (a few hundred ms). A window
// that must not block runs whatIfSetup() in a SimulationRun, and on its finished() signal
// turns SimulationRun::result() into a WhatIfResult with whatIfResult().

#include "simulationrun.h"
#include "store/records.h"

namespace verity {

struct IncidentScenario
{
    SimTicket ticket; // the incident's ticket, order, item, amount and seller
    QList<int> stalledAttempts; // the refund attempts (1-based) that meet accept-then-stall
    QString faultNote; // in words: which call met which fault, and why
};

// Fails when the ticket has no issue_refund call that was performed or left unknown with an
// item and a positive amount in cents.
Expected<IncidentScenario> incidentScenario(const TicketDetail &ticket,
                                            const QList<TranscriptEntry> &transcript);

struct WhatIfResult
{
    SimPolicy policy = SimPolicy::IntentKey;
    QList<AuditedRefund> refunds; // at the provider, oldest first
    qint64 refundedCents = 0;
    qint64 openingBalanceCents = 0;
    qint64 balanceAfterCents = 0; // the opening balance minus the refunds at the provider
    QString currency;
    QString toldCustomer; // the final reply
    std::optional<SimEscalation> escalation; // none, or the escalate_to_human call and why
    QList<SimulatedEvent> events; // in time order, for listing
    QString problem; // see TicketOutcome::problem; empty when sound
};

SimulationSetup whatIfSetup(const IncidentScenario &scenario, SimPolicy policy,
                            const RealTiming &timing = {});
WhatIfResult whatIfResult(const IncidentScenario &scenario, const SimulationResult &result);
Expected<WhatIfResult> runWhatIf(const IncidentScenario &scenario, SimPolicy policy,
                                 const RealTiming &timing = {});

} // namespace verity

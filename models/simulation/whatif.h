#pragma once
// The what-if run of one stored incident: its ticket again, in the simulator, against a
// sandbox of its own, with the same fault at the same moment, under one policy. The console
// runs it once per policy and shows the two side by side.
//
// "The same fault at the same moment": the incident's money writes are counted in order;
// the first whose stored outcome is unknown (its result read as a timeout, an upstream
// error...) was the one whose answer never came, so that attempt meets accept-then-stall:
// the provider commits the refund and the client times out. Every other attempt meets no
// fault (in March, the retry went through). The first refund call happens at the incident's
// own time; the seller starts from the balance the ticket recorded.
//
// Blocking or not: runWhatIf blocks, running the event loop (a few hundred ms). A window
// that must not block runs whatIfSetup() in a SimulationRun, and on its finished() signal
// turns SimulationRun::result() into a WhatIfResult with whatIfResult().

#include "simulationrun.h"

#include "store/records.h"

namespace verity {

struct IncidentScenario
{
    SimTicket ticket;          // the incident's ticket, order, item, amount and seller
    QList<int> stalledAttempts; // the refund attempts (1-based) that meet accept-then-stall
    QString faultNote;          // in words: which call met which fault, and why
};

// Fails when the ticket has no issue_refund call with an order, an item and an amount.
Expected<IncidentScenario> incidentScenario(const TicketDetail &ticket, const QList<TranscriptEntry> &transcript);

struct WhatIfResult
{
    SimPolicy policy = SimPolicy::IntentKey;
    QList<AuditedRefund> refunds; // at the provider, oldest first
    qint64 refundedCents = 0;
    qint64 openingBalanceCents = 0;
    qint64 balanceAfterCents = 0; // the opening balance minus the refunds at the provider
    QString currency;
    QString toldCustomer;                   // the final reply
    std::optional<SimEscalation> escalation; // none, or the escalate_to_human call and why
    QList<SimulatedEvent> events;            // in time order, for listing
    QString problem;                         // see TicketOutcome::problem; empty when sound
};

SimulationSetup whatIfSetup(const IncidentScenario &scenario, SimPolicy policy, const RealTiming &timing = {});
WhatIfResult whatIfResult(const IncidentScenario &scenario, const SimulationResult &result);
Expected<WhatIfResult> runWhatIf(const IncidentScenario &scenario, SimPolicy policy, const RealTiming &timing = {});

} // namespace verity

#pragma once
// The numbers of a simulated run, counted from what the provider holds (refunds,
// duplicates, money at risk, balances) and from what the tickets did (calls, POSTs,
// unknowns, escalations). Text for a terminal, one number a line, and JSON.

#include "simulationrun.h"

#include <QJsonObject>

namespace verity {

struct SimulationSummary
{
    SimPolicy policy = SimPolicy::IntentKey;
    quint32 seed = 1;
    double faultRate = 0;
    int tickets = 0;
    qint64 writesAttempted = 0; // issue_refund calls
    qint64 httpPosts = 0; // refund POSTs sent
    qint64 refundsPerformed = 0; // at the provider
    qint64 duplicateRefunds = 0; // refunds beyond the first for one ticket's one intent
    int ticketsWithDuplicates = 0;
    qint64 unknownAnswers = 0; // tool answers "unknown"
    int unknownsEscalated = 0; // tickets whose write ended unknown and which the model escalated
    int escalations = 0; // tickets escalated, for any reason
    int retriesAfterUnknown = 0; // tickets with an issue_refund call after an "unknown": must be 0
    qint64 moneyAtRiskCents = 0; // the duplicates' amounts
    int sellers = 0;
    int sellersLeftNegative = 0;
    int problems = 0; // tickets the machinery failed (see TicketOutcome::problem)
    QString firstProblem;
};

SimulationSummary summarize(const SimulationResult &result);
// "tickets: 100\nwrites attempted: 104\n..."
QString summaryText(const SimulationSummary &summary);
QJsonObject summaryJson(const SimulationSummary &summary);

} // namespace verity

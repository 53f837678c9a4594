#pragma once
// Generated support tickets for the simulator: each one a buyer whose item arrived damaged,
// who declined a replacement, so the agent refunds the item price (under the $150 ceiling).
// Everything comes from a fixed small vocabulary and the seed: the same seed and count give
// the same sellers, orders, amounts, names and times.
//
// Payments: each order was paid in a checkout that took three times the order's total
// (the buyer's basket held more), so the provider can refund the item up to three times, as
// often as the simulated model can ask (ModelPolicy::maxCallsAfterFailure): duplicates show
// as money at the seller's expense, not as a refusal the incident never met.
//
// Sellers: one per five tickets. A seller's opening balance covers the refunds its tickets
// legitimately make, plus a margin of $1 to $150, as Ashcombe Furniture's $189 covered the
// $118 refund with $71 to spare: a duplicate larger than the margin leaves it negative.

#include "simulationtypes.h"

namespace verity {

struct TicketGeneration
{
    quint32 seed = 1;
    int count = 100;
    QString ticketPrefix = QStringLiteral("T-SIM"); // ticket ids are "<prefix>-00001", ...
    // Added to order, payment and seller ids, so that a second run against a shared sandbox
    // does not meet the first run's objects; empty against a sandbox of the run's own.
    QString idSuffix;
};

struct GeneratedTickets
{
    QList<SimSeller> sellers;
    QList<SimTicket> tickets; // each with its seller copied in
};

GeneratedTickets generateTickets(const TicketGeneration &generation);

} // namespace verity

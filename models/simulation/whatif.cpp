#include "whatif.h"

#include "modelpolicy.h"

#include "domain/jsontext.h"

namespace verity {

Expected<IncidentScenario> incidentScenario(const TicketDetail &ticket, const QList<TranscriptEntry> &transcript)
{
    IncidentScenario scenario;
    SimTicket &t = scenario.ticket;
    t.index = 0;
    t.ticketId = ticket.row.extId;
    t.openedAt = ticket.row.openedAt;
    t.subject = ticket.row.subject;
    t.customerName = ticket.order.customerName;
    t.customerEmail = ticket.order.customerEmail;
    t.orderId = ticket.order.id;
    t.paymentIntent = ticket.order.paymentIntent.isEmpty() ? QStringLiteral("pi_") + ticket.order.id
                                                           : ticket.order.paymentIntent;
    t.currency = ticket.order.currency.isEmpty() ? QStringLiteral("USD") : ticket.order.currency;
    t.seller = SimSeller{ticket.sellerId, ticket.row.sellerName, ticket.sellerBalanceCents.value_or(0),
                         ticket.sellerBalanceAsOf};

    int refundCalls = 0;
    const TranscriptEntry *firstRefund = nullptr;
    for (const TranscriptEntry &entry : transcript) {
        if (!entry.isToolCall) {
            if (entry.kind == MessageKind::Customer && t.customerText.isEmpty())
                t.customerText = entry.text;
            continue;
        }
        if (entry.call.tool != u"issue_refund")
            continue;
        ++refundCalls;
        if (!firstRefund)
            firstRefund = &entry;
        if (scenario.stalledAttempts.isEmpty() && entry.call.outcome == Outcome::Unknown) {
            scenario.stalledAttempts.append(refundCalls);
            scenario.faultNote = QStringLiteral("refund call %1 (attempt %2) got no answer in the incident (%3): that "
                                                "attempt meets accept-then-stall; every other attempt meets no fault")
                                     .arg(entry.call.callExtId)
                                     .arg(refundCalls)
                                     .arg(entry.call.rawResult);
        }
    }
    if (!firstRefund)
        return makeError(QStringLiteral("%1 has no issue_refund call to run again").arg(t.ticketId));
    const nlohmann::json arguments = nlohmann::json::parse(firstRefund->call.argumentsJson.toStdString(), nullptr, false);
    if (!arguments.is_object() || !arguments.contains("item_id") || !arguments.contains("amount_cents")
        || !arguments["amount_cents"].is_number_integer() || !arguments["item_id"].is_string())
        return makeError(QStringLiteral("%1: the first issue_refund call (%2) names no item and amount in cents")
                             .arg(t.ticketId, firstRefund->call.callExtId));
    t.itemId = fromUtf8String(arguments["item_id"].get<std::string>());
    t.amountCents = arguments["amount_cents"].get<qint64>();
    for (const OrderItemRecord &item : ticket.order.items) {
        if (item.id == t.itemId)
            t.itemTitle = item.title;
    }
    if (t.itemTitle.isEmpty())
        t.itemTitle = t.itemId;
    // The same checkout rule as generated tickets (ticketgenerator.h): the provider never
    // refuses a repeat for want of money on the payment, as it did not in March.
    t.paymentCents = t.amountCents * ModelPolicy::maxCallsAfterFailure;
    t.firstRefundAt = firstRefund->call.calledAt;
    if (scenario.faultNote.isEmpty())
        scenario.faultNote = QStringLiteral("no refund call of the incident went unanswered: no fault");
    return scenario;
}

SimulationSetup whatIfSetup(const IncidentScenario &scenario, SimPolicy policy, const RealTiming &timing)
{
    SimulationSetup setup;
    setup.policy = policy;
    setup.seed = 1;
    setup.sellers = {scenario.ticket.seller};
    setup.tickets = {scenario.ticket};
    setup.tickets.first().index = 0;
    setup.faults = FaultSchedule::fixed(scenario.stalledAttempts);
    setup.timing = timing;
    setup.concurrency = 1;
    setup.keepEvents = true;
    return setup;
}

WhatIfResult whatIfResult(const IncidentScenario &scenario, const SimulationResult &result)
{
    WhatIfResult whatIf;
    whatIf.policy = result.policy;
    whatIf.currency = scenario.ticket.currency;
    whatIf.openingBalanceCents = scenario.ticket.seller.openingBalanceCents;
    whatIf.balanceAfterCents = whatIf.openingBalanceCents;
    if (result.tickets.isEmpty())
        return whatIf;
    const TicketOutcome &ticket = result.tickets.first();
    whatIf.refunds = ticket.refunds;
    for (const AuditedRefund &refund : ticket.refunds)
        whatIf.refundedCents += refund.amountCents;
    whatIf.balanceAfterCents -= whatIf.refundedCents;
    whatIf.toldCustomer = ticket.finalReply;
    whatIf.escalation = ticket.escalation;
    whatIf.events = ticket.events;
    whatIf.problem = ticket.problem;
    return whatIf;
}

Expected<WhatIfResult> runWhatIf(const IncidentScenario &scenario, SimPolicy policy, const RealTiming &timing)
{
    Expected<SimulationResult> result = runSimulation(whatIfSetup(scenario, policy, timing));
    if (!result)
        return result.error();
    return whatIfResult(scenario, *result);
}

} // namespace verity

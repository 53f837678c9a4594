#include "whatif.h"

#include "domain/jsontext.h"
#include "domain/money.h"
#include "modelpolicy.h"

namespace verity {

Expected<IncidentScenario> incidentScenario(const TicketDetail &ticket,
                                            const QList<TranscriptEntry> &transcript)
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

    // The refund to make is the first call the incident performed or left unknown, with a
    // positive amount: a call the provider turned away (a negative amount, say) moved no
    // money; replaying it would refund nothing and tell the customer a wrong amount.
    QList<const TranscriptEntry *> refundCalls;
    qsizetype chosen = -1;
    qint64 amountCents = 0;
    QString itemId;
    for (const TranscriptEntry &entry : transcript) {
        if (!entry.isToolCall) {
            if (entry.kind == MessageKind::Customer && t.customerText.isEmpty())
                t.customerText = entry.text;
            continue;
        }
        if (entry.call.tool != u"issue_refund")
            continue;
        refundCalls.append(&entry);
        if (chosen >= 0
            || (entry.call.outcome != Outcome::Performed && entry.call.outcome != Outcome::Unknown))
            continue;
        const nlohmann::json arguments =
                nlohmann::json::parse(entry.call.argumentsJson.toStdString(), nullptr, false);
        if (!arguments.is_object() || !arguments.contains("item_id") || !arguments["item_id"].is_string()
            || !arguments.contains("amount_cents") || !arguments["amount_cents"].is_number_integer()
            || arguments["amount_cents"].get<qint64>() <= 0)
            continue;
        chosen = refundCalls.size() - 1;
        itemId = fromUtf8String(arguments["item_id"].get<std::string>());
        amountCents = arguments["amount_cents"].get<qint64>();
    }
    if (refundCalls.isEmpty())
        return makeError(QStringLiteral("%1 has no issue_refund call to run again").arg(t.ticketId));
    if (chosen < 0)
        return makeError(
                QStringLiteral("%1: no issue_refund call was performed or left unknown with an item and a "
                               "positive amount in cents, so there is no refund to run again")
                        .arg(t.ticketId));
    const TranscriptEntry *firstRefund = refundCalls.at(chosen);

    // Attempts count from the refund to make. Every one whose answer never came (its outcome
    // unknown: a timeout, an upstream error) meets accept-then-stall, in order.
    QStringList stalledCalls;
    for (qsizetype i = chosen; i < refundCalls.size(); ++i) {
        const ToolCallRow &call = refundCalls.at(i)->call;
        if (call.outcome != Outcome::Unknown)
            continue;
        const int attempt = int(i - chosen) + 1;
        scenario.stalledAttempts.append(attempt);
        stalledCalls.append(
                QStringLiteral("%1 (attempt %2: %3)").arg(call.callExtId).arg(attempt).arg(call.rawResult));
    }
    QStringList note;
    if (chosen > 0) {
        QStringList skipped;
        for (qsizetype i = 0; i < chosen; ++i) {
            const ToolCallRow &call = refundCalls.at(i)->call;
            skipped.append(QStringLiteral("%1 (%2)").arg(call.callExtId,
                                                         call.outcome ? outcomeLabel(*call.outcome).toLower()
                                                                      : QStringLiteral("not classified")));
        }
        note.append(
                QStringLiteral(
                        "the refund run again is %1's, %2: the first the incident performed or left unknown; "
                        "the earlier issue_refund %3 %4 %5 not the refund and not run again")
                        .arg(firstRefund->call.callExtId, formatMoney(amountCents, t.currency),
                             skipped.size() > 1 ? QStringLiteral("calls") : QStringLiteral("call"),
                             skipped.join(QStringLiteral(", ")),
                             skipped.size() > 1 ? QStringLiteral("are") : QStringLiteral("is")));
    }
    if (stalledCalls.isEmpty()) {
        note.append(QStringLiteral("no refund call of the incident went unanswered: no fault"));
    } else {
        note.append(
                QStringLiteral("refund call%1 %2 got no answer in the incident: %3 accept-then-stall, in the "
                               "same order; every other attempt meets no fault")
                        .arg(stalledCalls.size() > 1 ? QStringLiteral("s") : QString(),
                             stalledCalls.join(QStringLiteral(", ")),
                             stalledCalls.size() > 1 ? QStringLiteral("those attempts meet")
                                                     : QStringLiteral("that attempt meets")));
    }
    scenario.faultNote = note.join(QStringLiteral("; "));

    t.itemId = itemId;
    t.amountCents = amountCents;
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

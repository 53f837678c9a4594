#include "simulationsummary.h"

#include "domain/money.h"

#include <QHash>

namespace verity {

SimulationSummary summarize(const SimulationResult &result)
{
    SimulationSummary summary;
    summary.policy = result.policy;
    summary.seed = result.seed;
    summary.faultRate = result.faultRate;
    summary.tickets = int(result.tickets.size());
    summary.sellers = int(result.sellers.size());
    QHash<QString, qint64> balances;
    for (const SimSeller &seller : result.sellers)
        balances.insert(seller.id, seller.openingBalanceCents);
    for (const TicketOutcome &ticket : result.tickets) {
        summary.writesAttempted += ticket.refundCalls;
        summary.httpPosts += ticket.postsSent;
        summary.refundsPerformed += ticket.refunds.size();
        // Every ticket asks for one refund of one item: whatever the provider holds beyond the
        // first is a duplicate payout.
        if (ticket.refunds.size() > 1) {
            ++summary.ticketsWithDuplicates;
            summary.duplicateRefunds += ticket.refunds.size() - 1;
            for (qsizetype i = 1; i < ticket.refunds.size(); ++i)
                summary.moneyAtRiskCents += ticket.refunds.at(i).amountCents;
        }
        summary.unknownAnswers += ticket.unknownAnswers;
        if (ticket.unknownAnswers > 0 && ticket.escalation)
            ++summary.unknownsEscalated;
        if (ticket.escalation)
            ++summary.escalations;
        if (ticket.retriedAfterUnknown)
            ++summary.retriesAfterUnknown;
        if (!ticket.problem.isEmpty()) {
            if (summary.problems++ == 0)
                summary.firstProblem = QStringLiteral("%1: %2").arg(ticket.ticketId, ticket.problem);
        }
    }
    for (const TicketOutcome &ticket : result.tickets) {
        for (const AuditedRefund &refund : ticket.refunds)
            balances[ticket.sellerId] -= refund.amountCents;
    }
    for (auto it = balances.cbegin(); it != balances.cend(); ++it) {
        if (it.value() < 0)
            ++summary.sellersLeftNegative;
    }
    return summary;
}

QString summaryText(const SimulationSummary &s)
{
    QString text;
    const auto line = [&text](const QString &name, const QString &value) {
        text += name + QStringLiteral(": ") + value + u'\n';
    };
    line(QStringLiteral("policy"), simPolicyId(s.policy));
    line(QStringLiteral("seed"), QString::number(s.seed));
    line(QStringLiteral("fault rate"), QString::number(s.faultRate));
    line(QStringLiteral("tickets"), QString::number(s.tickets));
    line(QStringLiteral("writes attempted"), QString::number(s.writesAttempted));
    line(QStringLiteral("HTTP POSTs sent"), QString::number(s.httpPosts));
    line(QStringLiteral("refunds performed"), QString::number(s.refundsPerformed));
    line(QStringLiteral("duplicate refunds"), QString::number(s.duplicateRefunds));
    line(QStringLiteral("tickets with duplicates"), QString::number(s.ticketsWithDuplicates));
    line(QStringLiteral("unknowns escalated"), QString::number(s.unknownsEscalated));
    line(QStringLiteral("escalations"), QString::number(s.escalations));
    line(QStringLiteral("money at risk"), formatMoney(s.moneyAtRiskCents));
    line(QStringLiteral("sellers left negative"),
         QStringLiteral("%1 of %2").arg(s.sellersLeftNegative).arg(s.sellers));
    if (s.problems > 0)
        line(QStringLiteral("problems"),
             QStringLiteral("%1 (first: %2)").arg(s.problems).arg(s.firstProblem));
    return text;
}

QJsonObject summaryJson(const SimulationSummary &s)
{
    QJsonObject json{{QStringLiteral("policy"), simPolicyId(s.policy)},
                     {QStringLiteral("seed"), qint64(s.seed)},
                     {QStringLiteral("fault_rate"), s.faultRate},
                     {QStringLiteral("tickets"), s.tickets},
                     {QStringLiteral("writes_attempted"), s.writesAttempted},
                     {QStringLiteral("http_posts"), s.httpPosts},
                     {QStringLiteral("refunds_performed"), s.refundsPerformed},
                     {QStringLiteral("duplicate_refunds"), s.duplicateRefunds},
                     {QStringLiteral("tickets_with_duplicates"), s.ticketsWithDuplicates},
                     {QStringLiteral("unknown_answers"), s.unknownAnswers},
                     {QStringLiteral("unknowns_escalated"), s.unknownsEscalated},
                     {QStringLiteral("escalations"), s.escalations},
                     {QStringLiteral("retries_after_unknown"), s.retriesAfterUnknown},
                     {QStringLiteral("money_at_risk_cents"), s.moneyAtRiskCents},
                     {QStringLiteral("money_at_risk"), formatMoney(s.moneyAtRiskCents)},
                     {QStringLiteral("sellers"), s.sellers},
                     {QStringLiteral("sellers_left_negative"), s.sellersLeftNegative},
                     {QStringLiteral("problems"), s.problems}};
    if (!s.firstProblem.isEmpty())
        json.insert(QStringLiteral("first_problem"), s.firstProblem);
    return json;
}

} // namespace verity

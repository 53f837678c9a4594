#include "whatifcomparison.h"

#include "domain/money.h"
#include "store/store.h"

namespace verity {

WhatIfComparison::WhatIfComparison(TicketReads &store, QObject *parent)
    : QAbstractTableModel(parent)
    , m_store(store)
{}

Expected<void> WhatIfComparison::setTicket(qint64 ticketId)
{
    Expected<TicketDetail> ticket = m_store.existingTicket(ticketId);
    if (!ticket)
        return ticket.error();
    Expected<QList<TranscriptEntry>> transcript = m_store.transcript(ticketId);
    if (!transcript)
        return transcript.error();
    Expected<IncidentScenario> scenario = incidentScenario(*ticket, *transcript);
    if (!scenario)
        return makeError(
                QStringLiteral("%1 cannot be run again: %2").arg(ticket->row.extId, scenario.message()));
    beginResetModel();
    m_ticketExtId = ticket->row.extId;
    m_scenario = *scenario;
    m_results = {};
    m_error.clear();
    endResetModel();
    return {};
}

bool WhatIfComparison::isRunning() const
{
    return m_runs[0] || m_runs[1];
}

void WhatIfComparison::run()
{
    if (!m_scenario || isRunning())
        return;
    beginResetModel();
    m_results = {};
    m_error.clear();
    endResetModel();
    for (SimPolicy policy : {SimPolicy::AsShipped, SimPolicy::IntentKey}) {
        auto *run = new SimulationRun(whatIfSetup(*m_scenario, policy, m_timing), this);
        m_runs[index(policy)] = run;
        connect(run, &SimulationRun::finished, this, [this, policy] { runFinished(policy); });
        run->start();
    }
}

void WhatIfComparison::runFinished(SimPolicy policy)
{
    SimulationRun *run = m_runs[index(policy)];
    if (!run)
        return;
    Expected<SimulationResult> result = run->result();
    if (result)
        m_results[index(policy)] = whatIfResult(*m_scenario, *result);
    else
        m_error = QStringLiteral("%1: %2").arg(simPolicyLabel(policy), result.message());
    m_runs[index(policy)] = nullptr;
    run->deleteLater();
    emit dataChanged(createIndex(0, index(policy)), createIndex(RowCount - 1, index(policy)));
    if (!isRunning())
        emit finished();
}

QString WhatIfComparison::cell(const WhatIfResult &result, int row) const
{
    switch (row) {
    case RefundsRow: {
        QStringList ids;
        for (const AuditedRefund &refund : result.refunds)
            ids.append(refund.id);
        const QString count =
                result.refunds.size() == 1 ? tr("1 refund") : tr("%1 refunds").arg(result.refunds.size());
        return tr("%1, %2 in all").arg(count, formatMoney(result.refundedCents, result.currency))
                + (ids.isEmpty() ? QString() : QStringLiteral("\n") + ids.join(QStringLiteral(", ")));
    }
    case BalanceRow:
        return tr("%1 (from %2)")
                .arg(formatMoney(result.balanceAfterCents, result.currency),
                     formatMoney(result.openingBalanceCents, result.currency));
    case ToldRow:
        return result.toldCustomer.isEmpty() ? tr("(nothing)") : result.toldCustomer;
    case EscalationRow:
        return result.escalation
                ? tr("escalate_to_human (%1): %2").arg(result.escalation->callId, result.escalation->reason)
                : tr("None");
    }
    return {};
}

int WhatIfComparison::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : RowCount;
}

int WhatIfComparison::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WhatIfComparison::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= RowCount || index.column() >= ColumnCount)
        return {};
    const std::optional<WhatIfResult> &result = m_results[index.column()];
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        if (result)
            return cell(*result, index.row());
        return m_runs[index.column()] ? tr("Running…") : QString();
    }
    if (role == HarmRole)
        return result
                && ((index.row() == RefundsRow && result->refunds.size() > 1)
                    || (index.row() == BalanceRow && result->balanceAfterCents < 0));
    return {};
}

QVariant WhatIfComparison::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Horizontal) {
        switch (section) {
        case AsShippedColumn:
            return tr("As shipped: a fresh key per attempt, a timeout reported as failed");
        case IntentKeyColumn:
            return tr("Intent key: the safe runtime");
        }
        return {};
    }
    switch (section) {
    case RefundsRow:
        return tr("Refunds performed");
    case BalanceRow:
        return tr("Seller's balance after");
    case ToldRow:
        return tr("The customer was told");
    case EscalationRow:
        return tr("Escalation raised");
    }
    return {};
}

} // namespace verity

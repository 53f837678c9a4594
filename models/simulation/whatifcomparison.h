#pragma once
// The what-if of one stored ticket, both policies side by side: one row per thing a trainer
// compares (refunds performed, the seller's balance after, what the customer was told, the
// escalation raised), one column per policy. run() starts both simulations (each against a
// sandbox of its own on loopback) and the columns fill in as they finish.

#include "whatif.h"

#include <QAbstractTableModel>
#include <QPointer>

#include <array>
#include <optional>

namespace verity {

class TicketReads;

class WhatIfComparison : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Row { RefundsRow, BalanceRow, ToldRow, EscalationRow, RowCount };
    enum Column { AsShippedColumn, IntentKeyColumn, ColumnCount };
    // True in a cell where the run did harm (a second refund, a negative balance): the view
    // shows it in the theme's colour for it.
    static constexpr int HarmRole = Qt::UserRole + 1;

    explicit WhatIfComparison(TicketReads &store, QObject *parent = nullptr);

    // Reads the ticket and works out its scenario; the error says why it cannot be re-run.
    Expected<void> setTicket(qint64 ticketId);
    const std::optional<IncidentScenario> &scenario() const { return m_scenario; }
    QString ticketExtId() const { return m_ticketExtId; }

    void run(); // both policies; finished() when both are done
    bool isRunning() const;
    const std::optional<WhatIfResult> &result(SimPolicy policy) const { return m_results[index(policy)]; }
    QString error() const { return m_error; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void finished();

private:
    static int index(SimPolicy policy)
    {
        return policy == SimPolicy::AsShipped ? AsShippedColumn : IntentKeyColumn;
    }
    using QAbstractTableModel::index;
    void runFinished(SimPolicy policy);
    QString cell(const WhatIfResult &result, int row) const;

    TicketReads &m_store;
    QString m_ticketExtId;
    std::optional<IncidentScenario> m_scenario;
    std::array<std::optional<WhatIfResult>, 2> m_results;
    std::array<QPointer<SimulationRun>, 2> m_runs;
    RealTiming m_timing;
    QString m_error;
};

} // namespace verity

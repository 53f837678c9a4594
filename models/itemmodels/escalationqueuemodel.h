#pragma once
// Every unknown write waiting for a person, oldest first, paged like the ticket queue. The
// count is what the window keeps in sight at all times.

#include "rowcache.h"
#include "store/records.h"

#include <QAbstractTableModel>
#include <QTimer>

#include <functional>

namespace verity {

class EscalationStore;

class EscalationQueueModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        NumberColumn, // the escalation's number, as the command line takes it
        WaitingColumn,
        AmountColumn,
        TicketColumn,
        OrderColumn,
        ToolColumn,
        CallColumn,
        ClaimColumn,
        SinceColumn,
        ColumnCount
    };
    enum Role { EscalationIdRole = Qt::UserRole + 1, TicketIdRole, CallIdRole, ClaimHolderRole };

    explicit EscalationQueueModel(EscalationStore &store, QObject *parent = nullptr);

    // Where "now" comes from, for the waiting time (tests and screenshots fix it).
    void setClock(std::function<qint64()> nowMs);
    // Who this console's person is, so that their own claims read "you, until …".
    void setOperatorName(std::function<QString()> name);
    void refresh();
    qint64 totalCount() const { return m_count; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void countChanged(qint64 count);
    void errorOccurred(const QString &message);

private:
    void reload();
    // The earliest end among the claims held in `rows` (or already known), with a timer on it:
    // a claim that lapses leaves the view then, with nothing else happening.
    void noteClaimEnds(const QList<EscalationRow> &rows) const;
    void claimsLapsed();
    // A claim its holder's console renews, whose renewal has not come well after it was due.
    bool renewalStopped(const EscalationRow &row) const;
    static QString clockTime(qint64 ms);

    EscalationStore &m_store;
    qint64 m_count = 0;
    std::function<qint64()> m_now;
    std::function<QString()> m_operatorName;
    // A page joins each escalation to its ticket, call and order: 64 rows fill a tall dock and
    // cost a quarter of the default page at the console's opening.
    mutable RowCache<EscalationRow> m_cache{64};
    mutable QTimer m_lapse; // fires at the earliest held claim's end, or its overdue renewal
    mutable qint64 m_nextLapse = 0; // that end, 0 for none
    QTimer m_waitingClock; // the waiting times move on
};

} // namespace verity

#pragma once
// The ticket queue as a table model. It counts the matching tickets once and loads rows a
// page at a time as the view scrolls to them: opening a million tickets costs one count and
// one page. Filtering, searching and sorting are done by the store, never in memory.

#include "rowcache.h"
#include "store/records.h"

#include <QAbstractTableModel>

namespace verity {

class Store;

class TicketQueueModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { AttentionColumn, TicketColumn, OrderColumn, SellerColumn, OpenedColumn, WritesColumn, OutcomeColumn,
                  ColumnCount };
    enum Role {
        TicketIdRole = Qt::UserRole + 1, // qint64 database id
        OutcomeIdRole,                   // "unknown", ... or empty when the ticket has no write
        NeedsAttentionRole,
        RepeatedIntentRole,
    };

    explicit TicketQueueModel(Store &store, QObject *parent = nullptr);

    TicketQuery query() const { return m_query; }
    void setFilter(TicketFilter filter);
    void setSearch(const QString &text);
    // Re-reads the count and drops cached rows (after an import, say).
    void refresh();
    qint64 totalCount() const { return m_count; }
    // The row showing `ticketId` among the rows already loaded, if it is there. Loads nothing:
    // on a large queue, finding a ticket's row would mean reading the queue up to it.
    std::optional<int> rowOfTicket(qint64 ticketId) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

signals:
    void countChanged(qint64 count);
    void errorOccurred(const QString &message);

private:
    void reload();
    const TicketRow *rowAt(int row) const;

    Store &m_store;
    TicketQuery m_query;
    qint64 m_count = 0;
    mutable RowCache<TicketRow> m_cache;
};

} // namespace verity

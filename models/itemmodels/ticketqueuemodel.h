#pragma once
// The ticket queue as a table model. It reads the matching tickets' count (a kept total, or
// a count over the search's index ranges) and loads rows a page at a time as the view scrolls
// to them, each page entered at a known ticket near it (AnchoredRowCache): opening a million
// tickets costs one read and one page, and so does jumping to the middle or the end. While the
// window is idle it walks the queue's order to place anchors along it. Filtering, searching
// and sorting are done by the store, never in memory.

#include "anchoredrowcache.h"
#include "store/records.h"

#include <QAbstractTableModel>
#include <QTimer>

namespace verity {

class TicketReads;

class TicketQueueModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        AttentionColumn,
        TicketColumn,
        OrderColumn,
        SellerColumn,
        OpenedColumn,
        WritesColumn,
        OutcomeColumn,
        ColumnCount
    };
    enum Role {
        TicketIdRole = Qt::UserRole + 1, // qint64 database id
        OutcomeIdRole, // "unknown", ..., "duplicate_effect", or empty when the ticket has no write
        NeedsAttentionRole,
        RepeatedIntentRole,
        StateRole, // int(TicketState): the worst thing on the ticket, as the Attention column says it
    };

    explicit TicketQueueModel(TicketReads &store, QObject *parent = nullptr);

    TicketQuery query() const { return m_query; }
    void setFilter(TicketFilter filter);
    void setSearch(const QString &text);
    // Re-reads the count and drops cached rows (after an import, say).
    void refresh();
    qint64 totalCount() const { return m_count; }
    // Whether the idle walk along the queue's order has finished, or has nothing to do (tests and
    // the benchmark). It waits for a view to read the queue's first page.
    bool anchorsWalked() const { return !m_walk.isActive() && !m_walkWaits; }
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
    // The idle walk along the queue's order, when it is worth its reads.
    void startWalk();
    void reload();
    const TicketRow *rowAt(int row) const;

    TicketReads &m_store;
    TicketQuery m_query;
    qint64 m_count = 0;
    mutable AnchoredRowCache<TicketRow, TicketAnchor> m_cache;
    QTimer m_walk; // one slice of the walk each time the event loop is idle
    bool m_walkWaits = false; // for the first page read
};

} // namespace verity

#pragma once
// The audit log, oldest first, paged like the other queues: who did what, when, to which
// escalation, and the hash of the evidence they acted on.

#include "rowcache.h"
#include "store/records.h"

#include <QAbstractTableModel>

#include <optional>

namespace verity {

class AuditStore;

class AuditLogModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        SeqColumn,
        TimeColumn,
        OperatorColumn,
        ActionColumn,
        EscalationColumn,
        DetailColumn,
        EvidenceColumn,
        ColumnCount
    };
    enum Role { SeqRole = Qt::UserRole + 1, EscalationIdRole, EvidenceHashRole, EntryHashRole };

    explicit AuditLogModel(AuditStore &store, QObject *parent = nullptr);

    void refresh();
    qint64 totalCount() const { return m_count; }
    // Why the last refresh could not count the entries; empty when it could.
    const QString &readProblem() const { return m_readProblem; }
    // The row showing entry `seq`, or -1 (entries are in seq order, so a binary search over
    // the pages finds it without reading the whole log).
    int rowOfSeq(qint64 seq) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void countChanged(qint64 count);
    void errorOccurred(const QString &message);

private:
    // The number of entries; none, said through errorOccurred, when it cannot be read.
    std::optional<qint64> readCount();

    AuditStore &m_store;
    void apply(qint64 count); // a count read: the rows are read again from it
    qint64 m_count = 0;
    QString m_readProblem;
    mutable RowCache<AuditEntry> m_cache;
};

// "3f9a0c12…": enough of a hash to tell entries apart at a glance; the full one is in the tooltip.
QString shortHash(const QString &hash);

} // namespace verity

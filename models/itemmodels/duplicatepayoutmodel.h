#pragma once
// The duplicate payouts over every refund Verity knows of (and, once fetched, the provider's
// own refunds), one row per duplicate, with finance's recovery mark beside it.

#include "domain/expected.h"
#include "finance/duplicatepayouts.h"

#include <QAbstractTableModel>
#include <QHash>

#include <optional>

namespace verity {

class PayoutRecoveryStore;

class DuplicatePayoutModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        SellerColumn,
        OrderColumn,
        TicketsColumn,
        RefundsColumn,
        AtRiskColumn,
        TimeBetweenColumn,
        BasisColumn,
        RecoveryColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // cents, ms, counts, text
        KeyRole, // DuplicatePayout::key
    };

    // Empty until refresh().
    explicit DuplicatePayoutModel(PayoutRecoveryStore &store, QObject *parent = nullptr);

    // Refunds of the same seller, order and amount this close together count as one
    // duplicate where no intent key is known. Re-reads.
    void setWindowSeconds(int seconds);
    int windowSeconds() const { return int(m_windowMs / 1000); }
    // The provider's refunds, to find those no payout of Verity's accounts for. Re-reads.
    void setStatement(std::optional<ProviderStatement> statement);
    bool hasStatement() const { return m_statement.has_value(); }

    void refresh();
    const DuplicatePayout *duplicate(int row) const;
    std::optional<PayoutMark> mark(int row) const;
    int rowOfKey(const QString &key) const; // -1 when absent
    const QList<DuplicatePayout> &duplicates() const { return m_duplicates; }
    const QList<PayoutMark> &marks() const { return m_marks; } // every mark, oldest first
    // Marks the duplicate of `key` (with its audit entry) and reads the marks again.
    Expected<PayoutMark> markDuplicate(const QString &key, RecoveryState state, const QString &note,
                                       const QString &operatorName, qint64 atMs);
    // "5 duplicate payouts, $728.00 at risk", and how many are marked.
    QString summary() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void errorOccurred(const QString &message);

private:
    PayoutRecoveryStore &m_store;
    qint64 m_windowMs = defaultDuplicateWindowMs;
    std::optional<ProviderStatement> m_statement;
    QList<DuplicatePayout> m_duplicates;
    QList<PayoutMark> m_marks;
    QHash<QString, PayoutMark> m_current;
};

} // namespace verity

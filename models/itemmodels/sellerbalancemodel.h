#pragma once
// Every seller with the latest balance a transcript reported and what Verity's refunds add up
// to: the finance view's first table. A negative balance is flagged (colour, bold, tooltip):
// the seller owes the platform, which is where a duplicate refund ends up.

#include "store/financerecords.h"

#include <QAbstractTableModel>

namespace verity {

class Store;

class SellerBalanceModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        SellerColumn,
        BalanceColumn,
        AsOfColumn,
        PerformedColumn, // refunded (performed)
        UnknownColumn,   // may have moved (unknown)
        RefundsColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // cents for money, ms for dates, counts, names
        SellerIdRole,
    };

    // Empty until refresh(): the window reads it when the finance view is first shown.
    explicit SellerBalanceModel(Store &store, QObject *parent = nullptr);

    void refresh();
    const SellerBalance *seller(int row) const;
    int rowOfSeller(const QString &sellerId) const; // -1 when absent
    QStringList sellerIds() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void errorOccurred(const QString &message);

private:
    Store &m_store;
    QList<SellerBalance> m_sellers;
};

// "2026-04-01": the date in UTC, as finance states periods.
QString formatUtcDate(qint64 msSinceEpoch);
// "2026-03-17 14:32 UTC".
QString formatUtcTime(qint64 msSinceEpoch);
// The red finance uses for money owed and money at risk.
inline constexpr const char *negativeMoneyColor = "#9c1c14";

} // namespace verity

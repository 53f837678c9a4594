#pragma once
// Every seller with the latest balance a transcript reported and what Verity's refunds add up
// to: the finance view's first table. A negative balance is flagged (colour, bold, tooltip):
// the seller owes the platform, which is where a duplicate refund ends up.

#include "domain/displaytext.h"
#include "domain/expected.h"
#include "store/financerecords.h"

#include <QAbstractTableModel>

namespace verity {

class FinanceStore;

class SellerBalanceModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        SellerColumn,
        BalanceColumn,
        AsOfColumn,
        PerformedColumn, // refunded (performed)
        UnknownColumn, // may have moved (unknown)
        RefundsColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // cents for money, ms for dates, counts, names
        SellerIdRole,
    };

    // Empty until refresh(): the window reads it when the finance view is first shown.
    explicit SellerBalanceModel(FinanceStore &store, QObject *parent = nullptr);

    void refresh();
    const SellerBalance *seller(int row) const;
    int rowOfSeller(const QString &sellerId) const; // -1 when absent
    QStringList sellerIds() const;
    // The balances transcripts reported for the seller and its refunds, for the chart.
    Expected<SellerHistory> history(const QString &sellerId) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void errorOccurred(const QString &message);

private:
    FinanceStore &m_store;
    QList<SellerBalance> m_sellers;
};

} // namespace verity

#pragma once
// A reconciliation of Verity's ledger against the provider for a period, one row per refund,
// filtered to one category and one seller, or shown whole. The model reads the ledger for the statement's
// period itself and reconciles again on refresh(), so a resolution made meanwhile shows.

#include "domain/expected.h"
#include "finance/reconciliation.h"

#include <QAbstractTableModel>

#include <functional>
#include <optional>

namespace verity {

class FinanceStore;

class ReconciliationModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        CategoryColumn,
        SellerColumn,
        TicketColumn, // "T-20260317-0412 / c4"
        RefundIdColumn,
        LedgerColumn,
        ProviderColumn,
        DifferenceColumn,
        BalanceShareColumn, // the row's part of its seller's balance difference
        NoteColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // cents for money, text otherwise
        CategoryRole, // ReconCategory as int
    };

    explicit ReconciliationModel(FinanceStore &store, QObject *parent = nullptr);

    // Reconciles the store's payouts in the statement's period against it.
    Expected<void> setStatement(const ProviderStatement &statement);
    // Shows a reconciliation made elsewhere (tests, the command line's).
    void setReconciliation(const Reconciliation &reconciliation);
    void refresh(); // reconciles the same statement again; nothing without one
    bool hasReconciliation() const { return m_reconciliation.has_value(); }
    const std::optional<Reconciliation> &reconciliation() const { return m_reconciliation; }

    void setCategoryFilter(std::optional<ReconCategory> category); // nullopt: every row
    std::optional<ReconCategory> categoryFilter() const { return m_filter; }
    // Only the refunds of intents the provider paid twice (duplicate payouts), whatever their
    // category; off, the category filter holds.
    void setPaidTwiceFilter(bool only);
    bool paidTwiceFilter() const { return m_paidTwiceOnly; }
    // Only the rows of one seller, by id; empty: every seller's.
    void setSellerFilter(const QString &sellerId);
    QString sellerFilter() const { return m_seller; }
    const ReconRow *reconRow(int row) const;
    // "Matched 12 ($1,234.00) · Provider only 3 ($354.00) · …" over the whole reconciliation.
    QString totalsText() const;
    // One category: "Provider only: 3, $354.00 at the provider".
    QString categoryTotalsText(ReconCategory category) const;
    void setClock(std::function<qint64()> nowMs) { m_now = std::move(nowMs); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void errorOccurred(const QString &message);
    void totalsChanged();

private:
    Expected<Reconciliation> reconcileWithStore(const ProviderStatement &statement) const;
    void applyFilter();

    FinanceStore &m_store;
    std::function<qint64()> m_now;
    std::optional<ProviderStatement> m_statement;
    std::optional<Reconciliation> m_reconciliation;
    std::optional<ReconCategory> m_filter;
    bool m_paidTwiceOnly = false;
    QString m_seller;
    QList<int> m_visible; // indexes into m_reconciliation->rows
    QHash<qsizetype, qint64> m_shares; // by row: its part of its seller's balance difference
};

} // namespace verity

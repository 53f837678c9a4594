#include "sellerbalancemodel.h"

#include "domain/money.h"
#include "palette.h"
#include "store/store.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QFont>

namespace verity {

SellerBalanceModel::SellerBalanceModel(FinanceStore &store, QObject *parent)
    : QAbstractTableModel(parent)
    , m_store(store)
{}

void SellerBalanceModel::refresh()
{
    Expected<QList<SellerBalance>> sellers = m_store.sellerBalances();
    beginResetModel();
    m_sellers = sellers ? *sellers : QList<SellerBalance>{};
    endResetModel();
    if (!sellers)
        emit errorOccurred(sellers.message());
}

const SellerBalance *SellerBalanceModel::seller(int row) const
{
    return row >= 0 && row < m_sellers.size() ? &m_sellers.at(row) : nullptr;
}

int SellerBalanceModel::rowOfSeller(const QString &sellerId) const
{
    for (int row = 0; row < m_sellers.size(); ++row) {
        if (m_sellers.at(row).id == sellerId)
            return row;
    }
    return -1;
}

QStringList SellerBalanceModel::sellerIds() const
{
    QStringList ids;
    for (const SellerBalance &seller : m_sellers)
        ids << seller.id;
    return ids;
}

Expected<SellerHistory> SellerBalanceModel::history(const QString &sellerId) const
{
    return m_store.sellerHistory(sellerId);
}

int SellerBalanceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_sellers.size());
}

int SellerBalanceModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SellerBalanceModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SellerBalance &seller = m_sellers.at(index.row());
    const auto column = Column(index.column());
    const bool negative = seller.balanceCents && *seller.balanceCents < 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case SellerColumn:
            return seller.name.isEmpty() ? seller.id : seller.name;
        case BalanceColumn:
            return seller.balanceCents ? formatMoney(*seller.balanceCents, seller.currency)
                                       : QStringLiteral("—");
        case AsOfColumn:
            return seller.balanceCents ? formatUtcDate(seller.balanceAsOf) : QStringLiteral("—");
        case PerformedColumn:
            return formatMoney(seller.performedCents, seller.currency);
        case UnknownColumn:
            return formatMoney(seller.unknownCents, seller.currency);
        case RefundsColumn:
            return seller.payouts;
        case ColumnCount:
            break;
        }
        return {};
    case SortRole:
        switch (column) {
        case SellerColumn:
            return seller.name.toLower();
        case BalanceColumn:
            return seller.balanceCents ? QVariant(*seller.balanceCents) : QVariant();
        case AsOfColumn:
            return seller.balanceAsOf;
        case PerformedColumn:
            return seller.performedCents;
        case UnknownColumn:
            return seller.unknownCents;
        case RefundsColumn:
            return seller.payouts;
        case ColumnCount:
            break;
        }
        return {};
    case SellerIdRole:
        return seller.id;
    case Qt::TextAlignmentRole:
        if (column != SellerColumn && column != AsOfColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if (column == BalanceColumn && negative)
            return QBrush(QColor(QLatin1String(negativeMoneyColor)));
        if (column == UnknownColumn && seller.unknownCents > 0)
            return QBrush(QColor(QStringLiteral("#8a4b00")));
        return {};
    case Qt::FontRole:
        if (column == BalanceColumn && negative) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::ToolTipRole:
        if (column == BalanceColumn && negative)
            return tr("Negative balance: %1 owes the platform %2. Check its refunds for duplicates.")
                    .arg(seller.name, formatMoney(-*seller.balanceCents, seller.currency));
        if (column == BalanceColumn && !seller.balanceCents)
            return tr("No transcript reported this seller's balance.");
        if (column == UnknownColumn)
            return tr("Refunds whose outcome is unknown: the money may have moved. A lookup settles them.");
        return {};
    default:
        return {};
    }
}

QVariant SellerBalanceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case SellerColumn:
        return tr("Seller");
    case BalanceColumn:
        return tr("Balance");
    case AsOfColumn:
        return tr("As of (UTC)");
    case PerformedColumn:
        return tr("Refunded");
    case UnknownColumn:
        return tr("May have moved");
    case RefundsColumn:
        return tr("Refunds");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace verity

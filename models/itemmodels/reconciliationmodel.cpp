#include "reconciliationmodel.h"

#include "domain/displaytext.h"
#include "domain/money.h"
#include "palette.h"
#include "store/store.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>

namespace verity {

ReconciliationModel::ReconciliationModel(FinanceStore &store, QObject *parent)
    : QAbstractTableModel(parent)
    , m_store(store)
    , m_now([] { return QDateTime::currentMSecsSinceEpoch(); })
{}

Expected<Reconciliation> ReconciliationModel::reconcileWithStore(const ProviderStatement &statement) const
{
    Expected<QList<LedgerPayout>> payouts = m_store.payouts(statement.period.fromMs, statement.period.toMs);
    if (!payouts)
        return payouts.error();
    Expected<QList<SellerBalance>> sellers = m_store.sellerBalances();
    if (!sellers)
        return sellers.error();
    if (Expected<QString> currency = singleCurrency(*payouts, &statement); !currency)
        return currency.error();
    return reconcile(*payouts, statement, *sellers, m_now());
}

Expected<void> ReconciliationModel::setStatement(const ProviderStatement &statement)
{
    Expected<Reconciliation> done = reconcileWithStore(statement);
    if (!done)
        return done.error(); // the previous result stays
    m_statement = statement;
    setReconciliation(*done);
    return {};
}

void ReconciliationModel::setReconciliation(const Reconciliation &reconciliation)
{
    beginResetModel();
    m_reconciliation = reconciliation;
    m_shares = differenceShareByRow(reconciliation);
    applyFilter();
    endResetModel();
    emit totalsChanged();
}

void ReconciliationModel::refresh()
{
    if (!m_statement)
        return;
    Expected<Reconciliation> done = reconcileWithStore(*m_statement);
    if (!done) {
        emit errorOccurred(done.message());
        return;
    }
    setReconciliation(*done);
}

void ReconciliationModel::setCategoryFilter(std::optional<ReconCategory> category)
{
    if (category == m_filter)
        return;
    beginResetModel();
    m_filter = category;
    applyFilter();
    endResetModel();
}

void ReconciliationModel::setPaidTwiceFilter(bool only)
{
    if (only == m_paidTwiceOnly)
        return;
    beginResetModel();
    m_paidTwiceOnly = only;
    applyFilter();
    endResetModel();
}

void ReconciliationModel::setSellerFilter(const QString &sellerId)
{
    if (sellerId == m_seller)
        return;
    beginResetModel();
    m_seller = sellerId;
    applyFilter();
    endResetModel();
}

void ReconciliationModel::applyFilter()
{
    m_visible.clear();
    if (!m_reconciliation)
        return;
    for (int i = 0; i < m_reconciliation->rows.size(); ++i) {
        const ReconRow &row = m_reconciliation->rows.at(i);
        if (!m_seller.isEmpty() && row.sellerId != m_seller)
            continue;
        if (m_paidTwiceOnly ? row.paidTwice : (!m_filter || row.category == *m_filter))
            m_visible << i;
    }
}

const ReconRow *ReconciliationModel::reconRow(int row) const
{
    if (!m_reconciliation || row < 0 || row >= m_visible.size())
        return nullptr;
    return &m_reconciliation->rows.at(m_visible.at(row));
}

QString ReconciliationModel::categoryTotalsText(ReconCategory category) const
{
    if (!m_reconciliation)
        return {};
    const ReconTotals &totals = m_reconciliation->totals;
    const auto i = static_cast<size_t>(category);
    const QString &currency = m_reconciliation->currency;
    // The side that has the money: the ledger's for ledger only, the provider's otherwise.
    const qint64 cents =
            category == ReconCategory::LedgerOnly ? totals.ledgerCents.at(i) : totals.providerCents.at(i);
    return tr("%1 %2 (%3)")
            .arg(reconCategoryText(category))
            .arg(totals.count.at(i))
            .arg(formatMoney(cents, currency));
}

QString ReconciliationModel::totalsText() const
{
    if (!m_reconciliation)
        return tr("No reconciliation yet: fetch the provider's refunds or read its export.");
    QStringList parts;
    for (int i = 0; i < reconCategoryCount; ++i)
        parts << categoryTotalsText(ReconCategory(i));
    return parts.join(QStringLiteral(" · "));
}

int ReconciliationModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_visible.size());
}

int ReconciliationModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString ticketText(const ReconRow &row)
{
    if (row.ticketExtId.isEmpty())
        return row.provider && !row.provider->ticketExtId.isEmpty() ? row.provider->ticketExtId : QString();
    return row.callExtId.isEmpty() ? row.ticketExtId
                                   : QStringLiteral("%1 / %2").arg(row.ticketExtId, row.callExtId);
}

QString refundIdText(const ReconRow &row)
{
    if (row.provider)
        return row.provider->id;
    return row.ledger ? row.ledger->refundId : QString();
}

std::optional<qint64> difference(const ReconRow &row)
{
    if (row.category == ReconCategory::Matched)
        return std::nullopt;
    return row.providerCents() - row.ledgerCents();
}

} // namespace

QVariant ReconciliationModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ReconRow &row = *reconRow(index.row());
    const auto column = Column(index.column());
    // The row's part of its seller's balance difference, when it is one.
    const auto shareFound = m_shares.constFind(m_visible.at(index.row()));
    const bool hasShare = shareFound != m_shares.cend();
    const qint64 share = hasShare ? *shareFound : 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case CategoryColumn:
            // A refund matched to its call, but one of two for one intent, is no plain match.
            return reconRowCategoryText(row);
        case SellerColumn:
            return row.sellerName.isEmpty() ? row.sellerId : row.sellerName;
        case TicketColumn:
            return ticketText(row);
        case RefundIdColumn:
            return refundIdText(row);
        case LedgerColumn:
            return row.ledger ? formatMoney(row.ledgerCents(), row.currency) : QStringLiteral("—");
        case ProviderColumn:
            return row.provider ? formatMoney(row.providerCents(), row.currency) : QStringLiteral("—");
        case DifferenceColumn: {
            const std::optional<qint64> cents = difference(row);
            return cents ? formatDifference(*cents, row.currency) : QString();
        }
        case BalanceShareColumn:
            return hasShare ? formatDifference(share, row.currency) : QString();
        case NoteColumn:
            return row.note;
        case ColumnCount:
            break;
        }
        return {};
    case SortRole:
        switch (column) {
        case CategoryColumn:
            return int(row.category);
        case LedgerColumn:
            return row.ledger ? QVariant(row.ledgerCents()) : QVariant();
        case ProviderColumn:
            return row.provider ? QVariant(row.providerCents()) : QVariant();
        case DifferenceColumn:
            return difference(row).value_or(0);
        case BalanceShareColumn:
            return share;
        default:
            return data(index, Qt::DisplayRole).toString().toLower();
        }
    case CategoryRole:
        return int(row.category);
    case Qt::TextAlignmentRole:
        if (column == LedgerColumn || column == ProviderColumn || column == DifferenceColumn
            || column == BalanceShareColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if ((column == CategoryColumn || column == DifferenceColumn)
            && row.category != ReconCategory::Matched)
            return QBrush(QColor(QLatin1String(negativeMoneyColor)));
        if (column == CategoryColumn)
            return QBrush(QColor(QLatin1String(settledMoneyColor)));
        return {};
    case Qt::ToolTipRole:
        if (column == NoteColumn || column == CategoryColumn)
            return row.note;
        if (column == TicketColumn && !row.ticketId)
            return tr("No ticket in Verity carries this refund's intent key.");
        if (column == BalanceShareColumn && hasShare)
            return tr("The provider made this refund after the balance Verity shows for %1 was stated: "
                      "it is part of what the two balances differ by.")
                    .arg(row.sellerName.isEmpty() ? row.sellerId : row.sellerName);
        return {};
    default:
        return {};
    }
}

QVariant ReconciliationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case CategoryColumn:
        return tr("Category");
    case SellerColumn:
        return tr("Seller");
    case TicketColumn:
        return tr("Ticket / call");
    case RefundIdColumn:
        return tr("Refund id (provider)");
    case LedgerColumn:
        return tr("Ledger");
    case ProviderColumn:
        return tr("Provider");
    case DifferenceColumn:
        return tr("Difference");
    case BalanceShareColumn:
        return tr("Of balance difference");
    case NoteColumn:
        return tr("Note");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace verity

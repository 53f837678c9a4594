#include "duplicatepayoutmodel.h"

#include "domain/displaytext.h"
#include "domain/money.h"
#include "finance/payoutrecovery.h"
#include "palette.h"
#include "store/store.h"

#include <QBrush>
#include <QColor>
#include <QMap>

#include <limits>

namespace verity {

DuplicatePayoutModel::DuplicatePayoutModel(PayoutRecoveryStore &store, QObject *parent)
    : QAbstractTableModel(parent)
    , m_store(store)
{}

void DuplicatePayoutModel::setWindowSeconds(int seconds)
{
    const qint64 windowMs = qMax<qint64>(1, seconds) * 1000;
    if (windowMs == m_windowMs)
        return;
    m_windowMs = windowMs;
    refresh();
}

void DuplicatePayoutModel::setStatement(std::optional<ProviderStatement> statement)
{
    m_statement = std::move(statement);
    refresh();
}

void DuplicatePayoutModel::refresh()
{
    // Every payout ever made: a duplicate may straddle any period finance looks at.
    Expected<QList<LedgerPayout>> payouts = m_store.payouts(0, std::numeric_limits<qint64>::max());
    Expected<QList<PayoutMark>> marks = m_store.payoutMarks();
    beginResetModel();
    m_duplicates = payouts ? findDuplicatePayouts(*payouts, m_statement ? &*m_statement : nullptr, m_windowMs)
                           : QList<DuplicatePayout>{};
    m_marks = marks ? *marks : QList<PayoutMark>{};
    m_current = currentMarks(m_marks);
    endResetModel();
    if (!payouts)
        emit errorOccurred(payouts.message());
    else if (!marks)
        emit errorOccurred(marks.message());
}

const DuplicatePayout *DuplicatePayoutModel::duplicate(int row) const
{
    return row >= 0 && row < m_duplicates.size() ? &m_duplicates.at(row) : nullptr;
}

std::optional<PayoutMark> DuplicatePayoutModel::mark(int row) const
{
    const DuplicatePayout *payout = duplicate(row);
    if (!payout)
        return std::nullopt;
    const auto found = m_current.constFind(payout->key);
    if (found == m_current.constEnd())
        return std::nullopt;
    return *found;
}

int DuplicatePayoutModel::rowOfKey(const QString &key) const
{
    for (int row = 0; row < m_duplicates.size(); ++row) {
        if (m_duplicates.at(row).key == key)
            return row;
    }
    return -1;
}

Expected<PayoutMark> DuplicatePayoutModel::markDuplicate(const QString &key, RecoveryState state,
                                                         const QString &note, const QString &operatorName,
                                                         qint64 atMs)
{
    const DuplicatePayout *chosen = duplicate(rowOfKey(key));
    if (!chosen)
        return makeError(tr("that duplicate payout is no longer listed; refresh and choose it again"));
    const DuplicatePayout copy = *chosen; // refresh() below replaces the list
    Expected<PayoutMark> done = markDuplicatePayout(m_store, copy, state, note, operatorName, atMs);
    if (done)
        refresh();
    return done;
}

QString DuplicatePayoutModel::summary() const
{
    if (m_duplicates.isEmpty())
        // Only refunds pay out; another write that took effect twice is the queue's to show.
        return tr("No refund was paid twice. Other writes that took effect twice are under View › Duplicate "
                  "effects.");
    // Per currency, so no sum mixes them; confirmed apart from possible, as the queue counts them.
    QMap<QString, qint64> atRisk;
    QMap<QString, qint64> mayBeAtRisk;
    int confirmed = 0;
    int requested = 0;
    int recovered = 0;
    for (const DuplicatePayout &payout : m_duplicates) {
        if (payout.isConfirmed()) {
            ++confirmed;
            atRisk[payout.currency] += payout.amountAtRiskCents;
        } else {
            mayBeAtRisk[payout.currency] += payout.amountAtRiskCents;
        }
        if (const auto found = m_current.constFind(payout.key); found != m_current.constEnd())
            (found->state == RecoveryState::Recovered ? recovered : requested) += 1;
    }
    const auto amounts = [](const QMap<QString, qint64> &sums) {
        QStringList texts;
        for (auto it = sums.cbegin(); it != sums.cend(); ++it)
            texts << formatMoney(it.value(), it.key());
        return texts.join(QStringLiteral(" + "));
    };
    QString text = confirmed == 0 ? tr("No duplicate payouts confirmed")
            : confirmed == 1      ? tr("1 duplicate payout, %1 at risk").arg(amounts(atRisk))
                             : tr("%1 duplicate payouts, %2 at risk").arg(confirmed).arg(amounts(atRisk));
    const qsizetype possible = m_duplicates.size() - confirmed;
    if (possible > 0)
        text += possible == 1
                ? tr("; 1 possible (%1) awaits lookups").arg(amounts(mayBeAtRisk))
                : tr("; %1 possible (%2) await lookups").arg(possible).arg(amounts(mayBeAtRisk));
    QStringList marked;
    if (requested > 0)
        marked << tr("%1 recovery requested").arg(requested);
    if (recovered > 0)
        marked << tr("%1 recovered").arg(recovered);
    if (!marked.isEmpty())
        text += QStringLiteral(" (%1)").arg(marked.join(QStringLiteral(", ")));
    return text;
}

int DuplicatePayoutModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_duplicates.size());
}

int DuplicatePayoutModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString basisText(const DuplicatePayout &payout)
{
    QString text = duplicateBasisText(payout.basis);
    if (!payout.isConfirmed()) {
        const int unknown = payout.unknownCount();
        text = DuplicatePayoutModel::tr("Possible: %1 awaiting a lookup; %2")
                       .arg(unknown == 1 ? DuplicatePayoutModel::tr("1 unknown refund")
                                         : DuplicatePayoutModel::tr("%1 unknown refunds").arg(unknown),
                            text);
    }
    if (payout.confirmedAtProvider)
        text += DuplicatePayoutModel::tr(", at the provider");
    return text;
}

QString markText(const PayoutMark &mark)
{
    const QString state = recoveryStateText(mark.state);
    return mark.note.isEmpty() ? state : QStringLiteral("%1: %2").arg(state, mark.note);
}

} // namespace

QVariant DuplicatePayoutModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DuplicatePayout &payout = m_duplicates.at(index.row());
    const auto column = Column(index.column());
    const auto found = m_current.constFind(payout.key);
    const PayoutMark *mark = found == m_current.constEnd() ? nullptr : &*found;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case SellerColumn:
            return payout.sellerName.isEmpty() ? payout.sellerId : payout.sellerName;
        case OrderColumn:
            return payout.orderId;
        case TicketsColumn:
            return payout.ticketExtIds().join(QStringLiteral(", "));
        case RefundsColumn:
            return int(payout.events.size());
        case AtRiskColumn:
            return formatMoney(payout.amountAtRiskCents, payout.currency);
        case TimeBetweenColumn:
            return spanText(payout.spanMs);
        case BasisColumn:
            return basisText(payout);
        case RecoveryColumn:
            return mark ? markText(*mark) : QString();
        case ColumnCount:
            break;
        }
        return {};
    case SortRole:
        switch (column) {
        case RefundsColumn:
            return int(payout.events.size());
        case AtRiskColumn:
            return payout.amountAtRiskCents;
        case TimeBetweenColumn:
            return payout.spanMs;
        default:
            return data(index, Qt::DisplayRole).toString().toLower();
        }
    case KeyRole:
        return payout.key;
    case Qt::TextAlignmentRole:
        if (column == RefundsColumn || column == AtRiskColumn || column == TimeBetweenColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if (column == AtRiskColumn && !(mark && mark->state == RecoveryState::Recovered))
            return QBrush(
                    QColor(QLatin1String(payout.isConfirmed() ? negativeMoneyColor : pendingMoneyColor)));
        if (column == BasisColumn && !payout.isConfirmed())
            return QBrush(QColor(QLatin1String(pendingMoneyColor)));
        if (column == RecoveryColumn && mark)
            return QBrush(QColor(QLatin1String(mark->state == RecoveryState::Recovered ? settledMoneyColor
                                                                                       : pendingMoneyColor)));
        return {};
    case Qt::ToolTipRole:
        if (column == RecoveryColumn && mark)
            return tr("%1 by %2 at %3").arg(markText(*mark), mark->operatorName, formatUtcTime(mark->at));
        if (column == AtRiskColumn)
            return tr("Every refund after the first: the first was owed, the rest went out in error.");
        if (column == TimeBetweenColumn)
            return tr("From the first refund of the group to the last.");
        return {};
    default:
        return {};
    }
}

QVariant DuplicatePayoutModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case SellerColumn:
        return tr("Seller");
    case OrderColumn:
        return tr("Order");
    case TicketsColumn:
        return tr("Tickets");
    case RefundsColumn:
        return tr("Refunds");
    case AtRiskColumn:
        return tr("Amount at risk");
    case TimeBetweenColumn:
        return tr("Time between");
    case BasisColumn:
        return tr("Basis");
    case RecoveryColumn:
        return tr("Recovery");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace verity

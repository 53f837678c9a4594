#include "escalationqueuemodel.h"

#include "domain/displaytext.h"
#include "domain/money.h"
#include "store/store.h"

#include <QDateTime>

#include <algorithm>

namespace verity {

namespace {

// A renewal that has not come well after it was due (a minute, or one more interval when they are
// shorter): the holder's console stopped (closed, killed, or cut off from the database), and the
// claim now only waits to lapse.
qint64 renewalOverdueAt(const EscalationRow &row)
{
    if (row.claimRenewsEvery <= 0)
        return 0;
    return row.claimRenewedAt + row.claimRenewsEvery + std::min<qint64>(row.claimRenewsEvery, 60 * 1000);
}

} // namespace

EscalationQueueModel::EscalationQueueModel(EscalationStore &store, QObject *parent)
    : QAbstractTableModel(parent)
    , m_store(store)
    , m_now([] { return QDateTime::currentMSecsSinceEpoch(); })
{
    m_cache.setLoader([this](qint64 offset, int limit) -> std::optional<QList<EscalationRow>> {
        Expected<QList<EscalationRow>> rows = m_store.openEscalations(offset, limit);
        if (!rows) {
            emit errorOccurred(rows.message());
            return std::nullopt;
        }
        noteClaimEnds(*rows);
        return *rows;
    });
    m_lapse.setSingleShot(true);
    connect(&m_lapse, &QTimer::timeout, this, &EscalationQueueModel::claimsLapsed);
    // "Waiting" is read in minutes at the finest; a quarter of one keeps it true.
    m_waitingClock.setInterval(15000);
    connect(&m_waitingClock, &QTimer::timeout, this, [this] {
        if (m_count > 0)
            emit dataChanged(index(0, WaitingColumn), index(int(m_count) - 1, WaitingColumn),
                             {Qt::DisplayRole});
    });
    m_waitingClock.start();
    reload();
}

void EscalationQueueModel::noteClaimEnds(const QList<EscalationRow> &rows) const
{
    const qint64 now = m_now();
    const auto consider = [this, now](qint64 at) {
        if (at > now && (m_nextLapse == 0 || at < m_nextLapse))
            m_nextLapse = at;
    };
    for (const EscalationRow &row : rows) {
        if (!claimHeld(row.claimedBy, row.claimedUntil, now))
            continue;
        consider(row.claimedUntil);
        consider(renewalOverdueAt(row));
    }
    if (m_nextLapse == 0)
        return;
    // A little after the end, so that the claim reads as lapsed when the view asks again.
    const qint64 wait = std::clamp<qint64>(m_nextLapse - now + 100, 0, 24LL * 3600 * 1000);
    m_lapse.start(int(wait));
}

void EscalationQueueModel::claimsLapsed()
{
    m_nextLapse = 0;
    if (m_count == 0)
        return;
    emit dataChanged(index(0, ClaimColumn), index(int(m_count) - 1, ClaimColumn),
                     {Qt::DisplayRole, Qt::ToolTipRole, ClaimHolderRole});
    // The next end among the rows still held.
    QList<EscalationRow> held;
    m_cache.findHeld([&held](const EscalationRow &row) {
        if (!row.claimedBy.isEmpty())
            held.append(row);
        return false;
    });
    noteClaimEnds(held);
}

void EscalationQueueModel::setClock(std::function<qint64()> nowMs)
{
    m_now = std::move(nowMs);
    if (m_count > 0)
        emit dataChanged(index(0, WaitingColumn), index(int(m_count) - 1, WaitingColumn), {Qt::DisplayRole});
}

void EscalationQueueModel::setOperatorName(std::function<QString()> name)
{
    m_operatorName = std::move(name);
    if (m_count > 0)
        emit dataChanged(index(0, ClaimColumn), index(int(m_count) - 1, ClaimColumn), {Qt::DisplayRole});
}

void EscalationQueueModel::refresh()
{
    beginResetModel();
    reload();
    endResetModel();
    emit countChanged(m_count);
}

void EscalationQueueModel::reload()
{
    m_cache.clear();
    m_nextLapse = 0;
    m_lapse.stop();
    Expected<qint64> count = m_store.countOpenEscalations();
    if (!count) {
        m_count = 0;
        emit errorOccurred(count.message());
        return;
    }
    m_count = qMin<qint64>(*count, std::numeric_limits<int>::max());
}

int EscalationQueueModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_count);
}

int EscalationQueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EscalationQueueModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const EscalationRow *row = m_cache.row(index.row());
    if (!row)
        return {};
    switch (role) {
    case EscalationIdRole:
        return row->id;
    case TicketIdRole:
        return row->ticketId;
    case CallIdRole:
        return row->callExtId;
    case ClaimHolderRole:
        return claimHeld(row->claimedBy, row->claimedUntil, m_now()) ? row->claimedBy : QString();
    case Qt::TextAlignmentRole:
        if (index.column() == AmountColumn || index.column() == WaitingColumn
            || index.column() == NumberColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == ClaimColumn && claimHeld(row->claimedBy, row->claimedUntil, m_now())) {
            if (renewalStopped(*row))
                return tr("%1's console renews this claim every %2 minutes and has not since %3: it was "
                          "closed, "
                          "stopped or cut off. Nobody else can act on it until %4, unless an admin releases "
                          "the claim (Look up… offers it to an admin; the release is audited).")
                        .arg(row->claimedBy)
                        .arg(row->claimRenewsEvery / 60000)
                        .arg(formatTime(row->claimRenewedAt), formatTime(row->claimedUntil));
            return tr("%1 is working on it: nobody else can look it up, perform it again or record a check "
                      "until %2, unless they give it back or an admin releases it.")
                    .arg(row->claimedBy, formatTime(row->claimedUntil));
        }
        if (index.column() == NumberColumn)
            return tr("Escalation %1: the number the command line takes (verity lookup %1, verity claim %1)")
                    .arg(row->id);
        // The ids whole, where a narrow column elides them.
        return tr("%1 (call %2) in %3%4 returned an unknown outcome. Do not retry it: look it up at the "
                  "provider.")
                .arg(row->tool, row->callExtId, ticketName(row->ticketExtId, row->orderId),
                     row->orderId.isEmpty() ? QString() : tr(", order %1").arg(row->orderId));
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case NumberColumn:
            return row->id;
        case WaitingColumn:
            return formatWait(m_now() - row->openedAt);
        case AmountColumn:
            return row->amountCents ? formatMoney(*row->amountCents, row->currency) : QStringLiteral("—");
        case TicketColumn:
            return ticketName(row->ticketExtId, row->orderId);
        case OrderColumn:
            return row->orderId.isEmpty() ? QStringLiteral("—") : row->orderId;
        case ToolColumn:
            return row->tool;
        case CallColumn:
            return row->callExtId;
        case ClaimColumn: {
            // A lapsed claim holds nobody: shown as free.
            if (!claimHeld(row->claimedBy, row->claimedUntil, m_now()))
                return QString();
            const bool mine = m_operatorName && row->claimedBy == m_operatorName();
            const QString holder = mine ? tr("you") : row->claimedBy;
            if (renewalStopped(*row))
                return tr("%1, until %2: not renewed since %3")
                        .arg(holder, clockTime(row->claimedUntil), clockTime(row->claimRenewedAt));
            return tr("%1, until %2").arg(holder, clockTime(row->claimedUntil));
        }
        case SinceColumn:
            return formatTime(row->openedAt);
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

bool EscalationQueueModel::renewalStopped(const EscalationRow &row) const
{
    const qint64 overdue = renewalOverdueAt(row);
    return overdue > 0 && m_now() >= overdue;
}

QString EscalationQueueModel::clockTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm"));
}

QVariant EscalationQueueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case NumberColumn:
        return tr("#");
    case WaitingColumn:
        return tr("Waiting");
    case AmountColumn:
        return tr("Amount");
    case TicketColumn:
        return tr("Ticket");
    case OrderColumn:
        return tr("Order");
    case ToolColumn:
        return tr("Tool");
    case CallColumn:
        return tr("Call");
    case ClaimColumn:
        return tr("Claimed by");
    case SinceColumn:
        return tr("Unknown since");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace verity

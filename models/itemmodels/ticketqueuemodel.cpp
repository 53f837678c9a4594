#include "ticketqueuemodel.h"

#include "domain/displaytext.h"
#include "store/store.h"

#include <QFont>

namespace verity {

namespace {

// A slice of the walk short enough that a key pressed meanwhile is not felt.
constexpr int walkSliceMs = 4;

// Its unknown writes all wait for their results still: not yet a case for a lookup.
bool showsInFlight(const TicketRow &ticket)
{
    return ticket.unknownInFlight && ticket.worstOutcome == Outcome::Unknown;
}

} // namespace

TicketQueueModel::TicketQueueModel(TicketReads &store, QObject *parent)
    : QAbstractTableModel(parent)
    , m_store(store)
{
    using Cache = AnchoredRowCache<TicketRow, TicketAnchor>;
    m_cache.setLoader([this](const Cache::Request &request) -> std::optional<QList<TicketRow>> {
        Expected<QList<TicketRow>> rows = m_store.ticketPage(
                m_query, TicketPage{request.anchor, request.backwards, request.skip, request.limit});
        if (!rows) {
            emit errorOccurred(rows.message());
            return std::nullopt;
        }
        if (m_walkWaits) {
            m_walkWaits = false;
            m_walk.start();
        }
        return *rows;
    });
    m_cache.setAnchorOf([this](const TicketRow &row) -> std::optional<TicketAnchor> {
        if (!anchorsOrder(m_query.sortKey))
            return std::nullopt;
        return TicketAnchor{ticketSortValue(row, m_query.sortKey), row.id};
    });
    m_walk.setInterval(0);
    connect(&m_walk, &QTimer::timeout, this, [this] {
        if (!m_cache.walk(walkSliceMs))
            m_walk.stop();
    });
    reload();
}

void TicketQueueModel::setFilter(TicketFilter filter)
{
    if (m_query.filter == filter)
        return;
    m_query.filter = filter;
    refresh();
}

void TicketQueueModel::setSearch(const QString &text)
{
    if (m_query.search == text)
        return;
    m_query.search = text;
    refresh();
}

void TicketQueueModel::refresh()
{
    beginResetModel();
    reload();
    endResetModel();
    emit countChanged(m_count);
}

void TicketQueueModel::reload()
{
    Expected<qint64> count = m_store.countTickets(m_query);
    // A view's rows are ints; the queue shows the first two thousand million.
    m_count = count ? qMin<qint64>(*count, std::numeric_limits<int>::max()) : 0;
    m_cache.reset(m_count);
    if (!count) {
        m_walk.stop();
        m_walkWaits = false;
        emit errorOccurred(count.message());
        return;
    }
    startWalk();
}

void TicketQueueModel::startWalk()
{
    // Anchors a stride apart spare the whole queue's OFFSETs. A searched page costs the same
    // from any row (its window of the time order, or its matches through their indexes), so
    // there the walk would only spend reads: pages still anchor the rows next to them.
    // It starts once a view has read its first page: on opening, that page is on screen sooner.
    m_walk.stop();
    m_walkWaits = m_count > 0 && m_query.search.trimmed().isEmpty();
}

std::optional<int> TicketQueueModel::rowOfTicket(qint64 ticketId) const
{
    std::optional<qint64> row =
            m_cache.findHeld([ticketId](const TicketRow &ticket) { return ticket.id == ticketId; });
    if (!row || *row >= m_count)
        return std::nullopt;
    return int(*row);
}

const TicketRow *TicketQueueModel::rowAt(int row) const
{
    if (row < 0 || row >= m_count)
        return nullptr;
    return m_cache.row(row);
}

int TicketQueueModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_count);
}

int TicketQueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TicketQueueModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TicketRow *ticket = rowAt(index.row());
    if (!ticket)
        return {};

    switch (role) {
    case TicketIdRole:
        return ticket->id;
    case OutcomeIdRole:
        if (ticket->duplicateEffect)
            return repeatKindId(RepeatKind::DuplicateEffect);
        if (showsInFlight(*ticket))
            return inFlightId();
        return ticket->worstOutcome ? outcomeId(*ticket->worstOutcome) : QString();
    case NeedsAttentionRole:
        return ticket->needsAttention;
    case RepeatedIntentRole:
        return ticket->hasRepeatedIntent;
    case StateRole:
        return int(ticket->state);
    case Qt::FontRole:
        // What stands in for a missing order or seller, or a date the transcript did not give,
        // reads as such.
        if ((index.column() == OrderColumn && ticket->orderId.isEmpty() && !ticket->task.isEmpty())
            || (index.column() == SellerColumn && ticket->sellerName.isEmpty() && !ticket->origin.isEmpty())
            || (index.column() == OpenedColumn && ticket->dating != TicketDating::OwnTimes)) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == WritesColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        switch (Column(index.column())) {
        case TicketColumn: {
            // A ticket called by its order still tells which trace it is.
            const QString name = ticketName(ticket->extId, ticket->orderId) == ticket->extId
                    ? ticket->extId
                    : tr("%1 (its calls name order %2)").arg(ticket->extId, ticket->orderId);
            return ticket->subject.isEmpty() ? name : name + u'\n' + ticket->subject;
        }
        case OrderColumn:
            if (ticket->orderId.isEmpty() && !ticket->task.isEmpty())
                return tr("No order: the benchmark's %1").arg(ticket->task);
            if (!ticket->orderId.isEmpty())
                return ticket->orderId; // whole, where a narrow column elides it
            break;
        case SellerColumn:
            if (ticket->sellerName.isEmpty() && !ticket->origin.isEmpty())
                return tr("No seller: the domain and model the transcript names (%1)").arg(ticket->origin);
            break;
        case OpenedColumn:
            if (ticket->dating == TicketDating::FileDate)
                return tr("The transcript has no times of its own: dated by the file's own date");
            if (ticket->dating == TicketDating::FileModified)
                return tr("The transcript has no times at all: dated by when the file was last changed");
            break;
        default:
            break;
        }
        if (index.column() == AttentionColumn
            && (ticket->needsAttention || ticket->state >= TicketState::Retry)) {
            QStringList reasons;
            if (ticket->duplicateEffect)
                reasons << tr("a write took effect twice (money paid or an effect done twice)");
            if (showsInFlight(*ticket))
                reasons << tr("a write reported live waits for its result; if none comes in time, it is "
                              "escalated as unknown");
            else if (ticket->hasUnknown)
                reasons << tr("a write with an unknown outcome waits for a lookup");
            if (ticket->repeats.unsettled > 0)
                reasons << tr("a write repeated after it took effect came back unknown");
            if (ticket->repeats.retries > 0)
                reasons << tr("a write was sent again after an error; nothing took effect twice");
            if (reasons.isEmpty())
                reasons << tr(
                        "a write found not performed is still owed, a tool call Verity cannot classify or "
                        "key, or a write whose amount Verity cannot count");
            return ticket->needsAttention ? tr("Needs attention: %1").arg(reasons.join(QStringLiteral("; ")))
                                          : reasons.join(QStringLiteral("; "));
        }
        return ticket->subject.isEmpty() ? QVariant() : QVariant(ticket->subject);
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case AttentionColumn:
            // The worst thing on the ticket, in words; a ticket that needs a person for another
            // reason (a write owed, a tool nobody classified) says only that.
            if (ticket->state == TicketState::Unknown && showsInFlight(*ticket))
                return tr("In flight");
            return ticket->state >= TicketState::NeedsLook ? ticketStateLabel(ticket->state) : QString();
        case TicketColumn:
            return ticketName(ticket->extId, ticket->orderId);
        case OrderColumn:
            return ticket->orderId.isEmpty() ? ticket->task : ticket->orderId;
        case SellerColumn:
            return ticket->sellerName.isEmpty() ? ticket->origin : ticket->sellerName;
        case OpenedColumn:
            return formatTime(ticket->openedAt);
        case WritesColumn:
            return ticket->writeCount;
        case OutcomeColumn:
            if (ticket->duplicateEffect)
                return repeatKindLabel(RepeatKind::DuplicateEffect);
            if (showsInFlight(*ticket))
                return tr("In flight");
            return ticket->worstOutcome ? outcomeLabel(*ticket->worstOutcome) : tr("No writes");
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QVariant TicketQueueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case AttentionColumn:
        return tr("Attention");
    case TicketColumn:
        return tr("Ticket");
    case OrderColumn:
        return tr("Order");
    case SellerColumn:
        return tr("Seller");
    case OpenedColumn:
        return tr("Opened");
    case WritesColumn:
        return tr("Writes");
    case OutcomeColumn:
        return tr("Worst outcome");
    case ColumnCount:
        break;
    }
    return {};
}

void TicketQueueModel::sort(int column, Qt::SortOrder order)
{
    TicketSortKey key = TicketSortKey::Opened;
    switch (Column(column)) {
    case TicketColumn:
        key = TicketSortKey::Ticket;
        break;
    case OrderColumn:
        key = TicketSortKey::Order;
        break;
    case SellerColumn:
        key = TicketSortKey::Seller;
        break;
    case WritesColumn:
        key = TicketSortKey::Writes;
        break;
    case OutcomeColumn:
        key = TicketSortKey::WorstOutcome;
        break;
    case AttentionColumn:
        key = TicketSortKey::Attention;
        break;
    case OpenedColumn:
    case ColumnCount:
        key = TicketSortKey::Opened;
        break;
    }
    // The Attention column's first click (ascending, as a header sorts first) puts the worst
    // tickets on top: its order runs from the worst state down.
    const bool descending = (order == Qt::DescendingOrder) != (key == TicketSortKey::Attention);
    if (key == m_query.sortKey && descending == m_query.descending)
        return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    m_query.sortKey = key;
    m_query.descending = descending;
    m_cache.reset(m_count);
    startWalk();
    // Rows move wholesale; no persistent index can follow a row it may no longer hold.
    const QModelIndexList persistent = persistentIndexList();
    for (const QModelIndex &index : persistent)
        changePersistentIndex(index, QModelIndex());
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

} // namespace verity

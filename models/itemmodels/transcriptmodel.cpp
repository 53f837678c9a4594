#include "transcriptmodel.h"

#include "domain/displaytext.h"
#include "store/store.h"

namespace verity {

TranscriptModel::TranscriptModel(TicketReads &store, QObject *parent)
    : QAbstractListModel(parent)
    , m_store(store)
{}

bool TranscriptModel::setTicket(qint64 ticketId)
{
    Expected<std::optional<TicketDetail>> detail = m_store.ticket(ticketId);
    Expected<QList<TranscriptEntry>> entries =
            detail ? m_store.transcript(ticketId, openingTextLimit) : detail.error();
    if (!detail || !entries) {
        // What is shown stays, whole, rather than a blank pane: the ticket could not be read
        // (a team's server gone away, say), which is not the same as not being there.
        emit errorOccurred(detail ? entries.message() : detail.message());
        return false;
    }
    beginResetModel();
    m_detail.reset();
    m_entries.clear();
    if (detail && entries && *detail) {
        m_detail = *detail;
        m_entries = *entries;
    }
    endResetModel();
    if (!*detail) {
        emit errorOccurred(tr("Ticket %1 is not in this database.").arg(ticketId));
        return false;
    }
    return true;
}

void TranscriptModel::refreshIfChanged()
{
    if (!m_detail)
        return;
    const qint64 ticketId = m_detail->row.id;
    Expected<std::optional<TicketDetail>> detail = m_store.ticket(ticketId);
    Expected<QList<TranscriptEntry>> entries =
            detail ? m_store.transcript(ticketId, openingTextLimit) : detail.error();
    if (detail && entries && *detail && **detail == *m_detail && *entries == m_entries)
        return;
    setTicket(ticketId);
}

Expected<QString> TranscriptModel::wholeText(const TextPlace &place) const
{
    if (!m_detail)
        return makeError(tr("No ticket is open."));
    return m_store.wholeText(m_detail->row.id, place);
}

void TranscriptModel::clear()
{
    beginResetModel();
    m_detail.reset();
    m_entries.clear();
    endResetModel();
}

const TranscriptEntry *TranscriptModel::entry(int row) const
{
    return row >= 0 && row < m_entries.size() ? &m_entries.at(row) : nullptr;
}

std::optional<int> TranscriptModel::rowOfCall(const QString &callId) const
{
    for (int row = 0; row < m_entries.size(); ++row) {
        if (m_entries.at(row).isToolCall && m_entries.at(row).call.callExtId == callId)
            return row;
    }
    return std::nullopt;
}

int TranscriptModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

QVariant TranscriptModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TranscriptEntry &entry = m_entries.at(index.row());
    const ToolCallRow &call = entry.call;
    switch (role) {
    case Qt::DisplayRole:
        if (!entry.isToolCall)
            return QStringLiteral("%1 %2: %3")
                    .arg(formatTime(entry.at), messageKindId(entry.kind), entry.text);
        return QStringLiteral("%1 %2 (%3)%4")
                .arg(formatTime(entry.at), call.tool, toolClassLabel(call.toolClass),
                     call.outcome ? QStringLiteral(": ") + outcomeLabel(*call.outcome) : QString());
    case IsToolCallRole:
        return entry.isToolCall;
    case TimeRole:
        return entry.at;
    case AuthorRole:
        return entry.isToolCall ? QVariant() : QVariant(messageKindId(entry.kind));
    case TextRole:
        return entry.isToolCall ? QVariant() : QVariant(entry.text);
    case ToolRole:
        return entry.isToolCall ? QVariant(call.tool) : QVariant();
    case ToolClassRole:
        return entry.isToolCall ? QVariant(toolClassId(call.toolClass)) : QVariant();
    case ArgumentsRole:
        return entry.isToolCall ? QVariant(call.argumentsJson) : QVariant();
    case RawResultRole:
        return entry.isToolCall ? QVariant(call.rawResult) : QVariant();
    case IntentKeyRole:
        return entry.isToolCall ? QVariant(call.intentKey) : QVariant();
    case OutcomeIdRole:
        return call.outcome && entry.isToolCall ? QVariant(outcomeId(*call.outcome)) : QVariant();
    case RepeatedRole:
        return entry.isToolCall && call.repeated;
    case RepeatedWithRole:
        return entry.isToolCall ? QVariant(call.repeatedWith) : QVariant();
    case EscalationIdRole:
        return call.escalationId && entry.isToolCall ? QVariant(*call.escalationId) : QVariant();
    case CallIdRole:
        return entry.isToolCall ? QVariant(call.callExtId) : QVariant();
    default:
        return {};
    }
}

QHash<int, QByteArray> TranscriptModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names.insert({{IsToolCallRole, "isToolCall"},
                  {TimeRole, "time"},
                  {AuthorRole, "author"},
                  {TextRole, "text"},
                  {ToolRole, "tool"},
                  {ToolClassRole, "toolClass"},
                  {ArgumentsRole, "arguments"},
                  {RawResultRole, "rawResult"},
                  {IntentKeyRole, "intentKey"},
                  {OutcomeIdRole, "outcome"},
                  {RepeatedRole, "repeated"},
                  {RepeatedWithRole, "repeatedWith"},
                  {EscalationIdRole, "escalationId"},
                  {CallIdRole, "callId"}});
    return names;
}

} // namespace verity

#include "auditlogmodel.h"

#include "audit/auditaction.h"
#include "domain/displaytext.h"
#include "store/store.h"

#include <limits>

namespace verity {

namespace {

constexpr qsizetype shortHashLength = 12;

} // namespace

QString shortHash(const QString &hash)
{
    return hash.size() <= shortHashLength ? hash : hash.left(shortHashLength) + QStringLiteral("…");
}

AuditLogModel::AuditLogModel(AuditStore &store, QObject *parent)
    : QAbstractTableModel(parent)
    , m_store(store)
{
    m_cache.setLoader([this](qint64 offset, int limit) -> std::optional<QList<AuditEntry>> {
        Expected<QList<AuditEntry>> rows = m_store.auditEntries(offset, limit);
        if (!rows) {
            emit errorOccurred(rows.message());
            return std::nullopt;
        }
        return *rows;
    });
    if (const std::optional<qint64> count = readCount())
        apply(*count);
}

void AuditLogModel::refresh()
{
    // Rows that cannot be counted now stay as they were read, rather than an empty log.
    if (const std::optional<qint64> count = readCount()) {
        beginResetModel();
        apply(*count);
        endResetModel();
    }
    emit countChanged(m_count);
}

std::optional<qint64> AuditLogModel::readCount()
{
    const Expected<qint64> count = m_store.countAuditEntries();
    if (!count) {
        m_readProblem = count.message();
        emit errorOccurred(count.message());
        return std::nullopt;
    }
    return *count;
}

void AuditLogModel::apply(qint64 count)
{
    m_cache.clear();
    m_readProblem.clear();
    m_count = qMin<qint64>(count, std::numeric_limits<int>::max());
}

int AuditLogModel::rowOfSeq(qint64 seq) const
{
    int low = 0;
    int high = int(m_count) - 1;
    while (low <= high) {
        const int middle = low + (high - low) / 2;
        const AuditEntry *entry = m_cache.row(middle);
        if (!entry)
            return -1;
        if (entry->seq == seq)
            return middle;
        if (entry->seq < seq)
            low = middle + 1;
        else
            high = middle - 1;
    }
    return -1;
}

int AuditLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_count);
}

int AuditLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AuditEntry *entry = m_cache.row(index.row());
    if (!entry)
        return {};
    switch (role) {
    case SeqRole:
        return entry->seq;
    case EscalationIdRole:
        return entry->escalationId ? QVariant(*entry->escalationId) : QVariant();
    case EvidenceHashRole:
        return entry->evidenceSha256;
    case EntryHashRole:
        return entry->hash;
    case Qt::TextAlignmentRole:
        if (index.column() == SeqColumn || index.column() == EscalationColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        switch (Column(index.column())) {
        case SeqColumn:
            return tr("Entry hash: %1\nPrevious entry's hash: %2").arg(entry->hash, entry->prevHash);
        case DetailColumn:
            return entry->detail;
        case ActionColumn:
            return tr("Stored as \"%1\"").arg(entry->action);
        case EvidenceColumn:
            return entry->evidenceSha256.isEmpty()
                    ? tr("No evidence recorded with this entry")
                    : tr("SHA-256 of the evidence: %1").arg(entry->evidenceSha256);
        default:
            return {};
        }
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case SeqColumn:
            return entry->seq;
        case TimeColumn:
            return formatTime(entry->at);
        case OperatorColumn:
            return entry->operatorName;
        case ActionColumn:
            return auditaction::words(entry->action);
        case EscalationColumn:
            return entry->escalationId ? QVariant(*entry->escalationId) : QVariant(QStringLiteral("—"));
        // One line in the table; the whole text is in the tooltip.
        case DetailColumn:
            return entry->detail.simplified();
        case EvidenceColumn:
            return entry->evidenceSha256.isEmpty() ? QStringLiteral("—") : shortHash(entry->evidenceSha256);
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QVariant AuditLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case SeqColumn:
        return tr("#");
    case TimeColumn:
        return tr("Time");
    case OperatorColumn:
        return tr("Operator");
    case ActionColumn:
        return tr("Action");
    case EscalationColumn:
        return tr("Escalation");
    case DetailColumn:
        return tr("Detail");
    case EvidenceColumn:
        return tr("Evidence");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace verity

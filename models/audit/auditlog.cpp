#include "auditlog.h"

#include "domain/sha256.h"
#include "store/store.h"

namespace verity {

namespace {

constexpr qsizetype hashLength = 64;

bool isLowercaseHexHash(const QString &text)
{
    if (text.size() != hashLength)
        return false;
    for (const QChar c : text) {
        if (!((c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f')))
            return false;
    }
    return true;
}

// What the database will give back: QString -> UTF-8 -> QString replaces unpaired
// surrogates, so hashing the stored form keeps the hash equal to what verify() reads. Never
// a null QString: that would be bound as SQL NULL.
QString asStored(const QString &text)
{
    return text.isEmpty() ? QStringLiteral("") : QString::fromUtf8(text.toUtf8());
}

} // namespace

AuditLog::AuditLog(AuditStore &store)
    : m_store(store)
{}

QString AuditLog::zeroHash()
{
    return QString(hashLength, u'0');
}

QByteArray AuditLog::canonicalEncoding(const AuditEntry &entry)
{
    QByteArray out;
    appendNetstring(out, QByteArrayLiteral("verity-audit-v1"));
    appendNetstring(out, QByteArray::number(entry.seq));
    appendNetstring(out, QByteArray::number(entry.at));
    appendNetstring(out, entry.operatorName.toUtf8());
    appendNetstring(out, entry.action.toUtf8());
    appendNetstring(out, entry.escalationId ? QByteArray::number(*entry.escalationId) : QByteArray());
    appendNetstring(out, entry.detail.toUtf8());
    appendNetstring(out, entry.evidenceSha256.toUtf8());
    appendNetstring(out, entry.prevHash.toUtf8());
    return out;
}

QString AuditLog::entryHash(const AuditEntry &entry)
{
    return QString::fromLatin1(sha256Hex(canonicalEncoding(entry)));
}

Expected<AuditEntry> AuditLog::append(const QString &operatorName, const QString &action,
                                      std::optional<qint64> escalationId, const QString &detail,
                                      const QString &evidenceSha256, qint64 atMs)
{
    if (operatorName.trimmed().isEmpty())
        return makeError(QStringLiteral("audit entry: the operator is missing"));
    if (action.trimmed().isEmpty())
        return makeError(QStringLiteral("audit entry: the action is missing"));
    if (!evidenceSha256.isEmpty() && !isLowercaseHexHash(evidenceSha256))
        return makeError(
                QStringLiteral("audit entry: the evidence hash \"%1\" is not 64 lowercase hex digits")
                        .arg(evidenceSha256));

    Expected<std::optional<AuditEntry>> last = m_store.lastAuditEntry();
    if (!last)
        return last.error();

    AuditEntry entry;
    entry.seq = *last ? (*last)->seq + 1 : 1;
    entry.at = atMs;
    entry.operatorName = asStored(operatorName);
    entry.action = asStored(action);
    entry.escalationId = escalationId;
    entry.detail = asStored(detail);
    entry.evidenceSha256 = evidenceSha256;
    // Chained onto the last entry as stored, without checking it: verify() is what judges
    // the chain, and refusing to append would stop the console recording anything at all.
    entry.prevHash = *last ? (*last)->hash : zeroHash();
    entry.hash = entryHash(entry);
    if (Expected<void> inserted = m_store.insertAuditEntry(entry); !inserted)
        return inserted.error();
    return entry;
}

} // namespace verity

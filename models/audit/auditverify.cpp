// AuditLog::verify: walks the chain oldest first and names the first entry that breaks it.

#include "auditlog.h"

#include "store/store.h"

namespace verity {

namespace {

// A thousand entries at a time: memory stays flat however long the log grows.
constexpr int pageSize = 1000;

// What was learnt from the entry before: its seq (0 before the first) and its hash.
struct Link
{
    qint64 seq = 0;
    QString hash;
};

QString missingEntries(qint64 from, qint64 to)
{
    return from == to ? QStringLiteral("entry %1 is missing (deleted)").arg(from)
                      : QStringLiteral("entries %1 to %2 are missing (deleted)").arg(from).arg(to);
}

// Why `entry` breaks the chain after `previous`, or an empty string when it does not.
// Checked in this order so that the reason is the most specific one: a deletion also breaks
// the prev_hash link, but "entry 3 is missing" says more than "prev_hash does not match".
QString breakAfter(const Link &previous, const AuditEntry &entry)
{
    const qint64 expected = previous.seq + 1;
    if (entry.seq < expected) // only the first entry can be below 1; seq is the primary key
        return QStringLiteral("its sequence number %1 is below 1, where the chain starts").arg(entry.seq);
    if (entry.seq > expected)
        return missingEntries(expected, entry.seq - 1);
    if (AuditLog::entryHash(entry) != entry.hash)
        return QStringLiteral("its hash does not match its contents (the entry was edited)");
    if (previous.seq == 0) {
        if (entry.prevHash != AuditLog::zeroHash())
            return QStringLiteral("it is entry 1, but its prev_hash is not the zero hash");
    } else if (entry.prevHash != previous.hash) {
        return QStringLiteral("its prev_hash does not match the hash of entry %1 "
                              "(entry %1 was edited and rehashed, or this link was altered)")
            .arg(previous.seq);
    }
    return {};
}

} // namespace

Expected<AuditVerification> AuditLog::verify(Store &store)
{
    AuditVerification result;
    Link previous;
    // Paged by offset, oldest first: entries appended meanwhile land after the pages already
    // read, so they are checked too rather than shifting what is read.
    for (qint64 offset = 0;; offset += pageSize) {
        Expected<QList<AuditEntry>> page = store.auditEntries(offset, pageSize);
        if (!page)
            return page.error();
        for (const AuditEntry &entry : *page) {
            ++result.entriesChecked;
            if (QString why = breakAfter(previous, entry); !why.isEmpty()) {
                result.intact = false;
                result.firstBrokenSeq = entry.seq;
                result.reason = why;
                return result;
            }
            previous = Link{entry.seq, entry.hash};
        }
        if (page->size() < pageSize)
            break;
    }
    // Deleting the last entries leaves a shorter chain that is whole: nothing here can tell.
    return result;
}

} // namespace verity

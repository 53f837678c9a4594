#pragma once
// The audit log: every lookup, resolution and write made from the console, as a hash chain.
// Each entry's hash covers its own contents and the hash of the entry before it, so an entry
// edited or deleted in the database file breaks the chain from that entry on.
//
// An entry's hash is the lowercase-hex SHA-256 of this encoding (netstrings, as for intent keys):
//
//   netstring("verity-audit-v1") netstring(seq) netstring(at) netstring(operator)
//   netstring(action) netstring(escalation id) netstring(detail) netstring(evidence sha256)
//   netstring(prev_hash)
//   netstring(x) = <byte length of x in decimal> ":" x ","
//
// - Integers (seq, at in ms since the epoch, escalation id) are written in decimal; an entry
//   without an escalation has an empty escalation id, one without evidence an empty evidence hash.
// - Text is the UTF-8 of exactly what is stored, not normalised: an edit from composed to
//   decomposed accents is still an edit.
// - prev_hash of entry 1 is 64 '0' characters.
//
// What the chain cannot show alone: the LAST entries removed (the chain that is left is whole),
// or the whole chain recomputed by someone who can write the file. Catching those needs the
// head (last seq and hash, `verity audit head`) kept somewhere else, and given back to
// verify(): a head the chain no longer holds means entries were removed or rewritten after it.
//
// The chain also vouches for what its entries point at, and verify() checks that too: the
// evidence each entry cites still hashes to the entry's evidence hash, no evidence was added
// without an entry, each escalation stands as its last "settle" entry left it
// (settlementrecord.h), each ledger row was made by such an entry, and each write call's stored
// outcome is what its recorded result reads as.

#include "domain/expected.h"
#include "store/records.h"

#include <QString>

#include <optional>

namespace verity {

class AuditCheckStore;
class AuditStore;
class RegistrySelection;

struct AuditVerification
{
    bool intact = true;
    // Entries read; when the chain is broken, those up to and including the broken one.
    qint64 entriesChecked = 0;
    std::optional<qint64> firstBrokenSeq; // the entry that breaks, or that points at what was changed
    QString reason; // the first mismatch, in words; empty when intact
};

// The newest entry: what to keep elsewhere to catch entries removed or rewritten later.
struct AuditHead
{
    qint64 length = 0; // entries in the chain (the seq of the newest)
    QString hash; // the newest entry's hash; the zero hash for an empty chain
};

class AuditLog
{
public:
    explicit AuditLog(AuditStore &store);

    // Appends an entry after the last one. Call it INSIDE the caller's transaction
    // (store.begin() ... store.commit()) that also makes the change it records: the entry
    // and the change then commit or roll back together, and the write lock taken by begin()
    // keeps two consoles from chaining onto the same last entry.
    // `evidenceSha256` is empty or 64 lowercase hex digits.
    Expected<AuditEntry> append(const QString &operatorName, const QString &action,
                                std::optional<qint64> escalationId, const QString &detail,
                                const QString &evidenceSha256, qint64 atMs);

    // The hash an entry should carry, from its contents and prevHash (its `hash` is ignored).
    static QString entryHash(const AuditEntry &entry);
    // The bytes entryHash() hashes: the encoding described at the top of this file.
    static QByteArray canonicalEncoding(const AuditEntry &entry);

    // Reads the whole chain, oldest first, a page at a time, and names the first entry that
    // breaks it: its hash does not match its contents, its prev_hash does not match the entry
    // before it, entries are missing before it, or it is entry 1 and prev_hash is not the
    // zero hash. Removing the last entries is not detectable this way (see the top of this file).
    // An error means the log could not be read, not that it is broken.
    // Then checks what the entries point at (see the top of this file). With `head`, the chain
    // must still hold an entry of that hash.
    // `registries`: the rules each write's recorded result is read by again (the built-in
    // profiles when null), as the import read it.
    static Expected<AuditVerification> verify(AuditCheckStore &store, const QString &head = {},
                                              const RegistrySelection *registries = nullptr);
    static Expected<AuditHead> head(AuditStore &store);

    static QString zeroHash(); // prev_hash of entry 1

private:
    AuditStore &m_store;
};

} // namespace verity

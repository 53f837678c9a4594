#pragma once
// Helpers shared by the audit tests: a chain of entries appended the way the console appends
// them (inside a transaction), and an edit covered up on a raw connection to the same file
// (support/rawsqlite.h) for tampering with it behind the store's back.

#include "audit/auditlog.h"
#include "domain/sha256.h"
#include "store/store.h"
#include "support/rawsqlite.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

#include <memory>

namespace audittest {

// Midday, 17 March 2026 (UTC), plus a minute per entry.
constexpr qint64 firstEntryAt = 1773748800000;

inline QString operatorOf(int n)
{
    static const char *const names[] = {"amira", "bruno", "chen"};
    return QString::fromLatin1(names[n % 3]);
}

// Actions of no meaning to the audit beyond the chain: these entries cite no stored evidence
// and settle nothing, so the chain alone is what verify() judges.
inline QString actionOf(int n)
{
    static const char *const actions[] = {"reviewed", "noted", "flagged"};
    return QString::fromLatin1(actions[n % 3]);
}

// Entry n (from 1): odd entries name escalation 100 + n and carry evidence; even ones neither.
inline std::optional<qint64> escalationOf(int n)
{
    return n % 2 == 1 ? std::optional<qint64>(100 + n) : std::nullopt;
}

inline QString evidenceOf(int n)
{
    return n % 2 == 1 ? QString::fromLatin1(verity::sha256Hex("evidence " + QByteArray::number(n)))
                      : QString();
}

inline QString detailOf(int n)
{
    return QStringLiteral("entry %1: refund of %2 USD").arg(n).arg(100 + n);
}

// Appends entries first+1 .. first+count; each in its own transaction, or all in one.
inline QString appendEntries(verity::Store &store, int count, bool oneTransaction = false, int first = 0)
{
    verity::AuditLog log(store);
    auto appendOne = [&](int n) -> QString {
        verity::Expected<verity::AuditEntry> entry =
                log.append(operatorOf(n), actionOf(n), escalationOf(n), detailOf(n), evidenceOf(n),
                           firstEntryAt + 60000LL * n);
        return entry ? QString() : entry.message();
    };
    if (oneTransaction) {
        if (auto begun = store.begin(); !begun)
            return begun.message();
        for (int n = first + 1; n <= first + count; ++n) {
            if (QString error = appendOne(n); !error.isEmpty()) {
                store.rollback();
                return error;
            }
        }
        auto committed = store.commit();
        return committed ? QString() : committed.message();
    }
    for (int n = first + 1; n <= first + count; ++n) {
        if (auto begun = store.begin(); !begun)
            return begun.message();
        if (QString error = appendOne(n); !error.isEmpty()) {
            store.rollback();
            return error;
        }
        if (auto committed = store.commit(); !committed)
            return committed.message();
    }
    return {};
}

// The shared raw connection (support/rawsqlite.h), by the names these tests use.
using verity::test::RawSqlite;
using verity::test::scalar;

// Gives entry `seq` the hash of its contents as they now are, on a raw connection
// (support/rawsqlite.h): an edit covered up. Empty when it worked, else the error.
inline QString rehash(QSqlDatabase &db, qint64 seq)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("SELECT seq, at, operator, action, escalation_id, detail, evidence_sha256, "
                                 "prev_hash FROM audit_log WHERE seq = ?"));
    query.addBindValue(seq);
    if (!query.exec() || !query.next())
        return QStringLiteral("no entry %1 to rehash").arg(seq);
    verity::AuditEntry entry;
    entry.seq = query.value(0).toLongLong();
    entry.at = query.value(1).toLongLong();
    entry.operatorName = query.value(2).toString();
    entry.action = query.value(3).toString();
    if (!query.value(4).isNull())
        entry.escalationId = query.value(4).toLongLong();
    entry.detail = query.value(5).toString();
    entry.evidenceSha256 = query.value(6).toString();
    entry.prevHash = query.value(7).toString();
    query.finish();
    QSqlQuery update(db);
    update.prepare(QStringLiteral("UPDATE audit_log SET hash = ? WHERE seq = ?"));
    update.addBindValue(verity::AuditLog::entryHash(entry));
    update.addBindValue(seq);
    return update.exec() ? QString() : update.lastError().text();
}

} // namespace audittest

// AuditLog::verify: walks the chain oldest first and names the first entry that breaks it,
// then checks what the entries point at: evidence, settlements and the ledger, and that each
// write's stored outcome is what its recorded result says.

#include "auditaction.h"
#include "auditlog.h"
#include "domain/registrychoice.h"
#include "domain/resultclassifier.h"
#include "settlementrecord.h"
#include "store/store.h"

#include <QHash>
#include <QSet>

#include <nlohmann/json.hpp>

namespace verity {

namespace {

// A thousand rows at a time: memory stays flat however long the log grows.
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

// The entry that last decided where an escalation stands.
struct Decision
{
    qint64 seq = 0;
    QString action;
    QString hash;
    QString detail;
};

bool decides(const AuditEntry &entry)
{
    // A legacy write that came back unknown left its escalation as the write-started entry did.
    if (entry.action == auditaction::legacyWrite)
        return !entry.detail.contains(QStringLiteral(": Unknown"));
    return entry.action == auditaction::settle || entry.action == auditaction::writeStarted
            || entry.action == auditaction::legacyResolve;
}

QString citation(qint64 escalationId, const QString &hash)
{
    return QString::number(escalationId) + u'|' + hash;
}

// What the chain says, gathered as it is walked.
struct ChainFacts
{
    QHash<qint64, Decision> decisionOf; // escalation -> its latest deciding entry
    QHash<QString, qint64> citedBy; // citation -> the first entry citing it
    bool headFound = false;
};

// Entries written before settlements were hashed name their resolution in words only.
bool legacyAgrees(const Decision &decision, const std::optional<Resolution> &resolution)
{
    if (decision.action == auditaction::legacyResolve) {
        if (decision.detail.contains(QStringLiteral("resolved as not performed")))
            return resolution == Resolution::NotPerformed;
        return resolution == Resolution::Performed
                && decision.detail.contains(QStringLiteral("resolved as performed"));
    }
    if (decision.detail.contains(QStringLiteral(": Not performed")))
        return resolution == Resolution::NotPerformed;
    return resolution == Resolution::PerformedAgain;
}

AuditVerification broken(AuditVerification result, std::optional<qint64> seq, const QString &reason)
{
    result.intact = false;
    result.firstBrokenSeq = seq;
    result.reason = reason;
    return result;
}

// Each evidence row still hashes to what it says, and an entry cites it.
Expected<std::optional<AuditVerification>> checkEvidence(AuditStore &store, const ChainFacts &facts,
                                                         const AuditVerification &result,
                                                         QSet<QString> &intact)
{
    for (qint64 offset = 0;; offset += pageSize) {
        Expected<QList<Evidence>> page = store.evidenceRows(offset, pageSize);
        if (!page)
            return page.error();
        for (const Evidence &row : *page) {
            const QString cited = citation(row.escalationId, row.evidenceSha256);
            const std::optional<qint64> citingSeq = facts.citedBy.contains(cited)
                    ? std::optional<qint64>(facts.citedBy.value(cited))
                    : std::nullopt;
            // A lookup kept before schema 11 was hashed over its request and response alone; any
            // other row over every field it shows. Either way the chain cites the stored hash.
            if (evidenceHash(row) != row.evidenceSha256 && legacyEvidenceHash(row) != row.evidenceSha256)
                return std::optional(
                        broken(result, citingSeq,
                               QStringLiteral("evidence %1 of escalation %2 was edited: what it says no "
                                              "longer has the SHA-256 it was stored with")
                                       .arg(row.id)
                                       .arg(row.escalationId)));
            if (!citingSeq)
                return std::optional(
                        broken(result, std::nullopt,
                               QStringLiteral("evidence %1 of escalation %2 was added without an audit "
                                              "entry, or its hash was changed")
                                       .arg(row.id)
                                       .arg(row.escalationId)));
            intact.insert(cited);
        }
        if (page->size() < pageSize)
            return std::optional<AuditVerification>();
    }
}

// Each escalation stands as its last deciding entry left it; returns the refunds the
// settlements vouch for, for the ledger check.
Expected<std::optional<AuditVerification>> checkSettlements(AuditCheckStore &store, const ChainFacts &facts,
                                                            const AuditVerification &result,
                                                            QSet<QString> &vouched)
{
    for (qint64 offset = 0;; offset += pageSize) {
        Expected<QList<EscalationSettlement>> page = store.escalationSettlements(offset, pageSize);
        if (!page)
            return page.error();
        for (const EscalationSettlement &row : *page) {
            const bool settled = row.state == EscalationState::Resolved;
            const auto found = facts.decisionOf.constFind(row.escalationId);
            if (found == facts.decisionOf.cend()) {
                if (settled)
                    return std::optional(
                            broken(result, std::nullopt,
                                   QStringLiteral("escalation %1 is settled (%2) but no audit entry "
                                                  "settled it")
                                           .arg(row.escalationId)
                                           .arg(settlementText(row.resolution.value_or(Resolution::Performed),
                                                               row.basis))));
                continue;
            }
            const Decision &decision = *found;
            if (decision.action == auditaction::writeStarted) {
                if (settled)
                    return std::optional(
                            broken(result, decision.seq,
                                   QStringLiteral("escalation %1 was reopened for a repeat by entry %2, "
                                                  "but is settled with no entry after it")
                                           .arg(row.escalationId)
                                           .arg(decision.seq)));
                continue;
            }
            if (!settled)
                return std::optional(
                        broken(result, decision.seq,
                               QStringLiteral("escalation %1 is open again, but entry %2 settled it and no "
                                              "entry reopened it")
                                       .arg(row.escalationId)
                                       .arg(decision.seq)));
            Expected<std::optional<LedgerEntry>> ledger = store.ledgerEntryOfCall(row.callId);
            if (!ledger)
                return ledger.error();
            if (decision.action == auditaction::settle) {
                if (settlementHash(row, *ledger) != decision.hash)
                    return std::optional(
                            broken(result, decision.seq,
                                   QStringLiteral("escalation %1 no longer matches entry %2, which "
                                                  "settled it: its resolution or its call's ledger row "
                                                  "was changed")
                                           .arg(row.escalationId)
                                           .arg(decision.seq)));
            } else if (!legacyAgrees(decision, row.resolution)) {
                return std::optional(
                        broken(result, decision.seq,
                               QStringLiteral("escalation %1 is settled as %2, but entry %3 says "
                                              "otherwise")
                                       .arg(row.escalationId)
                                       .arg(settlementText(row.resolution.value_or(Resolution::Performed),
                                                           row.basis))
                                       .arg(decision.seq)));
            }
            if (*ledger && row.resolution != Resolution::NotPerformed)
                vouched.insert((*ledger)->refundId);
        }
        if (page->size() < pageSize)
            return std::optional<AuditVerification>();
    }
}

Expected<std::optional<AuditVerification>> checkLedger(AuditStore &store, const AuditVerification &result,
                                                       const QSet<QString> &vouched)
{
    for (qint64 offset = 0;; offset += pageSize) {
        Expected<QList<LedgerEntry>> page = store.ledgerEntries(offset, pageSize);
        if (!page)
            return page.error();
        for (const LedgerEntry &row : *page) {
            if (!vouched.contains(row.refundId))
                return std::optional(
                        broken(result, std::nullopt,
                               QStringLiteral("the ledger's row for refund %1 was not made by any audit "
                                              "entry (added, or its settlement changed)")
                                       .arg(row.refundId)));
        }
        if (page->size() < pageSize)
            return std::optional<AuditVerification>();
    }
}

QString outcomeWords(const std::optional<Outcome> &outcome)
{
    return outcome ? outcomeLabel(*outcome).toLower() : QStringLiteral("no outcome");
}

// The outcome the call's recorded result reads as, when it differs from the stored one.
QString resultMismatch(const StoredWriteOutcome &call, const RegistrySelection &registries)
{
    if (!call.hasResult) {
        if (!call.outcome || *call.outcome == Outcome::Unknown)
            return QString();
        return QStringLiteral(
                       "call %1 of ticket %2 is stored as %3, but no result of it was recorded: a write "
                       "without a result is unknown")
                .arg(call.callExtId, call.ticketExtId, outcomeWords(call.outcome));
    }
    nlohmann::json result = nlohmann::json::parse(call.rawResult.toStdString(), nullptr, false);
    if (result.is_discarded())
        result = call.rawResult.toStdString();
    const WriteVerdict verdict = classifyWriteResult(
            &result, registries.byName(call.registry).registry.outcomeRules(), call.resultError);
    if (call.outcome == verdict.outcome)
        return QString();
    return QStringLiteral(
                   "call %1 of ticket %2 is stored as %3, but its recorded result reads as %4 (%5): the "
                   "outcome was changed behind Verity's back, or read by other rules than the registry in "
                   "force now")
            .arg(call.callExtId, call.ticketExtId, outcomeWords(call.outcome), outcomeWords(verdict.outcome),
                 verdict.reason);
}

// What a write's stored outcome must be: what its recorded result reads as by the rules of the
// profile that read its ticket, and unknown when no result was recorded; and an unknown write
// has its escalation. An unknown refund turned green, or dropped from the queue, by hand breaks
// here, whichever way it was written.
QString outcomeMismatch(const StoredWriteOutcome &call, const RegistrySelection &registries)
{
    if (QString why = resultMismatch(call, registries); !why.isEmpty())
        return why;
    // Every unknown write waits in the queue until it is settled; one that is not was taken out.
    if (call.outcome == Outcome::Unknown && !call.escalated && !call.inFlight)
        return QStringLiteral(
                       "call %1 of ticket %2 is unknown but has no escalation: it was taken out of the "
                       "queue instead of settled")
                .arg(call.callExtId, call.ticketExtId);
    return QString();
}

Expected<std::optional<AuditVerification>>
checkOutcomes(AuditStore &store, const RegistrySelection &registries, const AuditVerification &result)
{
    for (qint64 after = 0;;) {
        Expected<QList<StoredWriteOutcome>> page = store.writeOutcomes(after, pageSize);
        if (!page)
            return page.error();
        for (const StoredWriteOutcome &call : *page) {
            after = call.callId;
            if (const QString why = outcomeMismatch(call, registries); !why.isEmpty())
                return std::optional(broken(result, std::nullopt, why));
        }
        if (page->size() < pageSize)
            return std::optional<AuditVerification>();
    }
}

} // namespace

Expected<AuditVerification> AuditLog::verify(AuditCheckStore &store, const QString &head,
                                             const RegistrySelection *registries)
{
    AuditVerification result;
    Link previous;
    ChainFacts facts;
    // Paged by offset, oldest first: entries appended meanwhile land after the pages already
    // read, so they are checked too rather than shifting what is read.
    for (qint64 offset = 0;; offset += pageSize) {
        Expected<QList<AuditEntry>> page = store.auditEntries(offset, pageSize);
        if (!page)
            return page.error();
        for (const AuditEntry &entry : *page) {
            ++result.entriesChecked;
            if (QString why = breakAfter(previous, entry); !why.isEmpty())
                return broken(result, entry.seq, why);
            previous = Link{entry.seq, entry.hash};
            if (!head.isEmpty() && entry.hash == head)
                facts.headFound = true;
            if (!entry.escalationId)
                continue;
            if (decides(entry))
                facts.decisionOf.insert(*entry.escalationId,
                                        {entry.seq, entry.action, entry.evidenceSha256, entry.detail});
            if (auditaction::citesEvidence(entry.action) && !entry.evidenceSha256.isEmpty())
                facts.citedBy.insert(citation(*entry.escalationId, entry.evidenceSha256), entry.seq);
        }
        if (page->size() < pageSize)
            break;
    }
    if (!head.isEmpty() && !facts.headFound && head != zeroHash())
        return broken(
                result, std::nullopt,
                QStringLiteral(
                        "no entry has the head hash %1: entries were removed or rewritten after that head "
                        "was taken")
                        .arg(head));

    QSet<QString> intactEvidence;
    Expected<std::optional<AuditVerification>> evidence = checkEvidence(store, facts, result, intactEvidence);
    if (!evidence)
        return evidence.error();
    if (*evidence)
        return **evidence;
    for (auto it = facts.citedBy.cbegin(); it != facts.citedBy.cend(); ++it) {
        if (!intactEvidence.contains(it.key()))
            return broken(
                    result, it.value(),
                    QStringLiteral("entry %1 cites evidence %2 of escalation %3, which is no longer stored")
                            .arg(it.value())
                            .arg(it.key().section(u'|', 1).left(12) + QStringLiteral("…"))
                            .arg(it.key().section(u'|', 0, 0)));
    }
    QSet<QString> vouched;
    Expected<std::optional<AuditVerification>> settlements = checkSettlements(store, facts, result, vouched);
    if (!settlements)
        return settlements.error();
    if (*settlements)
        return **settlements;
    Expected<std::optional<AuditVerification>> ledger = checkLedger(store, result, vouched);
    if (!ledger)
        return ledger.error();
    if (*ledger)
        return **ledger;
    const RegistrySelection builtIn = registries ? RegistrySelection() : automaticRegistries(QString());
    Expected<std::optional<AuditVerification>> outcomes =
            checkOutcomes(store, registries ? *registries : builtIn, result);
    if (!outcomes)
        return outcomes.error();
    if (*outcomes)
        return **outcomes;
    return result;
}

Expected<AuditHead> AuditLog::head(AuditStore &store)
{
    Expected<std::optional<AuditEntry>> last = store.lastAuditEntry();
    if (!last)
        return last.error();
    if (!*last)
        return AuditHead{0, zeroHash()};
    return AuditHead{(*last)->seq, (*last)->hash};
}

} // namespace verity

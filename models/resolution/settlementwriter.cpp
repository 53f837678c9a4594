#include "settlementwriter.h"

#include "audit/auditaction.h"
#include "audit/auditlog.h"
#include "audit/settlementrecord.h"
#include "store/reassessment.h"
#include "store/store.h"

#include <QDateTime>

namespace verity {

EscalationSettlement settlementOf(const EscalationDetail &escalation)
{
    EscalationSettlement settlement;
    settlement.escalationId = escalation.id;
    settlement.callId = escalation.callId;
    settlement.state = escalation.state;
    settlement.resolution = escalation.resolution;
    settlement.basis = escalation.basis;
    settlement.reference = escalation.reference;
    settlement.resolvedBy = escalation.resolvedBy;
    settlement.resolvedAt = escalation.resolvedAt;
    return settlement;
}

namespace {

Expected<SettlementWritten> writeInTransaction(SettlementStore &store, const QString &operatorName,
                                               const EscalationDetail &escalation, const SettlementStep &step)
{
    SettlementWritten written;
    AuditLog audit(store);
    if (step.evidence) {
        Evidence evidence = *step.evidence;
        evidence.escalationId = escalation.id;
        // Hashed as the store gives it back: text through UTF-8, no null strings.
        for (QString *text : {&evidence.operatorName, &evidence.recordId, &evidence.reason, &evidence.request,
                              &evidence.response})
            *text = QString::fromUtf8(text->toUtf8());
        evidence.evidenceSha256 = evidenceHash(evidence);
        Expected<qint64> id = store.recordEvidence(evidence);
        if (!id)
            return id.error();
        evidence.id = *id;
        if (auto entry = audit.append(operatorName, step.evidenceAction, escalation.id, step.evidenceDetail,
                                      evidence.evidenceSha256, evidence.finishedAt);
            !entry)
            return entry.error();
        written.evidence = evidence;
    }
    if (step.settlement) {
        Expected<ResolutionClaim> claim = store.resolveEscalation(*step.settlement);
        if (!claim)
            return claim.error();
        written.claim = *claim;
        if (!claim->claimed)
            return written; // the evidence stays; the other console's settlement stands
        if (step.ledger) {
            Expected<bool> inserted = store.recordLedgerEntry(*step.ledger);
            if (!inserted)
                return inserted.error();
            // One refund is never cited for two calls: a refund the ledger already gives to
            // another call cannot settle this one.
            if (!*inserted)
                return makeError(
                        QStringLiteral("refund %1 is already recorded in the ledger for another call; "
                                       "nothing was settled")
                                .arg(step.ledger->refundId));
        }
        // The settle entry vouches for what the store now holds, read back as the audit reads it.
        Expected<std::optional<EscalationDetail>> settled = store.escalation(escalation.id);
        if (!settled)
            return settled.error();
        if (!*settled)
            return makeError(QStringLiteral("escalation %1 is gone").arg(escalation.id));
        Expected<std::optional<LedgerEntry>> ledger = store.ledgerEntryOfCall(escalation.callId);
        if (!ledger)
            return ledger.error();
        if (auto entry = audit.append(operatorName, auditaction::settle, escalation.id, step.settleDetail,
                                      settlementHash(settlementOf(**settled), *ledger), step.settlement->at);
            !entry)
            return entry.error();
    } else if (!step.note.isEmpty()) {
        if (Expected<void> noted = store.noteEscalation(escalation.id, step.note); !noted)
            return noted.error();
    }
    if (Expected<RepeatCounts> reassessed = reassessTicket(store, escalation.ticketId); !reassessed)
        return reassessed.error();
    return written;
}

} // namespace

Expected<SettlementWritten> writeSettlement(SettlementStore &store, const QString &operatorName,
                                            const EscalationDetail &escalation, const SettlementStep &step)
{
    if (Expected<void> begun = store.begin(); !begun)
        return begun.error();
    Expected<SettlementWritten> written = writeInTransaction(store, operatorName, escalation, step);
    if (!written) {
        store.rollback();
        return written;
    }
    if (Expected<void> committed = store.commit(); !committed) {
        store.rollback();
        return committed.error();
    }
    return written;
}

} // namespace verity

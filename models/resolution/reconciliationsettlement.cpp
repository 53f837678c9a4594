#include "reconciliationsettlement.h"

#include "audit/auditaction.h"
#include "domain/money.h"
#include "escalationclaims.h"
#include "escalationtext.h"
#include "recordmatching.h"
#include "settlementwriter.h"
#include "store/store.h"

#include <QDateTime>
#include <QHash>

namespace verity {

namespace {

constexpr int pageSize = 500;

bool moved(const StatementRefund &refund)
{
    return !refund.status.didNotGoThrough();
}

} // namespace

Expected<QList<ProvenCall>> callsProvenBy(ClaimStore &store, const ProviderStatement &statement)
{
    QHash<QString, QList<const StatementRefund *>> byKey;
    for (const StatementRefund &refund : statement.refunds) {
        if (!refund.intentKey.isEmpty() && moved(refund))
            byKey[refund.intentKey].append(&refund);
    }
    QList<ProvenCall> proven;
    if (byKey.isEmpty())
        return proven;
    const auto judge = [&](qint64 escalationId) -> Expected<void> {
        Expected<std::optional<EscalationDetail>> detail = store.escalation(escalationId);
        if (!detail)
            return detail.error();
        if (!*detail || (*detail)->toolClass != ToolClass::WriteMoney || (*detail)->intentKey.isEmpty())
            return {};
        const EscalationDetail &escalation = **detail;
        const auto refunds = byKey.constFind(escalation.intentKey);
        if (refunds == byKey.cend())
            return {};
        Expected<QList<IntentCall>> calls = store.intentCalls(escalation.ticketId, escalation.intentKey);
        if (!calls)
            return calls.error();
        const bool allInPeriod = std::all_of(calls->cbegin(), calls->cend(), [&](const IntentCall &call) {
            return !mayHaveMadeRecord(call)
                    || (call.calledAt >= statement.period.fromMs + recordClockMarginMs
                        && call.calledAt < statement.period.toMs);
        });
        if (!allInPeriod)
            return {};
        QList<KeyedRecord> records;
        for (const StatementRefund *refund : *refunds)
            records.append({refund->id, refund->createdMs});
        const QString mine = matchRecordsToCalls(*calls, records).recordOfCall.value(escalation.callId);
        for (const StatementRefund *refund : *refunds) {
            if (refund->id == mine)
                proven.append({escalation, *refund});
        }
        return {};
    };
    // The unknown calls, then those a person attested: the provider's record outranks a check.
    for (qint64 offset = 0;; offset += pageSize) {
        Expected<QList<EscalationRow>> page = store.openEscalations(offset, pageSize);
        if (!page)
            return page.error();
        for (const EscalationRow &row : std::as_const(*page)) {
            if (Expected<void> judged = judge(row.id); !judged)
                return judged.error();
        }
        if (page->size() < pageSize)
            break;
    }
    for (qint64 offset = 0;; offset += pageSize) {
        Expected<QList<EscalationSettlement>> page = store.escalationSettlements(offset, pageSize);
        if (!page)
            return page.error();
        for (const EscalationSettlement &row : std::as_const(*page)) {
            if (row.state != EscalationState::Resolved || row.basis != SettlementBasis::Attestation)
                continue;
            if (Expected<void> judged = judge(row.escalationId); !judged)
                return judged.error();
        }
        if (page->size() < pageSize)
            break;
    }
    return proven;
}

Expected<StatementSettlement> settleFromStatement(SettlementStore &store, const QList<ProvenCall> &proven,
                                                  const ProviderStatement &statement,
                                                  const QString &operatorName)
{
    StatementSettlement result;
    const EscalationClaims claims(store, operatorName);
    for (const ProvenCall &call : proven) {
        const EscalationDetail &escalation = call.escalation;
        // Someone may have claimed it since it was shown: theirs to settle, the rest go on.
        const Expected<std::optional<EscalationDetail>> current = store.escalation(escalation.id);
        if (!current)
            return makeError(QStringLiteral("escalation %1: %2 (%3 settled before it)")
                                     .arg(escalation.id)
                                     .arg(current.message())
                                     .arg(result.settled));
        if (const QString held = *current ? claims.refusal(**current) : QString(); !held.isEmpty()) {
            result.held << QStringLiteral("%1 call %2 (escalation %3): %4")
                                   .arg(escalation.ticketExtId, escalation.callExtId)
                                   .arg(escalation.id)
                                   .arg(held);
            continue;
        }
        const StatementRefund &refund = call.refund;
        const qint64 at = QDateTime::currentMSecsSinceEpoch();
        Evidence evidence;
        evidence.kind = EvidenceKind::Reconciliation;
        evidence.operatorName = operatorName;
        evidence.startedAt = statement.fetchedAt > 0 ? statement.fetchedAt : at;
        evidence.finishedAt = at;
        evidence.verdict = LookupVerdict::Found;
        evidence.recordId = refund.id;
        evidence.request =
                QStringLiteral("Reconciliation of %1 against %2, read at %3\nRefund %4, read from %5")
                        .arg(periodText(statement.period), statement.source, isoTime(evidence.startedAt),
                             refund.id, refund.origin);
        evidence.response = refund.record.isEmpty()
                ? QStringLiteral("%1 of %2 for %3, created %4, status %5, intent key %6")
                          .arg(refund.id, formatMoney(refund.amountCents, refund.currency),
                               refund.paymentIntent, isoTime(refund.createdMs), refund.status.text(),
                               refund.intentKey)
                : refund.record;
        evidence.reason =
                QStringLiteral(
                        "the provider's statement holds refund %1 of %2 carrying this call's intent key")
                        .arg(refund.id, formatMoney(refund.amountCents, refund.currency));
        const QString callText = QStringLiteral("%1 %2 on %3")
                                         .arg(escalation.tool, escalation.callExtId, escalation.ticketExtId);
        SettlementStep step;
        step.evidence = evidence;
        step.evidenceAction = auditaction::reconciliation;
        step.evidenceDetail = QStringLiteral("%1: %2").arg(callText, evidence.reason);
        step.settlement = Settlement{escalation.id, Resolution::Performed, SettlementBasis::Reconciliation,
                                     refund.id,     operatorName,          at};
        step.ledger = LedgerEntry{escalation.intentKey,
                                  escalation.callId,
                                  refund.id,
                                  refund.amountCents,
                                  refund.currency.isEmpty() ? escalation.currency : refund.currency,
                                  escalation.sellerId,
                                  refund.createdMs > 0 ? refund.createdMs : at,
                                  QStringLiteral("reconciliation")};
        step.settleDetail =
                QStringLiteral("%1: %2, refund %3")
                        .arg(callText, settlementText(Resolution::Performed, SettlementBasis::Reconciliation),
                             refund.id);
        if (const QString replaced = replacedCheckText(escalation); !replaced.isEmpty())
            step.settleDetail += QStringLiteral("; replaces %1").arg(replaced);
        Expected<SettlementWritten> written = writeSettlement(store, operatorName, escalation, step);
        if (!written)
            return makeError(QStringLiteral("escalation %1: %2 (%3 settled before it)")
                                     .arg(escalation.id)
                                     .arg(written.message())
                                     .arg(result.settled));
        if (written->claim && written->claim->claimed) {
            ++result.settled;
            result.settledCalls.append(call);
        } else if (written->claim)
            result.elsewhere << QStringLiteral("escalation %1: %2")
                                        .arg(escalation.id)
                                        .arg(settledByText(
                                                written->claim->resolvedBy, written->claim->resolvedAt,
                                                written->claim->resolution.value_or(Resolution::Performed),
                                                written->claim->basis));
    }
    return result;
}

} // namespace verity

// Settling an escalation by what its system holds: the records that carry the call's intent
// key, matched one to one with the ticket's calls of that key (recordmatching.h).

#include "audit/auditaction.h"
#include "escalationresolver.h"
#include "escalationtext.h"
#include "recordmatching.h"
#include "store/store.h"

#include <QDateTime>

namespace verity {

namespace {

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QString callList(const QStringList &calls)
{
    if (calls.size() <= 1)
        return calls.join(QString());
    return QStringList(calls.mid(0, calls.size() - 1)).join(QStringLiteral(", ")) + QStringLiteral(" and ")
            + calls.constLast();
}

// "issue_refund c3 on T-…": the call as the evidence and the audit name it.
QString callWords(const EscalationDetail &escalation)
{
    return QStringLiteral("%1 %2 on %3").arg(escalation.tool, escalation.callExtId, escalation.ticketExtId);
}

// Evidence outranks a person's check, and the person who settles says so: whose check this
// lookup replaces is in the result and in the audit entry.
QString replacesWords(const EscalationDetail &escalation)
{
    const QString replaced = replacedCheckText(escalation);
    return replaced.isEmpty() ? QString() : QStringLiteral(" It replaces %1.").arg(replaced);
}

// The records a lookup found that carry the call's intent key, matched one to one with the
// ticket's calls of that key.
struct KeyedFindings
{
    QString mine; // the record that is this call's; empty when none is
    QHash<QString, SystemRecord> records;
    qsizetype keyed = 0; // how many records carry the key
    QStringList others; // the other calls a record is
    QString matching; // "; 2 refunds carry this key (…)", and any record no call accounts for
};

KeyedFindings matchKeyed(const QList<IntentCall> &calls, const SystemAnswer &answer,
                         const EscalationDetail &escalation, const QString &nouns)
{
    KeyedFindings found;
    QList<KeyedRecord> keyed;
    for (const SystemRecord &record : answer.records) {
        keyed.append({record.id, record.createdMs});
        found.records.insert(record.id, record);
    }
    found.keyed = keyed.size();
    const RecordMatch match = matchRecordsToCalls(calls, keyed);
    QStringList assignments;
    for (const IntentCall &other : calls) {
        const QString record = match.recordOfCall.value(other.id);
        if (!record.isEmpty())
            assignments << QStringLiteral("%1 for %2").arg(record, other.callExtId);
        if (other.id != escalation.callId && !record.isEmpty())
            found.others << other.callExtId;
    }
    if (keyed.size() > 1)
        found.matching = QStringLiteral("; %1 %2 carry this key (%3)")
                                 .arg(keyed.size())
                                 .arg(nouns, assignments.join(QStringLiteral(", ")));
    if (!match.leftOver.isEmpty())
        found.matching += QStringLiteral("; %1 no call of the ticket accounts for: %2")
                                  .arg(match.leftOver.join(QStringLiteral(", ")),
                                       escalation.toolClass == ToolClass::WriteMoney
                                               ? QStringLiteral("a duplicate payout")
                                               : QStringLiteral("a duplicate effect"));
    found.mine = match.recordOfCall.value(escalation.callId);
    return found;
}

} // namespace

void EscalationResolver::afterLookup(ResolutionOperation *operation, const EscalationDetail &escalation,
                                     qint64 startedAt, const SystemAnswer &answer)
{
    Evidence evidence = evidenceFrom(answer.exchanges);
    evidence.kind = EvidenceKind::Lookup;
    evidence.operatorName = m_operator;
    evidence.startedAt = startedAt;
    evidence.finishedAt = now();
    evidence.verdict = answer.verdict;
    evidence.reason = answer.reason;
    if (answer.verdict == LookupVerdict::CouldNotTell)
        return lookupStaysOpen(operation, escalation, evidence, answer.reason);

    Expected<QList<IntentCall>> calls = m_store.intentCalls(escalation.ticketId, escalation.intentKey);
    if (!calls) {
        operation->finish(failedReport(QStringLiteral("nothing was settled: %1").arg(calls.message())));
        return;
    }
    const QString noun = nounOf(escalation);
    const KeyedFindings found = matchKeyed(*calls, answer, escalation, noun + u's');
    if (found.mine.isEmpty()) {
        // No record is this call's: none carries the key, or each that does belongs to another call.
        evidence.reason = found.keyed == 0
                ? answer.reason
                : QStringLiteral("the %1 %2 carrying this key belong to %3; none is left for %4%5")
                          .arg(found.keyed)
                          .arg(noun + u's', callList(found.others), escalation.callExtId, found.matching);
        return lookupFoundNothing(operation, escalation, evidence, !found.others.isEmpty());
    }
    const SystemRecord record = found.records.value(found.mine);
    if (didNotGoThrough(record))
        return lookupStaysOpen(
                operation, escalation, evidence,
                QStringLiteral("%1 %2 carries this call's intent key but did not go through; a "
                               "person must judge")
                        .arg(noun, record.description));
    lookupFound(operation, escalation, evidence, record, found.matching);
}

void EscalationResolver::lookupStaysOpen(ResolutionOperation *operation, const EscalationDetail &escalation,
                                         Evidence evidence, const QString &why)
{
    SettlementStep step;
    step.evidenceAction = auditaction::lookup;
    evidence.verdict = LookupVerdict::CouldNotTell;
    evidence.reason = why;
    step.evidence = evidence;
    step.evidenceDetail = QStringLiteral("%1: could not tell: %2").arg(callWords(escalation), why);
    QString system = route(escalation).system;
    system.replace(0, 1, system.left(1).toUpper());
    // An attested escalation keeps its check; only an open one is noted as still open.
    const bool open = escalation.state == EscalationState::Open;
    if (open)
        step.note = why;
    const QString stays = open
            ? QStringLiteral("The write stays unknown: do not retry it; look it up again later, or "
                             "record a check.")
            : QStringLiteral("It stays %1 by %2, as recorded; look it up again later.")
                      .arg(settlementText(escalation.resolution.value_or(Resolution::Performed),
                                          escalation.basis),
                           escalation.resolvedBy);
    operation->finish(reportOf(escalation, writeSettlement(m_store, m_operator, escalation, step), QString(),
                               QStringLiteral("%1 could not tell (%2). %3").arg(system, why, stays)));
}

void EscalationResolver::lookupFound(ResolutionOperation *operation, const EscalationDetail &escalation,
                                     Evidence evidence, const SystemRecord &record, const QString &matching)
{
    const bool money = escalation.toolClass == ToolClass::WriteMoney;
    const QString noun = nounOf(escalation);
    const QString call = callWords(escalation);
    const QString replaces = replacesWords(escalation);
    // A repeat sent from a console that stopped before its answer came: a record made since it
    // was sent is that repeat's, performed again and dated when it was made.
    const std::optional<qint64> sent = repeatSentAt(escalation.id);
    const bool again = sent && (record.createdMs <= 0 || record.createdMs >= *sent - recordClockMarginMs);
    const Resolution resolution = again ? Resolution::PerformedAgain : Resolution::Performed;
    evidence.verdict = LookupVerdict::Found;
    evidence.recordId = record.id;
    evidence.reason =
            QStringLiteral("found %1 %2 for this call%3%4")
                    .arg(noun, record.description, matching,
                         again ? QStringLiteral("; made by the repeat sent at %1").arg(isoTime(*sent))
                               : QString());
    SettlementStep step;
    step.evidenceAction = auditaction::lookup;
    step.evidence = evidence;
    step.evidenceDetail = QStringLiteral("%1: found %2 %3%4").arg(call, noun, record.id, matching);
    const qint64 at = now();
    step.settlement =
            Settlement{escalation.id, resolution, SettlementBasis::Lookup, record.id, m_operator, at};
    if (money)
        step.ledger =
                LedgerEntry{escalation.intentKey,
                            escalation.callId,
                            record.id,
                            record.amountCents > 0 ? record.amountCents : escalation.amountCents.value_or(0),
                            record.currency.isEmpty() ? escalation.currency : record.currency,
                            escalation.sellerId,
                            record.createdMs > 0 ? record.createdMs : at,
                            again ? QStringLiteral("console write") : QStringLiteral("provider lookup")};
    step.settleDetail = withReplacedCheck(
            QStringLiteral("%1: %2, %3 %4")
                    .arg(call, settlementText(resolution, SettlementBasis::Lookup), noun, record.id),
            replaces);
    operation->finish(reportOf(escalation, writeSettlement(m_store, m_operator, escalation, step),
                               QStringLiteral("%1: %2.%3")
                                       .arg(again ? QStringLiteral("Performed again (verified)")
                                                  : QStringLiteral("Performed (verified)"),
                                            evidence.reason, replaces),
                               QString()));
}

void EscalationResolver::lookupFoundNothing(ResolutionOperation *operation,
                                            const EscalationDetail &escalation, Evidence evidence,
                                            bool anotherTookEffect)
{
    const QString call = callWords(escalation);
    const QString replaces = replacesWords(escalation);
    evidence.verdict = LookupVerdict::NotFound;
    SettlementStep step;
    step.evidenceAction = auditaction::lookup;
    step.evidence = evidence;
    step.evidenceDetail = QStringLiteral("%1: not found: %2").arg(call, evidence.reason);
    step.settlement = Settlement{
            escalation.id, Resolution::NotPerformed, SettlementBasis::Lookup, QString(), m_operator, now()};
    step.settleDetail = withReplacedCheck(
            QStringLiteral("%1: %2").arg(call,
                                         settlementText(Resolution::NotPerformed, SettlementBasis::Lookup)),
            replaces);
    ResolutionReport report = reportOf(escalation, writeSettlement(m_store, m_operator, escalation, step),
                                       QString(), QString());
    if (report.kind == ResolutionReport::Kind::Resolved) {
        report.mayPerformAgain = bool(planRepeat(escalation.id));
        report.message = report.mayPerformAgain
                ? QStringLiteral("Not performed (verified): nothing carries this intent key. It may be "
                                 "performed once more, with the same key.")
                : QStringLiteral("Not performed (verified): %1.").arg(evidence.reason);
        if (!report.mayPerformAgain && anotherTookEffect)
            report.message += QStringLiteral(
                    " Another call of this intent took effect, so nothing more is owed for it.");
        report.message += replaces;
    }
    operation->finish(report);
}

} // namespace verity

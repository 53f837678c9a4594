// A write sent again from the console: allowed only after a lookup proved it absent and
// nothing of its intent took effect; sent once with the same key, behind the in-flight mark
// that sends the next person to a lookup if this console dies meanwhile. A write a person's
// check found absent is looked up first, and sent only if that lookup finds no record of it.

#include "audit/auditaction.h"
#include "audit/auditlog.h"
#include "domain/money.h"
#include "escalationresolver.h"
#include "escalationtext.h"
#include "provider/providerhttp.h"
#include "recordmatching.h"
#include "store/reassessment.h"
#include "store/store.h"

#include <QDateTime>
#include <QSet>

#include <nlohmann/json.hpp>

namespace verity {

namespace {

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

RecordWrite recordWriteOf(const EscalationDetail &escalation, const RecordQuery &query)
{
    RecordWrite write{query.system, query.path, escalation.intentKey, query.filter};
    QSet<QString> named;
    for (const auto &[name, value] : query.filter)
        named.insert(name);
    const nlohmann::json arguments =
            nlohmann::json::parse(escalation.argumentsJson.toStdString(), nullptr, false);
    if (arguments.is_object()) {
        for (auto it = arguments.begin(); it != arguments.end(); ++it) {
            QString name = QString::fromStdString(it.key());
            if (name.endsWith(QStringLiteral("_id")))
                name.chop(3);
            if (named.contains(name) || it->is_null() || it->is_object() || it->is_array())
                continue;
            named.insert(name);
            write.form.append({name,
                               it->is_string() ? QString::fromStdString(it->get<std::string>())
                                               : QString::fromStdString(it->dump())});
        }
    }
    write.form.append({QStringLiteral("metadata[ticket_id]"), escalation.ticketExtId});
    return write;
}

} // namespace

Expected<RepeatPlan> EscalationResolver::planRepeat(qint64 escalationId)
{
    Expected<EscalationDetail> found = escalation(escalationId);
    if (!found)
        return found.error();
    const EscalationDetail &detail = *found;
    // The rule in code: a write is repeated only after a lookup said it did not happen. One a
    // person's check found absent is looked up first, in the same step (lookupFirst).
    if (detail.state != EscalationState::Resolved || detail.resolution != Resolution::NotPerformed)
        return makeError(QStringLiteral(
                "only a write found not performed may be performed again: an unknown one is settled by a "
                "lookup first, and one that took effect is not sent again"));
    // The tool's own answer, come after the settlement, says it took effect: the check missed it.
    if (tookEffect(detail.reported))
        return makeError(QStringLiteral("the tool's own answer says this write was %1, after it was found "
                                        "not performed: it is not performed again")
                                 .arg(outcomeLabel(*detail.reported).toLower()));
    const bool money = detail.toolClass == ToolClass::WriteMoney;
    QUrl endpoint;
    QString system;
    QString payment; // a refund's, as the confirmation names it
    // The key decides whether it can be sent from here, not whether it may be: the plan says why
    // not, and nothing is asked or sent with such a key.
    const ApiKeyKind keyKind = apiKeyKind(m_provider.settings().apiKey);
    const QString keyRefusal = keyKind.mode == ApiKeyKind::Mode::None
            ? QStringLiteral(
                    "there is no API key to send it with: enter one under Provider > Payment provider "
                    "settings")
            : money ? keyKind.whyNoWrite()
                    : QString();
    if (money) {
        Expected<RefundIntent> intent = refundIntentFor(detail);
        if (!intent)
            return intent.error();
        payment = paymentText(*intent);
        endpoint = providerhttp::endpoint(m_provider.settings().baseUrl, QStringLiteral("/v1/refunds"));
        system = systemWords(QStringLiteral("payments"));
    } else {
        const Expected<RecordQuery> query = recordQueryOf(detail);
        if (!query)
            return query.error();
        endpoint = providerhttp::endpoint(m_provider.settings().baseUrl, query->path);
        system = systemWords(query->system);
    }
    // ...and only when nothing of its intent took effect: the customer is owed one effect.
    Expected<QList<IntentCall>> calls = m_store.intentCalls(detail.ticketId, detail.intentKey);
    if (!calls)
        return calls.error();
    for (const IntentCall &call : std::as_const(*calls)) {
        if (call.id != detail.callId && mayHaveMadeRecord(call))
            return makeError(
                    QStringLiteral("call %1 of the same intent %2, so nothing more is owed for it")
                            .arg(call.callExtId,
                                 call.resolution || call.outcome == Outcome::Performed
                                         ? QStringLiteral("took effect")
                                         : QStringLiteral("may have taken effect (look it up first)")));
    }
    if (money) {
        Expected<std::optional<LedgerEntry>> ledger = m_store.ledgerEntry(detail.intentKey);
        if (!ledger)
            return ledger.error();
        if (*ledger)
            return makeError(QStringLiteral("the ledger already holds refund %1 for this intent")
                                     .arg((*ledger)->refundId));
    }
    RepeatPlan plan{detail, endpoint, system, {}, {}, {}, {}, {}};
    plan.lookupFirst = !provedAbsent(detail.reported, detail.resolution, detail.basis);
    plan.keyKind = keyKind.describe(m_provider.settings().apiKey);
    plan.keyRefusal = keyRefusal;
    plan.payment = payment;
    // A key the system no longer keeps protects no repeat: it is looked up again right before.
    plan.keyExpiry = SafeWriteRuntime::keyExpiry(m_provider.settings(), detail.calledAt, now());
    if (money) {
        if (keyKind.isLive())
            plan.typeToConfirm = formatMoney(detail.amountCents.value_or(0), detail.currency);
    }
    return plan;
}

ResolutionOperation *EscalationResolver::performAgain(qint64 escalationId)
{
    auto *operation = new ResolutionOperation(this);
    Expected<RepeatPlan> plan = planRepeat(escalationId);
    if (!plan)
        return finishLater(operation, notPossibleReport(plan.message()));
    if (!plan->keyRefusal.isEmpty())
        return finishLater(operation,
                           notPossibleReport(QStringLiteral("nothing was sent: %1").arg(plan->keyRefusal)));
    if (const QString held = claimRefusal(plan->escalation); !held.isEmpty())
        return finishLater(operation, heldByClaimReport(QStringLiteral("nothing was sent: %1").arg(held)));
    if (plan->lookupFirst)
        lookUpBeforeRepeat(operation, *plan);
    else
        sendRepeat(operation, *plan);
    return operation;
}

void EscalationResolver::lookUpBeforeRepeat(ResolutionOperation *operation, const RepeatPlan &plan)
{
    const qint64 id = plan.escalation.id;
    ResolutionOperation *lookup = lookUp(id);
    operation->m_step = lookup;
    connect(lookup, &ResolutionOperation::progress, operation, &ResolutionOperation::progress);
    connect(lookup, &ResolutionOperation::finished, operation,
            [this, operation, lookup, id](const ResolutionReport &looked) {
                lookup->deleteLater();
                // Sent only on the system's own word that it has no record of it.
                const Expected<RepeatPlan> proved = looked.kind == ResolutionReport::Kind::Resolved
                                && looked.resolution == Resolution::NotPerformed && looked.mayPerformAgain
                        ? planRepeat(id)
                        : Expected<RepeatPlan>(makeError(looked.message));
                if (proved && !proved->lookupFirst) {
                    emit operation->progress(tr("No record of it: sending it with the same key…"));
                    sendRepeat(operation, *proved,
                               QStringLiteral("Looked up first: %1 had no record of it, so it was sent. ")
                                       .arg(proved->system));
                    return;
                }
                ResolutionReport told = looked;
                told.mayPerformAgain = false;
                told.message = QStringLiteral("%1 Nothing was sent.").arg(looked.message);
                operation->finish(told);
            });
}

void EscalationResolver::sendRepeat(ResolutionOperation *operation, const RepeatPlan &plan,
                                    const QString &preface)
{
    const EscalationDetail detail = plan.escalation;
    const bool money = detail.toolClass == ToolClass::WriteMoney;
    const Expected<RefundIntent> intent =
            money ? refundIntentFor(detail) : Expected<RefundIntent>(RefundIntent{});
    const Expected<RecordQuery> query = money ? Expected<RecordQuery>(RecordQuery{}) : recordQueryOf(detail);
    if (!intent || !query) {
        finishLater(operation, notPossibleReport(!intent ? intent.message() : query.message()));
        return;
    }
    // Before anything is sent, the escalation goes back to the queue as unknown, with its audit
    // entry: if this console dies while the request is out, the next person looks it up
    // instead of finding a "not performed" that may no longer be true.
    if (Expected<void> begun = m_store.begin(); !begun) {
        finishLater(operation, failedReport(QStringLiteral("nothing was sent: %1").arg(begun.message())));
        return;
    }
    const QString inFlight =
            QStringLiteral("a repeat with the same key was sent by %1 at %2; until its answer is "
                           "recorded, look it up before anything else")
                    .arg(m_operator, isoTime(now()));
    AuditLog audit(m_store);
    Expected<void> marked = m_store.reopenEscalation(detail.id, inFlight);
    const QString what = money ? QStringLiteral("%1 %2").arg(
                                 detail.tool, formatMoney(detail.amountCents.value_or(0), detail.currency))
                               : detail.tool;
    // What is about to be sent, kept as evidence before it goes: if this console stops before
    // the answer comes, the next person sees what was sent, when and by whom.
    Evidence planned;
    planned.escalationId = detail.id;
    planned.kind = EvidenceKind::Write;
    planned.operatorName = m_operator;
    planned.startedAt = now();
    planned.finishedAt = planned.startedAt;
    planned.verdict = LookupVerdict::CouldNotTell;
    planned.reason = QStringLiteral("about to be sent; its answer is the next entry");
    // The very bytes the write below sends, so the evidence shows what went out.
    const QByteArray form = money ? refundFormBody(*intent) : recordWriteBody(recordWriteOf(detail, *query));
    planned.request = QStringLiteral("POST %1\nIdempotency-Key: %2\n\n%3")
                              .arg(plan.endpoint.toString(), detail.intentKey, QString::fromUtf8(form));
    planned.response =
            QStringLiteral("(no answer recorded yet: sent by %1 at %2. If no entry with its answer follows, "
                           "this console stopped before it came: look the write up before anything else.)")
                    .arg(m_operator, isoTime(planned.startedAt));
    planned.evidenceSha256 = evidenceHash(planned);
    Expected<qint64> kept = marked ? m_store.recordEvidence(planned) : Expected<qint64>(marked.error());
    Expected<AuditEntry> started = kept
            ? audit.append(m_operator, auditaction::writeStarted, detail.id,
                           QStringLiteral("%1 with the same intent key on %2, to %3")
                                   .arg(what, detail.ticketExtId, plan.endpoint.toString()),
                           planned.evidenceSha256, planned.startedAt)
            : Expected<AuditEntry>(kept.error());
    // Unknown again until its answer: the ticket's flags and the queue say so.
    Expected<RepeatCounts> reassessed =
            started ? reassessTicket(m_store, detail.ticketId) : Expected<RepeatCounts>(started.error());
    Expected<void> committed = reassessed ? m_store.commit() : Expected<void>(reassessed.error());
    if (!committed) {
        m_store.rollback();
        finishLater(operation, failedReport(QStringLiteral("nothing was sent: %1").arg(committed.message())));
        return;
    }

    if (money) {
        // The resolver records the refund in the ledger with its audit entries, not the runtime.
        SafeRefundOperation *write =
                m_runtime.refund(*intent,
                                 LedgerContext{detail.callId, detail.sellerId,
                                               QStringLiteral("console write"), false, detail.calledAt});
        operation->m_write = write;
        connect(write, &SafeRefundOperation::progress, operation, &ResolutionOperation::progress);
        connect(write, &SafeRefundOperation::finished, operation,
                [this, operation, detail, write, preface](const SafeWriteResult &result) {
                    write->deleteLater();
                    afterWrite(operation, detail, writeOutcomeOf(result), preface);
                });
        return;
    }
    auto *write =
            new SafeRecordWrite(m_provider.settings(), recordWriteOf(detail, *query), *query, operation);
    operation->m_recordWrite = write;
    if (!plan.keyExpiry.isEmpty())
        write->checkFirst();
    connect(write, &SafeRecordWrite::progress, operation, &ResolutionOperation::progress);
    connect(write, &SafeRecordWrite::finished, operation,
            [this, operation, detail, write, preface](const WriteOutcome &result) {
                write->deleteLater();
                afterWrite(operation, detail, result, preface);
            });
    write->start();
}

void EscalationResolver::afterWrite(ResolutionOperation *operation, const EscalationDetail &escalation,
                                    const WriteOutcome &result, const QString &preface)
{
    const bool money = escalation.toolClass == ToolClass::WriteMoney;
    const QString what = money
            ? QStringLiteral("%1 %2").arg(
                    escalation.tool, formatMoney(escalation.amountCents.value_or(0), escalation.currency))
            : escalation.tool;
    const QString noun = nounOf(escalation);
    const qint64 at = now();
    SettlementStep step;
    if (!result.exchanges.isEmpty()) {
        Evidence evidence = evidenceFrom(result.exchanges);
        evidence.kind = EvidenceKind::Write;
        evidence.operatorName = m_operator;
        evidence.finishedAt = at;
        evidence.verdict = result.outcome == Outcome::Unknown ? LookupVerdict::CouldNotTell
                : result.outcome == Outcome::NotPerformed     ? LookupVerdict::NotFound
                                                              : LookupVerdict::Found;
        evidence.recordId = result.record ? result.record->id : QString();
        evidence.reason = result.note;
        step.evidence = evidence;
        step.evidenceAction = money ? auditaction::refundSent : auditaction::recordSent;
        step.evidenceDetail =
                QStringLiteral("%1 with the same intent key on %2: %3 (%4)")
                        .arg(what, escalation.ticketExtId, outcomeLabel(result.outcome), result.note);
    }
    const QString call =
            QStringLiteral("%1 %2 on %3").arg(escalation.tool, escalation.callExtId, escalation.ticketExtId);
    const auto notPerformed = [&](const QString &why) {
        step.settlement = Settlement{
                escalation.id, Resolution::NotPerformed, SettlementBasis::Lookup, QString(), m_operator, at};
        step.settleDetail =
                QStringLiteral("%1: %2 (%3)")
                        .arg(call, settlementText(Resolution::NotPerformed, SettlementBasis::Lookup), why);
    };
    QString settled;
    switch (result.outcome) {
    case Outcome::Performed:
    case Outcome::AlreadyPerformed:
        if (result.exchanges.isEmpty() || !result.record || result.record->id.isEmpty()) {
            // Nothing was sent: the ledger already held a refund of this intent for another
            // call. This call stays as the lookup found it.
            notPerformed(result.note);
            settled = QStringLiteral("Nothing was sent: %1.").arg(result.note);
            break;
        }
        step.settlement = Settlement{escalation.id,
                                     Resolution::PerformedAgain,
                                     SettlementBasis::Lookup,
                                     result.record->id,
                                     m_operator,
                                     at};
        // Dated when it was made, in the ledger and so in reconciliation.
        if (money)
            step.ledger = LedgerEntry{escalation.intentKey,
                                      escalation.callId,
                                      result.record->id,
                                      result.record->amountCents > 0 ? result.record->amountCents
                                                                     : escalation.amountCents.value_or(0),
                                      result.record->currency.isEmpty() ? escalation.currency
                                                                        : result.record->currency,
                                      escalation.sellerId,
                                      at,
                                      QStringLiteral("console write")};
        step.settleDetail =
                QStringLiteral("%1: %2, %3 %4")
                        .arg(call, settlementText(Resolution::PerformedAgain, SettlementBasis::Lookup), noun,
                             result.record->id);
        // Said as it was settled: a repeat whose answer was unclear and a lookup then found is
        // performed again as surely as one the provider accepted at once.
        settled = QStringLiteral("Performed again (verified): %1 %2 (%3).")
                          .arg(noun, result.record->id, result.note);
        break;
    case Outcome::NotPerformed:
        // The system's own answer (a refusal, or a lookup that found nothing) settles it again.
        notPerformed(result.note);
        settled = QStringLiteral("Not performed: %1.").arg(result.note);
        break;
    case Outcome::Unknown:
        step.note = result.note;
        break;
    }
    const Expected<SettlementWritten> written = writeSettlement(m_store, m_operator, escalation, step);
    if (!written && !result.exchanges.isEmpty()) {
        // The request went out and may have moved money: "nothing was settled" alone would
        // read as "nothing happened". Say what was sent and answered, and the way on.
        const QString answer = settled.isEmpty() ? QStringLiteral("Unknown: %1.").arg(result.note) : settled;
        operation->finish(failedReport(
                preface
                + QStringLiteral("%1 was sent with the same intent key and the provider's answer was: %2 "
                                 "That answer could not be recorded (%3). The escalation stays unknown with "
                                 "the request kept as evidence. Do not send it again: when the database "
                                 "answers, Look up again settles it from the provider's record.")
                          .arg(what, answer, written.message())));
        return;
    }
    ResolutionReport report =
            reportOf(escalation, written, settled,
                     QStringLiteral("Unknown: %1. The escalation is back in the queue; do not retry.")
                             .arg(result.note));
    report.message.prepend(preface);
    operation->finish(report);
}

std::optional<qint64> EscalationResolver::repeatSentAt(qint64 escalationId)
{
    // Each repeat keeps its write as evidence before it goes: the first is the earliest sent.
    Expected<QList<Evidence>> evidence = m_store.evidence(escalationId);
    if (!evidence)
        return std::nullopt;
    std::optional<qint64> first;
    for (const Evidence &row : std::as_const(*evidence)) {
        if (row.kind == EvidenceKind::Write && (!first || row.startedAt < *first))
            first = row.startedAt;
    }
    return first;
}

} // namespace verity

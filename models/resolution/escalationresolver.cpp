#include "escalationresolver.h"

#include "audit/auditlog.h"
#include "customerdraft.h"
#include "domain/money.h"
#include "domain/sha256.h"
#include "store/store.h"

#include <QDateTime>
#include <QEventLoop>

#include <nlohmann/json.hpp>

namespace verity {

namespace {

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QString argumentText(const nlohmann::json &arguments, const char *key)
{
    auto it = arguments.find(key);
    if (it == arguments.end())
        return {};
    return it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString::fromStdString(it->dump());
}

} // namespace

void ResolutionOperation::cancel()
{
    if (m_lookup)
        m_lookup->cancel();
    if (m_write)
        m_write->cancel();
}

void ResolutionOperation::finish(const ResolutionReport &report)
{
    if (m_finished)
        return;
    m_finished = true;
    emit finished(report);
}

LookupEvidence evidenceFrom(const QList<HttpExchange> &exchanges)
{
    LookupEvidence evidence;
    QStringList requests;
    QStringList responses;
    for (const HttpExchange &exchange : exchanges) {
        requests << exchange.request;
        responses << exchange.response;
    }
    evidence.request = requests.join(QStringLiteral("\n\n"));
    evidence.response = responses.join(QStringLiteral("\n\n"));
    evidence.startedAt = exchanges.isEmpty() ? 0 : exchanges.first().startedAt;
    evidence.finishedAt = exchanges.isEmpty() ? 0 : exchanges.last().finishedAt;
    evidence.evidenceSha256 = QString::fromLatin1(
        sha256Hex((evidence.request + QStringLiteral("\n\n") + evidence.response).toUtf8()));
    return evidence;
}

EscalationResolver::EscalationResolver(Store &store, ProviderClient &provider, QString operatorName, QObject *parent)
    : QObject(parent), m_store(store), m_provider(provider), m_runtime(store, provider), m_operator(std::move(operatorName))
{
}

Expected<RefundIntent> EscalationResolver::refundIntentFor(const EscalationDetail &escalation)
{
    if (escalation.toolClass != ToolClass::WriteMoney || !escalation.amountCents)
        return makeError(QStringLiteral("%1 is not a refund: Verity can look up refunds at the payment provider; this "
                                        "write must be checked in the system it went to")
                             .arg(escalation.tool));
    if (escalation.intentKey.isEmpty())
        return makeError(QStringLiteral("this call has no intent key, so the provider cannot be asked about it"));
    const nlohmann::json arguments = nlohmann::json::parse(escalation.argumentsJson.toStdString(), nullptr, false);
    RefundIntent intent;
    intent.intentKey = escalation.intentKey;
    intent.paymentIntent = escalation.paymentIntent;
    intent.amountCents = *escalation.amountCents;
    intent.currency = escalation.currency;
    intent.reason = QStringLiteral("requested_by_customer");
    intent.metadata.insert(QStringLiteral("ticket_id"), escalation.ticketExtId);
    intent.metadata.insert(QStringLiteral("order_id"), escalation.orderId);
    if (arguments.is_object()) {
        const QString item = argumentText(arguments, "item_id");
        if (!item.isEmpty())
            intent.metadata.insert(QStringLiteral("item_id"), item);
    }
    return intent;
}

Expected<EscalationDetail> EscalationResolver::loadEscalation(qint64 escalationId)
{
    Expected<std::optional<EscalationDetail>> found = m_store.escalation(escalationId);
    if (!found)
        return found.error();
    if (!*found)
        return makeError(QStringLiteral("escalation %1 does not exist").arg(escalationId));
    return **found;
}

ResolutionOperation *EscalationResolver::finishLater(ResolutionOperation *operation, ResolutionReport report)
{
    QMetaObject::invokeMethod(operation, [operation, report] { operation->finish(report); }, Qt::QueuedConnection);
    return operation;
}

ResolutionOperation *EscalationResolver::lookUp(qint64 escalationId)
{
    auto *operation = new ResolutionOperation(this);
    Expected<EscalationDetail> found = loadEscalation(escalationId);
    if (!found)
        return finishLater(operation, {ResolutionReport::Kind::Failed, std::nullopt, {}, 0, found.message(), {},
                                       std::nullopt});
    const EscalationDetail escalation = *found;
    if (escalation.state != u"open")
        return finishLater(operation, {ResolutionReport::Kind::ResolvedElsewhere, escalation.resolution,
                                       escalation.resolvedBy, escalation.resolvedAt,
                                       QStringLiteral("already settled by %1").arg(escalation.resolvedBy), {},
                                       std::nullopt});
    Expected<RefundIntent> intent = refundIntentFor(escalation);
    if (!intent)
        return finishLater(operation, {ResolutionReport::Kind::NotPossible, std::nullopt, {}, 0, intent.message(), {},
                                       std::nullopt});

    const qint64 startedAt = now();
    emit operation->progress(tr("Looking up the refund at the provider…"));
    LookupOperation *lookup = m_provider.lookup(*intent);
    operation->m_lookup = lookup;
    connect(lookup, &LookupOperation::progress, operation, &ResolutionOperation::progress);
    connect(lookup, &LookupOperation::finished, operation,
            [this, operation, escalation, startedAt, lookup](const LookupAnswer &answer) {
                lookup->deleteLater();
                afterLookup(operation, escalation, startedAt, answer);
            });
    return operation;
}

void EscalationResolver::afterLookup(ResolutionOperation *operation, const EscalationDetail &escalation,
                                     qint64 startedAt, const LookupAnswer &answer)
{
    LookupEvidence evidence = evidenceFrom(answer.exchanges);
    evidence.escalationId = escalation.id;
    evidence.operatorName = m_operator;
    evidence.startedAt = startedAt;
    evidence.finishedAt = now();
    evidence.verdict = answer.verdict;
    evidence.refundId = answer.refund ? answer.refund->id : QString();
    evidence.reason = answer.reason;

    ResolutionReport report;
    report.evidence = evidence;
    auto fail = [&](const QString &message) {
        m_store.rollback();
        report.kind = ResolutionReport::Kind::Failed;
        report.message = QStringLiteral("nothing was settled: %1").arg(message);
        operation->finish(report);
    };

    if (Expected<void> begun = m_store.begin(); !begun) {
        report.kind = ResolutionReport::Kind::Failed;
        report.message = QStringLiteral("nothing was settled: %1").arg(begun.message());
        operation->finish(report);
        return;
    }
    Expected<qint64> recorded = m_store.recordLookup(evidence);
    if (!recorded)
        return fail(recorded.message());
    report.evidence->id = *recorded;
    AuditLog audit(m_store);
    // The reason matters most when it says more than one refund carries the key: a duplicate.
    const QString verdictText =
        answer.verdict == LookupVerdict::Found
            ? answer.reason
            : (answer.verdict == LookupVerdict::NotFound ? QStringLiteral("no refund carries the intent key")
                                                         : QStringLiteral("could not tell: %1").arg(answer.reason));
    if (auto entry = audit.append(m_operator, QStringLiteral("lookup"), escalation.id,
                                  QStringLiteral("%1 %2 on %3: %4")
                                      .arg(escalation.tool, escalation.callExtId, escalation.ticketExtId, verdictText),
                                  evidence.evidenceSha256, evidence.finishedAt);
        !entry)
        return fail(entry.message());

    if (answer.verdict == LookupVerdict::CouldNotTell) {
        if (Expected<void> noted = m_store.noteEscalation(escalation.id, answer.reason); !noted)
            return fail(noted.message());
        if (Expected<void> committed = m_store.commit(); !committed)
            return fail(committed.message());
        report.kind = ResolutionReport::Kind::StillUnknown;
        report.message = QStringLiteral("The provider could not tell (%1). The write stays unknown: do not retry it; "
                                        "look it up again later.")
                             .arg(answer.reason);
        operation->finish(report);
        return;
    }

    const Resolution resolution =
        answer.verdict == LookupVerdict::Found ? Resolution::Performed : Resolution::NotPerformed;
    Expected<ResolutionClaim> claim = m_store.resolveEscalation(escalation.id, resolution, m_operator, now());
    if (!claim)
        return fail(claim.message());
    if (!claim->claimed) {
        // The lookup stays as evidence; the other console's resolution stands.
        if (Expected<void> committed = m_store.commit(); !committed)
            return fail(committed.message());
        report.kind = ResolutionReport::Kind::ResolvedElsewhere;
        report.resolution = claim->resolution;
        report.resolvedBy = claim->resolvedBy;
        report.resolvedAt = claim->resolvedAt;
        report.message = QStringLiteral("%1 settled this escalation first.").arg(claim->resolvedBy);
        operation->finish(report);
        return;
    }
    if (answer.verdict == LookupVerdict::Found && answer.refund) {
        LedgerEntry entry{escalation.intentKey, escalation.callId, answer.refund->id,
                          answer.refund->amountCents > 0 ? answer.refund->amountCents : escalation.amountCents.value_or(0),
                          escalation.currency, escalation.sellerId, now(), QStringLiteral("provider lookup")};
        if (Expected<bool> inserted = m_store.recordLedgerEntry(entry); !inserted)
            return fail(inserted.message());
    }
    const QString resolvedText = resolution == Resolution::Performed
                                     ? QStringLiteral("resolved as performed (verified): refund %1").arg(evidence.refundId)
                                     : QStringLiteral("resolved as not performed (verified)");
    if (auto entry = audit.append(m_operator, QStringLiteral("resolve"), escalation.id,
                                  QStringLiteral("%1 %2 on %3 %4").arg(escalation.tool, escalation.callExtId,
                                                                        escalation.ticketExtId, resolvedText),
                                  evidence.evidenceSha256, now());
        !entry)
        return fail(entry.message());
    if (Expected<RepeatCounts> reassessed = m_store.reassessTicket(escalation.ticketId); !reassessed)
        return fail(reassessed.message());
    if (Expected<void> committed = m_store.commit(); !committed)
        return fail(committed.message());

    report.kind = ResolutionReport::Kind::Resolved;
    report.resolution = resolution;
    report.resolvedBy = m_operator;
    report.resolvedAt = claim->resolvedAt;
    report.message = resolution == Resolution::Performed
                         ? QStringLiteral("Performed (verified): %1.").arg(answer.reason)
                         : QStringLiteral("Not performed (verified): no refund carries this intent key. It may be "
                                          "performed once more, with the same key.");
    report.customerDraft = draftFor(escalation, resolution, answer.withKey);
    operation->finish(report);
}

ResolutionOperation *EscalationResolver::performAgain(qint64 escalationId)
{
    auto *operation = new ResolutionOperation(this);
    Expected<EscalationDetail> found = loadEscalation(escalationId);
    if (!found)
        return finishLater(operation, {ResolutionReport::Kind::Failed, std::nullopt, {}, 0, found.message(), {},
                                       std::nullopt});
    const EscalationDetail escalation = *found;
    // The rule in code: a write is repeated only after a lookup said it did not happen.
    if (escalation.resolution != Resolution::NotPerformed)
        return finishLater(operation,
                           {ResolutionReport::Kind::NotPossible, escalation.resolution, escalation.resolvedBy,
                            escalation.resolvedAt,
                            QStringLiteral("only a write that a lookup proved not performed may be performed again"),
                            {}, std::nullopt});
    Expected<RefundIntent> intent = refundIntentFor(escalation);
    if (!intent)
        return finishLater(operation, {ResolutionReport::Kind::NotPossible, std::nullopt, {}, 0, intent.message(), {},
                                       std::nullopt});
    // Before anything is sent, the escalation goes back to the queue as unknown, with its audit
    // entry: if this console dies while the request is out, the next person looks it up
    // instead of finding a "not performed" that may no longer be true.
    if (Expected<void> begun = m_store.begin(); !begun)
        return finishLater(operation, {ResolutionReport::Kind::Failed, std::nullopt, {}, 0,
                                       QStringLiteral("nothing was sent: %1").arg(begun.message()), {}, std::nullopt});
    const QString inFlight = QStringLiteral("a repeat with the same key was sent by %1 at %2; until its answer is "
                                            "recorded, look it up before anything else")
                                 .arg(m_operator, QDateTime::fromMSecsSinceEpoch(now()).toString(Qt::ISODate));
    AuditLog audit(m_store);
    Expected<void> marked = m_store.reopenEscalation(escalation.id, inFlight);
    Expected<AuditEntry> started =
        marked ? audit.append(m_operator, QStringLiteral("write-started"), escalation.id,
                              QStringLiteral("issue_refund %1 with the same intent key on %2")
                                  .arg(formatMoney(escalation.amountCents.value_or(0), escalation.currency),
                                       escalation.ticketExtId),
                              QString(), now())
               : Expected<AuditEntry>(marked.error());
    Expected<void> committed = started ? m_store.commit() : Expected<void>(started.error());
    if (!committed) {
        m_store.rollback();
        return finishLater(operation, {ResolutionReport::Kind::Failed, std::nullopt, {}, 0,
                                       QStringLiteral("nothing was sent: %1").arg(committed.message()), {},
                                       std::nullopt});
    }

    SafeRefundOperation *write =
        m_runtime.refund(*intent, LedgerContext{escalation.callId, escalation.sellerId, QStringLiteral("console write")});
    operation->m_write = write;
    connect(write, &SafeRefundOperation::progress, operation, &ResolutionOperation::progress);
    connect(write, &SafeRefundOperation::finished, operation,
            [this, operation, escalation, write](const SafeWriteResult &result) {
                write->deleteLater();
                afterWrite(operation, escalation, result);
            });
    return operation;
}

void EscalationResolver::afterWrite(ResolutionOperation *operation, const EscalationDetail &escalation,
                                    const SafeWriteResult &result)
{
    ResolutionReport report;
    LookupEvidence evidence = evidenceFrom(result.exchanges);
    auto fail = [&](const QString &message) {
        m_store.rollback();
        report.kind = ResolutionReport::Kind::Failed;
        report.message = QStringLiteral("the write returned %1, but recording it failed: %2")
                             .arg(outcomeLabel(result.outcome), message);
        operation->finish(report);
    };
    if (Expected<void> begun = m_store.begin(); !begun)
        return fail(begun.message());
    AuditLog audit(m_store);
    if (auto entry = audit.append(m_operator, QStringLiteral("write"), escalation.id,
                                  QStringLiteral("issue_refund %1 with the same intent key on %2: %3 (%4)")
                                      .arg(formatMoney(escalation.amountCents.value_or(0), escalation.currency),
                                           escalation.ticketExtId, outcomeLabel(result.outcome), result.note),
                                  evidence.evidenceSha256, now());
        !entry)
        return fail(entry.message());

    switch (result.outcome) {
    case Outcome::Performed:
    case Outcome::AlreadyPerformed: {
        Expected<ResolutionClaim> claim =
            m_store.resolveEscalation(escalation.id, Resolution::PerformedAgain, m_operator, now());
        if (!claim)
            return fail(claim.message());
        report.kind = claim->claimed ? ResolutionReport::Kind::Resolved : ResolutionReport::Kind::ResolvedElsewhere;
        report.resolution = claim->resolution;
        report.resolvedBy = claim->resolvedBy;
        report.resolvedAt = claim->resolvedAt;
        report.message = QStringLiteral("%1: %2.").arg(outcomeLabel(result.outcome), result.note);
        break;
    }
    case Outcome::NotPerformed: {
        // The runtime's own evidence (a refusal, or a lookup that found nothing) settles it again.
        Expected<ResolutionClaim> claim =
            m_store.resolveEscalation(escalation.id, Resolution::NotPerformed, m_operator, now());
        if (!claim)
            return fail(claim.message());
        if (Expected<void> noted = m_store.noteEscalation(escalation.id, result.note); !noted)
            return fail(noted.message());
        report.kind = ResolutionReport::Kind::Resolved;
        report.resolution = Resolution::NotPerformed;
        report.message = QStringLiteral("Not performed: %1.").arg(result.note);
        break;
    }
    case Outcome::Unknown:
        if (Expected<void> noted = m_store.noteEscalation(escalation.id, result.note); !noted)
            return fail(noted.message());
        report.kind = ResolutionReport::Kind::StillUnknown;
        report.message = QStringLiteral("Unknown: %1. The escalation is back in the queue; do not retry.").arg(result.note);
        break;
    }
    if (Expected<RepeatCounts> reassessed = m_store.reassessTicket(escalation.ticketId); !reassessed)
        return fail(reassessed.message());
    if (Expected<void> committed = m_store.commit(); !committed)
        return fail(committed.message());
    if (report.resolution)
        report.customerDraft = draftFor(escalation, *report.resolution);
    operation->finish(report);
}

QString EscalationResolver::draftFor(const EscalationDetail &escalation, Resolution resolution,
                                     const QList<ProviderRefund> &atProvider)
{
    QList<RefundFact> facts;
    // The provider's own list counts money moved; calls that share a key may be one refund.
    for (const ProviderRefund &refund : atProvider)
        facts.append({refund.amountCents, refund.currency.isEmpty() ? escalation.currency : refund.currency,
                      refund.createdMs, true});
    if (!facts.isEmpty())
        return draftCustomerMessage(escalation.customerName, facts, resolution);
    Expected<QList<TranscriptEntry>> entries = m_store.transcript(escalation.ticketId);
    if (entries) {
        for (const TranscriptEntry &entry : std::as_const(*entries)) {
            if (!entry.isToolCall || entry.call.intentKey != escalation.intentKey)
                continue;
            const ToolCallRow &call = entry.call;
            const bool performed = call.resolution ? (*call.resolution != Resolution::NotPerformed)
                                                   : call.outcome == Outcome::Performed;
            qint64 at = call.resultAt.value_or(call.calledAt);
            // A refund performed again from the console was made when the ledger recorded it,
            // not when the agent first asked for it.
            if (call.resolution == Resolution::PerformedAgain) {
                Expected<std::optional<LedgerEntry>> ledger = m_store.ledgerEntry(call.intentKey);
                if (ledger && *ledger)
                    at = (*ledger)->recordedAt;
            }
            facts.append({call.amountCents.value_or(0), escalation.currency, at, performed});
        }
    }
    return draftCustomerMessage(escalation.customerName, facts, resolution);
}

ResolutionReport EscalationResolver::waitFor(ResolutionOperation *operation)
{
    ResolutionReport report;
    QEventLoop loop;
    connect(operation, &ResolutionOperation::finished, &loop, [&](const ResolutionReport &finished) {
        report = finished;
        loop.quit();
    });
    loop.exec();
    return report;
}

} // namespace verity

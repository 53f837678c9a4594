#include "escalationresolver.h"

#include "audit/auditaction.h"
#include "audit/auditlog.h"
#include "customerdraft.h"
#include "domain/money.h"
#include "escalationtext.h"
#include "provider/providerhttp.h"
#include "recordmatching.h"
#include "store/store.h"

#include <QDateTime>
#include <QEventLoop>
#include <QSet>

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

ResolutionReport failed(const QString &message)
{
    ResolutionReport report;
    report.kind = ResolutionReport::Kind::Failed;
    report.message = message;
    return report;
}

ResolutionReport notPossible(const QString &message)
{
    ResolutionReport report;
    report.kind = ResolutionReport::Kind::NotPossible;
    report.message = message;
    return report;
}

ResolutionReport settledBefore(const EscalationDetail &escalation)
{
    ResolutionReport report;
    report.kind = ResolutionReport::Kind::ResolvedElsewhere;
    report.resolution = escalation.resolution;
    report.basis = escalation.basis;
    report.reference = escalation.reference;
    report.resolvedBy = escalation.resolvedBy;
    report.resolvedAt = escalation.resolvedAt;
    report.message = settledByText(escalation.resolvedBy, escalation.resolvedAt,
                                   escalation.resolution.value_or(Resolution::Performed), escalation.basis);
    return report;
}

// "c3 and c5": the calls named in a reason.
QString callList(const QStringList &calls)
{
    if (calls.size() <= 1)
        return calls.join(QString());
    return QStringList(calls.mid(0, calls.size() - 1)).join(QStringLiteral(", ")) + QStringLiteral(" and ")
           + calls.constLast();
}

// A pickup or a message as its system takes it: the lookup's filter (the order), then the
// call's arguments as the system names them (`item_id` is `item`), and the ticket in metadata.
RecordWrite recordWriteOf(const EscalationDetail &escalation, const RecordQuery &query)
{
    RecordWrite write{query.system, query.path, escalation.intentKey, query.filter};
    QSet<QString> named;
    for (const auto &[name, value] : query.filter)
        named.insert(name);
    const nlohmann::json arguments = nlohmann::json::parse(escalation.argumentsJson.toStdString(), nullptr, false);
    if (arguments.is_object()) {
        for (auto it = arguments.begin(); it != arguments.end(); ++it) {
            QString name = QString::fromStdString(it.key());
            if (name.endsWith(QStringLiteral("_id")))
                name.chop(3);
            if (named.contains(name) || it->is_null() || it->is_object() || it->is_array())
                continue;
            named.insert(name);
            write.form.append({name, it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                     : QString::fromStdString(it->dump())});
        }
    }
    write.form.append({QStringLiteral("metadata[ticket_id]"), escalation.ticketExtId});
    return write;
}

} // namespace

void ResolutionOperation::cancel()
{
    if (m_lookup)
        m_lookup->cancel();
    if (m_write)
        m_write->cancel();
    if (m_recordLookup)
        m_recordLookup->cancel();
    if (m_recordWrite)
        m_recordWrite->cancel();
}

void ResolutionOperation::finish(const ResolutionReport &report)
{
    if (m_finished)
        return;
    m_finished = true;
    emit finished(report);
}

Evidence evidenceFrom(const QList<HttpExchange> &exchanges)
{
    Evidence evidence;
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
    evidence.evidenceSha256 = evidenceHash(evidence.request, evidence.response);
    return evidence;
}

EscalationResolver::EscalationResolver(Store &store, ProviderClient &provider, QString operatorName, QObject *parent)
    : QObject(parent), m_store(store), m_provider(provider), m_runtime(store, provider), m_operator(std::move(operatorName))
{
}

QUrl EscalationResolver::providerUrl() const
{
    return m_provider.settings().baseUrl;
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

Expected<EscalationDetail> EscalationResolver::escalation(qint64 escalationId)
{
    Expected<std::optional<EscalationDetail>> found = m_store.escalation(escalationId);
    if (!found)
        return found.error();
    if (!*found)
        return makeError(QStringLiteral("escalation %1 does not exist").arg(escalationId));
    return **found;
}

Expected<EscalationHistory> EscalationResolver::history(qint64 escalationId)
{
    return escalationHistory(m_store, escalationId);
}

const ToolSpec *EscalationResolver::specOf(const EscalationDetail &escalation) const
{
    return m_registries.byName(escalation.ticketRegistry).registry.find(escalation.tool);
}

QString EscalationResolver::nounOf(const EscalationDetail &escalation) const
{
    if (escalation.toolClass == ToolClass::WriteMoney)
        return recordNoun(QStringLiteral("payments"));
    const ToolSpec *spec = specOf(escalation);
    return recordNoun(spec && spec->lookup ? spec->lookup->system : QString());
}

Expected<RecordQuery> EscalationResolver::recordQueryOf(const EscalationDetail &escalation) const
{
    const ToolSpec *spec = specOf(escalation);
    if (!spec || !spec->lookup)
        return makeError(QStringLiteral("the registry names no system where %1 can be looked up; check it where it "
                                        "went and record what you found")
                             .arg(escalation.tool));
    if (escalation.intentKey.isEmpty())
        return makeError(QStringLiteral("this call has no intent key, so %1 cannot be asked about it")
                             .arg(systemWords(spec->lookup->system)));
    const TicketFacts facts{{QStringLiteral("ticket_id"), escalation.ticketExtId},
                            {QStringLiteral("order_id"), escalation.orderId},
                            {QStringLiteral("seller_id"), escalation.sellerId}};
    return recordQueryFor(*spec->lookup, escalation.argumentsJson, facts, escalation.intentKey);
}

EscalationRoute EscalationResolver::route(const EscalationDetail &escalation) const
{
    if (Expected<RefundIntent> intent = refundIntentFor(escalation); intent)
        return {true, systemWords(QStringLiteral("payments")), QString()};
    if (escalation.toolClass == ToolClass::WriteMoney)
        return {false, QString(), refundIntentFor(escalation).message()};
    const Expected<RecordQuery> query = recordQueryOf(escalation);
    if (!query)
        return {false, QString(), query.message()};
    return {true, systemWords(query->system), QString()};
}

ResolutionOperation *EscalationResolver::finishLater(ResolutionOperation *operation, ResolutionReport report)
{
    QMetaObject::invokeMethod(operation, [operation, report] { operation->finish(report); }, Qt::QueuedConnection);
    return operation;
}

ResolutionReport EscalationResolver::reportOf(const EscalationDetail &escalation,
                                              const Expected<SettlementWritten> &written,
                                              const QString &settledMessage, const QString &openMessage)
{
    if (!written)
        return failed(QStringLiteral("nothing was settled: %1").arg(written.message()));
    ResolutionReport report;
    report.evidence = written->evidence;
    Expected<EscalationDetail> now = escalation.id ? this->escalation(escalation.id) : Expected<EscalationDetail>(escalation);
    const EscalationDetail current = now ? *now : escalation;
    if (written->claim && !written->claim->claimed) {
        report = settledBefore(current);
        report.evidence = written->evidence;
        report.message = QStringLiteral("%1 The evidence is kept with the escalation.").arg(report.message);
    } else if (written->claim) {
        report.kind = ResolutionReport::Kind::Resolved;
        report.resolution = written->claim->resolution;
        report.basis = written->claim->basis;
        report.reference = written->claim->reference;
        report.resolvedBy = written->claim->resolvedBy;
        report.resolvedAt = written->claim->resolvedAt;
        report.message = settledMessage;
    } else {
        report.kind = ResolutionReport::Kind::StillUnknown;
        report.message = openMessage;
    }
    if (Expected<QString> draft = customerDraftFor(m_store, current); draft)
        report.customerDraft = *draft;
    return report;
}

ResolutionOperation *EscalationResolver::lookUp(qint64 escalationId)
{
    auto *operation = new ResolutionOperation(this);
    Expected<EscalationDetail> found = escalation(escalationId);
    if (!found)
        return finishLater(operation, failed(found.message()));
    const EscalationDetail detail = *found;
    if (detail.state != u"open")
        return finishLater(operation, settledBefore(detail));
    const qint64 startedAt = now();
    if (Expected<RefundIntent> intent = refundIntentFor(detail); intent) {
        emit operation->progress(tr("Looking up the refund at the provider…"));
        LookupOperation *lookup = m_provider.lookup(*intent);
        operation->m_lookup = lookup;
        connect(lookup, &LookupOperation::progress, operation, &ResolutionOperation::progress);
        connect(lookup, &LookupOperation::finished, operation,
                [this, operation, detail, startedAt, lookup](const LookupAnswer &answer) {
                    lookup->deleteLater();
                    afterLookup(operation, detail, startedAt, systemAnswerOf(answer));
                });
        return operation;
    }
    const Expected<RecordQuery> query = recordQueryOf(detail);
    if (!query || detail.toolClass == ToolClass::WriteMoney)
        return finishLater(operation, notPossible(route(detail).whyNot));
    emit operation->progress(tr("Looking it up at %1…").arg(systemWords(query->system)));
    auto *lookup = new RecordLookupOperation(m_provider.settings(), *query, operation);
    operation->m_recordLookup = lookup;
    connect(lookup, &RecordLookupOperation::progress, operation, &ResolutionOperation::progress);
    connect(lookup, &RecordLookupOperation::finished, operation,
            [this, operation, detail, startedAt, lookup](const RecordLookupAnswer &answer) {
                lookup->deleteLater();
                afterLookup(operation, detail, startedAt, systemAnswerOf(answer));
            });
    lookup->start();
    return operation;
}

void EscalationResolver::afterLookup(ResolutionOperation *operation, const EscalationDetail &escalation,
                                     qint64 startedAt, const SystemAnswer &answer)
{
    const bool money = escalation.toolClass == ToolClass::WriteMoney;
    const QString noun = nounOf(escalation);
    const QString nouns = noun + u's';
    Evidence evidence = evidenceFrom(answer.exchanges);
    evidence.kind = EvidenceKind::Lookup;
    evidence.operatorName = m_operator;
    evidence.startedAt = startedAt;
    evidence.finishedAt = now();
    evidence.verdict = answer.verdict;
    evidence.reason = answer.reason;
    const QString call = QStringLiteral("%1 %2 on %3").arg(escalation.tool, escalation.callExtId, escalation.ticketExtId);

    SettlementStep step;
    step.evidenceAction = auditaction::lookup;
    const auto stayOpen = [&](const QString &why) {
        step.evidence = evidence;
        step.evidence->verdict = LookupVerdict::CouldNotTell;
        step.evidence->reason = why;
        step.evidenceDetail = QStringLiteral("%1: could not tell: %2").arg(call, why);
        step.note = why;
        QString system = route(escalation).system;
        system.replace(0, 1, system.left(1).toUpper());
        operation->finish(reportOf(escalation, writeSettlement(m_store, m_operator, escalation, step), QString(),
                                   QStringLiteral("%1 could not tell (%2). The write stays unknown: do not retry it; "
                                                  "look it up again later, or record a check.")
                                       .arg(system, why)));
    };
    if (answer.verdict == LookupVerdict::CouldNotTell)
        return stayOpen(answer.reason);

    // The records that carry the key, matched one to one with the ticket's calls of the key.
    Expected<QList<IntentCall>> calls = m_store.intentCalls(escalation.ticketId, escalation.intentKey);
    if (!calls) {
        operation->finish(failed(QStringLiteral("nothing was settled: %1").arg(calls.message())));
        return;
    }
    QList<KeyedRecord> keyed;
    QHash<QString, SystemRecord> records;
    for (const SystemRecord &record : answer.records) {
        keyed.append({record.id, record.createdMs});
        records.insert(record.id, record);
    }
    const RecordMatch match = matchRecordsToCalls(*calls, keyed);
    QStringList assignments;
    QStringList others;
    for (const IntentCall &other : std::as_const(*calls)) {
        const QString record = match.recordOfCall.value(other.id);
        if (!record.isEmpty())
            assignments << QStringLiteral("%1 for %2").arg(record, other.callExtId);
        if (other.id != escalation.callId && !record.isEmpty())
            others << other.callExtId;
    }
    QString matching;
    if (keyed.size() > 1)
        matching = QStringLiteral("; %1 %2 carry this key (%3)")
                       .arg(keyed.size())
                       .arg(nouns, assignments.join(QStringLiteral(", ")));
    if (!match.leftOver.isEmpty())
        matching += QStringLiteral("; %1 no call of the ticket accounts for: %2")
                        .arg(match.leftOver.join(QStringLiteral(", ")),
                             money ? QStringLiteral("a duplicate payout") : QStringLiteral("a duplicate effect"));

    const QString mine = match.recordOfCall.value(escalation.callId);
    if (!mine.isEmpty()) {
        const SystemRecord record = records.value(mine);
        if (didNotGoThrough(record))
            return stayOpen(QStringLiteral("%1 %2 carries this call's intent key but did not go through; a person "
                                           "must judge")
                                .arg(noun, record.description));
        evidence.verdict = LookupVerdict::Found;
        evidence.recordId = mine;
        evidence.reason = QStringLiteral("found %1 %2 for this call%3").arg(noun, record.description, matching);
        step.evidence = evidence;
        step.evidenceDetail = QStringLiteral("%1: found %2 %3%4").arg(call, noun, mine, matching);
        const qint64 at = now();
        step.settlement = Settlement{escalation.id, Resolution::Performed, SettlementBasis::Lookup, mine, m_operator, at};
        if (money)
            step.ledger = LedgerEntry{escalation.intentKey,
                                      escalation.callId,
                                      mine,
                                      record.amountCents > 0 ? record.amountCents : escalation.amountCents.value_or(0),
                                      record.currency.isEmpty() ? escalation.currency : record.currency,
                                      escalation.sellerId,
                                      record.createdMs > 0 ? record.createdMs : at,
                                      QStringLiteral("provider lookup")};
        step.settleDetail = QStringLiteral("%1: %2, %3 %4")
                                .arg(call, settlementText(Resolution::Performed, SettlementBasis::Lookup), noun, mine);
        operation->finish(reportOf(escalation, writeSettlement(m_store, m_operator, escalation, step),
                                   QStringLiteral("Performed (verified): %1.").arg(evidence.reason), QString()));
        return;
    }

    // No record is this call's: none carries the key, or each that does belongs to another call.
    evidence.verdict = LookupVerdict::NotFound;
    evidence.reason = keyed.isEmpty()
                          ? answer.reason
                          : QStringLiteral("the %1 %2 carrying this key belong to %3; none is left for %4%5")
                                .arg(keyed.size())
                                .arg(nouns, callList(others), escalation.callExtId, matching);
    step.evidence = evidence;
    step.evidenceDetail = QStringLiteral("%1: not found: %2").arg(call, evidence.reason);
    step.settlement =
        Settlement{escalation.id, Resolution::NotPerformed, SettlementBasis::Lookup, QString(), m_operator, now()};
    step.settleDetail = QStringLiteral("%1: %2").arg(call, settlementText(Resolution::NotPerformed, SettlementBasis::Lookup));
    ResolutionReport report = reportOf(escalation, writeSettlement(m_store, m_operator, escalation, step),
                                       QString(), QString());
    if (report.kind == ResolutionReport::Kind::Resolved) {
        report.mayPerformAgain = bool(planRepeat(escalation.id));
        report.message = report.mayPerformAgain
                             ? QStringLiteral("Not performed (verified): nothing carries this intent key. It may be "
                                              "performed once more, with the same key.")
                             : QStringLiteral("Not performed (verified): %1.").arg(evidence.reason);
        if (!report.mayPerformAgain && !others.isEmpty())
            report.message += QStringLiteral(" Another call of this intent took effect, so nothing more is owed for it.");
    }
    operation->finish(report);
}

Expected<RepeatPlan> EscalationResolver::planRepeat(qint64 escalationId)
{
    Expected<EscalationDetail> found = escalation(escalationId);
    if (!found)
        return found.error();
    const EscalationDetail &detail = *found;
    // The rule in code: a write is repeated only after a lookup said it did not happen.
    if (detail.resolution != Resolution::NotPerformed || detail.basis != SettlementBasis::Lookup)
        return makeError(QStringLiteral("only a write that a lookup proved not performed may be performed again"));
    const bool money = detail.toolClass == ToolClass::WriteMoney;
    QUrl endpoint;
    QString system;
    if (money) {
        Expected<RefundIntent> intent = refundIntentFor(detail);
        if (!intent)
            return intent.error();
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
            return makeError(QStringLiteral("call %1 of the same intent %2, so nothing more is owed for it")
                                 .arg(call.callExtId, call.resolution || call.outcome == Outcome::Performed
                                                          ? QStringLiteral("took effect")
                                                          : QStringLiteral("may have taken effect (look it up first)")));
    }
    if (money) {
        Expected<std::optional<LedgerEntry>> ledger = m_store.ledgerEntry(detail.intentKey);
        if (!ledger)
            return ledger.error();
        if (*ledger)
            return makeError(QStringLiteral("the ledger already holds refund %1 for this intent").arg((*ledger)->refundId));
    }
    return RepeatPlan{detail, endpoint, system};
}

ResolutionOperation *EscalationResolver::performAgain(qint64 escalationId)
{
    auto *operation = new ResolutionOperation(this);
    Expected<RepeatPlan> plan = planRepeat(escalationId);
    if (!plan)
        return finishLater(operation, notPossible(plan.message()));
    const EscalationDetail detail = plan->escalation;
    const bool money = detail.toolClass == ToolClass::WriteMoney;
    const Expected<RefundIntent> intent = money ? refundIntentFor(detail) : Expected<RefundIntent>(RefundIntent{});
    const Expected<RecordQuery> query = money ? Expected<RecordQuery>(RecordQuery{}) : recordQueryOf(detail);
    if (!intent || !query)
        return finishLater(operation, notPossible(!intent ? intent.message() : query.message()));
    // Before anything is sent, the escalation goes back to the queue as unknown, with its audit
    // entry: if this console dies while the request is out, the next person looks it up
    // instead of finding a "not performed" that may no longer be true.
    if (Expected<void> begun = m_store.begin(); !begun)
        return finishLater(operation, failed(QStringLiteral("nothing was sent: %1").arg(begun.message())));
    const QString inFlight = QStringLiteral("a repeat with the same key was sent by %1 at %2; until its answer is "
                                            "recorded, look it up before anything else")
                                 .arg(m_operator, isoTime(now()));
    AuditLog audit(m_store);
    Expected<void> marked = m_store.reopenEscalation(detail.id, inFlight);
    const QString what = money ? QStringLiteral("%1 %2").arg(detail.tool, formatMoney(detail.amountCents.value_or(0),
                                                                                          detail.currency))
                               : detail.tool;
    Expected<AuditEntry> started =
        marked ? audit.append(m_operator, auditaction::writeStarted, detail.id,
                              QStringLiteral("%1 with the same intent key on %2, to %3")
                                  .arg(what, detail.ticketExtId, plan->endpoint.toString()),
                              QString(), now())
               : Expected<AuditEntry>(marked.error());
    Expected<void> committed = started ? m_store.commit() : Expected<void>(started.error());
    if (!committed) {
        m_store.rollback();
        return finishLater(operation, failed(QStringLiteral("nothing was sent: %1").arg(committed.message())));
    }

    if (money) {
        // The resolver records the refund in the ledger with its audit entries, not the runtime.
        SafeRefundOperation *write = m_runtime.refund(
            *intent, LedgerContext{detail.callId, detail.sellerId, QStringLiteral("console write"), false});
        operation->m_write = write;
        connect(write, &SafeRefundOperation::progress, operation, &ResolutionOperation::progress);
        connect(write, &SafeRefundOperation::finished, operation,
                [this, operation, detail, write](const SafeWriteResult &result) {
                    write->deleteLater();
                    afterWrite(operation, detail, writeOutcomeOf(result));
                });
        return operation;
    }
    auto *write = new SafeRecordWrite(m_provider.settings(), recordWriteOf(detail, *query), *query, operation);
    operation->m_recordWrite = write;
    connect(write, &SafeRecordWrite::progress, operation, &ResolutionOperation::progress);
    connect(write, &SafeRecordWrite::finished, operation, [this, operation, detail, write](const WriteOutcome &result) {
        write->deleteLater();
        afterWrite(operation, detail, result);
    });
    write->start();
    return operation;
}

void EscalationResolver::afterWrite(ResolutionOperation *operation, const EscalationDetail &escalation,
                                    const WriteOutcome &result)
{
    const bool money = escalation.toolClass == ToolClass::WriteMoney;
    const QString what = money ? QStringLiteral("%1 %2").arg(escalation.tool, formatMoney(escalation.amountCents.value_or(0),
                                                                                              escalation.currency))
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
                           : result.outcome == Outcome::NotPerformed ? LookupVerdict::NotFound
                                                                     : LookupVerdict::Found;
        evidence.recordId = result.record ? result.record->id : QString();
        evidence.reason = result.note;
        step.evidence = evidence;
        step.evidenceAction = money ? auditaction::refundSent : auditaction::recordSent;
        step.evidenceDetail = QStringLiteral("%1 with the same intent key on %2: %3 (%4)")
                                  .arg(what, escalation.ticketExtId, outcomeLabel(result.outcome), result.note);
    }
    const QString call = QStringLiteral("%1 %2 on %3").arg(escalation.tool, escalation.callExtId, escalation.ticketExtId);
    const auto notPerformed = [&](const QString &why) {
        step.settlement =
            Settlement{escalation.id, Resolution::NotPerformed, SettlementBasis::Lookup, QString(), m_operator, at};
        step.settleDetail = QStringLiteral("%1: %2 (%3)")
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
        step.settlement = Settlement{escalation.id, Resolution::PerformedAgain, SettlementBasis::Lookup,
                                     result.record->id, m_operator, at};
        // Dated when it was made, in the ledger and so in reconciliation.
        if (money)
            step.ledger = LedgerEntry{escalation.intentKey,
                                      escalation.callId,
                                      result.record->id,
                                      result.record->amountCents > 0 ? result.record->amountCents
                                                                     : escalation.amountCents.value_or(0),
                                      result.record->currency.isEmpty() ? escalation.currency : result.record->currency,
                                      escalation.sellerId,
                                      at,
                                      QStringLiteral("console write")};
        step.settleDetail = QStringLiteral("%1: %2, %3 %4")
                                .arg(call, settlementText(Resolution::PerformedAgain, SettlementBasis::Lookup), noun,
                                     result.record->id);
        settled = QStringLiteral("%1: %2.").arg(outcomeLabel(result.outcome), result.note);
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
    operation->finish(reportOf(escalation, writeSettlement(m_store, m_operator, escalation, step), settled,
                               QStringLiteral("Unknown: %1. The escalation is back in the queue; do not retry.")
                                   .arg(result.note)));
}

ResolutionReport EscalationResolver::attest(qint64 escalationId, const Attestation &attestation)
{
    Expected<EscalationDetail> found = escalation(escalationId);
    if (!found)
        return failed(found.message());
    const EscalationDetail detail = *found;
    if (detail.state != u"open")
        return settledBefore(detail);
    if (attestation.resolution == Resolution::PerformedAgain)
        return notPossible(QStringLiteral("an attested check says performed or not performed"));
    const QString reference = attestation.reference.trimmed();
    const QString note = attestation.note.trimmed();
    if (reference.isEmpty())
        return notPossible(QStringLiteral("the reference is missing: name what you found (a pickup or message id), or "
                                          "where you looked"));
    if (note.isEmpty())
        return notPossible(QStringLiteral("the note is missing: say how you checked"));
    if (reference.size() > 200)
        return notPossible(QStringLiteral("the reference is %1 characters long; at most 200 are kept").arg(reference.size()));
    if (note.size() > 4000)
        return notPossible(QStringLiteral("the note is %1 characters long; at most 4,000 are kept").arg(note.size()));

    const qint64 at = now();
    const QString words = settlementText(attestation.resolution, SettlementBasis::Attestation);
    Evidence evidence;
    evidence.kind = EvidenceKind::Attestation;
    evidence.operatorName = m_operator;
    evidence.startedAt = at;
    evidence.finishedAt = at;
    evidence.verdict = attestation.resolution == Resolution::Performed ? LookupVerdict::Found : LookupVerdict::NotFound;
    evidence.recordId = attestation.resolution == Resolution::Performed ? reference : QString();
    evidence.reason = note;
    evidence.request = QStringLiteral("Attested check of %1 %2 on %3\nChecked by: %4\nAt: %5\nFound: %6\nReference: %7\n"
                                      "Note: %8")
                           .arg(detail.tool, detail.callExtId, detail.ticketExtId, m_operator, isoTime(at), words,
                                reference, note);
    evidence.response = QStringLiteral("(a person's check: no system answered)");

    const QString call = QStringLiteral("%1 %2 on %3").arg(detail.tool, detail.callExtId, detail.ticketExtId);
    SettlementStep step;
    step.evidence = evidence;
    step.evidenceAction = auditaction::attest;
    step.evidenceDetail = QStringLiteral("%1: %2, reference %3: %4").arg(call, words, reference, note);
    step.settlement = Settlement{detail.id, attestation.resolution, SettlementBasis::Attestation,
                                 attestation.resolution == Resolution::Performed ? reference : QString(), m_operator, at};
    step.settleDetail = QStringLiteral("%1: %2").arg(call, words);
    return reportOf(detail, writeSettlement(m_store, m_operator, detail, step),
                    QStringLiteral("Recorded as %1 by %2. Attested checks are never shown as verified.")
                        .arg(words, m_operator),
                    QString());
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

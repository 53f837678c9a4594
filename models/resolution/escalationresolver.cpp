#include "escalationresolver.h"

#include "audit/auditaction.h"
#include "audit/auditlog.h"
#include "customerdraft.h"
#include "domain/hiddencharacters.h"
#include "escalationclaims.h"
#include "escalationtext.h"
#include "owedwrite.h"
#include "providerconnection.h"
#include "refundpayment.h"
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
    return it->is_string() ? QString::fromStdString(it->get<std::string>())
                           : QString::fromStdString(it->dump());
}

// The seller's connected account a refund is asked about, when sellers are connected accounts
// (empty when they are not), or why it is not known.
Expected<QString> sellerAccountOf(const ProviderSettings &settings, const EscalationDetail &escalation)
{
    if (!settings.connectedAccounts)
        return QString();
    if (escalation.sellerId.isEmpty())
        return makeError(
                InputErrc::Missing,
                QStringLiteral("payments are made on each seller's connected account, but the seller of "
                               "order %1 is not known, so there is no account to ask")
                        .arg(escalation.orderId));
    return escalation.sellerId;
}

// Why a check cannot be recorded as typed, or empty.
QString attestationProblem(const QString &reference, const QString &note)
{
    if (reference.isEmpty())
        return QStringLiteral(
                "the reference is missing: name the id you found (a refund, pickup or message), or "
                "where you looked");
    if (note.isEmpty())
        return QStringLiteral("the note is missing: say how you checked");
    if (reference.size() > 200)
        return QStringLiteral(
                       "the reference is %1 characters long; it may be at most 200: nothing was recorded")
                .arg(reference.size());
    if (note.size() > 4000)
        return QStringLiteral("the note is %1 characters long; it may be at most 4,000: nothing was recorded")
                .arg(note.size());
    // Evidence is read later exactly as stored: nothing in it may read as something else.
    if (const Expected<void> shown = checkShownAsTyped(QStringLiteral("the reference"), reference); !shown)
        return shown.message();
    if (const Expected<void> shown = checkShownAsTyped(QStringLiteral("the note"), note, LineBreaks::Allowed);
        !shown)
        return shown.message();
    return QString();
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
    if (m_step)
        m_step->cancel();
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
    return evidence;
}

EscalationResolver::EscalationResolver(ResolutionStore &store, ProviderClient &provider, QString operatorName,
                                       QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_provider(provider)
    , m_runtime(store, provider)
    , m_operator(std::move(operatorName))
{}

QUrl EscalationResolver::providerUrl() const
{
    return m_provider.settings().baseUrl;
}

Expected<RefundIntent> EscalationResolver::refundIntentFor(const EscalationDetail &escalation) const
{
    if (escalation.toolClass != ToolClass::WriteMoney || !escalation.amountCents)
        return makeError(
                QStringLiteral("%1 is not a refund: Verity can look up refunds at the payment provider; this "
                               "write must be checked in the system it went to")
                        .arg(escalation.tool));
    if (escalation.intentKey.isEmpty())
        return makeError(
                QStringLiteral("this call has no intent key, so the provider cannot be asked about it"));
    Expected<QList<TranscriptEntry>> transcript = m_store.transcript(escalation.ticketId);
    if (!transcript)
        return transcript.error();
    Expected<PaymentReference> payment =
            refundPayment(escalation, *transcript, m_registries.byName(escalation.ticketRegistry).registry);
    if (!payment)
        return payment.error();
    const nlohmann::json arguments =
            nlohmann::json::parse(escalation.argumentsJson.toStdString(), nullptr, false);
    RefundIntent intent;
    intent.intentKey = escalation.intentKey;
    intent.paymentIntent = payment->id;
    intent.paymentSource = payment->source;
    // A person's entry outranks the data only when the data names none (enterPayment); it is
    // still a person's, so "not found" under it counts once the provider ties it to the order.
    intent.confirmPayment = !escalation.enteredPayment.isEmpty();
    const Expected<QString> account = sellerAccountOf(m_provider.settings(), escalation);
    if (!account)
        return makeError(account.message()); // not a payment a person could enter
    intent.account = *account;
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

Expected<EscalationDetail> EscalationResolver::refundEscalation(qint64 escalationId)
{
    Expected<EscalationDetail> found = escalation(escalationId);
    if (found && found->toolClass != ToolClass::WriteMoney)
        return makeError(InputErrc::Invalid,
                         QStringLiteral("%1 is not a refund: only a refund is looked up under a payment")
                                 .arg(found->tool));
    return found;
}

Expected<PaymentReference> EscalationResolver::enterPayment(qint64 escalationId, const QString &reference)
{
    Expected<EscalationDetail> found = refundEscalation(escalationId);
    if (!found)
        return found.error();
    if (found->state != EscalationState::Open)
        return makeError(InputErrc::Invalid,
                         QStringLiteral("escalation %1 is settled already; its payment is not asked for")
                                 .arg(escalationId));
    if (const QString held = claimRefusal(*found); !held.isEmpty())
        return makeError(StoreErrc::ClaimedByOther, held);
    // The data's payment is never overridden by hand: a typo would look up someone else's.
    EscalationDetail fromData = *found;
    fromData.enteredPayment.clear();
    Expected<QList<TranscriptEntry>> transcript = m_store.transcript(found->ticketId);
    if (!transcript)
        return transcript.error();
    if (const Expected<PaymentReference> named =
                refundPayment(fromData, *transcript, m_registries.byName(found->ticketRegistry).registry);
        named)
        return makeError(InputErrc::Invalid,
                         QStringLiteral("the data already names this refund's payment, %1 (%2); a payment is "
                                        "entered only for a refund whose payment nobody named")
                                 .arg(named->id, named->source));
    Expected<PaymentReference> payment =
            readPaymentReference(reference, QStringLiteral("entered by %1").arg(m_operator));
    if (!payment)
        return makeError(InputErrc::Invalid, QStringLiteral("payment: %1").arg(payment.message()));
    if (Expected<void> begun = m_store.begin(); !begun)
        return begun.error();
    const QString before = found->enteredPayment.isEmpty()
            ? QStringLiteral("none entered before")
            : QStringLiteral("was %1").arg(found->enteredPayment);
    Expected<void> set = m_store.setEscalationPayment(escalationId, payment->id, m_operator);
    Expected<AuditEntry> entry = set
            ? AuditLog(m_store).append(
                    m_operator, auditaction::paymentEntered, escalationId,
                    QStringLiteral("payment %1 for %2 (%3)").arg(payment->id, found->callExtId, before),
                    QString(), QDateTime::currentMSecsSinceEpoch())
            : Expected<AuditEntry>(set.error());
    if (!entry) {
        m_store.rollback();
        return entry.error();
    }
    if (Expected<void> committed = m_store.commit(); !committed)
        return committed.error();
    return payment;
}

Expected<PaymentSearchOperation *> EscalationResolver::findPayment(qint64 escalationId, QObject *parent)
{
    Expected<EscalationDetail> found = refundEscalation(escalationId);
    if (!found)
        return found.error();
    if (const QString held = claimRefusal(*found); !held.isEmpty())
        return makeError(StoreErrc::ClaimedByOther, held);
    if (found->orderId.isEmpty())
        return makeError(InputErrc::Missing,
                         QStringLiteral("ticket %1 names no order, so there is nothing to search the "
                                        "provider's payments for; enter the payment as the provider shows it")
                                 .arg(found->ticketExtId));
    const Expected<QString> account = sellerAccountOf(m_provider.settings(), *found);
    if (!account)
        return account.error();
    auto *search = new PaymentSearchOperation(m_provider.settings(), found->orderId, *account, parent);
    search->start();
    return search;
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
        return makeError(
                QStringLiteral("the registry names no system where %1 can be looked up; check it where it "
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
    if (escalation.toolClass == ToolClass::WriteMoney) {
        const Expected<RefundIntent> intent = refundIntentFor(escalation);
        // A refund whose payment nobody named is still the provider's to answer, once a person
        // names the payment: the way to the lookup stays open.
        if (!intent && intent.code() == InputErrc::Missing)
            return {false, systemWords(QStringLiteral("payments")), intent.message(), true, QString()};
        if (!intent)
            return {false, QString(), intent.message(), false, QString()};
        return {true, systemWords(QStringLiteral("payments")), QString(), false, paymentText(*intent)};
    }
    const Expected<RecordQuery> query = recordQueryOf(escalation);
    if (!query)
        return {false, QString(), query.message(), false, QString()};
    return {true, systemWords(query->system), QString(), false, QString()};
}

ResolutionOperation *EscalationResolver::finishLater(ResolutionOperation *operation, ResolutionReport report)
{
    QMetaObject::invokeMethod(
            operation, [operation, report] { operation->finish(report); }, Qt::QueuedConnection);
    return operation;
}

ResolutionReport EscalationResolver::settledBefore(const EscalationDetail &escalation)
{
    ResolutionReport report = settledBeforeReport(escalation);
    if (Expected<QString> draft = customerDraftFor(m_store, escalation); draft)
        report.customerDraft = *draft;
    return report;
}

ResolutionReport EscalationResolver::reportOf(const EscalationDetail &escalation,
                                              const Expected<SettlementWritten> &written,
                                              const QString &settledMessage, const QString &openMessage)
{
    if (!written)
        return failedReport(QStringLiteral("nothing was settled: %1").arg(written.message()));
    ResolutionReport report;
    report.evidence = written->evidence;
    Expected<EscalationDetail> now =
            escalation.id ? this->escalation(escalation.id) : Expected<EscalationDetail>(escalation);
    const EscalationDetail current = now ? *now : escalation;
    if (written->claim && !written->claim->claimed) {
        report = settledBeforeReport(current);
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
        return finishLater(operation, failedReport(found.message()));
    const EscalationDetail detail = *found;
    if (const QString held = claimRefusal(detail); !held.isEmpty())
        return finishLater(operation, heldByClaimReport(QStringLiteral("nothing was asked: %1").arg(held)));
    // A system's answer outranks a person's attested check, so an attested escalation may be
    // looked up; anything else settled stays as it was settled.
    if (detail.state != EscalationState::Open && !standsOnACheck(detail))
        return finishLater(operation, settledBefore(detail));
    // Asked without a key, the provider could only refuse: nothing goes out.
    if (m_provider.settings().apiKey.isEmpty())
        return finishLater(
                operation,
                notPossibleReport(
                        QStringLiteral("there is no API key to ask with: enter one under Provider > Payment "
                                       "provider settings, or set %1 before starting Verity")
                                .arg(QLatin1String(ProviderConnection::apiKeyVariable))));
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
        return finishLater(operation, notPossibleReport(route(detail).whyNot));
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

QString EscalationResolver::claimRefusal(const EscalationDetail &escalation) const
{
    return EscalationClaims(m_store, m_operator).refusal(escalation);
}

QString EscalationResolver::replacementRefusal(const EscalationDetail &escalation,
                                               const Attestation &attestation)
{
    if (attestation.resolution != Resolution::Performed)
        return QStringLiteral("a check replaces one that found the write not performed only to say it was "
                              "performed since");
    if (const EscalationRoute way = route(escalation); way.canLookUp)
        return QStringLiteral("%1 can be asked about this write: look it up, and its answer replaces the "
                              "check")
                .arg(way.system);
    const Expected<bool> owed = stillOwed(m_store, escalation);
    if (!owed)
        return owed.message();
    if (!*owed)
        return QStringLiteral("another call of its intent took effect, so nothing more is owed for it");
    return QString();
}

ResolutionReport EscalationResolver::attest(qint64 escalationId, const Attestation &attestation)
{
    Expected<EscalationDetail> found = escalation(escalationId);
    if (!found)
        return failedReport(found.message());
    const EscalationDetail detail = *found;
    // Settled, it stays so; but a check that found a write absent gives way to a later one that
    // it was since performed, when that is what the person records.
    const bool replacing = detail.state != EscalationState::Open;
    if (replacing
        && (!attestation.replacesAttestedAbsence || !standsOnACheck(detail)
            || detail.resolution != Resolution::NotPerformed))
        return settledBefore(detail);
    if (const QString held = claimRefusal(detail); !held.isEmpty())
        return heldByClaimReport(QStringLiteral("nothing was recorded: %1").arg(held));
    if (attestation.resolution == Resolution::PerformedAgain)
        return notPossibleReport(QStringLiteral("an attested check says performed or not performed"));
    if (const QString refused = replacing ? replacementRefusal(detail, attestation) : QString();
        !refused.isEmpty())
        return notPossibleReport(QStringLiteral("nothing was recorded: %1").arg(refused));
    const QString reference = attestation.reference.trimmed();
    const QString note = attestation.note.trimmed();
    if (const QString problem = attestationProblem(reference, note); !problem.isEmpty())
        return notPossibleReport(problem);

    const qint64 at = now();
    const QString words = settlementText(attestation.resolution, SettlementBasis::Attestation);
    // Whose check this one replaces is said in the evidence, the audit entries and the result.
    const QString replaces =
            replacing ? QStringLiteral(" It replaces %1.").arg(replacedCheckText(detail)) : QString();
    Evidence evidence;
    evidence.kind = EvidenceKind::Attestation;
    evidence.operatorName = m_operator;
    evidence.startedAt = at;
    evidence.finishedAt = at;
    evidence.verdict =
            attestation.resolution == Resolution::Performed ? LookupVerdict::Found : LookupVerdict::NotFound;
    evidence.recordId = attestation.resolution == Resolution::Performed ? reference : QString();
    evidence.reason = note;
    evidence.request =
            QStringLiteral("Attested check of %1 %2 on %3\nChecked by: %4\nAt: %5\nFound: %6\nReference: %7\n"
                           "Note: %8")
                    .arg(detail.tool, detail.callExtId, detail.ticketExtId, m_operator, isoTime(at), words,
                         reference, note);
    if (replacing)
        evidence.request += QStringLiteral("\nReplaces: %1").arg(replacedCheckText(detail));
    evidence.response = QStringLiteral("(a person's check: no system answered)");

    const QString call = QStringLiteral("%1 %2 on %3").arg(detail.tool, detail.callExtId, detail.ticketExtId);
    SettlementStep step;
    step.evidence = evidence;
    step.evidenceAction = auditaction::attest;
    step.evidenceDetail = withReplacedCheck(
            QStringLiteral("%1: %2, reference %3: %4").arg(call, words, reference, note), replaces);
    step.settlement = Settlement{detail.id,
                                 attestation.resolution,
                                 SettlementBasis::Attestation,
                                 attestation.resolution == Resolution::Performed ? reference : QString(),
                                 m_operator,
                                 at,
                                 replacing};
    step.settleDetail = withReplacedCheck(QStringLiteral("%1: %2").arg(call, words), replaces);
    return reportOf(detail, writeSettlement(m_store, m_operator, detail, step),
                    QStringLiteral("Recorded as %1 by %2.%3 Attested checks are never shown as verified.")
                            .arg(words, m_operator, replaces),
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

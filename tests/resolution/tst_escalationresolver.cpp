// The escalation resolver on the demo data, against the real sandbox seeded with the
// provider's side of the demo: a lookup settles an unknown refund by evidence (stored, hashed,
// audited, in the ledger); only a verified "not performed" may be performed again, once (one a
// person's check found absent is looked up first, in the same step); two
// consoles on one database settle an escalation once; what cannot be looked up is said so
// and nothing changes; a provider that cannot be reached leaves the escalation open with the
// reason. Then `verity lookup --all-open` through the built binary against `verity sandbox`.

#include "audit/auditlog.h"
#include "audit/settlementrecord.h"
#include "domain/registrychoice.h"
#include "domain/sha256.h"
#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "resolution/escalationresolver.h"
#include "resolution/saferecordwrite.h"
#include "resolution/settlementwriter.h"
#include "sandbox/sandboxseed.h"
#include "store/storefactory.h"
#include "support/inprocesssandbox.h"
#include "support/loopbackprovider.h"
#include "support/provider.h"
#include "support/rawsqlite.h"
#include "support/sandboxprocess.h"
#include "support/testmacros.h"
#include "support/teststore.h"
#include "support/verityprocess.h"

#include <QDateTime>
#include <QFile>
#include <QLocale>
#include <QProcess>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QTcpServer>

using namespace verity;
using namespace verity::test;

namespace {

const QString incidentTicket = QStringLiteral("T-20260317-0412");
const QString c3 = QStringLiteral("c3");

QString kindName(ResolutionReport::Kind kind)
{
    switch (kind) {
    case ResolutionReport::Kind::Resolved:
        return QStringLiteral("resolved");
    case ResolutionReport::Kind::StillUnknown:
        return QStringLiteral("still unknown");
    case ResolutionReport::Kind::ResolvedElsewhere:
        return QStringLiteral("resolved elsewhere");
    case ResolutionReport::Kind::NotPossible:
        return QStringLiteral("not possible");
    case ResolutionReport::Kind::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("?");
}

QString resolutionName(const std::optional<Resolution> &resolution)
{
    return resolution ? resolutionId(*resolution) : QStringLiteral("none");
}

ResolutionReport wait(ResolutionOperation *operation)
{
    const ResolutionReport report = EscalationResolver::waitFor(operation);
    operation->deleteLater();
    return report;
}

// "17 March", as the customer draft writes a day.
QString dayAndMonth(const QDate &date)
{
    return QLocale(QLocale::English).toString(date, QStringLiteral("d MMMM"));
}

} // namespace

class TestEscalationResolver : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void incidentRefundIsFoundWithEvidence();
    void oneRefundIsNeverCitedForTwoCalls();
    void nothingMoreIsOwedWhenASiblingTookEffect();
    void attestedCheckSettlesButIsNeverVerified();
    void lookupReplacesAnAttestedCheck();
    void lookUpSettlesByWhatTheProviderHolds_data();
    void lookUpSettlesByWhatTheProviderHolds();
    void notPerformedMayBePerformedAgainOnce();
    void performAgainNeedsALookupFirst();
    void draftAfterPerformAgainNamesTheDayOfTheRefund();
    void performAgainRefusedStaysNotPerformed();
    void performAgainComingBackUnknownReopens();
    void aRepeatWhoseAnswerCannotBeRecordedSaysItWasSent();
    void twoConsolesPerformAgainInFlightRefundOnce();
    void secondConsoleIsToldWhoResolved();
    void twoConsolesInFlightSettleOnce_data();
    void twoConsolesInFlightSettleOnce();
    void pickupsAndMessagesAreLookedUpWhereTheyWent();
    void nonRefundCannotBeLookedUp_data();
    void nonRefundCannotBeLookedUp();
    void providerDownLeavesTheEscalationOpen();
    void refundWithoutAPaymentWaitsForOne();
    void lookupCommandSettlesWhatItCan();
    void theKeyDecidesWhatARepeatAsks_data();
    void theKeyDecidesWhatARepeatAsks();
    void aLateAnswerThatItTookEffectStopsTheRepeat();
    void connectedAccountsAreAskedOnTheSellersAccount();
    void anEnteredPaymentMustBeTheOrders();
    void aCheckFoundAbsentIsLookedUpBeforeItIsSentAgain();
    void aCheckFoundAbsentThatWasMadeIsSettledNotSent_data();
    void aCheckFoundAbsentThatWasMadeIsSettledNotSent();
    void whereNoSystemCanBeAskedALaterCheckReplacesTheFirst();
    void aRecordWriteCheckedFirstIsSentOnlyWhenAbsent();

private:
    qint64 auditCount() { return *m_store->countAuditEntries(); }
    QList<AuditEntry> auditEntries() { return *m_store->auditEntries(0, 1000); }
    void verifyAuditChain(qint64 entries);
    VerityRun runVerity(const QStringList &arguments);

    QTemporaryDir m_pristineFolder;
    QString m_pristine; // the demo, imported once; each test works on a copy
    std::unique_ptr<QTemporaryDir> m_folder;
    QString m_dbPath;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<InProcessSandbox> m_sandbox;
    std::unique_ptr<ProviderClient> m_client;
    std::unique_ptr<EscalationResolver> m_resolver;
};

void TestEscalationResolver::initTestCase()
{
    QVERIFY(m_pristineFolder.isValid());
    m_pristine = m_pristineFolder.filePath(QStringLiteral("demo.sqlite"));
    std::unique_ptr<Store> store = openTestStore(m_pristine);
    QVERIFY(store);
    const ToolRegistry registry = ToolRegistry::builtIn();
    TranscriptImporter importer(*store, registry);
    const ImportReport report = importer.importFile(demoDataResource());
    QVERIFY2(report.clean(), qPrintable(report.summary()));
    QCOMPARE(*store->countOpenEscalations(), 15);
    // Closing the last connection folds the WAL into the file, so a plain copy is whole.
}

void TestEscalationResolver::init()
{
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    m_dbPath = m_folder->filePath(QStringLiteral("console.sqlite"));
    QVERIFY(QFile::copy(m_pristine, m_dbPath));
    m_store = openTestStore(m_dbPath);
    QVERIFY(m_store);
    QCOMPARE(*m_store->countOpenEscalations(), 15);

    m_sandbox = std::make_unique<InProcessSandbox>();
    Expected<SandboxSeedReport> seeded = seedDemo(m_sandbox->state());
    QVERIFY_OK(seeded);
    m_client = std::make_unique<ProviderClient>(settingsFor(m_sandbox->url()));
    m_resolver = std::make_unique<EscalationResolver>(*m_store, *m_client, QStringLiteral("amira"));
}

void TestEscalationResolver::cleanup()
{
    m_resolver.reset();
    m_client.reset();
    m_store.reset();
    m_sandbox.reset();
    m_folder.reset();
}

void TestEscalationResolver::verifyAuditChain(qint64 entries)
{
    Expected<AuditVerification> verified = AuditLog::verify(*m_store);
    QVERIFY_OK(verified);
    QVERIFY2(verified->intact, qPrintable(verified->reason));
    QCOMPARE(verified->entriesChecked, entries);
}

void TestEscalationResolver::incidentRefundIsFoundWithEvidence()
{
    const qint64 id = openEscalationId(*m_store, incidentTicket, c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QCOMPARE(before.amountCents, std::optional<qint64>(11800));
    QCOMPARE(before.paymentIntent, QStringLiteral("pi_SU-88421"));
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 2);

    const ResolutionReport report = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(report.resolution), resolutionId(Resolution::Performed));
    QCOMPARE(report.resolvedBy, QStringLiteral("amira"));
    QVERIFY(report.resolvedAt > 0);

    // The refund found is c3's own (the first created with the key), not the agent's retry.
    const QString c3Refund =
            derivedSandboxId(QStringLiteral("re_"), QStringLiteral("demo|T-20260317-0412/c3"));
    QVERIFY(report.message.contains(c3Refund));

    // The evidence: one lookup, what was asked and answered, hashed over all it says.
    const QList<Evidence> lookups = *m_store->evidence(id);
    QCOMPARE(lookups.size(), 1);
    const Evidence &evidence = lookups.first();
    QCOMPARE(evidenceKindId(evidence.kind), evidenceKindId(EvidenceKind::Lookup));
    QCOMPARE(lookupVerdictId(evidence.verdict), lookupVerdictId(LookupVerdict::Found));
    QCOMPARE(evidence.recordId, c3Refund);
    QCOMPARE(evidence.operatorName, QStringLiteral("amira"));
    QCOMPARE(evidence.escalationId, id);
    QVERIFY(evidence.startedAt > 0 && evidence.finishedAt >= evidence.startedAt);
    QVERIFY(evidence.request.startsWith(QStringLiteral("GET ")));
    QVERIFY(evidence.request.contains(QStringLiteral("payment_intent=pi_SU-88421")));
    QVERIFY(!evidence.request.contains(sandboxApiKey));
    QVERIFY(evidence.response.startsWith(QStringLiteral("HTTP 200")));
    QVERIFY(evidence.response.contains(c3Refund));
    QCOMPARE(evidence.evidenceSha256, evidenceHash(evidence));
    QVERIFY(report.evidence);
    QCOMPARE(report.evidence->evidenceSha256, evidence.evidenceSha256);
    QCOMPARE(report.evidence->id, evidence.id);

    // The ledger holds the refund that was found, for this call.
    const std::optional<LedgerEntry> ledger = *m_store->ledgerEntryOfCall(before.callId);
    QVERIFY(ledger);
    QCOMPARE(ledger->refundId, c3Refund);
    QCOMPARE(ledger->amountCents, 11800);
    QCOMPARE(ledger->currency, QStringLiteral("USD"));
    QCOMPARE(ledger->toolCallId, std::optional<qint64>(before.callId));
    QCOMPARE(ledger->sellerId, QStringLiteral("ashcombe-furniture"));
    QCOMPARE(ledger->source, QStringLiteral("provider lookup"));

    // Two audit entries, chained and intact: the lookup with its evidence's hash, and the
    // settlement with the hash of what it settled (the escalation and its ledger row).
    const QList<AuditEntry> audit = auditEntries();
    QCOMPARE(audit.size(), 2);
    QCOMPARE(audit.at(0).action, QStringLiteral("lookup"));
    QCOMPARE(audit.at(1).action, QStringLiteral("settle"));
    for (const AuditEntry &entry : audit) {
        QCOMPARE(entry.operatorName, QStringLiteral("amira"));
        QCOMPARE(entry.escalationId, std::optional<qint64>(id));
        QVERIFY2(entry.detail.contains(incidentTicket), qPrintable(entry.detail));
    }
    QCOMPARE(audit.at(0).evidenceSha256, evidence.evidenceSha256);
    QCOMPARE(audit.at(1).evidenceSha256, settlementHash(settlementOf(**m_store->escalation(id)), ledger));
    QVERIFY(audit.at(1).detail.contains(QStringLiteral("performed (verified)")));
    QVERIFY(audit.at(1).detail.contains(c3Refund));
    verifyAuditChain(2);

    // The escalation is settled, and the ticket reassessed: no unknown left, but both refunds
    // of one intent now count, so it still needs attention.
    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(after.state, EscalationState::Resolved);
    QCOMPARE(resolutionName(after.resolution), resolutionId(Resolution::Performed));
    QCOMPARE(after.resolvedBy, QStringLiteral("amira"));
    QCOMPARE(settlementBasisId(after.basis), settlementBasisId(SettlementBasis::Lookup));
    QCOMPARE(after.reference, c3Refund);
    QCOMPARE(*m_store->countOpenEscalations(), 14);
    const TicketDetail ticket = **m_store->ticket(before.ticketId);
    QVERIFY(!ticket.row.hasUnknown);
    QVERIFY(ticket.row.hasRepeatedIntent);
    QVERIFY(ticket.row.needsAttention);
    QCOMPARE(scalar(RawSqlite(m_store->location()).db(),
                    QStringLiteral("SELECT duplicate_effects FROM tickets WHERE ext_id = '%1'")
                            .arg(incidentTicket)),
             1);

    // What the customer should now be told.
    QVERIFY2(report.customerDraft.startsWith(QStringLiteral("Hello Dana,")),
             qPrintable(report.customerDraft));
    QVERIFY2(report.customerDraft.contains(QStringLiteral("$118.00")), qPrintable(report.customerDraft));
    QVERIFY2(report.customerDraft.contains(QStringLiteral("17 March")), qPrintable(report.customerDraft));
    QVERIFY2(report.customerDraft.contains(QStringLiteral("second refund")),
             qPrintable(report.customerDraft));
    QVERIFY2(report.customerDraft.contains(QStringLiteral("in error")), qPrintable(report.customerDraft));
    // Nobody has asked for the second refund back: the draft promises no recovery, and names
    // neither the refund's id nor the provider.
    for (const QString &unsaid :
         {QStringLiteral("recover"), QStringLiteral("re_"), QStringLiteral("provider")})
        QVERIFY2(!report.customerDraft.contains(unsaid), qPrintable(report.customerDraft));

    // A lookup is a read: the provider still holds the same two refunds.
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 2);
}

void TestEscalationResolver::oneRefundIsNeverCitedForTwoCalls()
{
    // T-20260325-0141: c3 and c4 timed out, c5 was performed; three refunds carry the key.
    const QString ticket = QStringLiteral("T-20260325-0141");
    const qint64 c3Id = openEscalationId(*m_store, ticket, c3);
    const qint64 c4Id = openEscalationId(*m_store, ticket, QStringLiteral("c4"));
    QVERIFY(c3Id > 0 && c4Id > 0);
    // Looked up in the opposite order: the matching does not depend on it.
    const ResolutionReport four = wait(m_resolver->lookUp(c4Id));
    const ResolutionReport three = wait(m_resolver->lookUp(c3Id));
    QCOMPARE(resolutionName(three.resolution), resolutionId(Resolution::Performed));
    QCOMPARE(resolutionName(four.resolution), resolutionId(Resolution::Performed));
    const QString c3Refund =
            derivedSandboxId(QStringLiteral("re_"), QStringLiteral("demo|T-20260325-0141/c3"));
    QCOMPARE(three.reference, QStringLiteral("re_Z3CPOSLm90pCJf3uuPZzHC8p"));
    QCOMPARE(four.reference, QStringLiteral("re_bHmyaqEMPRru0LJ0O6ql9yCI"));
    Q_UNUSED(c3Refund);
    const EscalationDetail c3Detail = **m_store->escalation(c3Id);
    const EscalationDetail c4Detail = **m_store->escalation(c4Id);
    QCOMPARE((*m_store->ledgerEntryOfCall(c3Detail.callId))->refundId, three.reference);
    QCOMPARE((*m_store->ledgerEntryOfCall(c4Detail.callId))->refundId, four.reference);
    // Each lookup's evidence names the one refund it settled on.
    QCOMPARE(m_store->evidence(c3Id)->first().recordId, three.reference);
    QCOMPARE(m_store->evidence(c4Id)->first().recordId, four.reference);
    // With all three refunds accounted for, the ticket has two duplicate effects: $193.00 paid twice.
    RawSqlite raw(m_store->location());
    QCOMPARE(scalar(raw.db(),
                    QStringLiteral("SELECT duplicate_effects FROM tickets WHERE ext_id = '%1'").arg(ticket)),
             2);
    QCOMPARE(scalar(raw.db(),
                    QStringLiteral("SELECT duplicate_cents FROM tickets WHERE ext_id = '%1'").arg(ticket)),
             19300);
    QCOMPARE(scalar(raw.db(),
                    QStringLiteral("SELECT worst_outcome FROM tickets WHERE ext_id = '%1'").arg(ticket)),
             duplicateEffectSeverity);
    verifyAuditChain(4);
}

void TestEscalationResolver::nothingMoreIsOwedWhenASiblingTookEffect()
{
    // The provider holds two of the three refunds: c4's timed-out request never reached it.
    {
        RawSqlite provider(m_sandbox->state().location());
        QSqlQuery remove(provider.db());
        QVERIFY(remove.exec(QStringLiteral("DELETE FROM refunds WHERE id = 're_bHmyaqEMPRru0LJ0O6ql9yCI'")));
        QCOMPARE(remove.numRowsAffected(), 1);
    }
    const QString ticket = QStringLiteral("T-20260325-0141");
    const qint64 c3Id = openEscalationId(*m_store, ticket, c3);
    const qint64 c4Id = openEscalationId(*m_store, ticket, QStringLiteral("c4"));
    QCOMPARE(resolutionName(wait(m_resolver->lookUp(c3Id)).resolution), resolutionId(Resolution::Performed));
    const ResolutionReport four = wait(m_resolver->lookUp(c4Id));
    QCOMPARE(kindName(four.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(four.resolution), resolutionId(Resolution::NotPerformed));
    QVERIFY2(four.message.contains(QStringLiteral("c3 and c5")), qPrintable(four.message));
    // The customer was owed one refund and has had it: no repeat is offered or allowed.
    QVERIFY(!four.mayPerformAgain);
    QVERIFY2(four.customerDraft.contains(QStringLiteral("second refund")), qPrintable(four.customerDraft));
    const Expected<RepeatPlan> plan = m_resolver->planRepeat(c4Id);
    QVERIFY(!plan);
    QVERIFY2(plan.message().contains(QStringLiteral("took effect")), qPrintable(plan.message()));
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    QCOMPARE(kindName(wait(m_resolver->performAgain(c4Id)).kind),
             kindName(ResolutionReport::Kind::NotPossible));
    QCOMPARE(served.count(), 0);
    verifyAuditChain(4);
}

void TestEscalationResolver::attestedCheckSettlesButIsNeverVerified()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260401-0247"), c3); // schedule_pickup
    QVERIFY(id > 0);
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    // Bad input is refused with what was expected, and nothing is stored.
    QCOMPARE(kindName(m_resolver
                              ->attest(id, Attestation{Resolution::Performed, QString(), QStringLiteral("n")})
                              .kind),
             kindName(ResolutionReport::Kind::NotPossible));
    QCOMPARE(kindName(m_resolver
                              ->attest(id,
                                       Attestation{Resolution::Performed, QStringLiteral("pu_1"),
                                                   QStringLiteral(" ")})
                              .kind),
             kindName(ResolutionReport::Kind::NotPossible));
    QCOMPARE(auditCount(), 0);

    const ResolutionReport report =
            m_resolver->attest(id,
                               Attestation{Resolution::Performed, QStringLiteral("PK-44120"),
                                           QStringLiteral("Found in the courier's portal")});
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(settlementBasisId(report.basis), settlementBasisId(SettlementBasis::Attestation));
    QVERIFY2(report.message.contains(QStringLiteral("attested")), qPrintable(report.message));
    QVERIFY2(!report.message.contains(QStringLiteral("(verified)")), qPrintable(report.message));
    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(after.state, EscalationState::Resolved);
    QCOMPARE(after.reference, QStringLiteral("PK-44120"));
    QCOMPARE(settlementText(*after.resolution, after.basis), QStringLiteral("performed (attested)"));
    const QList<Evidence> evidence = *m_store->evidence(id);
    QCOMPARE(evidence.size(), 1);
    QCOMPARE(evidenceKindId(evidence.first().kind), evidenceKindId(EvidenceKind::Attestation));
    QVERIFY(evidence.first().request.contains(QStringLiteral("Found in the courier's portal")));
    QCOMPARE(auditEntries().first().action, QStringLiteral("attest"));
    QCOMPARE(auditEntries().last().action, QStringLiteral("settle"));
    QCOMPARE(served.count(), 0);
    verifyAuditChain(2);

    // A second person is told who settled it first; nothing more is stored.
    EscalationResolver second(*m_store, *m_client, QStringLiteral("bruno"));
    const ResolutionReport late = second.attest(
            id, Attestation{Resolution::NotPerformed, QStringLiteral("portal"), QStringLiteral("not there")});
    QCOMPARE(kindName(late.kind), kindName(ResolutionReport::Kind::ResolvedElsewhere));
    QVERIFY2(late.message.contains(QStringLiteral("amira")), qPrintable(late.message));
    verifyAuditChain(2);
}

// A person recorded a refund as not performed; the provider holds it. A lookup, which outranks
// the check, settles it as performed (verified) with its ledger row; the check stays as evidence.
void TestEscalationResolver::lookupReplacesAnAttestedCheck()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260329-0264"), c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    const ResolutionReport attested = m_resolver->attest(
            id,
            Attestation{Resolution::NotPerformed, QStringLiteral("the provider's dashboard"),
                        QStringLiteral("no refund seen for the order")});
    QCOMPARE(settlementText(*attested.resolution, attested.basis),
             QStringLiteral("not performed (attested)"));
    QVERIFY(!*m_store->ledgerEntry(before.intentKey));
    // The customer is still owed the refund as far as anyone knows: the ticket keeps asking.
    QVERIFY((*m_store->ticket(before.ticketId))->row.needsAttention);

    EscalationResolver second(*m_store, *m_client, QStringLiteral("bruno"));
    const ResolutionReport looked = wait(second.lookUp(id));
    QCOMPARE(kindName(looked.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(settlementText(*looked.resolution, looked.basis), QStringLiteral("performed (verified)"));
    // Whose check it replaced is said, to the person and in the audit log.
    QVERIFY2(looked.message.contains(QStringLiteral("It replaces the check amira recorded at")),
             qPrintable(looked.message));
    QVERIFY2(auditEntries().last().detail.contains(QStringLiteral("replaces the check amira recorded")),
             qPrintable(auditEntries().last().detail));
    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(after.resolvedBy, QStringLiteral("bruno"));
    QVERIFY(*m_store->ledgerEntry(before.intentKey));
    const QList<Evidence> evidence = *m_store->evidence(id);
    QCOMPARE(evidence.size(), 2);
    QCOMPARE(evidenceKindId(evidence.first().kind), evidenceKindId(EvidenceKind::Attestation));
    QCOMPARE(evidenceKindId(evidence.last().kind), evidenceKindId(EvidenceKind::Lookup));
    verifyAuditChain(4); // attest, settle, lookup, settle
    QVERIFY(!(*m_store->ticket(before.ticketId))->row.needsAttention);

    // Verified now: a further lookup or check changes nothing.
    QCOMPARE(kindName(wait(m_resolver->lookUp(id)).kind),
             kindName(ResolutionReport::Kind::ResolvedElsewhere));
    QCOMPARE(kindName(m_resolver
                              ->attest(id,
                                       Attestation{Resolution::NotPerformed, QStringLiteral("x"),
                                                   QStringLiteral("y")})
                              .kind),
             kindName(ResolutionReport::Kind::ResolvedElsewhere));
    verifyAuditChain(4);
}

void TestEscalationResolver::lookUpSettlesByWhatTheProviderHolds_data()
{
    QTest::addColumn<QString>("ticket");
    QTest::addColumn<QString>("resolution");
    const QString performed = resolutionId(Resolution::Performed);
    const QString notPerformed = resolutionId(Resolution::NotPerformed);
    // The fixed tool's unknown refunds, in time order: the 1st, 3rd and 5th reached the provider.
    QTest::newRow("T-20260329-0264") << QStringLiteral("T-20260329-0264") << performed;
    QTest::newRow("T-20260331-0158") << QStringLiteral("T-20260331-0158") << notPerformed;
    QTest::newRow("T-20260401-0102") << QStringLiteral("T-20260401-0102") << performed;
    QTest::newRow("T-20260402-0287") << QStringLiteral("T-20260402-0287") << notPerformed;
    QTest::newRow("T-20260403-0236") << QStringLiteral("T-20260403-0236") << performed;
}

void TestEscalationResolver::lookUpSettlesByWhatTheProviderHolds()
{
    QFETCH(QString, ticket);
    QFETCH(QString, resolution);
    const qint64 id = openEscalationId(*m_store, ticket, c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    const qint64 refundsBefore = m_sandbox->refundCount(before.paymentIntent);

    const ResolutionReport report = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(report.resolution), resolution);
    const bool found = resolution == resolutionId(Resolution::Performed);
    const QList<Evidence> lookups = *m_store->evidence(id);
    QCOMPARE(lookups.size(), 1);
    QCOMPARE(lookupVerdictId(lookups.first().verdict),
             lookupVerdictId(found ? LookupVerdict::Found : LookupVerdict::NotFound));
    QCOMPARE(bool(*m_store->ledgerEntry(before.intentKey)), found);
    QCOMPARE(resolutionName((*m_store->escalation(id))->resolution), resolution);
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), refundsBefore);
    QVERIFY(!(**m_store->ticket(before.ticketId)).row.hasUnknown);
    QVERIFY(!report.customerDraft.isEmpty());
    QVERIFY2(report.customerDraft.contains(QStringLiteral("$")), qPrintable(report.customerDraft));
    verifyAuditChain(2);
}

void TestEscalationResolver::notPerformedMayBePerformedAgainOnce()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 0);

    const ResolutionReport looked = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(looked.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(looked.resolution), resolutionId(Resolution::NotPerformed));
    QVERIFY2(looked.customerDraft.contains(QStringLiteral("$74.50")), qPrintable(looked.customerDraft));
    QVERIFY2(looked.customerDraft.contains(QStringLiteral("has not been made yet")),
             qPrintable(looked.customerDraft));
    // Still owed: the next step is promised, but nothing is described as being made.
    QVERIFY2(looked.customerDraft.contains(QStringLiteral("We will make it")),
             qPrintable(looked.customerDraft));
    QVERIFY2(!looked.customerDraft.contains(QStringLiteral("issuing")), qPrintable(looked.customerDraft));
    QVERIFY2(!looked.customerDraft.contains(QStringLiteral("once this is settled")),
             qPrintable(looked.customerDraft));
    QVERIFY(looked.mayPerformAgain);
    QVERIFY(!*m_store->ledgerEntry(before.intentKey));

    const ResolutionReport performed = wait(m_resolver->performAgain(id));
    QCOMPARE(kindName(performed.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(performed.resolution), resolutionId(Resolution::PerformedAgain));
    QCOMPARE(performed.resolvedBy, QStringLiteral("amira"));

    // Exactly one refund, with the original intent key, in the ledger as a console write.
    SandboxHttp http(m_sandbox->url());
    const QJsonArray refunds = http.refundsOf(before.paymentIntent);
    QCOMPARE(refunds.size(), 1);
    const QJsonObject refund = refunds.at(0).toObject();
    QCOMPARE(refund.value(QStringLiteral("amount")).toInteger(), 7450);
    QCOMPARE(refund.value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("intent_key"))
                     .toString(),
             before.intentKey);
    const std::optional<LedgerEntry> ledger = *m_store->ledgerEntry(before.intentKey);
    QVERIFY(ledger);
    QCOMPARE(ledger->refundId, refund.value(QStringLiteral("id")).toString());
    QCOMPARE(ledger->source, QStringLiteral("console write"));
    // Dated when it was made, not when the agent asked for it: finance's payouts, and so
    // reconciliation, find it today, and not on 31 March.
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    QVERIFY(ledger->recordedAt >= nowMs - 60000);
    const auto payoutOf = [&](qint64 from, qint64 to) {
        const QList<LedgerPayout> payouts = *m_store->payouts(from, to);
        for (const LedgerPayout &payout : payouts) {
            if (payout.callId == before.callId)
                return std::optional<LedgerPayout>(payout);
        }
        return std::optional<LedgerPayout>();
    };
    QVERIFY(!payoutOf(before.calledAt - 86400000, before.calledAt + 86400000));
    const std::optional<LedgerPayout> today = payoutOf(nowMs - 86400000, nowMs + 86400000);
    QVERIFY(today);
    QCOMPARE(today->at, ledger->recordedAt);
    QCOMPARE(today->refundId, ledger->refundId);

    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(after.state, EscalationState::Resolved);
    QCOMPARE(resolutionName(after.resolution), resolutionId(Resolution::PerformedAgain));
    QVERIFY(!(**m_store->ticket(before.ticketId)).row.hasUnknown);

    // The repeat is audited before it is sent, and again with its answer and its settlement.
    const QList<AuditEntry> audit = auditEntries();
    QCOMPARE(audit.size(), 5);
    QCOMPARE(audit.at(0).action, QStringLiteral("lookup"));
    QCOMPARE(audit.at(1).action, QStringLiteral("settle"));
    QCOMPARE(audit.at(2).action, QStringLiteral("write-started"));
    QCOMPARE(audit.at(3).action, QStringLiteral("refund-sent"));
    QCOMPARE(audit.at(4).action, QStringLiteral("settle"));
    QCOMPARE(audit.at(3).escalationId, std::optional<qint64>(id));
    // What was about to be sent is kept before it goes, then the POST, its Idempotency-Key and
    // its answer, like a lookup.
    const QList<Evidence> evidence = *m_store->evidence(id);
    QCOMPARE(evidence.size(), 3);
    const Evidence &planned = evidence.at(1);
    QCOMPARE(evidenceKindId(planned.kind), evidenceKindId(EvidenceKind::Write));
    QCOMPARE(lookupVerdictId(planned.verdict), lookupVerdictId(LookupVerdict::CouldNotTell));
    QVERIFY2(planned.request.contains(QStringLiteral("Idempotency-Key: ") + before.intentKey),
             qPrintable(planned.request));
    QVERIFY2(planned.response.contains(QStringLiteral("no answer recorded yet")),
             qPrintable(planned.response));
    QCOMPARE(audit.at(2).evidenceSha256, planned.evidenceSha256);
    const Evidence &written = evidence.at(2);
    QCOMPARE(evidenceKindId(written.kind), evidenceKindId(EvidenceKind::Write));
    // The call is from 31 March, long past the 24 hours the provider keeps a key: the refund was
    // looked up again right before the POST, in the same action, and both are this evidence.
    QVERIFY2(written.request.startsWith(QStringLiteral("GET ")), qPrintable(written.request));
    QVERIFY2(written.reason.startsWith(QStringLiteral("the provider keeps idempotency keys for 24 hours")),
             qPrintable(written.reason));
    Evidence sent = written;
    sent.request = written.request.mid(written.request.indexOf(QStringLiteral("\n\nPOST ")) + 2);
    QVERIFY2(sent.request.startsWith(QStringLiteral("POST ")), qPrintable(written.request));
    QVERIFY2(sent.request.contains(QStringLiteral("Idempotency-Key: ") + before.intentKey),
             qPrintable(sent.request));
    QVERIFY2(written.response.contains(QStringLiteral("\n\nHTTP 200")), qPrintable(written.response));
    QCOMPARE(sent.recordId, refund.value(QStringLiteral("id")).toString());
    QCOMPARE(audit.at(3).evidenceSha256, written.evidenceSha256);
    // The planned form is the one that went out, byte for byte (the reason included).
    const auto bodyOf = [](const QString &request) {
        return request.mid(request.indexOf(QStringLiteral("\n\n")) + 2);
    };
    QVERIFY2(bodyOf(sent.request).contains(QStringLiteral("reason=requested_by_customer")),
             qPrintable(sent.request));
    QCOMPARE(bodyOf(planned.request), bodyOf(sent.request));
    verifyAuditChain(5);

    QVERIFY2(performed.customerDraft.contains(QStringLiteral("$74.50")), qPrintable(performed.customerDraft));

    // A second repeat is refused, and nothing is sent.
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    const ResolutionReport again = wait(m_resolver->performAgain(id));
    QCOMPARE(kindName(again.kind), kindName(ResolutionReport::Kind::NotPossible));
    QCOMPARE(served.count(), 0);
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 1);
    QCOMPARE(auditCount(), 5);
}

void TestEscalationResolver::aLateAnswerThatItTookEffectStopsTheRepeat()
{
    // A lookup found the refund absent (the provider had not indexed it yet); the tool's own
    // answer then came, saying it was made. Nothing may send it again.
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    QCOMPARE(resolutionName(wait(m_resolver->lookUp(id)).resolution), resolutionId(Resolution::NotPerformed));
    QVERIFY_OK(m_resolver->planRepeat(id));
    {
        RawSqlite raw(m_dbPath);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE tool_calls SET outcome = 'performed' WHERE id = (SELECT "
                                         "tool_call_id FROM escalations WHERE id = %1)")
                                  .arg(id)),
                 QString());
    }
    const Expected<RepeatPlan> plan = m_resolver->planRepeat(id);
    QVERIFY(!plan);
    QVERIFY2(plan.message().contains(QStringLiteral("it is not performed again")),
             qPrintable(plan.message()));
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    QCOMPARE(kindName(wait(m_resolver->performAgain(id)).kind),
             kindName(ResolutionReport::Kind::NotPossible));
    QCOMPARE(served.count(), 0);
}

void TestEscalationResolver::theKeyDecidesWhatARepeatAsks_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("refused"); // empty: planned
    QTest::addColumn<QString>("typeToConfirm");
    QTest::newRow("test key") << QStringLiteral("sk_test_sandbox") << QString() << QString();
    QTest::newRow("live key") << QStringLiteral("sk_live_sandbox") << QString() << QStringLiteral("$74.50");
    QTest::newRow("restricted key") << QStringLiteral("rk_live_sandbox")
                                    << QStringLiteral("the API key is a restricted key (rk_…)") << QString();
    QTest::newRow("no key") << QString() << QStringLiteral("there is no API key") << QString();
}

void TestEscalationResolver::theKeyDecidesWhatARepeatAsks()
{
    QFETCH(QString, key);
    QFETCH(QString, refused);
    QFETCH(QString, typeToConfirm);
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    QCOMPARE(resolutionName(wait(m_resolver->lookUp(id)).resolution), resolutionId(Resolution::NotPerformed));
    ProviderSettings settings = settingsFor(m_sandbox->url());
    settings.apiKey = key;
    ProviderClient client(settings);
    EscalationResolver resolver(*m_store, client, QStringLiteral("amira"));
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    const Expected<RepeatPlan> plan = resolver.planRepeat(id);
    QCOMPARE(served.count(), 0);
    // The key decides whether it can be sent from here, never whether it may be.
    QVERIFY_OK(plan);
    QVERIFY2(plan->keyRefusal.startsWith(refused), qPrintable(plan->keyRefusal));
    QCOMPARE(plan->keyRefusal.isEmpty(), refused.isEmpty());
    if (!refused.isEmpty()) {
        // performAgain keeps to the plan: nothing goes out, and the reason is said.
        const ResolutionReport report = wait(resolver.performAgain(id));
        QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::NotPossible));
        QVERIFY2(report.message.contains(refused), qPrintable(report.message));
        QCOMPARE(served.count(), 0);
        return;
    }
    QVERIFY2(plan->payment.startsWith(QStringLiteral("pi_SU-88648 (order SU-88648)")),
             qPrintable(plan->payment));
    QCOMPARE(plan->typeToConfirm, typeToConfirm);
    // The call was made on 31 March: long past the 24 hours the provider keeps a key.
    QVERIFY2(plan->keyExpiry.startsWith(QStringLiteral("the provider keeps idempotency keys for 24 hours")),
             qPrintable(plan->keyExpiry));
}

void TestEscalationResolver::connectedAccountsAreAskedOnTheSellersAccount()
{
    // Sellers as connected accounts: the lookup names the seller's account. The demo's
    // payments are the platform's, so the provider does not find this one there, and the
    // lookup cannot tell (never "not performed").
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    const EscalationDetail detail = **m_store->escalation(id);
    ProviderSettings settings = settingsFor(m_sandbox->url());
    settings.connectedAccounts = true;
    ProviderClient client(settings);
    EscalationResolver resolver(*m_store, client, QStringLiteral("amira"));
    QVERIFY2(resolver.route(detail).payment.endsWith(
                     QStringLiteral(" on the seller's account %1").arg(detail.sellerId)),
             qPrintable(resolver.route(detail).payment));
    const ResolutionReport report = wait(resolver.lookUp(id));
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::StillUnknown));
    QVERIFY(report.evidence);
    QVERIFY2(report.evidence->request.contains(QStringLiteral("Stripe-Account: %1").arg(detail.sellerId)),
             qPrintable(report.evidence->request));
    QCOMPARE((*m_store->escalation(id))->state, EscalationState::Open);
}

void TestEscalationResolver::performAgainNeedsALookupFirst()
{
    // Open, never looked up (and absent at the provider): no repeat without a lookup first.
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260402-0287"), c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    const ResolutionReport report = wait(m_resolver->performAgain(id));
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::NotPossible));
    QVERIFY2(report.message.contains(QStringLiteral("lookup")), qPrintable(report.message));
    QCOMPARE(served.count(), 0);
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 0);
    QCOMPARE(auditCount(), 0);
    QVERIFY(!*m_store->ledgerEntry(before.intentKey));
    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(after.state, EscalationState::Open);
    QVERIFY(!after.resolution);

    // Nor after a lookup that found the refund.
    const qint64 found = openEscalationId(*m_store, QStringLiteral("T-20260329-0264"), c3);
    QCOMPARE(resolutionName(wait(m_resolver->lookUp(found)).resolution), resolutionId(Resolution::Performed));
    const QString payment = (*m_store->escalation(found))->paymentIntent;
    const qint64 refunds = m_sandbox->refundCount(payment);
    const int servedBefore = int(served.count());
    QCOMPARE(kindName(wait(m_resolver->performAgain(found)).kind),
             kindName(ResolutionReport::Kind::NotPossible));
    QCOMPARE(int(served.count()), servedBefore);
    QCOMPARE(m_sandbox->refundCount(payment), refunds);
}

void TestEscalationResolver::draftAfterPerformAgainNamesTheDayOfTheRefund()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    QVERIFY(id > 0);
    QCOMPARE(resolutionName(wait(m_resolver->lookUp(id)).resolution), resolutionId(Resolution::NotPerformed));
    const ResolutionReport performed = wait(m_resolver->performAgain(id));
    QCOMPARE(resolutionName(performed.resolution), resolutionId(Resolution::PerformedAgain));
    // The refund was made now, by this console (the provider says so: created now), not on
    // 31 March when the agent's call timed out without reaching the provider.
    SandboxHttp http(m_sandbox->url());
    const QJsonArray refunds = http.refundsOf((*m_store->escalation(id))->paymentIntent);
    QCOMPARE(refunds.size(), 1);
    const QDate made = QDateTime::fromSecsSinceEpoch(
                               refunds.at(0).toObject().value(QStringLiteral("created")).toInteger(), Qt::UTC)
                               .date();
    QCOMPARE(made, QDateTime::currentDateTimeUtc().date());
    const QString day = dayAndMonth(made);
    QVERIFY2(performed.customerDraft.contains(day),
             qPrintable(QStringLiteral("expected the day the refund was made (%1) in:\n%2")
                                .arg(day, performed.customerDraft)));
    QVERIFY2(!performed.customerDraft.contains(QStringLiteral("31 March")),
             qPrintable(performed.customerDraft));
}

void TestEscalationResolver::performAgainRefusedStaysNotPerformed()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QCOMPARE(resolutionName(wait(m_resolver->lookUp(id)).resolution), resolutionId(Resolution::NotPerformed));

    // The provider refuses the repeat outright: nothing happened, and it may be tried again.
    std::unique_ptr<SandboxServer> refusing = frontWith(*m_sandbox, QStringLiteral("fail-before-accept=402"));
    ProviderClient client(settingsFor(refusing->url()));
    EscalationResolver resolver(*m_store, client, QStringLiteral("amira"));
    const ResolutionReport refused = wait(resolver.performAgain(id));
    QCOMPARE(resolutionName(refused.resolution), resolutionId(Resolution::NotPerformed));
    QVERIFY(refused.kind != ResolutionReport::Kind::Failed);
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 0);
    QVERIFY(!*m_store->ledgerEntry(before.intentKey));
    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(resolutionName(after.resolution), resolutionId(Resolution::NotPerformed));
    QVERIFY2(m_store->evidence(id)->last().reason.contains(QStringLiteral("refused")),
             qPrintable(m_store->evidence(id)->last().reason));
    QVERIFY2(refused.message.contains(QStringLiteral("refused")), qPrintable(refused.message));
    QCOMPARE(auditEntries().at(3).action, QStringLiteral("refund-sent"));
    QCOMPARE(auditEntries().last().action, QStringLiteral("settle"));
    verifyAuditChain(5);

    const ResolutionReport performed = wait(m_resolver->performAgain(id));
    QCOMPARE(kindName(performed.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(performed.resolution), resolutionId(Resolution::PerformedAgain));
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 1);
    verifyAuditChain(8);
}

void TestEscalationResolver::aRepeatWhoseAnswerCannotBeRecordedSaysItWasSent()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QCOMPARE(resolutionName(wait(m_resolver->lookUp(id)).resolution), resolutionId(Resolution::NotPerformed));

    // The refund goes out; while its answer is on the way the database stops taking writes
    // (another writer holds it here; a team's server gone away reads the same).
    RawSqlite other(m_dbPath, QStringLiteral("QSQLITE_BUSY_TIMEOUT=100"));
    QVERIFY(other.isOpen());
    bool locked = false;
    connect(&m_sandbox->server(), &SandboxServer::served, this, [&](const QString &line) {
        if (!locked && line.contains(QStringLiteral("/v1/refunds")))
            locked = other.exec(QStringLiteral("BEGIN EXCLUSIVE")).isEmpty();
    });
    const ResolutionReport report = wait(m_resolver->performAgain(id));
    QVERIFY(locked);
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 1);
    // Not "nothing was settled" alone: the operator is told the money went and what to do.
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::Failed));
    QVERIFY2(report.message.contains(QStringLiteral("was sent")), qPrintable(report.message));
    QVERIFY2(report.message.contains(QStringLiteral("Performed again")), qPrintable(report.message));
    QVERIFY2(report.message.contains(QStringLiteral("Do not send it again")), qPrintable(report.message));
    QVERIFY2(report.message.contains(QStringLiteral("Look up again")), qPrintable(report.message));
    QVERIFY(other.exec(QStringLiteral("ROLLBACK")).isEmpty());

    // The mark made before sending holds: unknown, no repeat, and a lookup settles it.
    const EscalationDetail marked = **m_store->escalation(id);
    QCOMPARE(marked.state, EscalationState::Open);
    QVERIFY(!marked.resolution);
    QCOMPARE(kindName(wait(m_resolver->performAgain(id)).kind),
             kindName(ResolutionReport::Kind::NotPossible));
    const ResolutionReport found = wait(m_resolver->lookUp(id));
    QCOMPARE(resolutionName(found.resolution), resolutionId(Resolution::PerformedAgain));
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 1);
    QVERIFY(*m_store->ledgerEntry(before.intentKey));
}

void TestEscalationResolver::performAgainComingBackUnknownReopens()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QCOMPARE(resolutionName(wait(m_resolver->lookUp(id)).resolution), resolutionId(Resolution::NotPerformed));

    // The provider commits the repeat, stalls its answer, and is gone before the lookup.
    std::unique_ptr<SandboxServer> stalling = frontWith(*m_sandbox, QStringLiteral("accept-then-stall=1s"));
    ProviderSettings settings = settingsFor(stalling->url());
    settings.timeoutMs = 300;
    ProviderClient client(settings);
    EscalationResolver resolver(*m_store, client, QStringLiteral("amira"));
    ResolutionOperation *operation = resolver.performAgain(id);
    connect(operation, &ResolutionOperation::progress, this, [&stalling](const QString &step) {
        if (stalling && step.contains(QStringLiteral("look"), Qt::CaseInsensitive))
            stalling.reset();
    });
    const ResolutionReport unknown = wait(operation);
    QVERIFY(!stalling);
    QCOMPARE(kindName(unknown.kind), kindName(ResolutionReport::Kind::StillUnknown));
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 1);
    QVERIFY(!*m_store->ledgerEntry(before.intentKey));

    // Back in the queue, unknown again: no repeat allowed until a lookup settles it.
    const EscalationDetail reopened = **m_store->escalation(id);
    QCOMPARE(reopened.state, EscalationState::Open);
    QVERIFY(!reopened.resolution);
    QVERIFY(!reopened.lastNote.isEmpty());
    QVERIFY((**m_store->ticket(before.ticketId)).row.hasUnknown);
    QCOMPARE(*m_store->countOpenEscalations(), 15);
    QCOMPARE(kindName(wait(m_resolver->performAgain(id)).kind),
             kindName(ResolutionReport::Kind::NotPossible));
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 1);

    // The lookup finds the refund the repeat made: performed again, dated when it was made
    // (today, not the agent's call in April), as if its answer had come.
    const qint64 lookedUpAt = QDateTime::currentMSecsSinceEpoch();
    const ResolutionReport found = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(found.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(found.resolution), resolutionId(Resolution::PerformedAgain));
    QVERIFY2(found.message.contains(QStringLiteral("made by the repeat sent at")), qPrintable(found.message));
    const std::optional<LedgerEntry> ledger = *m_store->ledgerEntry(before.intentKey);
    QVERIFY(ledger);
    QVERIFY2(ledger->recordedAt > lookedUpAt - 10 * 60 * 1000,
             qPrintable(QDateTime::fromMSecsSinceEpoch(ledger->recordedAt, Qt::UTC).toString(Qt::ISODate)));
    QCOMPARE(ledger->source, QStringLiteral("console write"));
    const QString today = QDateTime::currentDateTimeUtc().date().toString(QStringLiteral("d MMMM"));
    QVERIFY2(found.customerDraft.contains(today), qPrintable(found.customerDraft));
    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 1);
    verifyAuditChain(6); // lookup, settle, write-started, refund-sent, lookup, settle
}

void TestEscalationResolver::twoConsolesPerformAgainInFlightRefundOnce()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QCOMPARE(resolutionName(wait(m_resolver->lookUp(id)).resolution), resolutionId(Resolution::NotPerformed));
    std::unique_ptr<Store> secondStore = openTestStore(m_dbPath);
    QVERIFY(secondStore);
    ProviderClient secondClient(settingsFor(m_sandbox->url()));
    EscalationResolver second(*secondStore, secondClient, QStringLiteral("bruno"));

    std::optional<ResolutionReport> first;
    std::optional<ResolutionReport> other;
    ResolutionOperation *a = m_resolver->performAgain(id);
    ResolutionOperation *b = second.performAgain(id);
    connect(a, &ResolutionOperation::finished, this, [&](const ResolutionReport &report) { first = report; });
    connect(b, &ResolutionOperation::finished, this, [&](const ResolutionReport &report) { other = report; });
    QVERIFY(QTest::qWaitFor([&] { return first && other; }, 20000));
    a->deleteLater();
    b->deleteLater();

    QCOMPARE(m_sandbox->refundCount(before.paymentIntent), 1);
    const QList<ResolutionReport::Kind> kinds{first->kind, other->kind};
    // The first console marks the write in flight before sending, so the second is refused
    // before it sends anything (or, had it raced past that, told who settled it).
    QVERIFY2(kinds.count(ResolutionReport::Kind::Resolved) == 1
                     && (kinds.count(ResolutionReport::Kind::ResolvedElsewhere) == 1
                         || kinds.count(ResolutionReport::Kind::NotPossible) == 1),
             qPrintable(kindName(first->kind) + QStringLiteral(" / ") + kindName(other->kind)
                        + QStringLiteral(": ") + first->message + QStringLiteral(" / ") + other->message));
    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(resolutionName(after.resolution), resolutionId(Resolution::PerformedAgain));
    const std::optional<LedgerEntry> ledger = *m_store->ledgerEntry(before.intentKey);
    QVERIFY(ledger);
    SandboxHttp http(m_sandbox->url());
    QCOMPARE(ledger->refundId,
             http.refundsOf(before.paymentIntent).at(0).toObject().value(QStringLiteral("id")).toString());
    verifyAuditChain(5); // lookup, settle, write-started, refund-sent, settle
}

void TestEscalationResolver::secondConsoleIsToldWhoResolved()
{
    const qint64 id = openEscalationId(*m_store, incidentTicket, c3);
    QVERIFY(id > 0);
    std::unique_ptr<Store> secondStore = openTestStore(m_dbPath);
    QVERIFY(secondStore);
    ProviderClient secondClient(settingsFor(m_sandbox->url()));
    EscalationResolver second(*secondStore, secondClient, QStringLiteral("bruno"));

    QCOMPARE(kindName(wait(m_resolver->lookUp(id)).kind), kindName(ResolutionReport::Kind::Resolved));
    const ResolutionReport late = wait(second.lookUp(id));
    QCOMPARE(kindName(late.kind), kindName(ResolutionReport::Kind::ResolvedElsewhere));
    QCOMPARE(late.resolvedBy, QStringLiteral("amira"));
    QCOMPARE(resolutionName(late.resolution), resolutionId(Resolution::Performed));
    QVERIFY2(late.message.contains(QStringLiteral("amira")), qPrintable(late.message));

    const EscalationDetail after = **secondStore->escalation(id);
    QCOMPARE(after.resolvedBy, QStringLiteral("amira"));
    QCOMPARE(*secondStore->countOpenEscalations(), 14);
    verifyAuditChain(2);
}

void TestEscalationResolver::twoConsolesInFlightSettleOnce_data()
{
    QTest::addColumn<QString>("ticket");
    QTest::addColumn<QString>("resolution");
    QTest::newRow("found") << incidentTicket << resolutionId(Resolution::Performed);
    QTest::newRow("not found") << QStringLiteral("T-20260331-0158") << resolutionId(Resolution::NotPerformed);
}

void TestEscalationResolver::twoConsolesInFlightSettleOnce()
{
    QFETCH(QString, ticket);
    QFETCH(QString, resolution);
    const qint64 id = openEscalationId(*m_store, ticket, c3);
    QVERIFY(id > 0);
    std::unique_ptr<Store> secondStore = openTestStore(m_dbPath);
    QVERIFY(secondStore);
    ProviderClient secondClient(settingsFor(m_sandbox->url()));
    EscalationResolver second(*secondStore, secondClient, QStringLiteral("bruno"));

    // Both look up before either has settled it.
    std::optional<ResolutionReport> first;
    std::optional<ResolutionReport> other;
    ResolutionOperation *a = m_resolver->lookUp(id);
    ResolutionOperation *b = second.lookUp(id);
    connect(a, &ResolutionOperation::finished, this, [&](const ResolutionReport &report) { first = report; });
    connect(b, &ResolutionOperation::finished, this, [&](const ResolutionReport &report) { other = report; });
    QVERIFY(QTest::qWaitFor([&] { return first && other; }, 20000));
    a->deleteLater();
    b->deleteLater();

    const QList<ResolutionReport::Kind> kinds{first->kind, other->kind};
    QCOMPARE(kinds.count(ResolutionReport::Kind::Resolved), 1);
    QCOMPARE(kinds.count(ResolutionReport::Kind::ResolvedElsewhere), 1);
    const ResolutionReport &winner = first->kind == ResolutionReport::Kind::Resolved ? *first : *other;
    const ResolutionReport &loser = first->kind == ResolutionReport::Kind::Resolved ? *other : *first;
    QCOMPARE(resolutionName(winner.resolution), resolution);
    QCOMPARE(loser.resolvedBy, winner.resolvedBy);
    QCOMPARE(resolutionName(loser.resolution), resolution);
    QVERIFY2(loser.message.contains(winner.resolvedBy), qPrintable(loser.message));

    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(after.resolvedBy, winner.resolvedBy);
    // Both lookups are kept as evidence; one resolution; the chain holds.
    QCOMPARE(m_store->evidence(id)->size(), 2);
    const QList<AuditEntry> audit = auditEntries();
    QStringList actions;
    for (const AuditEntry &entry : audit)
        actions << entry.action;
    QCOMPARE(actions.count(QStringLiteral("lookup")), 2);
    QCOMPARE(actions.count(QStringLiteral("settle")), 1);
    verifyAuditChain(3);
    QCOMPARE(*m_store->countOpenEscalations(), 14);
}

void TestEscalationResolver::pickupsAndMessagesAreLookedUpWhereTheyWent()
{
    m_resolver->setRegistries(automaticRegistries(QString()));
    SandboxHttp http(m_sandbox->url());
    const auto recordsOf = [&http](const QString &path, const QString &order) {
        const HttpResult list = http.get(QStringLiteral("%1?order=%2&limit=100").arg(path, order));
        return list.status == 200 ? list.json.value(QStringLiteral("data")).toArray() : QJsonArray();
    };

    // A pickup the courier has: found, settled by its id, with the GET kept as evidence.
    const qint64 booked = openEscalationId(*m_store, QStringLiteral("T-20260401-0247"), c3);
    QVERIFY(booked > 0);
    const EscalationDetail bookedDetail = **m_store->escalation(booked);
    QCOMPARE(m_resolver->route(bookedDetail).system, QStringLiteral("the courier"));
    const ResolutionReport found = wait(m_resolver->lookUp(booked));
    QCOMPARE(kindName(found.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(found.resolution), resolutionId(Resolution::Performed));
    QVERIFY2(found.reference.startsWith(QStringLiteral("pu_")), qPrintable(found.reference));
    QVERIFY2(found.message.contains(QStringLiteral("found pickup ")), qPrintable(found.message));
    const Evidence lookup = m_store->evidence(booked)->first();
    QVERIFY2(lookup.request.contains(QStringLiteral("/v1/pickups?order=%1").arg(bookedDetail.orderId)),
             qPrintable(lookup.request));
    QVERIFY(!*m_store->ledgerEntryOfCall(bookedDetail.callId)); // no money moved: no ledger row
    // The customer hears when the courier collects, from the courier's record, not its id.
    const QString bookedWindow = recordsOf(QStringLiteral("/v1/pickups"), bookedDetail.orderId)
                                         .at(0)
                                         .toObject()
                                         .value(QStringLiteral("window"))
                                         .toString();
    QVERIFY(!bookedWindow.isEmpty());
    QVERIFY2(found.customerDraft.contains(QStringLiteral("is booked for %1.").arg(bookedWindow)),
             qPrintable(found.customerDraft));
    QVERIFY2(!found.customerDraft.contains(found.reference), qPrintable(found.customerDraft));

    // A pickup that never reached the courier: not performed, then booked once with the same key.
    const qint64 missing = openEscalationId(*m_store, QStringLiteral("T-20260402-0502"), c3);
    const EscalationDetail missingDetail = **m_store->escalation(missing);
    QCOMPARE(recordsOf(QStringLiteral("/v1/pickups"), missingDetail.orderId).size(), 0);
    const ResolutionReport absent = wait(m_resolver->lookUp(missing));
    QCOMPARE(resolutionName(absent.resolution), resolutionId(Resolution::NotPerformed));
    QVERIFY(absent.mayPerformAgain);
    QVERIFY2(absent.customerDraft.contains(QStringLiteral("has not been booked yet. We will book it")),
             qPrintable(absent.customerDraft));
    const Expected<RepeatPlan> plan = m_resolver->planRepeat(missing);
    QVERIFY(plan);
    QCOMPARE(plan->system, QStringLiteral("the courier"));
    QVERIFY2(plan->endpoint.path().endsWith(QStringLiteral("/v1/pickups")),
             qPrintable(plan->endpoint.toString()));
    const ResolutionReport booking = wait(m_resolver->performAgain(missing));
    QCOMPARE(kindName(booking.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(booking.resolution), resolutionId(Resolution::PerformedAgain));
    const QJsonArray pickups = recordsOf(QStringLiteral("/v1/pickups"), missingDetail.orderId);
    QCOMPARE(pickups.size(), 1);
    const QJsonObject pickup = pickups.at(0).toObject();
    QCOMPARE(pickup.value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("intent_key"))
                     .toString(),
             missingDetail.intentKey);
    QCOMPARE(pickup.value(QStringLiteral("id")).toString(), booking.reference);
    QVERIFY2(booking.customerDraft.contains(QStringLiteral("is booked for %1.")
                                                    .arg(pickup.value(QStringLiteral("window")).toString())),
             qPrintable(booking.customerDraft));
    const Evidence written = m_store->evidence(missing)->last();
    QCOMPARE(evidenceKindId(written.kind), evidenceKindId(EvidenceKind::Write));
    // The call is from April, past the 24 hours a key is kept: the courier was asked again right
    // before the POST, in the same action, and both are this evidence.
    QVERIFY2(written.request.startsWith(QStringLiteral("GET ")), qPrintable(written.request));
    const QString sent = written.request.mid(written.request.indexOf(QStringLiteral("\n\nPOST ")) + 2);
    QVERIFY2(sent.startsWith(QStringLiteral("POST ")), qPrintable(written.request));
    QVERIFY2(sent.contains(QStringLiteral("Idempotency-Key: ") + missingDetail.intentKey), qPrintable(sent));
    const QList<Evidence> pickupEvidence = *m_store->evidence(missing);
    const Evidence &plannedPickup = pickupEvidence.at(pickupEvidence.size() - 2);
    QCOMPARE(plannedPickup.request.mid(plannedPickup.request.indexOf(QStringLiteral("\n\n"))),
             sent.mid(sent.indexOf(QStringLiteral("\n\n"))));
    QCOMPARE(auditEntries().at(auditEntries().size() - 2).action, QStringLiteral("write-sent"));
    // Once is all: a second repeat sends nothing.
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    QCOMPARE(kindName(wait(m_resolver->performAgain(missing)).kind),
             kindName(ResolutionReport::Kind::NotPossible));
    QCOMPARE(served.count(), 0);

    // A message that never reached the seller: the same, at the messaging service.
    const qint64 message =
            openEscalationId(*m_store, QStringLiteral("T-20260330-0362"), QStringLiteral("c2"));
    const EscalationDetail messageDetail = **m_store->escalation(message);
    const ResolutionReport unsent = wait(m_resolver->lookUp(message));
    QCOMPARE(resolutionName(unsent.resolution), resolutionId(Resolution::NotPerformed));
    QVERIFY2(unsent.customerDraft.contains(QStringLiteral("has not been sent yet. We will send it")),
             qPrintable(unsent.customerDraft));
    const ResolutionReport sentMessage = wait(m_resolver->performAgain(message));
    QCOMPARE(resolutionName(sentMessage.resolution), resolutionId(Resolution::PerformedAgain));
    for (const QString &unsaid : {sentMessage.reference, QStringLiteral("messaging service")})
        QVERIFY2(!sentMessage.customerDraft.contains(unsaid), qPrintable(sentMessage.customerDraft));
    const QJsonArray messages = recordsOf(QStringLiteral("/v1/messages"), messageDetail.orderId);
    QCOMPARE(messages.size(), 1);
    QVERIFY2(messages.at(0)
                     .toObject()
                     .value(QStringLiteral("text"))
                     .toString()
                     .contains(QStringLiteral("SU-88585")),
             QJsonDocument(messages.at(0).toObject()).toJson().constData());
    verifyAuditChain(auditCount());
}

void TestEscalationResolver::nonRefundCannotBeLookedUp_data()
{
    QTest::addColumn<QString>("ticket");
    QTest::addColumn<QString>("call");
    QTest::addColumn<QString>("tool");
    QTest::newRow("message_seller") << QStringLiteral("T-20260330-0362") << QStringLiteral("c2")
                                    << QStringLiteral("message_seller");
    QTest::newRow("schedule_pickup") << QStringLiteral("T-20260401-0247") << QStringLiteral("c3")
                                     << QStringLiteral("schedule_pickup");
}

void TestEscalationResolver::nonRefundCannotBeLookedUp()
{
    QFETCH(QString, ticket);
    QFETCH(QString, call);
    QFETCH(QString, tool);
    const qint64 id = openEscalationId(*m_store, ticket, call);
    QVERIFY(id > 0);
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);

    const ResolutionReport report = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::NotPossible));
    QVERIFY2(report.message.contains(tool), qPrintable(report.message));
    QVERIFY(!report.resolution);

    const ResolutionReport again = wait(m_resolver->performAgain(id));
    QCOMPARE(kindName(again.kind), kindName(ResolutionReport::Kind::NotPossible));

    QCOMPARE(served.count(), 0);
    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(after.state, EscalationState::Open);
    QVERIFY(!after.resolution);
    QVERIFY(after.lastNote.isEmpty());
    QVERIFY(m_store->evidence(id)->isEmpty());
    QCOMPARE(auditCount(), 0);
    QCOMPARE(*m_store->countOpenEscalations(), 15);
}

void TestEscalationResolver::providerDownLeavesTheEscalationOpen()
{
    const qint64 id = openEscalationId(*m_store, incidentTicket, c3);
    QVERIFY(id > 0);
    ProviderClient down(settingsFor(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(deadPort()))));
    EscalationResolver resolver(*m_store, down, QStringLiteral("amira"));

    const ResolutionReport report = wait(resolver.lookUp(id));
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::StillUnknown));
    QVERIFY(!report.resolution);
    QVERIFY2(report.message.contains(QStringLiteral("connection refused"), Qt::CaseInsensitive),
             qPrintable(report.message));

    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(after.state, EscalationState::Open);
    QVERIFY(!after.resolution);
    QVERIFY2(after.lastNote.contains(QStringLiteral("connection refused"), Qt::CaseInsensitive),
             qPrintable(after.lastNote));
    QVERIFY(report.evidence);
    QCOMPARE(after.lastNote, report.evidence->reason);

    const QList<Evidence> lookups = *m_store->evidence(id);
    QCOMPARE(lookups.size(), 1);
    QCOMPARE(lookupVerdictId(lookups.first().verdict), lookupVerdictId(LookupVerdict::CouldNotTell));
    const QList<AuditEntry> audit = auditEntries();
    QCOMPARE(audit.size(), 1);
    QCOMPARE(audit.first().action, QStringLiteral("lookup"));
    QCOMPARE(audit.first().evidenceSha256, lookups.first().evidenceSha256);
    verifyAuditChain(1);

    QVERIFY(!*m_store->ledgerEntry(after.intentKey));
    QVERIFY((**m_store->ticket(after.ticketId)).row.hasUnknown);
    QCOMPARE(*m_store->countOpenEscalations(), 15);

    // The reason stays until a lookup that can tell settles it.
    const ResolutionReport later = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(later.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(later.resolution), resolutionId(Resolution::Performed));
    verifyAuditChain(3);
}

// Data that names no payment is never looked up under a guessed id: the lookup says what is
// missing, asks nothing, and runs once a person enters the payment found at the provider.
void TestEscalationResolver::refundWithoutAPaymentWaitsForOne()
{
    const qint64 id = openEscalationId(*m_store, incidentTicket, c3);
    QVERIFY(id > 0);
    {
        RawSqlite raw(m_dbPath);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE orders SET payment_intent = NULL WHERE id = 'SU-88421'")),
                 QString());
    }
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    const EscalationDetail before = **m_store->escalation(id);
    QVERIFY(before.paymentIntent.isEmpty());
    const EscalationRoute route = m_resolver->route(before);
    QVERIFY(!route.canLookUp);
    QVERIFY(route.needsPayment);
    QVERIFY(!route.system.isEmpty()); // the card still offers the way to the provider

    const ResolutionReport report = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::NotPossible));
    QVERIFY2(report.message.contains(QStringLiteral("no payment reference known for order SU-88421")),
             qPrintable(report.message));
    QCOMPARE(served.count(), 0);
    QVERIFY(m_store->evidence(id)->isEmpty());
    QCOMPARE(auditCount(), 0);

    // What is not a payment is refused, and nothing is kept.
    for (const QString &wrong :
         {QStringLiteral("re_qC5HTJz9NXdvjue0N7DDR7I5"), QStringLiteral("SU-88421"), QStringLiteral("")}) {
        const Expected<PaymentReference> refused = m_resolver->enterPayment(id, wrong);
        QVERIFY(!refused);
        QCOMPARE(refused.code(), std::error_code(InputErrc::Invalid));
        QVERIFY2(refused.message().startsWith(QStringLiteral("payment: expected")),
                 qPrintable(refused.message()));
    }
    QCOMPARE(auditCount(), 0);
    QVERIFY((**m_store->escalation(id)).enteredPayment.isEmpty());

    const Expected<PaymentReference> entered = m_resolver->enterPayment(id, QStringLiteral(" pi_SU-88421 "));
    QVERIFY_OK(entered);
    QCOMPARE(entered->id, QStringLiteral("pi_SU-88421"));
    const EscalationDetail named = **m_store->escalation(id);
    QCOMPARE(named.enteredPayment, QStringLiteral("pi_SU-88421"));
    QCOMPARE(named.enteredPaymentBy, QStringLiteral("amira"));
    QCOMPARE(m_resolver->route(named).payment, QStringLiteral("pi_SU-88421 (entered by amira)"));
    const QList<AuditEntry> audit = auditEntries();
    QCOMPARE(audit.size(), 1);
    QCOMPARE(audit.first().action, QStringLiteral("payment-entered"));
    QCOMPARE(audit.first().operatorName, QStringLiteral("amira"));
    QVERIFY2(audit.first().detail.contains(QStringLiteral("pi_SU-88421")), qPrintable(audit.first().detail));

    const ResolutionReport found = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(found.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(found.resolution), resolutionId(Resolution::Performed));
    QVERIFY(found.evidence);
    QVERIFY2(found.evidence->request.contains(QStringLiteral("payment_intent=pi_SU-88421")),
             qPrintable(found.evidence->request));
    // The API version is pinned, and the provider says which one it answered in.
    QVERIFY2(found.evidence->request.contains(QStringLiteral("\nStripe-Version: 2026-07-29.dahlia\n")),
             qPrintable(found.evidence->request));
    QVERIFY2(found.evidence->response.contains(QStringLiteral("Stripe-Version: 2026-07-29.dahlia")),
             qPrintable(found.evidence->response));
    verifyAuditChain(3);

    // Settled: its payment is no longer asked for.
    QVERIFY(!m_resolver->enterPayment(id, QStringLiteral("pi_other")));
}

// A payment a person entered can prove a refund absent only once the provider says it paid for
// this order: another order's payment (a typo, the wrong dashboard row) proves nothing, and a
// repeat is never offered on it. The data's own payment is never overridden by hand.
void TestEscalationResolver::anEnteredPaymentMustBeTheOrders()
{
    // T-20260331-0158 c3 (order SU-88648) never reached the provider.
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260331-0158"), c3);
    const Expected<PaymentReference> overridden = m_resolver->enterPayment(id, QStringLiteral("pi_SU-88421"));
    QVERIFY(!overridden);
    QVERIFY2(overridden.message().startsWith(QStringLiteral("the data already names this refund's payment, "
                                                            "pi_SU-88648 (order SU-88648)")),
             qPrintable(overridden.message()));
    {
        RawSqlite raw(m_dbPath);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE orders SET payment_intent = NULL WHERE id = 'SU-88648'")),
                 QString());
    }
    QVERIFY_OK(m_resolver->enterPayment(id, QStringLiteral("pi_SU-88421"))); // another order's payment
    const ResolutionReport wrong = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(wrong.kind), kindName(ResolutionReport::Kind::StillUnknown));
    QVERIFY2(wrong.message.contains(
                     QStringLiteral("pi_SU-88421 is the payment of order SU-88421, not of order "
                                    "SU-88648")),
             qPrintable(wrong.message));
    QVERIFY(!wrong.mayPerformAgain);
    QVERIFY(!m_resolver->planRepeat(id));
    QVERIFY(wrong.evidence);
    QVERIFY(wrong.evidence->request.contains(QStringLiteral("/v1/payment_intents/pi_SU-88421")));

    // A charge entered by hand cannot be tied to the order here: not evidence either.
    QVERIFY_OK(m_resolver->enterPayment(id, QStringLiteral("ch_SU-88648")));
    const ResolutionReport charge = wait(m_resolver->lookUp(id));
    QCOMPARE(kindName(charge.kind), kindName(ResolutionReport::Kind::StillUnknown));
    QVERIFY2(charge.message.contains(QStringLiteral("enter the order's payment intent")),
             qPrintable(charge.message));

    // The order's own payment, entered: the provider confirms it, and "not performed" stands.
    QVERIFY_OK(m_resolver->enterPayment(id, QStringLiteral("pi_SU-88648")));
    const ResolutionReport right = wait(m_resolver->lookUp(id));
    QCOMPARE(resolutionName(right.resolution), resolutionId(Resolution::NotPerformed));
    QVERIFY2(right.evidence
                     && right.evidence->reason.contains(QStringLiteral("the provider confirms pi_SU-88648 "
                                                                       "paid for order SU-88648")),
             qPrintable(right.evidence ? right.evidence->reason : right.message));
    QVERIFY(right.mayPerformAgain);
}

VerityRun TestEscalationResolver::runVerity(const QStringList &arguments)
{
    QProcessEnvironment environment = isolatedEnvironment(m_folder->path());
    environment.insert(QStringLiteral("VERITY_PROVIDER_API_KEY"), sandboxApiKey);
    return verity::test::runVerity(arguments, environment, 60000);
}

void TestEscalationResolver::lookupCommandSettlesWhatItCan()
{
    // The console's database is not open while the command runs.
    m_resolver.reset();
    m_store.reset();

    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), m_folder->filePath(QStringLiteral("config")));
    environment.insert(QStringLiteral("XDG_DATA_HOME"), m_folder->filePath(QStringLiteral("data")));
    SandboxProcess sandbox({QStringLiteral("--seed-demo"), QStringLiteral("--state"),
                            m_folder->filePath(QStringLiteral("provider.sqlite"))},
                           environment);
    const QUrl url = sandbox.waitForUrl();
    QVERIFY(url.isValid());
    QCOMPARE(url.host(), QStringLiteral("127.0.0.1"));
    SandboxHttp http(url);
    auto allRefunds = [&http]() -> qint64 {
        const HttpResult list = http.get(QStringLiteral("/v1/refunds?limit=100"));
        if (list.status != 200 || list.json.value(QStringLiteral("has_more")).toBool())
            return -1;
        return list.json.value(QStringLiteral("data")).toArray().size();
    };
    const qint64 refundsBefore = allRefunds();
    QVERIFY(refundsBefore > 0);

    const QStringList arguments{QStringLiteral("lookup"),
                                QStringLiteral("--db"),
                                m_dbPath,
                                QStringLiteral("--provider"),
                                url.toString(),
                                QStringLiteral("--all-open"),
                                QStringLiteral("--operator"),
                                QStringLiteral("nightly-job")};
    const VerityRun first = runVerity(arguments);
    QVERIFY2(first.exitCode == 0,
             qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(first.exitCode).arg(first.out, first.err)));

    // Every escalation is settled: refunds at the payment provider, pickups at the courier and
    // messages at the messaging service, each where the registry says it is looked up.
    m_store = openTestStore(m_dbPath);
    QVERIFY(m_store);
    QCOMPARE(*m_store->countOpenEscalations(), 0);

    // The table: a header, one row per escalation, then what remains.
    const QStringList lines = first.out.split(u'\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.size() == 1 + 15 + 1, qPrintable(first.out));
    QVERIFY(lines.first().startsWith(QStringLiteral("escalation")));
    QCOMPARE(lines.last(), QStringLiteral("No unknown outcomes remain."));
    auto rowOf = [&lines](const QString &ticket, const QString &tool) {
        for (const QString &line : lines) {
            if (line.contains(ticket) && line.contains(tool))
                return line;
        }
        return QString();
    };
    QVERIFY2(rowOf(incidentTicket, QStringLiteral("issue_refund"))
                     .contains(QStringLiteral("Performed (verified)")),
             qPrintable(first.out));
    QVERIFY2(rowOf(incidentTicket, QStringLiteral("issue_refund")).contains(QStringLiteral("$118.00")),
             qPrintable(first.out));
    QVERIFY2(rowOf(QStringLiteral("T-20260331-0158"), QStringLiteral("issue_refund"))
                     .contains(QStringLiteral("Not performed (verified)")),
             qPrintable(first.out));
    QVERIFY2(rowOf(QStringLiteral("T-20260403-0236"), QStringLiteral("issue_refund"))
                     .contains(QStringLiteral("Performed (verified)")),
             qPrintable(first.out));
    QVERIFY2(rowOf(QStringLiteral("T-20260401-0247"), QStringLiteral("schedule_pickup"))
                     .contains(QStringLiteral("found pickup pu_")),
             qPrintable(first.out));
    QVERIFY2(rowOf(QStringLiteral("T-20260330-0362"), QStringLiteral("message_seller"))
                     .contains(QStringLiteral("Not performed (verified)")),
             qPrintable(first.out));
    QCOMPARE(first.out.count(QStringLiteral("(verified)")), 15);

    const QList<AuditEntry> audit = auditEntries();
    QCOMPARE(audit.size(), 2 * 15);
    for (const AuditEntry &entry : audit)
        QCOMPARE(entry.operatorName, QStringLiteral("nightly-job"));
    verifyAuditChain(2 * 15);
    QCOMPARE(allRefunds(), refundsBefore);
    m_store.reset();

    // Again, as JSON: nothing left to look up, and no refund made.
    const VerityRun second = runVerity(arguments + QStringList{QStringLiteral("--json")});
    QVERIFY2(second.exitCode == 0,
             qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(second.exitCode).arg(second.out, second.err)));
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(second.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError && document.isObject(), qPrintable(second.out));
    const QJsonObject json = document.object();
    QCOMPARE(json.value(QStringLiteral("open_escalations")).toInteger(), 0);
    QVERIFY(json.value(QStringLiteral("results")).toArray().isEmpty());
    QCOMPARE(allRefunds(), refundsBefore);

    m_store = openTestStore(m_dbPath);
    QVERIFY(m_store);
    verifyAuditChain(2 * 15);
}

// A seller message a person found not performed is still owed: the ticket needs a look, and
// performing it again asks the messaging service first, with the same key; it had no record of
// it, so the message is sent once, with that key.
void TestEscalationResolver::aCheckFoundAbsentIsLookedUpBeforeItIsSentAgain()
{
    m_resolver->setRegistries(automaticRegistries(QString()));
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260330-0362"), QStringLiteral("c2"));
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QCOMPARE(before.tool, QStringLiteral("message_seller"));
    const ResolutionReport attested =
            m_resolver->attest(id,
                               Attestation{Resolution::NotPerformed, QStringLiteral("seller inbox"),
                                           QStringLiteral("The seller says no message came")});
    QCOMPARE(settlementText(*attested.resolution, attested.basis),
             QStringLiteral("not performed (attested)"));
    const TicketRow owed = (**m_store->ticket(before.ticketId)).row;
    QVERIFY(owed.needsAttention);
    QCOMPARE(ticketStateLabel(owed.state), QStringLiteral("Needs a look"));

    // Allowed, but only after the system is asked: the plan says so.
    const Expected<RepeatPlan> plan = m_resolver->planRepeat(id);
    QVERIFY_OK(plan);
    QVERIFY(plan->lookupFirst);
    QCOMPARE(plan->system, QStringLiteral("the seller-messaging service"));

    QStringList requests;
    connect(&m_sandbox->server(), &SandboxServer::served, this,
            [&requests](const QString &line) { requests << line.section(u' ', 0, 1); });
    const ResolutionReport sent = wait(m_resolver->performAgain(id));
    QCOMPARE(kindName(sent.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(resolutionName(sent.resolution), resolutionId(Resolution::PerformedAgain));
    QVERIFY2(sent.message.startsWith(
                     QStringLiteral("Looked up first: the seller-messaging service had no record")),
             qPrintable(sent.message));
    // The lookup went first, and exactly one POST followed it.
    QVERIFY2(!requests.isEmpty() && requests.first().startsWith(QStringLiteral("GET /v1/messages")),
             qPrintable(requests.join(u'\n')));
    QCOMPARE(requests.filter(QStringLiteral("POST ")).size(), 1);
    SandboxHttp http(m_sandbox->url());
    const QJsonArray messages =
            http.get(QStringLiteral("/v1/messages?order=%1&limit=100").arg(before.orderId))
                    .json.value(QStringLiteral("data"))
                    .toArray();
    QCOMPARE(messages.size(), 1);
    QCOMPARE(messages.at(0)
                     .toObject()
                     .value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("intent_key"))
                     .toString(),
             before.intentKey);

    // The check, the lookup that replaced it, the write planned and the write: all evidence.
    const QList<Evidence> evidence = *m_store->evidence(id);
    QCOMPARE(evidence.size(), 4);
    QCOMPARE(evidenceKindId(evidence.at(0).kind), evidenceKindId(EvidenceKind::Attestation));
    QCOMPARE(evidenceKindId(evidence.at(1).kind), evidenceKindId(EvidenceKind::Lookup));
    QCOMPARE(lookupVerdictId(evidence.at(1).verdict), lookupVerdictId(LookupVerdict::NotFound));
    QVERIFY2(evidence.at(3).request.contains(QStringLiteral("Idempotency-Key: ") + before.intentKey),
             qPrintable(evidence.at(3).request));
    QStringList actions;
    for (const AuditEntry &entry : auditEntries())
        actions << entry.action;
    QCOMPARE(actions,
             (QStringList{QStringLiteral("attest"), QStringLiteral("settle"), QStringLiteral("lookup"),
                          QStringLiteral("settle"), QStringLiteral("write-started"),
                          QStringLiteral("write-sent"), QStringLiteral("settle")}));
    verifyAuditChain(7);
    QVERIFY(!(**m_store->ticket(before.ticketId)).row.needsAttention);
    // Once is all.
    QCOMPARE(kindName(wait(m_resolver->performAgain(id)).kind),
             kindName(ResolutionReport::Kind::NotPossible));
}

void TestEscalationResolver::aCheckFoundAbsentThatWasMadeIsSettledNotSent_data()
{
    QTest::addColumn<QString>("ticket");
    // The courier has this pickup, and the provider this refund, whatever the person found.
    QTest::newRow("pickup") << QStringLiteral("T-20260401-0247");
    QTest::newRow("refund") << QStringLiteral("T-20260329-0264");
}

// A person found the write absent, but the system has it: performing it again asks first,
// settles it as performed (verified) in place of the check, and sends nothing.
void TestEscalationResolver::aCheckFoundAbsentThatWasMadeIsSettledNotSent()
{
    QFETCH(QString, ticket);
    m_resolver->setRegistries(automaticRegistries(QString()));
    const qint64 id = openEscalationId(*m_store, ticket, c3);
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QCOMPARE(kindName(m_resolver
                              ->attest(id,
                                       Attestation{Resolution::NotPerformed, QStringLiteral("portal"),
                                                   QStringLiteral("nothing there when I looked")})
                              .kind),
             kindName(ResolutionReport::Kind::Resolved));
    QVERIFY((**m_store->ticket(before.ticketId)).row.needsAttention);
    const Expected<RepeatPlan> plan = m_resolver->planRepeat(id);
    QVERIFY_OK(plan);
    QVERIFY(plan->lookupFirst);

    QStringList requests;
    connect(&m_sandbox->server(), &SandboxServer::served, this,
            [&requests](const QString &line) { requests << line.section(u' ', 0, 1); });
    const ResolutionReport report = wait(m_resolver->performAgain(id));
    QCOMPARE(kindName(report.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(settlementText(*report.resolution, report.basis), QStringLiteral("performed (verified)"));
    QVERIFY2(report.message.contains(QStringLiteral("It replaces the check amira recorded at")),
             qPrintable(report.message));
    QVERIFY2(report.message.endsWith(QStringLiteral("Nothing was sent.")), qPrintable(report.message));
    QVERIFY(!report.mayPerformAgain);
    QVERIFY2(!requests.isEmpty(), "the system was asked");
    QCOMPARE(requests.filter(QStringLiteral("POST ")).size(), 0);
    QCOMPARE(auditEntries().last().action, QStringLiteral("settle"));
    verifyAuditChain(4); // attest, settle, lookup, settle
    QVERIFY(!(**m_store->ticket(before.ticketId)).row.needsAttention);
    QVERIFY(!m_resolver->planRepeat(id));
}

// No system can be asked about seller messages (no registry names one here): a message a person
// found absent is sent by hand, with the same key, and a later check that it was performed
// replaces the first, audited; only so, and only while it is owed.
void TestEscalationResolver::whereNoSystemCanBeAskedALaterCheckReplacesTheFirst()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260330-0362"), QStringLiteral("c2"));
    QVERIFY(id > 0);
    const EscalationDetail before = **m_store->escalation(id);
    QVERIFY(!m_resolver->route(before).canLookUp);
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    QCOMPARE(kindName(m_resolver
                              ->attest(id,
                                       Attestation{Resolution::NotPerformed, QStringLiteral("seller inbox"),
                                                   QStringLiteral("no message came")})
                              .kind),
             kindName(ResolutionReport::Kind::Resolved));
    QVERIFY((**m_store->ticket(before.ticketId)).row.needsAttention);
    // No system to send it with, or to ask first.
    const Expected<RepeatPlan> plan = m_resolver->planRepeat(id);
    QVERIFY(!plan);
    QVERIFY2(plan.message().contains(QStringLiteral("names no system")), qPrintable(plan.message()));

    EscalationResolver bruno(*m_store, *m_client, QStringLiteral("bruno"));
    // A second check that does not say it replaces the first is told who settled it.
    const ResolutionReport unsaid = bruno.attest(
            id,
            Attestation{Resolution::Performed, QStringLiteral("msg-77"), QStringLiteral("sent it by hand")});
    QCOMPARE(kindName(unsaid.kind), kindName(ResolutionReport::Kind::ResolvedElsewhere));
    // A replacing check says it was performed since, or nothing.
    const ResolutionReport absentAgain =
            bruno.attest(id,
                         Attestation{Resolution::NotPerformed, QStringLiteral("inbox"),
                                     QStringLiteral("still not"), true});
    QCOMPARE(kindName(absentAgain.kind), kindName(ResolutionReport::Kind::NotPossible));
    verifyAuditChain(2);

    const ResolutionReport replaced = bruno.attest(
            id,
            Attestation{Resolution::Performed, QStringLiteral("msg-77"),
                        QStringLiteral("Sent from the seller portal with the same intent key"), true});
    QCOMPARE(kindName(replaced.kind), kindName(ResolutionReport::Kind::Resolved));
    QCOMPARE(settlementText(*replaced.resolution, replaced.basis), QStringLiteral("performed (attested)"));
    QVERIFY2(replaced.message.contains(QStringLiteral("It replaces the check amira recorded at")),
             qPrintable(replaced.message));
    const EscalationDetail after = **m_store->escalation(id);
    QCOMPARE(after.resolvedBy, QStringLiteral("bruno"));
    QCOMPARE(after.reference, QStringLiteral("msg-77"));
    const QList<Evidence> evidence = *m_store->evidence(id);
    QCOMPARE(evidence.size(), 2);
    QVERIFY2(evidence.last().request.contains(QStringLiteral("Replaces: the check amira recorded at")),
             qPrintable(evidence.last().request));
    const QList<AuditEntry> audit = auditEntries();
    QCOMPARE(audit.size(), 4);
    QCOMPARE(audit.at(2).action, QStringLiteral("attest"));
    QCOMPARE(audit.at(2).operatorName, QStringLiteral("bruno"));
    QCOMPARE(audit.at(3).action, QStringLiteral("settle"));
    QVERIFY2(audit.at(3).detail.contains(QStringLiteral("replaces the check amira recorded")),
             qPrintable(audit.at(3).detail));
    verifyAuditChain(4);
    QVERIFY(!(**m_store->ticket(before.ticketId)).row.needsAttention);
    QCOMPARE(served.count(), 0);

    // Performed now: no check replaces it.
    const ResolutionReport back = m_resolver->attest(
            id, Attestation{Resolution::Performed, QStringLiteral("x"), QStringLiteral("y"), true});
    QCOMPARE(kindName(back.kind), kindName(ResolutionReport::Kind::ResolvedElsewhere));
    verifyAuditChain(4);
}

// A pickup sent again with a key the courier may no longer keep is looked up right before the
// POST: a record with the key is found and nothing is sent; none, and it is sent once.
void TestEscalationResolver::aRecordWriteCheckedFirstIsSentOnlyWhenAbsent()
{
    InProcessSandbox sandbox;
    const ProviderSettings settings = settingsFor(sandbox.url());
    const auto pickup = [](const QString &key) {
        return RecordWrite{QStringLiteral("courier"),
                           QStringLiteral("/v1/pickups"),
                           key,
                           {{QStringLiteral("order"), QStringLiteral("SU-9")},
                            {QStringLiteral("item"), QStringLiteral("GW-1")},
                            {QStringLiteral("metadata[ticket_id]"), QStringLiteral("T-9")}}};
    };
    const auto query = [](const QString &key) {
        return RecordQuery{QStringLiteral("courier"),
                           QStringLiteral("/v1/pickups"),
                           {{QStringLiteral("order"), QStringLiteral("SU-9")}},
                           QStringLiteral("metadata.intent_key"),
                           key};
    };
    const auto sendCheckedFirst = [&](const QString &key) {
        SafeRecordWrite write(settings, pickup(key), query(key));
        write.checkFirst();
        std::optional<WriteOutcome> outcome;
        QObject context;
        QObject::connect(&write, &SafeRecordWrite::finished, &context,
                         [&outcome](const WriteOutcome &done) { outcome = done; });
        write.start();
        (void)QTest::qWaitFor([&outcome] { return outcome.has_value(); }, 10000); // else unknown, below
        return outcome.value_or(WriteOutcome{});
    };
    RecordWriteOperation made(settings, pickup(QStringLiteral("key-made")));
    QCOMPARE(RecordWriteOperation::waitFor(&made).kind, RecordWriteAttempt::Kind::Accepted);
    QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 1);

    // Made meanwhile: found right before sending, and nothing is sent.
    const WriteOutcome found = sendCheckedFirst(QStringLiteral("key-made"));
    QCOMPARE(found.outcome, Outcome::AlreadyPerformed);
    QVERIFY(found.record);
    QVERIFY2(found.note.contains(QStringLiteral("found %1; nothing was sent").arg(found.record->id)),
             qPrintable(found.note));
    QCOMPARE(found.exchanges.size(), 1);
    QVERIFY(found.exchanges.first().request.startsWith(QStringLiteral("GET ")));
    QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 1);

    // Absent: looked up, then sent once with its key.
    const WriteOutcome sent = sendCheckedFirst(QStringLiteral("key-new"));
    QCOMPARE(sent.outcome, Outcome::Performed);
    QVERIFY2(sent.note.startsWith(
                     QStringLiteral("looked up immediately before sending: none carries this key")),
             qPrintable(sent.note));
    QCOMPARE(sent.exchanges.size(), 2);
    QVERIFY(sent.exchanges.at(1).request.startsWith(QStringLiteral("POST ")));
    QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 2);
}

QTEST_GUILESS_MAIN(TestEscalationResolver)
#include "tst_escalationresolver.moc"

// Claims as operators make them, on the demo's escalations: one person at a time, taking and
// giving back audited (renewing not), the resolver refusing anyone else with the holder's name,
// and the operator in a team's database being the database user, whatever the settings say.

#include "audit/auditaction.h"
#include "audit/auditlog.h"
#include "import/importjob.h"
#include "provider/providerclient.h"
#include "resolution/escalationclaims.h"
#include "resolution/escalationresolver.h"
#include "resolution/operatoridentity.h"
#include "store/storetestsupport.h"
#include "support/postgrescluster.h"
#include "support/testmacros.h"
#include "support/teststore.h"

#include <QTemporaryDir>
#include <QTest>

using namespace verity;

namespace {

QStringList actionsOf(Store &store)
{
    QStringList actions;
    const Expected<QList<AuditEntry>> entries = store.auditEntries(0, 1000);
    for (const AuditEntry &entry : entries ? *entries : QList<AuditEntry>())
        actions << entry.action + u':' + entry.operatorName;
    return actions;
}

} // namespace

class EscalationClaimsTest : public QObject
{
    Q_OBJECT

    QTemporaryDir m_folder;
    std::unique_ptr<Store> m_store;
    qint64 m_now = 1'900'000'000'000;

private slots:
    void init()
    {
        QFile::remove(m_folder.filePath(QStringLiteral("claims.sqlite")));
        m_store = test::openTestStore(m_folder.filePath(QStringLiteral("claims.sqlite")));
        QVERIFY(m_store);
        const ImportReport report = storetest::importFile(*m_store, demoDataResource());
        QVERIFY2(report.clean(), qPrintable(storetest::describe(report)));
    }

    void cleanup() { m_store.reset(); }

    void takingAndGivingBackAreAuditedRenewingIsNot()
    {
        const qint64 id = m_store->openEscalations(0, 1)->first().id;
        EscalationClaims ana(*m_store, QStringLiteral("ana"), [this] { return m_now; });
        QVERIFY_OK(ana.claim(id));
        m_now += 60'000;
        Expected<EscalationClaim> renewed = ana.claim(id);
        QVERIFY_OK(renewed);
        QVERIFY(renewed->taken);
        QCOMPARE(renewed->until, m_now + EscalationClaims::defaultLeaseMs);
        Expected<bool> released = ana.release(id);
        QVERIFY_OK(released);
        QVERIFY(*released);
        QCOMPARE(actionsOf(*m_store),
                 (QStringList{auditaction::claim + QStringLiteral(":ana"),
                              auditaction::release + QStringLiteral(":ana")}));
        const Expected<AuditVerification> verified = AuditLog::verify(*m_store);
        QVERIFY_OK(verified);
        QVERIFY2(verified->intact, qPrintable(verified->reason));
    }

    void anotherOperatorIsRefusedWithTheHoldersName()
    {
        const qint64 id = m_store->openEscalations(0, 1)->first().id;
        EscalationClaims ana(*m_store, QStringLiteral("ana"));
        QVERIFY_OK(ana.claim(id));

        EscalationClaims ben(*m_store, QStringLiteral("ben"));
        Expected<EscalationClaim> refused = ben.claim(id);
        QVERIFY_OK(refused);
        QVERIFY(!refused->taken);
        QCOMPARE(refused->holder, QStringLiteral("ana"));

        ProviderClient noProvider(ProviderSettings{});
        EscalationResolver resolver(*m_store, noProvider, QStringLiteral("ben"));
        const ResolutionReport report = resolver.attest(
                id,
                Attestation{Resolution::NotPerformed, QStringLiteral("dashboard"), QStringLiteral("looked")});
        QCOMPARE(report.kind, ResolutionReport::Kind::NotPossible);
        QVERIFY2(report.message.contains(QLatin1String("ana has claimed")), qPrintable(report.message));
        QCOMPARE((*m_store->escalation(id))->state, EscalationState::Open);

        // The holder may act; an admin's release frees it for the others, and says whose it was.
        EscalationResolver hers(*m_store, noProvider, QStringLiteral("ana"));
        Expected<bool> released = EscalationClaims(*m_store, QStringLiteral("admin")).releaseAnyone(id);
        QVERIFY_OK(released);
        QVERIFY(*released);
        QVERIFY(actionsOf(*m_store).contains(auditaction::release + QStringLiteral(":admin")));
        QVERIFY(m_store->auditEntries(0, 100)->last().detail.contains(QLatin1String("released ana's claim")));
        QVERIFY(ben.claim(id)->taken);
    }

    void nextTakesTheOldestNobodyHolds()
    {
        const QList<EscalationRow> open = *m_store->openEscalations(0, 3);
        EscalationClaims ana(*m_store, QStringLiteral("ana"));
        QVERIFY_OK(ana.claim(open.at(0).id));
        EscalationClaims ben(*m_store, QStringLiteral("ben"));
        Expected<std::optional<EscalationClaim>> next = ben.claimNext();
        QVERIFY_OK(next);
        QVERIFY(next->has_value());
        QCOMPARE((*next)->escalationId, open.at(1).id);
        QCOMPARE(m_store->auditEntries(0, 100)->last().action, auditaction::claim);
    }

    void aTeamDatabaseNamesTheConnectedUser()
    {
        test::PostgresCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.error()));
        const QString location = cluster.createDatabase(QStringLiteral("claims"));
        QVERIFY2(!location.isEmpty(), qPrintable(cluster.error()));
        std::unique_ptr<Store> team = test::openTestStore(location);
        QVERIFY(team);
        QCOMPARE(team->sessionUser(), QLatin1String(test::PostgresCluster::superuser));
        Expected<QString> named = operatorNameFor(*team, QString());
        QVERIFY_OK(named);
        QCOMPARE(*named, QLatin1String(test::PostgresCluster::superuser));
        Expected<QString> someoneElse = operatorNameFor(*team, QStringLiteral("ben"));
        QVERIFY(!someoneElse);
        QVERIFY2(someoneElse.message().contains(QLatin1String("connect as ben")),
                 qPrintable(someoneElse.message()));
        // On a desk's file, the name given.
        QCOMPARE(*operatorNameFor(*m_store, QStringLiteral("ben")), QStringLiteral("ben"));
    }
};

QTEST_GUILESS_MAIN(EscalationClaimsTest)
#include "tst_escalationclaims.moc"

// A team's roles, enforced by the database itself: each user connects as themselves to a
// cluster this test starts, and what their role does not allow is refused by PostgreSQL,
// through Verity's store and through plain SQL alike (what someone with psql would try).

#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "resolution/escalationclaims.h"
#include "resolution/escalationresolver.h"
#include "resolution/providerconnection.h"
#include "sandbox/sandboxseed.h"
#include "store/postgresroles.h"
#include "store/sqlstore.h"
#include "store/storefactory.h"
#include "support/inprocesssandbox.h"
#include "support/postgrescluster.h"
#include "support/provider.h"
#include "support/testmacros.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QTest>

using namespace verity;
using namespace verity::test;

class TeamRolesTest : public QObject
{
    Q_OBJECT

    PostgresCluster m_cluster;
    std::map<QString, std::unique_ptr<Store>> m_stores;

    // The team's database as `user` connects to it, opened once per user.
    Store &as(const QString &user)
    {
        auto &store = m_stores[user];
        if (!store) {
            Expected<std::unique_ptr<Store>> opened =
                    openStore(m_cluster.location(QStringLiteral("team"), user));
            if (!opened)
                qFatal("cannot open the team's database as %s: %s", qPrintable(user),
                       qPrintable(opened.message()));
            store = std::move(*opened);
        }
        return *store;
    }

    QSqlDatabase &connectionOf(const QString &user)
    {
        return dynamic_cast<SqlStore &>(as(user)).connection();
    }

    // Plain SQL as `user`: empty when it ran, else the database's refusal.
    QString refusalOf(const QString &user, const QString &sql)
    {
        QSqlQuery query(connectionOf(user));
        if (query.exec(sql))
            return QString();
        const QString text = query.lastError().databaseText();
        return text.isEmpty() ? QStringLiteral("refused without a reason") : text;
    }

    qint64 openEscalation(int index = 0)
    {
        const Expected<QList<EscalationRow>> open = as(QStringLiteral("lead")).openEscalations(0, 100);
        if (!open || open->size() <= index)
            qFatal("the demo has fewer open escalations than expected");
        return open->at(index).id;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
        // As resources/docs/team.md sets a team up: its lead may create roles and owns the database.
        QVERIFY2(m_cluster.execute(QStringLiteral(
                         "CREATE ROLE lead LOGIN CREATEROLE; CREATE ROLE ben LOGIN; CREATE ROLE fay LOGIN; "
                         "CREATE ROLE tom LOGIN; CREATE ROLE ida LOGIN; CREATE ROLE nobody LOGIN")),
                 qPrintable(m_cluster.error()));
        QVERIFY2(m_cluster.execute(QStringLiteral("CREATE DATABASE team OWNER lead")),
                 qPrintable(m_cluster.error()));
        QSqlDatabase &lead = connectionOf(QStringLiteral("lead"));
        for (const auto &[user, role] :
             {std::pair{"ben", TeamRole::Support}, std::pair{"fay", TeamRole::Finance},
              std::pair{"tom", TeamRole::Trainer}, std::pair{"ida", TeamRole::Admin}}) {
            const Expected<void> granted = postgres::grantTeamRole(lead, role, QLatin1String(user));
            QVERIFY_OK(granted);
        }
        TranscriptImporter importer(as(QStringLiteral("lead")), ToolRegistry::builtIn());
        QVERIFY(importer.importFile(demoDataResource()).clean());
    }

    void eachUserHoldsWhatWasGranted_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("roles");
        QTest::newRow("the owner holds every role") << "lead"
                                                    << "support, finance, trainer, admin";
        QTest::newRow("support") << "ben"
                                 << "support";
        QTest::newRow("finance") << "fay"
                                 << "finance";
        QTest::newRow("trainer") << "tom"
                                 << "trainer";
        QTest::newRow("an admin holds every role") << "ida"
                                                   << "support, finance, trainer, admin";
    }

    void eachUserHoldsWhatWasGranted()
    {
        QFETCH(QString, user);
        QFETCH(QString, roles);
        const Expected<OperatorRoles> held = as(user).sessionRoles();
        QVERIFY_OK(held);
        QCOMPARE(held->summary(), roles);
        QCOMPARE(held->user(), user);
    }

    void aUserWithoutARoleIsToldHowToGetOne()
    {
        const Expected<std::unique_ptr<Store>> opened =
                openStore(m_cluster.location(QStringLiteral("team"), QStringLiteral("nobody")));
        QVERIFY(!opened);
        QVERIFY2(opened.message().contains(QLatin1String("nobody has no role in this team's database")),
                 qPrintable(opened.message()));
        QVERIFY(opened.message().contains(QLatin1String("verity db grant")));
    }

    void everyoneReads()
    {
        for (const char *name : {"ben", "fay", "tom", "ida"}) {
            const QString user = QLatin1String(name);
            const Expected<QList<EscalationRow>> open = as(user).openEscalations(0, 100);
            QVERIFY2(open, qPrintable(user));
            QVERIFY(!open->isEmpty());
        }
    }

    void supportIsRefusedAFinanceActionByTheDatabase()
    {
        PayoutMark mark;
        mark.duplicateKey = QStringLiteral("seller_1|USD|2026-03");
        mark.note = QStringLiteral("asked the seller");
        mark.operatorName = QStringLiteral("ben");
        mark.at = 1'775'000'000'000;
        const Expected<qint64> refused = as(QStringLiteral("ben")).insertPayoutMark(mark);
        QVERIFY(!refused);
        QVERIFY2(refused.message().contains(QLatin1String("permission denied for table payout_marks")),
                 qPrintable(refused.message()));
        // The same through plain SQL, as psql would send it.
        QVERIFY(refusalOf(QStringLiteral("ben"),
                          QStringLiteral("INSERT INTO payout_marks (duplicate_key, state, "
                                         "operator, at) VALUES ('k', 'recovered', 'ben', 1)"))
                        .contains(QLatin1String("permission denied")));
        // A reconciliation's evidence is finance's to add.
        QVERIFY(refusalOf(QStringLiteral("ben"),
                          QStringLiteral(
                                  "INSERT INTO evidence (escalation_id, operator, started_at, finished_at, "
                                  "verdict, request, response, evidence_sha256, kind) VALUES (%1, 'ben', 1, "
                                  "1, 'found', '', '', 'x', 'reconciliation')")
                                  .arg(openEscalation()))
                        .contains(QLatin1String("row-level security")));
        // Finance may.
        mark.operatorName = QStringLiteral("fay");
        const Expected<qint64> marked = as(QStringLiteral("fay")).insertPayoutMark(mark);
        QVERIFY_OK(marked);
    }

    void onlyAnAdminClassifiesAndNobodyRewritesTheChain()
    {
        const QString reclassify =
                QStringLiteral("UPDATE tool_calls SET tool_class = 'read' WHERE tool = 'issue_refund'");
        QVERIFY(refusalOf(QStringLiteral("ben"), reclassify).contains(QLatin1String("permission denied")));
        QVERIFY(refusalOf(QStringLiteral("fay"), reclassify).contains(QLatin1String("permission denied")));
        for (const char *name : {"ben", "fay", "tom", "ida"}) {
            const QString user = QLatin1String(name);
            QVERIFY2(refusalOf(user, QStringLiteral("DELETE FROM audit_log"))
                             .contains(QLatin1String("permission denied")),
                     qPrintable(user));
            QVERIFY2(refusalOf(user, QStringLiteral("UPDATE evidence SET verdict = 'found'"))
                             .contains(QLatin1String("permission denied")),
                     qPrintable(user));
        }
        QVERIFY(refusalOf(QStringLiteral("tom"), QStringLiteral("UPDATE escalations SET last_note = 'x'"))
                        .contains(QLatin1String("permission denied")));
        // The queue's totals are the triggers' to keep: nobody adds a change of their own.
        for (const char *name : {"ben", "fay", "tom", "ida"}) {
            const QString user = QLatin1String(name);
            QVERIFY2(refusalOf(user,
                               QStringLiteral("INSERT INTO queue_totals (tickets, needs_attention, unknown, "
                                              "repeated, duplicate_effect, retry_after_error, "
                                              "open_escalations) VALUES (5, 0, 0, 0, 0, 0, 0)"))
                             .contains(QLatin1String("permission denied")),
                     qPrintable(user));
            QVERIFY2(refusalOf(user, QStringLiteral("SELECT queue_totals_changed(5, 0, 0, 0, 0, 0, 0)"))
                             .contains(QLatin1String("permission denied")),
                     qPrintable(user));
        }
        // An admin's reclassification runs (and is rolled back: the demo stays as it is).
        QVERIFY(refusalOf(QStringLiteral("ida"), QStringLiteral("BEGIN")).isEmpty());
        QCOMPARE(refusalOf(QStringLiteral("ida"), reclassify), QString());
        QVERIFY(refusalOf(QStringLiteral("ida"), QStringLiteral("ROLLBACK")).isEmpty());
    }

    void nobodyActsInAnothersNameOrDropsAnUnknown()
    {
        const qint64 id = openEscalation(2);
        const QString inFaysName = refusalOf(QStringLiteral("ben"),
                                             QStringLiteral("UPDATE escalations SET claimed_by = 'fay', "
                                                            "claimed_until = 9999999999999 WHERE id = %1")
                                                     .arg(id));
        QVERIFY2(inFaysName.contains(QLatin1String("in the name of fay")), qPrintable(inFaysName));
        const QString audit = refusalOf(
                QStringLiteral("ben"),
                QStringLiteral(
                        "INSERT INTO audit_log (seq, at, operator, action, detail, prev_hash, hash) VALUES "
                        "(999999, 1, 'ida', 'settle', 'x', 'p-forged', 'h-forged')"));
        QVERIFY2(audit.contains(QLatin1String("in the name of ida")), qPrintable(audit));
        const QString dropped = refusalOf(QStringLiteral("fay"),
                                          QStringLiteral("DELETE FROM escalations WHERE id = %1").arg(id));
        QVERIFY2(dropped.contains(QLatin1String("waits for evidence")), qPrintable(dropped));
    }

    void aNameInTheSettingsIsTheDatabaseUsers()
    {
        // Refused before anything is saved, with the command line's words.
        ProviderConnection connection(as(QStringLiteral("ben")));
        const Expected<void> saved = connection.save(QUrl(QStringLiteral("http://127.0.0.1:12111")),
                                                     QStringLiteral("fay"), QString(), {});
        QVERIFY(!saved);
        QVERIFY2(saved.message().startsWith(QLatin1String("Your name: ")), qPrintable(saved.message()));
        QVERIFY2(saved.message().contains(QLatin1String("the database user you connected as, ben")),
                 qPrintable(saved.message()));
        QCOMPARE(connection.operatorName(), QStringLiteral("ben"));
    }

    void aDatabaseNotSetUpIsTheOwnersToSetUp()
    {
        QVERIFY2(m_cluster.execute(QStringLiteral("CREATE DATABASE bare")), qPrintable(m_cluster.error()));
        const Expected<std::unique_ptr<Store>> opened =
                openStore(m_cluster.location(QStringLiteral("bare"), QStringLiteral("ben")));
        QVERIFY(!opened);
        QVERIFY2(opened.message().contains(
                         QLatin1String("not in this database yet, and ben may not create them")),
                 qPrintable(opened.message()));
    }

    void aTrainerWritesNotesAndSettlesNothing()
    {
        Store &tom = as(QStringLiteral("tom"));
        const qint64 ticket = as(QStringLiteral("lead")).openEscalations(0, 1)->first().ticketId;
        const Expected<void> saved =
                tom.saveTrainerNote(ticket,
                                    TrainerNote{QStringLiteral("call:1"), QStringLiteral("see the timeout"),
                                                QStringLiteral("tom"), 1'775'000'000'000});
        QVERIFY_OK(saved);
        EscalationClaims claims(tom, QStringLiteral("tom"));
        const Expected<EscalationClaim> claimed = claims.claim(openEscalation());
        QVERIFY(!claimed);
        QVERIFY2(claimed.message().contains(QLatin1String("permission denied")),
                 qPrintable(claimed.message()));
        QVERIFY(!as(QStringLiteral("ben"))
                         .saveTrainerNote(ticket,
                                          TrainerNote{QStringLiteral("call:1"), QStringLiteral("x"),
                                                      QStringLiteral("ben"), 1}));
    }

    void supportSettlesFromALookupWithItsOwnGrants()
    {
        // The whole path a support agent takes: claim, look up at the provider, settle, with the
        // evidence, the ledger row, the audit entry and the ticket assessed again.
        InProcessSandbox sandbox;
        QVERIFY(seedDemo(sandbox.state()));
        ProviderClient client(settingsFor(sandbox.url()));
        Store &ben = as(QStringLiteral("ben"));
        EscalationResolver resolver(ben, client, QStringLiteral("ben"));
        const Expected<QList<EscalationRow>> open = ben.openEscalations(0, 100);
        QVERIFY(open);
        const auto refund = std::find_if(open->begin(), open->end(), [](const EscalationRow &row) {
            return row.tool == u"issue_refund";
        });
        QVERIFY(refund != open->end());
        QVERIFY(EscalationClaims(ben, QStringLiteral("ben")).claim(refund->id));
        ResolutionOperation *operation = resolver.lookUp(refund->id);
        const ResolutionReport report = EscalationResolver::waitFor(operation);
        operation->deleteLater();
        QVERIFY2(report.kind == ResolutionReport::Kind::Resolved, qPrintable(report.message));
        const Expected<std::optional<AuditEntry>> last = ben.lastAuditEntry();
        QVERIFY(last && *last);
        QCOMPARE((*last)->operatorName, QStringLiteral("ben"));
    }

    void aLiveClaimHoldsAgainstAllButItsHolderAndAnAdmin()
    {
        const qint64 id = openEscalation(1);
        const Expected<EscalationClaim> bens =
                EscalationClaims(as(QStringLiteral("ben")), QStringLiteral("ben")).claim(id);
        QVERIFY2(bens && bens->taken, qPrintable(bens ? QString() : bens.message()));
        // Finance, with psql, cannot take it over or settle it while it is held.
        const QString takeOver = refusalOf(QStringLiteral("fay"),
                                           QStringLiteral("UPDATE escalations SET claimed_by = 'fay', "
                                                          "claimed_until = 9999999999999 WHERE id = %1")
                                                   .arg(id));
        QVERIFY2(takeOver.contains(QLatin1String("claimed by ben")), qPrintable(takeOver));
        QVERIFY(refusalOf(
                        QStringLiteral("fay"),
                        QStringLiteral("UPDATE escalations SET state = 'resolved', resolution = 'performed', "
                                       "basis = 'reconciliation' WHERE id = %1")
                                .arg(id))
                        .contains(QLatin1String("claimed by ben")));
        // An admin releases it.
        const Expected<bool> released =
                EscalationClaims(as(QStringLiteral("ida")), QStringLiteral("ida")).releaseAnyone(id);
        QVERIFY2(released && *released, qPrintable(released ? QString() : released.message()));
    }

    void grantingIsAnAdminsAndNamesAMissingUser()
    {
        const Expected<void> bySupport = postgres::grantTeamRole(connectionOf(QStringLiteral("ben")),
                                                                 TeamRole::Finance, QStringLiteral("ben"));
        QVERIFY(!bySupport);
        QVERIFY2(bySupport.message().contains(QLatin1String("permission denied"))
                         || bySupport.message().contains(QLatin1String("must have admin option")),
                 qPrintable(bySupport.message()));
        const Expected<void> missing = postgres::grantTeamRole(connectionOf(QStringLiteral("ida")),
                                                               TeamRole::Support, QStringLiteral("zed"));
        QVERIFY(!missing);
        QVERIFY2(missing.message().contains(QLatin1String("no database user \"zed\"")),
                 qPrintable(missing.message()));
        // An admin grants and takes back; the role shows at once.
        QVERIFY(postgres::grantTeamRole(connectionOf(QStringLiteral("ida")), TeamRole::Finance,
                                        QStringLiteral("nobody")));
        QCOMPARE(as(QStringLiteral("nobody")).sessionRoles()->summary(), QStringLiteral("finance"));
        QCOMPARE(*postgres::revokeTeamRole(connectionOf(QStringLiteral("ida")), TeamRole::Finance,
                                           QStringLiteral("nobody")),
                 true);
        QCOMPARE(*postgres::revokeTeamRole(connectionOf(QStringLiteral("ida")), TeamRole::Finance,
                                           QStringLiteral("nobody")),
                 false);
        QCOMPARE(as(QStringLiteral("nobody")).sessionRoles()->summary(), QStringLiteral("no role"));
    }

    void cleanupTestCase()
    {
        m_stores.clear(); // every connection closed before the cluster stops
    }
};

QTEST_GUILESS_MAIN(TeamRolesTest)
#include "tst_teamroles.moc"

// A team's database from the command line, through the built binary and a PostgreSQL cluster
// the test starts: `verity db init` sets it up, `verity db copy` moves a desk's history in with
// its audit chain, and the other commands read and write it by its URI as they do a file.

#include "support/postgrescluster.h"
#include "support/verityprocess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

class TeamDatabaseTest : public QObject
{
    Q_OBJECT

    QTemporaryDir m_home;
    PostgresCluster m_cluster;
    QString m_desk; // a desk's SQLite file: the demo, with one escalation attested
    int m_databases = 0;

    VerityRun verity(const QStringList &arguments)
    {
        return runVerity(arguments, isolatedEnvironment(m_home.path()));
    }

    QString newDatabase()
    {
        const QString location = m_cluster.createDatabase(QStringLiteral("team_%1").arg(++m_databases));
        if (location.isEmpty())
            qWarning("cannot create a database: %s", qPrintable(m_cluster.error()));
        return location;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
        m_desk = m_home.filePath(QStringLiteral("desk.sqlite"));
        VerityRun imported =
                verity({QStringLiteral("import"), QStringLiteral("--db"), m_desk,
                        QStringLiteral(VERITY_SOURCE_DIR "/resources/demo/march-incident.jsonl")});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        VerityRun attested = verity(
                {QStringLiteral("resolve"), QStringLiteral("--db"), m_desk, QStringLiteral("1"),
                 QStringLiteral("--attest"), QStringLiteral("not-performed"), QStringLiteral("--reference"),
                 QStringLiteral("dashboard search, no refund"), QStringLiteral("--note"),
                 QStringLiteral("checked by phone"), QStringLiteral("--operator"), QStringLiteral("ana")});
        QVERIFY2(attested.exitCode == 0, qPrintable(attested.out + attested.err));
    }

    void initSetsUpTheSchemaOnceAndAgain()
    {
        const QString location = newDatabase();
        for (int time = 0; time < 2; ++time) {
            VerityRun init =
                    verity({QStringLiteral("db"), QStringLiteral("init"), QStringLiteral("--db"), location});
            QVERIFY2(init.exitCode == 0, qPrintable(init.err));
            QVERIFY2(init.out.contains(QLatin1String("schema is at version")), qPrintable(init.out));
        }
    }

    void wrongTargetsAreRefusedWithTheirReason_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("said");
        QTest::newRow("init a file") << QStringList{QStringLiteral("db"), QStringLiteral("init"),
                                                    QStringLiteral("--db"), QStringLiteral("desk.sqlite")}
                                     << "expected a PostgreSQL database";
        QTest::newRow("password") << QStringList{QStringLiteral("db"), QStringLiteral("init"),
                                                 QStringLiteral("--db"),
                                                 QStringLiteral("postgresql://ana:hunter2@localhost/x")}
                                  << "holds a password";
        QTest::newRow("copy without target")
                << QStringList{QStringLiteral("db"), QStringLiteral("copy"), QStringLiteral("--from"),
                               QStringLiteral("desk.sqlite")}
                << "name both --from FILE and --to URI";
        QTest::newRow("no action") << QStringList{QStringLiteral("db")} << "name an action";
    }

    void wrongTargetsAreRefusedWithTheirReason()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, said);
        const VerityRun run = verity(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(said), qPrintable(run.err));
        QVERIFY(!run.err.contains(QLatin1String("hunter2")));
    }

    // As resources/docs/team.md sets a team up: Ana, who may create roles, owns the database, sets
    // it up and grants Ben support; Ben claims under his own name; Cleo, a trainer, is told she cannot.
    void theReadmesTeam()
    {
        // CREATE DATABASE runs on its own, outside the roles' transaction.
        QVERIFY2(m_cluster.execute(QStringLiteral(
                         "CREATE ROLE ana LOGIN CREATEROLE; CREATE ROLE ben LOGIN; CREATE ROLE cleo LOGIN")),
                 qPrintable(m_cluster.error()));
        QVERIFY2(m_cluster.execute(QStringLiteral("CREATE DATABASE crewdb OWNER ana")),
                 qPrintable(m_cluster.error()));
        const QString asAna = m_cluster.location(QStringLiteral("crewdb"), QStringLiteral("ana"));
        const QString asBen = m_cluster.location(QStringLiteral("crewdb"), QStringLiteral("ben"));
        const QString asCleo = m_cluster.location(QStringLiteral("crewdb"), QStringLiteral("cleo"));
        const VerityRun init =
                verity({QStringLiteral("db"), QStringLiteral("init"), QStringLiteral("--db"), asAna});
        QVERIFY2(init.exitCode == 0, qPrintable(init.err));
        for (const auto &[role, user] : {std::pair{"support", "ben"}, std::pair{"trainer", "cleo"}}) {
            const VerityRun granted =
                    verity({QStringLiteral("db"), QStringLiteral("grant"), QStringLiteral("--db"), asAna,
                            QStringLiteral("--role"), QLatin1String(role), QLatin1String(user)});
            QVERIFY2(granted.exitCode == 0, qPrintable(granted.err));
        }
        const VerityRun roles =
                verity({QStringLiteral("db"), QStringLiteral("roles"), QStringLiteral("--db"), asBen});
        QVERIFY2(roles.exitCode == 0, qPrintable(roles.err));
        QVERIFY2(roles.out.contains(QLatin1String("ben: support"))
                         && roles.out.contains(QLatin1String("cleo: trainer"))
                         && roles.out.contains(QLatin1String("ana: owns Verity's tables")),
                 qPrintable(roles.out));
        // Only an admin grants.
        const VerityRun selfPromoted =
                verity({QStringLiteral("db"), QStringLiteral("grant"), QStringLiteral("--db"), asBen,
                        QStringLiteral("--role"), QStringLiteral("admin"), QStringLiteral("ben")});
        QCOMPARE(selfPromoted.exitCode, 2);
        const VerityRun cleo =
                verity({QStringLiteral("claim"), QStringLiteral("--db"), asCleo, QStringLiteral("--next")});
        QCOMPARE(cleo.exitCode, 2);
        QVERIFY2(cleo.err.contains(QLatin1String(
                         "cleo has the trainer role; claiming escalations needs the support role")),
                 qPrintable(cleo.err));
        // With --json, the refusal is JSON on stdout as well.
        const VerityRun cleoJson = verity({QStringLiteral("claim"), QStringLiteral("--db"), asCleo,
                                           QStringLiteral("--next"), QStringLiteral("--json")});
        QCOMPARE(cleoJson.exitCode, 2);
        const QJsonObject refusal = QJsonDocument::fromJson(cleoJson.out.toUtf8()).object();
        QCOMPARE(refusal.value(QStringLiteral("ok")).toBool(true), false);
        QVERIFY2(refusal.value(QStringLiteral("error"))
                         .toString()
                         .contains(QLatin1String("needs the support role")),
                 qPrintable(cleoJson.out));
        const VerityRun imported =
                verity({QStringLiteral("import"), QStringLiteral("--db"), asAna,
                        QStringLiteral(VERITY_SOURCE_DIR "/resources/demo/march-incident.jsonl")});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        const VerityRun ben = verity({QStringLiteral("claim"), QStringLiteral("--db"), asBen,
                                      QStringLiteral("--next"), QStringLiteral("--json")});
        QVERIFY2(ben.exitCode == 0, qPrintable(ben.err));
        QCOMPARE(QJsonDocument::fromJson(ben.out.toUtf8())[QStringLiteral("holder")].toString(),
                 QStringLiteral("ben"));
        // Ana is told who holds it; her Next takes the following one.
        const qint64 bens =
                QJsonDocument::fromJson(ben.out.toUtf8())[QStringLiteral("escalation")].toInteger();
        const VerityRun refused =
                verity({QStringLiteral("claim"), QStringLiteral("--db"), asAna, QString::number(bens)});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(QLatin1String("held by ben")), qPrintable(refused.err));
        const VerityRun ana = verity({QStringLiteral("claim"), QStringLiteral("--db"), asAna,
                                      QStringLiteral("--next"), QStringLiteral("--json")});
        QVERIFY2(ana.exitCode == 0, qPrintable(ana.err));
        QVERIFY(QJsonDocument::fromJson(ana.out.toUtf8())[QStringLiteral("escalation")].toInteger() != bens);
        const VerityRun verified =
                verity({QStringLiteral("audit"), QStringLiteral("list"), QStringLiteral("--db"), asBen});
        QVERIFY2(verified.out.contains(QLatin1String("ana")) && verified.out.contains(QLatin1String("ben")),
                 qPrintable(verified.out + verified.err));
    }

    void aMissingDatabaseIsNamed()
    {
        const QString location = m_cluster.location(QStringLiteral("no_such_database"));
        const VerityRun run =
                verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), location});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QLatin1String("cannot connect"))
                         && run.err.contains(QLatin1String("no_such_database")),
                 qPrintable(run.err));
    }

    void aDeskIsCopiedWithItsChain()
    {
        const QString location = newDatabase();
        const VerityRun copied =
                verity({QStringLiteral("db"), QStringLiteral("copy"), QStringLiteral("--from"), m_desk,
                        QStringLiteral("--to"), location, QStringLiteral("--json")});
        QVERIFY2(copied.exitCode == 0, qPrintable(copied.err));
        const QJsonObject report = QJsonDocument::fromJson(copied.out.toUtf8()).object();
        QVERIFY(report.value(QStringLiteral("audit_intact")).toBool());
        QVERIFY(report.value(QStringLiteral("audit_entries")).toInt() >= 1);
        QHash<QString, int> rows;
        for (const QJsonValue &table : report.value(QStringLiteral("tables")).toArray())
            rows.insert(table[QStringLiteral("table")].toString(), table[QStringLiteral("rows")].toInt());
        QCOMPARE(rows.value(QStringLiteral("tickets")), 46);
        QVERIFY(rows.value(QStringLiteral("evidence")) >= 1);

        // The chain reads the same from the file and from the team database.
        const VerityRun here = verity({QStringLiteral("audit"), QStringLiteral("list"),
                                       QStringLiteral("--json"), QStringLiteral("--db"), m_desk});
        const VerityRun there = verity({QStringLiteral("audit"), QStringLiteral("list"),
                                        QStringLiteral("--json"), QStringLiteral("--db"), location});
        QVERIFY2(there.exitCode == 0, qPrintable(there.err));
        QCOMPARE(QJsonDocument::fromJson(there.out.toUtf8())[QStringLiteral("entries")],
                 QJsonDocument::fromJson(here.out.toUtf8())[QStringLiteral("entries")]);

        // New rows continue after the copied ones: a second attestation, made in the team database,
        // under the database user's name and no other.
        const QStringList attest{QStringLiteral("resolve"),
                                 QStringLiteral("--db"),
                                 location,
                                 QStringLiteral("2"),
                                 QStringLiteral("--attest"),
                                 QStringLiteral("performed"),
                                 QStringLiteral("--reference"),
                                 QStringLiteral("re_team_1"),
                                 QStringLiteral("--note"),
                                 QStringLiteral("seen in the dashboard")};
        const VerityRun asBen =
                verity(attest + QStringList{QStringLiteral("--operator"), QStringLiteral("ben")});
        QCOMPARE(asBen.exitCode, 2);
        QVERIFY2(asBen.err.contains(QLatin1String("connect as ben")), qPrintable(asBen.err));
        const VerityRun attested = verity(attest);
        QVERIFY2(attested.exitCode == 0, qPrintable(attested.out + attested.err));
        const VerityRun verified =
                verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), location});
        QVERIFY2(verified.exitCode == 0, qPrintable(verified.out + verified.err));

        // Only into an empty database: a second copy would collide with the first.
        const VerityRun again = verity({QStringLiteral("db"), QStringLiteral("copy"),
                                        QStringLiteral("--from"), m_desk, QStringLiteral("--to"), location});
        QCOMPARE(again.exitCode, 2);
        QVERIFY2(again.err.contains(QLatin1String("already holds data")), qPrintable(again.err));
    }
};

QTEST_GUILESS_MAIN(TeamDatabaseTest)
#include "tst_teamdatabase.moc"

// `verity guard` on a team's PostgreSQL database: guards in two agent processes hold each
// other's retries, also when both send the same refund at the same moment (one goes, one is
// held), a guard whose database server went away refuses writes until it is back, and one whose
// user may not record calls does not start.

#include "guardagent.h"
#include "support/postgrescluster.h"

#include <QProcess>
#include <QTemporaryDir>

using namespace verity::test;
using nlohmann::json;

namespace {

json refundOf(const char *order, int cents)
{
    return json{{"order_id", order}, {"item_id", "OAK-4S"}, {"amount_cents", cents}};
}

json refundCall(const char *order, int cents, const char *conversation)
{
    return json{{"op", "call"},
                {"name", "issue_refund"},
                {"arguments", refundOf(order, cents)},
                {"timeout", 20000},
                {"conversation", conversation}};
}

} // namespace

class GuardTeamTest : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void twoGuardsSendOneRefund();
    void writesWaitForTheServerToComeBack();
    void aUserWithoutTheSupportRoleStopsTheGuard();

private:
    GuardAgent::Options options(const QString &mode) const
    {
        GuardAgent::Options made;
        made.database = m_database;
        made.ledger = m_dir.filePath(QStringLiteral("ledger.jsonl"));
        made.refundMode = mode;
        made.lateMs = 4000; // long enough for both guards to reach the intent on a loaded machine
        return made;
    }

    QTemporaryDir m_dir;
    PostgresCluster m_cluster;
    QString m_database;
};

void GuardTeamTest::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
    m_database = m_cluster.createDatabase(QStringLiteral("team"));
    QVERIFY2(!m_database.isEmpty(), qPrintable(m_cluster.error()));
}

void GuardTeamTest::twoGuardsSendOneRefund()
{
    GuardAgent first(options(QStringLiteral("late")), isolatedEnvironment(m_dir.path()));
    GuardAgent second(options(QStringLiteral("late")), isolatedEnvironment(m_dir.path()));
    QVERIFY2(!first.send({{"op", "list"}}).is_null(), qPrintable(first.log()));
    QVERIFY2(!second.send({{"op", "list"}}).is_null(), qPrintable(second.log()));
    // Both at once: whichever guard takes the intent's lock first sends it; the other finds it
    // in flight.
    first.sendWithoutWaiting(refundCall("SU-7", 3300, "T-7"));
    second.sendWithoutWaiting(refundCall("SU-7", 3300, "T-7"));
    const QString answers =
            QString::fromStdString(first.nextAnswer(30000).dump() + second.nextAnswer(30000).dump());
    QCOMPARE(answers.count(QLatin1String("NOT SENT.")), 1);
    QCOMPARE(answers.count(QLatin1String("re_SU-7_1")), 1);
    QCOMPARE(ledgerEntries(options(QString()).ledger, "refund").size(), 1);
    QVERIFY(first.close());
    QVERIFY(second.close());
}

void GuardTeamTest::writesWaitForTheServerToComeBack()
{
    GuardAgent agent(options(QStringLiteral("answer")), isolatedEnvironment(m_dir.path()));
    QVERIFY(!agent.send({{"op", "list"}}).is_null());
    QVERIFY2(m_cluster.halt(), qPrintable(m_cluster.error()));
    const json refused = agent.send(refundCall("SU-8", 800, "T-8"));
    QVERIFY2(QString::fromStdString(refused.dump()).contains(QLatin1String("could not be recorded")),
             refused.dump().c_str());
    QVERIFY2(m_cluster.launch(), qPrintable(m_cluster.error()));
    // Opened again before the next write once the server is back.
    json sent;
    QTRY_VERIFY_WITH_TIMEOUT((sent = agent.send(refundCall("SU-8", 800, "T-8")),
                              QString::fromStdString(sent.dump()).contains(QLatin1String("re_SU-8"))),
                             20000);
    QVERIFY(agent.close());
    QCOMPARE(ledgerEntries(options(QString()).ledger, "refund").size(), 2);
}

void GuardTeamTest::aUserWithoutTheSupportRoleStopsTheGuard()
{
    // Unlike a server that is away, a role the user lacks is not waited for: no wait mends it.
    const auto verity = [this](const QStringList &arguments) {
        QProcess run;
        run.setProcessEnvironment(isolatedEnvironment(m_dir.path()));
        run.start(QStringLiteral(VERITY_BINARY), arguments);
        const bool ended = run.waitForFinished(30000);
        return std::pair(ended ? run.exitCode() : -1, QString::fromUtf8(run.readAllStandardError()));
    };
    const QStringList guardAsCleo{QStringLiteral("guard"), QStringLiteral("--db"),
                                  m_cluster.location(QStringLiteral("team"), QStringLiteral("cleo")),
                                  QStringLiteral("--"), QStringLiteral("true")};
    QCOMPARE(verity({QStringLiteral("db"), QStringLiteral("init"), QStringLiteral("--db"), m_database}).first,
             0);
    QVERIFY2(m_cluster.execute(QStringLiteral("CREATE ROLE cleo LOGIN")), qPrintable(m_cluster.error()));
    const auto [noRole, saidNoRole] = verity(guardAsCleo);
    QVERIFY2(noRole == 2 && saidNoRole.contains(QLatin1String("cleo has no role"))
                     && saidNoRole.contains(QLatin1String("not started")),
             qPrintable(saidNoRole));
    // A role, but not the one that records.
    QCOMPARE(verity({QStringLiteral("db"), QStringLiteral("grant"), QStringLiteral("--db"), m_database,
                     QStringLiteral("--role"), QStringLiteral("trainer"), QStringLiteral("cleo")})
                     .first,
             0);
    const auto [trainer, saidTrainer] = verity(guardAsCleo);
    QVERIFY2(trainer == 2 && saidTrainer.contains(QLatin1String("needs the support role")),
             qPrintable(saidTrainer));
}

QTEST_GUILESS_MAIN(GuardTeamTest)
#include "tst_guardteam.moc"

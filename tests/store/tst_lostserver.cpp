// A console's connection to a team database outlives the server it was made to: the server
// restarts (an upgrade, a failover) or an administrator ends one session. The store says the
// database cannot be reached, within seconds and without a query of its own, and once the
// server is back opens its connections again as they were: reads and writes work, and other
// consoles' changes are announced again.

#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "resolution/escalationclaims.h"
#include "store/changefeed.h"
#include "store/serverwatch.h"
#include "store/sqlstore.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"
#include "support/testmacros.h"

#include <QSignalSpy>
#include <QSqlQuery>
#include <QTest>

using namespace verity;
using namespace verity::test;

namespace {

// Two ticks of the watch, and the server's answer.
constexpr int noticeMs = 3 * ServerWatch::intervalMs;

} // namespace

class LostServerTest : public QObject
{
    Q_OBJECT

    PostgresCluster m_cluster;
    QString m_location;
    std::unique_ptr<Store> m_console; // the store a console keeps open for hours

    Expected<std::unique_ptr<Store>> another() { return openStore(m_location); }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
        m_location = m_cluster.createDatabase(QStringLiteral("lost"));
        QVERIFY2(!m_location.isEmpty(), qPrintable(m_cluster.error()));
        Expected<std::unique_ptr<Store>> console = openStore(m_location);
        QVERIFY_OK(console);
        m_console = std::move(*console);
        TranscriptImporter importer(*m_console, ToolRegistry::builtIn());
        QVERIFY(importer.importFile(demoDataResource()).clean());
        QVERIFY(m_console->changeFeed());
    }

    void aHealthyServerIsLeftAlone()
    {
        // Nothing said and nothing reopened while the server is there: the same server process
        // serves the console before and after several ticks.
        ChangeFeed &feed = *m_console->changeFeed();
        QSignalSpy unreachable(&feed, &ChangeFeed::unreachable);
        QSignalSpy reachable(&feed, &ChangeFeed::reachable);
        QSqlDatabase &connection = dynamic_cast<SqlStore &>(*m_console).connection();
        const auto backend = [&connection] {
            QSqlQuery pid(connection);
            return pid.exec(QStringLiteral("SELECT pg_backend_pid()")) && pid.next()
                    ? pid.value(0).toLongLong()
                    : -1;
        };
        const qint64 before = backend();
        QTest::qWait(3 * ServerWatch::intervalMs);
        QCOMPARE(unreachable.count(), 0);
        QCOMPARE(reachable.count(), 0);
        QCOMPARE(backend(), before);
        QVERIFY(feed.confirmReachable());
    }

    void aRestartedServerIsSaidAndReconnected()
    {
        ChangeFeed &feed = *m_console->changeFeed();
        QSignalSpy unreachable(&feed, &ChangeFeed::unreachable);
        QSignalSpy reachable(&feed, &ChangeFeed::reachable);
        QSignalSpy changed(&feed, &ChangeFeed::changed);
        const Expected<qint64> before = m_console->countOpenEscalations();
        QVERIFY_OK(before);

        QVERIFY2(m_cluster.halt(), qPrintable(m_cluster.error()));
        // Noticed with no query asked: the listening connection hears the server go.
        QTRY_VERIFY_WITH_TIMEOUT(!unreachable.isEmpty(), noticeMs);
        QVERIFY(!feed.isReachable());
        QVERIFY(!unreachable.at(0).at(0).toString().isEmpty());
        QVERIFY(!m_console->countOpenEscalations());
        // Then why it stays away, once, not once per attempt.
        QTRY_COMPARE_WITH_TIMEOUT(unreachable.count(), 2, noticeMs);
        QCOMPARE(unreachable.constLast().at(0).toString(), QStringLiteral("the server does not answer"));
        QTest::qWait(2 * ServerWatch::intervalMs);
        QCOMPARE(unreachable.count(), 2);
        QCOMPARE(reachable.count(), 0);

        QVERIFY2(m_cluster.launch(), qPrintable(m_cluster.error()));
        QTRY_COMPARE_WITH_TIMEOUT(reachable.count(), 1, noticeMs);
        QVERIFY(feed.isReachable());
        // Anything may have changed while it was away: every view is read again.
        QTRY_VERIFY(!changed.isEmpty());
        QCOMPARE(changed.constLast().at(0).value<StoreAreas>(), everyArea);
        // The statements prepared before are prepared again.
        const Expected<qint64> after = m_console->countOpenEscalations();
        QVERIFY_OK(after);
        QCOMPARE(*after, *before);
    }

    void anotherConsolesChangeIsAnnouncedAfterTheRestart()
    {
        ChangeFeed &feed = *m_console->changeFeed();
        QSignalSpy changed(&feed, &ChangeFeed::changed);
        Expected<std::unique_ptr<Store>> other = another();
        QVERIFY_OK(other);
        const Expected<QList<EscalationRow>> open = (*other)->openEscalations(0, 2);
        QVERIFY_OK(open);
        QVERIFY(open->size() == 2);
        const Expected<EscalationClaim> claim =
                EscalationClaims(**other, QStringLiteral("ben")).claim(open->at(0).id);
        QVERIFY_OK(claim);
        QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty(), 2000);
        QVERIFY(changed.constLast().at(0).value<StoreAreas>() & StoreArea::Escalations);
        // Its own changes are still left out: the process it is served by changed, and it knows.
        changed.clear();
        const Expected<EscalationClaim> own =
                EscalationClaims(*m_console, QStringLiteral("ana")).claim(open->at(1).id);
        QVERIFY_OK(own);
        QTest::qWait(3 * ChangeFeed::gatherMs);
        QVERIFY(changed.isEmpty());
    }

    void anEndedSessionIsReopened()
    {
        // An administrator ends the console's query connection only: the next read fails, and
        // the watch, seeing that connection broken, opens it again.
        ChangeFeed &feed = *m_console->changeFeed();
        QSignalSpy unreachable(&feed, &ChangeFeed::unreachable);
        QSignalSpy reachable(&feed, &ChangeFeed::reachable);
        QSqlQuery pid(dynamic_cast<SqlStore &>(*m_console).connection());
        QVERIFY(pid.exec(QStringLiteral("SELECT pg_backend_pid()")) && pid.next());
        const qint64 backend = pid.value(0).toLongLong();
        pid.finish();
        QVERIFY2(m_cluster.execute(QStringLiteral("SELECT pg_terminate_backend(%1)").arg(backend)),
                 qPrintable(m_cluster.error()));
        QVERIFY(!m_console->countTickets(TicketQuery{}));
        QTRY_COMPARE_WITH_TIMEOUT(reachable.count(), 1, noticeMs);
        QCOMPARE(unreachable.count(), 1);
        QVERIFY_OK(m_console->countTickets(TicketQuery{}));
    }

    void aServerGoneSinceTheLastTickIsNoticedWhenAsked()
    {
        // F5 right after the server went: the question finds it gone before any view is read.
        ChangeFeed &feed = *m_console->changeFeed();
        QSignalSpy reachable(&feed, &ChangeFeed::reachable);
        QVERIFY2(m_cluster.halt(), qPrintable(m_cluster.error()));
        QVERIFY(!feed.confirmReachable());
        QVERIFY2(m_cluster.launch(), qPrintable(m_cluster.error()));
        QTRY_COMPARE_WITH_TIMEOUT(reachable.count(), 1, noticeMs);
        QVERIFY(feed.confirmReachable());
    }

    void cleanupTestCase()
    {
        m_console.reset();
        m_cluster.stop();
    }
};

QTEST_GUILESS_MAIN(LostServerTest)
#include "tst_lostserver.moc"

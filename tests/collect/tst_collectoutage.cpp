// `verity collect` on a team's database while the database server stops and starts again, as an
// operator watching its terminal sees it: one line when the server goes, in Verity's words, one
// when it is back, requests answered 503 meanwhile and stored again after, and none of the lines
// Qt's SQL layer and libpq write on their own for each statement that fails.

#include "support/collectprocess.h"
#include "support/otlppost.h"
#include "support/postgrescluster.h"

#include <QTest>

using namespace verity::test;

class CollectOutageTest : public QObject
{
    Q_OBJECT

private slots:
    void theOutageIsSaidOnceInVeritysWords();
};

void CollectOutageTest::theOutageIsSaidOnceInVeritysWords()
{
    PostgresCluster cluster;
    QVERIFY2(cluster.start(), qPrintable(cluster.error()));
    const QString database = cluster.createDatabase(QStringLiteral("team"));
    QVERIFY2(!database.isEmpty(), qPrintable(cluster.error()));
    CollectProcess receiver(database, QStringLiteral("127.0.0.1:0"));
    QVERIFY(!receiver.url().isEmpty());
    QCOMPARE(postTimedOutCall(receiver.url(), QStringLiteral("1111111111111111"), QStringLiteral("call_1")),
             200);

    QVERIFY2(cluster.halt(), qPrintable(cluster.error()));
    QCOMPARE(postTimedOutCall(receiver.url(), QStringLiteral("2222222222222222"), QStringLiteral("call_2")),
             503);
    QTRY_VERIFY_WITH_TIMEOUT(receiver.logSoFar().contains(QLatin1String("the database is not answering")),
                             10000);
    // Once said, a request is answered at once in those words, not with the driver's.
    QCOMPARE(postTimedOutCall(receiver.url(), QStringLiteral("3333333333333333"), QStringLiteral("call_3")),
             503);
    QTRY_VERIFY(receiver.logSoFar().contains(QLatin1String("nothing stored: the database is not answering")));
    // A while with the server away: the receiver's own timers run meanwhile.
    QTest::qWait(6000);
    QVERIFY2(cluster.launch(), qPrintable(cluster.error()));
    QTRY_VERIFY_WITH_TIMEOUT(receiver.logSoFar().contains(QLatin1String("the database answers again")),
                             15000);
    QCOMPARE(postTimedOutCall(receiver.url(), QStringLiteral("2222222222222222"), QStringLiteral("call_2")),
             200);
    QVERIFY(receiver.stop());

    const QStringList lines = receiver.log().split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.filter(QStringLiteral("verity collect: the database is not answering")).size(), 1);
    QCOMPARE(lines.filter(QStringLiteral("answers again")).size(), 1);
    for (const QString &line : lines) {
        for (const char *chatter : {"QSqlQuery", "QSqlDatabase", "QPSQL", "Unable to free statement",
                                    "QSocketNotifier", "FATAL:"}) {
            QVERIFY2(!line.startsWith(QLatin1String(chatter)), qPrintable(receiver.log()));
        }
        QVERIFY2(line.count(QLatin1String("server closed the connection unexpectedly")) <= 1,
                 qPrintable(line));
    }
}

QTEST_GUILESS_MAIN(CollectOutageTest)
#include "tst_collectoutage.moc"

// The real `verity sandbox` binary: it prints its URL first, keeps everything in its --state
// file across a restart (refunds, balances, idempotency keys), seeds the demo once, stops
// cleanly on SIGTERM, and refuses bad options.

#include "support/inprocesssandbox.h"
#include "support/sandboxprocess.h"

#include <QJsonArray>
#include <QProcess>

using namespace verity;
using namespace verity::test;

namespace {

Form refundForm(qint64 amount)
{
    return {{QStringLiteral("payment_intent"), QStringLiteral("pi_order1")},
            {QStringLiteral("amount"), QString::number(amount)},
            {QStringLiteral("metadata[intent_key]"), QStringLiteral("key-1")}};
}

} // namespace

class TestSandboxCommand : public QObject
{
    Q_OBJECT

private slots:
    void restartKeepsRefundsBalancesAndKeys();
    void seedsTheDemoOnce();
    void refusesBadOptions();
};

void TestSandboxCommand::restartKeepsRefundsBalancesAndKeys()
{
    QTemporaryDir folder;
    const QString state = folder.filePath(QStringLiteral("provider.sqlite"));
    QByteArray firstBody;
    {
        SandboxProcess sandbox({QStringLiteral("--state"), state});
        const QUrl url = sandbox.waitForUrl();
        QVERIFY(url.isValid());
        QCOMPARE(url.host(), QStringLiteral("127.0.0.1"));
        QVERIFY(sandbox.banner().contains(QStringLiteral("api key: sk_test_sandbox")));
        SandboxHttp http(url);
        QCOMPARE(http.createAccount(QStringLiteral("acct_shop"), 10000).status, 200);
        QCOMPARE(http.createPayment(QStringLiteral("pi_order1"), 5000, QStringLiteral("acct_shop")).status,
                 200);
        const HttpResult refund =
                http.post(QStringLiteral("/v1/refunds"), refundForm(1200), {{"Idempotency-Key", "key-1"}});
        QCOMPARE(refund.status, 200);
        firstBody = refund.body;
        QVERIFY(sandbox.stop());
    }
    SandboxProcess restarted({QStringLiteral("--state"), state});
    const QUrl url = restarted.waitForUrl();
    QVERIFY(url.isValid());
    SandboxHttp http(url);
    QCOMPARE(http.refundsOf(QStringLiteral("pi_order1")).size(), 1);
    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 8800);
    const HttpResult replay =
            http.post(QStringLiteral("/v1/refunds"), refundForm(1200), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(replay.status, 200);
    QCOMPARE(replay.body, firstBody);
    QCOMPARE(replay.headers.value("idempotent-replayed"), QByteArray("true"));
    const HttpResult other =
            http.post(QStringLiteral("/v1/refunds"), refundForm(1300), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(other.status, 400);
    QCOMPARE(other.errorField("type"), QStringLiteral("idempotency_error"));
    QCOMPARE(http.refundsOf(QStringLiteral("pi_order1")).size(), 1);
    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 8800);
    QVERIFY(restarted.stop());
}

void TestSandboxCommand::seedsTheDemoOnce()
{
    QTemporaryDir folder;
    const QString state = folder.filePath(QStringLiteral("provider.sqlite"));
    QJsonArray incident;
    {
        SandboxProcess sandbox({QStringLiteral("--state"), state, QStringLiteral("--seed-demo"),
                                QStringLiteral("--api-key"), QStringLiteral("sk_test_demo")});
        const QUrl url = sandbox.waitForUrl();
        QVERIFY(url.isValid());
        QVERIFY(sandbox.banner().contains(QStringLiteral("demo data: 12 sellers")));
        QVERIFY2(sandbox.banner().contains(
                         QStringLiteral("7 pickups, 12 messages; unknown writes that never reached their "
                                        "system: refunds T-20260331-0158/c3, T-20260402-0287/c3; "
                                        "pickups T-20260402-0502/c3; messages T-20260330-0362/c2")),
                 qPrintable(sandbox.banner()));
        SandboxHttp http(url, QStringLiteral("sk_test_demo"));
        QCOMPARE(http.balance(QStringLiteral("ashcombe-furniture")), -4700);
        incident = http.refundsOf(QStringLiteral("pi_SU-88421"));
        QCOMPARE(incident.size(), 2);
        QVERIFY(sandbox.stop());
    }
    SandboxProcess again({QStringLiteral("--state"), state, QStringLiteral("--seed-demo"),
                          QStringLiteral("--api-key"), QStringLiteral("sk_test_demo")});
    const QUrl url = again.waitForUrl();
    QVERIFY(url.isValid());
    QVERIFY(again.banner().contains(QStringLiteral("already seeded")));
    SandboxHttp http(url, QStringLiteral("sk_test_demo"));
    QCOMPARE(http.refundsOf(QStringLiteral("pi_SU-88421")), incident);
    QCOMPARE(http.get(QStringLiteral("/v1/pickups?limit=100"))
                     .json.value(QStringLiteral("data"))
                     .toArray()
                     .size(),
             7);
    QCOMPARE(http.balance(QStringLiteral("ashcombe-furniture")), -4700);
    QVERIFY(again.stop());
}

void TestSandboxCommand::refusesBadOptions()
{
    for (const QStringList &arguments :
         {QStringList{QStringLiteral("--fault-mode"), QStringLiteral("sometimes")},
          QStringList{QStringLiteral("--fault-rate"), QStringLiteral("0.5")},
          QStringList{QStringLiteral("--port"), QStringLiteral("70000")}}) {
        QProcess process;
        process.start(QStringLiteral(VERITY_BINARY), QStringList{QStringLiteral("sandbox")} + arguments);
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(process.exitCode(), 2);
        QVERIFY(process.readAllStandardError().startsWith("verity sandbox: "));
    }
}

QTEST_GUILESS_MAIN(TestSandboxCommand)
#include "tst_sandboxcommand.moc"

// The fault grammar the simulator needs, on the real server: stalls in milliseconds, several
// faults in one value (each request meets the first that applies to it), faults named in a
// path prefix for clients that take only a base URL, and refund ids derived instead of random.

#include "support/inprocesssandbox.h"

#include <QElapsedTimer>

using namespace verity;
using namespace verity::test;

namespace {

const QString refunds = QStringLiteral("/v1/refunds");

Form refundForm(const QString &key, qint64 amount = 1200)
{
    return {{QStringLiteral("payment_intent"), QStringLiteral("pi_order1")},
            {QStringLiteral("amount"), QString::number(amount)},
            {QStringLiteral("metadata[intent_key]"), key}};
}

} // namespace

class TestSandboxFaults : public QObject
{
    Q_OBJECT

private slots:
    void grammar_data();
    void grammar();
    void lists();
    void millisecondStall();
    void severalFaultsInOneHeader();
    void faultInThePath();
    void derivedRefundIds();
};

void TestSandboxFaults::grammar_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("stallMs");
    QTest::newRow("seconds") << QStringLiteral("accept-then-stall=2s") << true << 2000;
    QTest::newRow("milliseconds") << QStringLiteral("accept-then-stall=600ms") << true << 600;
    QTest::newRow("an hour in ms") << QStringLiteral("accept-then-stall=3600000ms") << true << 3600000;
    QTest::newRow("over an hour in ms") << QStringLiteral("accept-then-stall=3600001ms") << false << 0;
    QTest::newRow("zero ms") << QStringLiteral("accept-then-stall=0ms") << false << 0;
    QTest::newRow("no unit") << QStringLiteral("accept-then-stall=600") << false << 0;
    QTest::newRow("fail") << QStringLiteral("fail-before-accept=503") << true << 0;
}

void TestSandboxFaults::grammar()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QFETCH(int, stallMs);
    const std::optional<SandboxFault> fault = SandboxFault::parse(text);
    QCOMPARE(fault.has_value(), valid);
    if (fault) {
        QCOMPARE(fault->stallMs(), stallMs);
        QCOMPARE(fault->text(), text); // written back as read
    }
}

void TestSandboxFaults::lists()
{
    const std::optional<QList<SandboxFault>> two =
            SandboxFault::parseList(QStringLiteral("accept-then-stall=600ms, fail-before-accept=503"));
    QVERIFY(two.has_value());
    QCOMPARE(two->size(), 2);
    QVERIFY(two->at(0).appliesTo(true) && !two->at(0).appliesTo(false));
    QVERIFY(two->at(1).appliesTo(true) && two->at(1).appliesTo(false));
    QVERIFY(!SandboxFault::parseList(QStringLiteral("accept-then-500,soon")).has_value());
    QCOMPARE(SandboxFault::parseList(QStringLiteral("accept-then-500"))->size(), 1);
}

void TestSandboxFaults::millisecondStall()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    QElapsedTimer clock;
    clock.start();
    const HttpResult held =
            http.post(refunds, refundForm(QStringLiteral("key-1")),
                      {{"Idempotency-Key", "key-1"}, {"Sandbox-Fault", "accept-then-stall=300ms"}});
    QCOMPARE(held.status, 200);
    QVERIFY(clock.elapsed() >= 300);
    QVERIFY(clock.elapsed() < 900);
    QCOMPARE(sandbox.refundCount(), 1);
}

void TestSandboxFaults::severalFaultsInOneHeader()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    const Headers faults{{"Sandbox-Fault", "accept-then-500,fail-before-accept=503"}};
    // The refund POST meets the first (it applies to refund POSTs)...
    Headers post = faults;
    post.append(std::pair<QByteArray, QByteArray>("Idempotency-Key", "key-1"));
    QCOMPARE(http.post(refunds, refundForm(QStringLiteral("key-1")), post).status, 500);
    QCOMPARE(sandbox.refundCount(), 1);
    // ...a read meets the second, which applies to any request.
    QCOMPARE(http.get(refunds + QStringLiteral("?payment_intent=pi_order1"), faults).status, 503);
    // A single accept-then-* on a read is still refused, as before.
    const HttpResult single = http.get(refunds, {{"Sandbox-Fault", "accept-then-500"}});
    QCOMPARE(single.status, 400);
    QCOMPARE(single.errorField("param"), QStringLiteral("Sandbox-Fault"));
}

void TestSandboxFaults::faultInThePath()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    const QString stalled = QStringLiteral("/sandbox-fault/accept-then-stall=200ms,fail-before-accept=503");
    QElapsedTimer clock;
    clock.start();
    const HttpResult post =
            http.post(stalled + refunds, refundForm(QStringLiteral("key-1")), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(post.status, 200);
    QVERIFY(clock.elapsed() >= 200);
    QCOMPARE(sandbox.refundCount(), 1);
    QCOMPARE(http.get(stalled + refunds + QStringLiteral("?payment_intent=pi_order1")).status, 503);
    // Alone in a path, an accept-then-* leaves the reads alone: one base URL serves both.
    const QString stallOnly = QStringLiteral("/sandbox-fault/accept-then-stall=200ms");
    const HttpResult read = http.get(stallOnly + refunds + QStringLiteral("?payment_intent=pi_order1"));
    QCOMPARE(read.status, 200);
    QCOMPARE(read.json.value(QStringLiteral("data")).toArray().size(), 1);
    // A header wins over the path.
    const HttpResult header =
            http.post(stallOnly + refunds, refundForm(QStringLiteral("key-2")),
                      {{"Idempotency-Key", "key-2"}, {"Sandbox-Fault", "fail-before-accept=502"}});
    QCOMPARE(header.status, 502);
    QCOMPARE(sandbox.refundCount(), 1);
    QCOMPARE(http.post(QStringLiteral("/sandbox-fault/soon") + refunds, refundForm(QStringLiteral("key-3")))
                     .status,
             400);
    QVERIFY(sandbox.drainHeldAnswers());
}

void TestSandboxFaults::derivedRefundIds()
{
    QString ids[2];
    for (QString &id : ids) {
        SandboxOptions options;
        options.derivedRefundIds = true;
        InProcessSandbox sandbox(options);
        SandboxHttp http(sandbox.url());
        setUpSeller(http);
        const HttpResult first =
                http.post(refunds, refundForm(QStringLiteral("key-1")), {{"Idempotency-Key", "key-1"}});
        const HttpResult second =
                http.post(refunds, refundForm(QStringLiteral("key-2")), {{"Idempotency-Key", "key-2"}});
        QCOMPARE(first.status, 200);
        QVERIFY(first.json.value(QStringLiteral("id")).toString()
                != second.json.value(QStringLiteral("id")).toString());
        id = first.json.value(QStringLiteral("id")).toString();
        QVERIFY(id.startsWith(QStringLiteral("re_")));
    }
    QCOMPARE(ids[0], ids[1]); // two sandboxes, the same requests, the same id
    InProcessSandbox random;
    SandboxHttp http(random.url());
    setUpSeller(http);
    QVERIFY(http.post(refunds, refundForm(QStringLiteral("key-1")), {{"Idempotency-Key", "key-1"}})
                    .json.value(QStringLiteral("id"))
                    .toString()
            != ids[0]);
}

QTEST_GUILESS_MAIN(TestSandboxFaults)
#include "tst_sandboxfaults.moc"

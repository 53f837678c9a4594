// The provider client against the real sandbox server on loopback: the refund POST is sent
// once and classified, the lookup finds, misses or cannot tell, reads are retried, and the
// evidence names every exchange with the key redacted.

#include "provider/providerclient.h"
#include "support/inprocesssandbox.h"
#include "support/loopbackprovider.h"
#include "support/provider.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>

using namespace verity;
using namespace verity::test;

namespace {

// Not a provider: a broken hop in front of one. Reads each whole HTTP request, counts it,
// and either closes the connection without an answer (the provider that accepted and then
// vanished) or gives the same canned answer every time (a gateway that keeps failing).
class BrokenHop : public QObject
{
public:
    explicit BrokenHop(QByteArray cannedAnswer = {})
        : m_answer(std::move(cannedAnswer))
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort())); }
    int requests() const { return m_requests; }

private:
    void read(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        qsizetype length = 0;
        for (const QByteArray &line : buffer.left(end).split('\n')) {
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        }
        if (buffer.size() < end + 4 + length)
            return;
        ++m_requests;
        m_buffers.remove(socket);
        if (!m_answer.isEmpty())
            socket->write(m_answer);
        socket->disconnectFromHost();
    }

    QByteArray m_answer;
    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    int m_requests = 0;
};

} // namespace

class TestProviderClient : public QObject
{
    Q_OBJECT

private slots:
    void acceptedRefundCarriesTheKey();
    void replayIsAcceptedAndMarked();
    void stallIsAmbiguousAndTheLookupFindsOneRefund();
    void acceptThen500IsAmbiguousAndSentOnce();
    void failBeforeAcceptIsAmbiguousAndMovesNothing();
    void keyUsedWithOtherParametersIsAmbiguous();
    void validationRefusalIsRefused();
    void droppedConnectionIsAmbiguousAndNeverResent();
    void deadProviderRefusesThePostAndLookupRetries();
    void failingGatewayIsRetriedThenCannotTell();
    void wrongKeyIsRefusedAndNotRetried();
    void lookupNotFoundForAnUnusedKey();
    void legacyRefundWithoutKeyCannotBeTold();
    void lookupFollowsPages();
    void wrongBaseUrlCannotTell();
    void cancelFinishesOnceAsAmbiguous();
};

void TestProviderClient::acceptedRefundCarriesTheKey()
{
    InProcessSandbox sandbox;
    setUpSeller(sandbox.url());
    ProviderClient client(settingsFor(sandbox.url()));
    const RefundAttempt attempt = refundNow(client, intentFor(QStringLiteral("key-1")));
    QCOMPARE(attempt.kind, RefundAttempt::Kind::Accepted);
    QCOMPARE(attempt.httpStatus, 200);
    QVERIFY(!attempt.replayed);
    QVERIFY(attempt.refund);
    QCOMPARE(attempt.refund->amountCents, 1200);
    QCOMPARE(attempt.refund->currency, QStringLiteral("USD"));
    QCOMPARE(attempt.refund->intentKey, QStringLiteral("key-1"));
    QCOMPARE(attempt.refund->paymentIntent, QStringLiteral("pi_order1"));
    QCOMPARE(attempt.refund->status, QStringLiteral("succeeded"));
    QVERIFY(attempt.refund->createdMs > 0);

    QCOMPARE(attempt.exchanges.size(), 1);
    const HttpExchange &exchange = attempt.exchanges.first();
    QVERIFY(exchange.startedAt > 0 && exchange.finishedAt >= exchange.startedAt);
    QVERIFY(exchange.request.startsWith(QStringLiteral("POST http://127.0.0.1:")));
    QVERIFY(exchange.request.contains(QStringLiteral("Authorization: Bearer sk_…dbox")));
    QVERIFY(!exchange.request.contains(sandboxApiKey));
    QVERIFY(exchange.request.contains(QStringLiteral("Idempotency-Key: key-1")));
    QVERIFY(exchange.request.contains(QStringLiteral("metadata%5Bintent_key%5D=key-1")));
    QVERIFY(exchange.response.startsWith(QStringLiteral("HTTP 200")));
    QVERIFY(exchange.response.contains(attempt.refund->id));

    SandboxHttp http(sandbox.url());
    const QJsonArray refunds = http.refundsOf(QStringLiteral("pi_order1"));
    QCOMPARE(refunds.size(), 1);
    QCOMPARE(refunds.at(0)
                     .toObject()
                     .value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("ticket_id"))
                     .toString(),
             QStringLiteral("T-1"));
}

void TestProviderClient::replayIsAcceptedAndMarked()
{
    InProcessSandbox sandbox;
    setUpSeller(sandbox.url());
    ProviderClient client(settingsFor(sandbox.url()));
    const RefundAttempt first = refundNow(client, intentFor(QStringLiteral("key-1")));
    const RefundAttempt second = refundNow(client, intentFor(QStringLiteral("key-1")));
    QCOMPARE(second.kind, RefundAttempt::Kind::Accepted);
    QVERIFY(second.replayed);
    QCOMPARE(second.refund->id, first.refund->id);
    QCOMPARE(sandbox.refundCount(), 1);
}

void TestProviderClient::stallIsAmbiguousAndTheLookupFindsOneRefund()
{
    InProcessSandbox sandbox(faulty(QStringLiteral("accept-then-stall=1s")));
    setUpSeller(sandbox.url());
    ProviderClient client(settingsFor(sandbox.url(), 300));
    const RefundIntent intent = intentFor(QStringLiteral("key-stalled"));
    const RefundAttempt attempt = refundNow(client, intent);
    QCOMPARE(attempt.kind, RefundAttempt::Kind::Ambiguous);
    QCOMPARE(attempt.httpStatus, 0);
    QVERIFY2(attempt.reason.contains(QStringLiteral("timed out after 300 ms")), qPrintable(attempt.reason));
    QCOMPARE(attempt.exchanges.size(), 1);

    const LookupAnswer answer = lookupNow(client, intent);
    QCOMPARE(answer.verdict, LookupVerdict::Found);
    QVERIFY(answer.refund);
    QCOMPARE(answer.refund->intentKey, intent.intentKey);
    QCOMPARE(answer.refund->amountCents, 1200);
    QVERIFY(answer.reason.contains(answer.refund->id));
    QCOMPARE(answer.exchanges.size(), 1);
    QVERIFY(answer.exchanges.first().request.startsWith(QStringLiteral("GET ")));
    QVERIFY(answer.exchanges.first().request.contains(QStringLiteral("payment_intent=pi_order1")));

    QVERIFY(sandbox.drainHeldAnswers());
    QCOMPARE(sandbox.refundCount(), 1);
}

void TestProviderClient::acceptThen500IsAmbiguousAndSentOnce()
{
    InProcessSandbox sandbox(faulty(QStringLiteral("accept-then-500")));
    setUpSeller(sandbox.url());
    ProviderClient client(settingsFor(sandbox.url()));
    const RefundIntent intent = intentFor(QStringLiteral("key-500"));
    const RefundAttempt attempt = refundNow(client, intent);
    QCOMPARE(attempt.kind, RefundAttempt::Kind::Ambiguous);
    QCOMPARE(attempt.httpStatus, 500);
    QCOMPARE(attempt.exchanges.size(), 1);
    QCOMPARE(sandbox.refundCount(), 1);
    QCOMPARE(lookupNow(client, intent).verdict, LookupVerdict::Found);
}

void TestProviderClient::failBeforeAcceptIsAmbiguousAndMovesNothing()
{
    // A 503 could come from anywhere between us and the provider: the client cannot know it
    // came before the commit, so it must not call it "not performed". The lookup can.
    InProcessSandbox sandbox(faulty(QStringLiteral("fail-before-accept=503")));
    setUpSeller(sandbox.url());
    ProviderClient client(settingsFor(sandbox.url()));
    const RefundIntent intent = intentFor(QStringLiteral("key-503"));
    const RefundAttempt attempt = refundNow(client, intent);
    QCOMPARE(attempt.kind, RefundAttempt::Kind::Ambiguous);
    QCOMPARE(attempt.httpStatus, 503);
    QCOMPARE(sandbox.refundCount(), 0);
    const LookupAnswer none = lookupNow(client, intent);
    QCOMPARE(none.verdict, LookupVerdict::NotFound);
    QVERIFY2(none.reason.startsWith(QStringLiteral("the provider holds no refund of ")),
             qPrintable(none.reason));
}

void TestProviderClient::keyUsedWithOtherParametersIsAmbiguous()
{
    InProcessSandbox sandbox;
    setUpSeller(sandbox.url());
    ProviderClient client(settingsFor(sandbox.url()));
    QCOMPARE(refundNow(client, intentFor(QStringLiteral("key-1"), 1200)).kind, RefundAttempt::Kind::Accepted);
    const RefundAttempt other = refundNow(client, intentFor(QStringLiteral("key-1"), 1300));
    QCOMPARE(other.kind, RefundAttempt::Kind::Ambiguous);
    QCOMPARE(other.httpStatus, 400);
    QVERIFY(other.reason.contains(QStringLiteral("used before")));
    QCOMPARE(sandbox.refundCount(), 1);
}

void TestProviderClient::validationRefusalIsRefused()
{
    InProcessSandbox sandbox;
    setUpSeller(sandbox.url());
    ProviderClient client(settingsFor(sandbox.url()));
    const RefundAttempt tooMuch = refundNow(client, intentFor(QStringLiteral("key-big"), 9900));
    QCOMPARE(tooMuch.kind, RefundAttempt::Kind::Refused);
    QCOMPARE(tooMuch.httpStatus, 400);
    QVERIFY2(tooMuch.reason.contains(QStringLiteral("greater than what remains refundable")),
             qPrintable(tooMuch.reason));
    const RefundAttempt unknown =
            refundNow(client, intentFor(QStringLiteral("key-x"), 100, QStringLiteral("pi_nothing")));
    QCOMPARE(unknown.kind, RefundAttempt::Kind::Refused);
    QVERIFY(unknown.reason.contains(QStringLiteral("No such payment_intent")));
    RefundIntent keyless = intentFor(QString());
    const RefundAttempt notSent = refundNow(client, keyless);
    QCOMPARE(notSent.kind, RefundAttempt::Kind::Refused);
    QVERIFY(notSent.exchanges.isEmpty());
    QCOMPARE(sandbox.refundCount(), 0);
}

void TestProviderClient::droppedConnectionIsAmbiguousAndNeverResent()
{
    BrokenHop provider;
    ProviderClient client(settingsFor(provider.url()));
    const RefundAttempt attempt = refundNow(client, intentFor(QStringLiteral("key-dropped")));
    QCOMPARE(attempt.kind, RefundAttempt::Kind::Ambiguous);
    QCOMPARE(attempt.httpStatus, 0);
    // Qt 6.4 does try to re-send a POST whose connection closed without an answer; the body
    // that cannot be rewound turns that into an error.
    QVERIFY2(attempt.reason.contains(QStringLiteral("not sent again")), qPrintable(attempt.reason));
    QTest::qWait(200); // a re-send, if Qt made one, would arrive now
    QCOMPARE(provider.requests(), 1);
}

void TestProviderClient::deadProviderRefusesThePostAndLookupRetries()
{
    ProviderSettings settings = settingsFor(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(deadPort())));
    settings.maxLookupAttempts = 3;
    ProviderClient client(settings);
    const RefundAttempt attempt = refundNow(client, intentFor(QStringLiteral("key-1")));
    QCOMPARE(attempt.kind, RefundAttempt::Kind::Refused);
    QVERIFY2(attempt.reason.contains(QStringLiteral("connection refused")), qPrintable(attempt.reason));

    LookupOperation *operation = client.lookup(intentFor(QStringLiteral("key-1")));
    QSignalSpy progress(operation, &LookupOperation::progress);
    const LookupAnswer answer = ProviderClient::waitFor(operation);
    operation->deleteLater();
    QCOMPARE(answer.verdict, LookupVerdict::CouldNotTell);
    QCOMPARE(answer.exchanges.size(), 3);
    QVERIFY2(answer.reason.contains(QStringLiteral("gave up after 3 attempts")), qPrintable(answer.reason));
    QVERIFY(answer.reason.contains(QStringLiteral("connection refused")));
    QVERIFY(progress.count() >= 5); // three attempts, two waits
}

void TestProviderClient::failingGatewayIsRetriedThenCannotTell()
{
    const QByteArray body = R"({"error": {"type": "api_error", "message": "upstream unavailable"}})";
    for (const QByteArray &status :
         {QByteArray("503 Service Unavailable"), QByteArray("429 Too Many Requests")}) {
        BrokenHop gateway("HTTP/1.1 " + status
                          + "\r\nContent-Type: application/json\r\nRetry-After: 0\r\n"
                            "Content-Length: "
                          + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        ProviderSettings settings = settingsFor(gateway.url());
        settings.maxLookupAttempts = 3;
        ProviderClient client(settings);
        const LookupAnswer answer = lookupNow(client, intentFor(QStringLiteral("key-1")));
        QCOMPARE(answer.verdict, LookupVerdict::CouldNotTell);
        QCOMPARE(answer.exchanges.size(), 3);
        QCOMPARE(gateway.requests(), 3);
        QVERIFY2(answer.reason.contains(QStringLiteral("upstream unavailable")), qPrintable(answer.reason));
        // The POST meets the same gateway once, and a 5xx leaves it ambiguous, a 429 refused.
        const RefundAttempt attempt = refundNow(client, intentFor(QStringLiteral("key-1")));
        QCOMPARE(attempt.kind,
                 status.startsWith("5") ? RefundAttempt::Kind::Ambiguous : RefundAttempt::Kind::Refused);
        QCOMPARE(gateway.requests(), 4);
    }
}

void TestProviderClient::wrongKeyIsRefusedAndNotRetried()
{
    InProcessSandbox sandbox;
    setUpSeller(sandbox.url());
    ProviderSettings settings = settingsFor(sandbox.url());
    settings.apiKey = QStringLiteral("sk_test_not_the_key");
    ProviderClient client(settings);
    const RefundAttempt attempt = refundNow(client, intentFor(QStringLiteral("key-1")));
    QCOMPARE(attempt.kind, RefundAttempt::Kind::Refused);
    QCOMPARE(attempt.httpStatus, 401);
    QVERIFY(attempt.reason.contains(QStringLiteral("Invalid API Key")));
    const LookupAnswer answer = lookupNow(client, intentFor(QStringLiteral("key-1")));
    QCOMPARE(answer.verdict, LookupVerdict::CouldNotTell);
    QCOMPARE(answer.exchanges.size(), 1);
    QVERIFY(answer.reason.contains(QStringLiteral("refused the API key")));
    QVERIFY(!answer.exchanges.first().request.contains(settings.apiKey));
    QCOMPARE(sandbox.refundCount(), 0);
}

void TestProviderClient::lookupNotFoundForAnUnusedKey()
{
    InProcessSandbox sandbox;
    setUpSeller(sandbox.url());
    ProviderClient client(settingsFor(sandbox.url()));
    QCOMPARE(refundNow(client, intentFor(QStringLiteral("key-used"), 700)).kind,
             RefundAttempt::Kind::Accepted);
    const LookupAnswer answer = lookupNow(client, intentFor(QStringLiteral("key-never-used"), 1200));
    QCOMPARE(answer.verdict, LookupVerdict::NotFound);
    QVERIFY(!answer.refund);
    QVERIFY(answer.reason.contains(QStringLiteral("none of the 1 refund of")));
}

void TestProviderClient::legacyRefundWithoutKeyCannotBeTold()
{
    InProcessSandbox sandbox;
    setUpSeller(sandbox.url());
    SandboxHttp http(sandbox.url());
    const HttpResult legacy = http.post(QStringLiteral("/v1/refunds"),
                                        {{QStringLiteral("payment_intent"), QStringLiteral("pi_order1")},
                                         {QStringLiteral("amount"), QStringLiteral("1200")}});
    QCOMPARE(legacy.status, 200);
    ProviderClient client(settingsFor(sandbox.url()));
    const LookupAnswer answer = lookupNow(client, intentFor(QStringLiteral("key-1"), 1200));
    QCOMPARE(answer.verdict, LookupVerdict::CouldNotTell);
    QVERIFY2(answer.reason.contains(legacy.json.value(QStringLiteral("id")).toString()),
             qPrintable(answer.reason));
    // Another amount is not this refund.
    QCOMPARE(lookupNow(client, intentFor(QStringLiteral("key-2"), 1300)).verdict, LookupVerdict::NotFound);
}

void TestProviderClient::lookupFollowsPages()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_shop"), 100000).status, 200);
    QCOMPARE(http.createPayment(QStringLiteral("pi_big"), 20000, QStringLiteral("acct_shop")).status, 200);
    ProviderClient client(settingsFor(sandbox.url()));
    // The refund looked for is the oldest of 130: on the second page of 100.
    const RefundAttempt wanted =
            refundNow(client, intentFor(QStringLiteral("key-wanted"), 10, QStringLiteral("pi_big")));
    QCOMPARE(wanted.kind, RefundAttempt::Kind::Accepted);
    for (int i = 0; i < 129; ++i) {
        QCOMPARE(http.post(QStringLiteral("/v1/refunds"),
                           {{QStringLiteral("payment_intent"), QStringLiteral("pi_big")},
                            {QStringLiteral("amount"), QStringLiteral("100")},
                            {QStringLiteral("metadata[intent_key]"), QStringLiteral("other-%1").arg(i)}})
                         .status,
                 200);
    }
    const LookupAnswer answer =
            lookupNow(client, intentFor(QStringLiteral("key-wanted"), 10, QStringLiteral("pi_big")));
    QCOMPARE(answer.verdict, LookupVerdict::Found);
    QCOMPARE(answer.refund->id, wanted.refund->id);
    QCOMPARE(answer.exchanges.size(), 2);
    QVERIFY(answer.exchanges.last().request.contains(QStringLiteral("starting_after=")));
}

void TestProviderClient::wrongBaseUrlCannotTell()
{
    InProcessSandbox sandbox;
    setUpSeller(sandbox.url());
    QUrl wrong = sandbox.url();
    wrong.setPath(QStringLiteral("/not-the-api"));
    ProviderClient client(settingsFor(wrong));
    const LookupAnswer answer = lookupNow(client, intentFor(QStringLiteral("key-1")));
    QCOMPARE(answer.verdict, LookupVerdict::CouldNotTell);
    QCOMPARE(answer.exchanges.size(), 1);
    QVERIFY(answer.exchanges.first().request.contains(QStringLiteral("/not-the-api/v1/refunds")));
    // An unknown payment is no "not found" either.
    ProviderClient right(settingsFor(sandbox.url()));
    QCOMPARE(
            lookupNow(right, intentFor(QStringLiteral("key-1"), 100, QStringLiteral("pi_elsewhere"))).verdict,
            LookupVerdict::CouldNotTell);
}

void TestProviderClient::cancelFinishesOnceAsAmbiguous()
{
    InProcessSandbox sandbox(faulty(QStringLiteral("accept-then-stall=1s")));
    setUpSeller(sandbox.url());
    ProviderClient client(settingsFor(sandbox.url()));
    RefundOperation *operation = client.refund(intentFor(QStringLiteral("key-cancelled")));
    QSignalSpy finished(operation, &RefundOperation::finished);
    QVERIFY(QTest::qWaitFor([&] { return sandbox.refundCount() == 1; }, 5000));
    operation->cancel();
    operation->cancel();
    QCOMPARE(finished.count(), 1);
    const RefundAttempt attempt = ProviderClient::waitFor(operation);
    QCOMPARE(attempt.kind, RefundAttempt::Kind::Ambiguous);
    QVERIFY(attempt.reason.contains(QStringLiteral("cancelled by the operator")));
    operation->deleteLater();

    LookupOperation *lookup = client.lookup(intentFor(QStringLiteral("key-cancelled")));
    lookup->cancel();
    QCOMPARE(ProviderClient::waitFor(lookup).verdict, LookupVerdict::CouldNotTell);
    lookup->deleteLater();
    QVERIFY(sandbox.drainHeldAnswers());
    QCOMPARE(sandbox.refundCount(), 1);
}

QTEST_GUILESS_MAIN(TestProviderClient)
#include "tst_providerclient.moc"

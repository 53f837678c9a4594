// The lookup of a pickup or a message in the system it went to, and the one-shot POST that
// makes one, against the real sandbox on loopback: found, not found, every page read, a 500
// retried, a stalled answer that cannot tell, anything unreadable that cannot tell, and a
// POST that is never sent twice. Also how the registry's lookup becomes one call's query.

#include "provider/recordwrite.h"
#include "support/inprocesssandbox.h"
#include "support/provider.h"
#include "support/testmacros.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>

using namespace verity;
using namespace verity::test;

namespace {

RecordQuery pickupsOf(const QString &order, const QString &intentKey)
{
    return RecordQuery{QStringLiteral("courier"),
                       QStringLiteral("/v1/pickups"),
                       {{QStringLiteral("order"), order}},
                       QStringLiteral("metadata.intent_key"),
                       intentKey};
}

RecordWrite pickupFor(const QString &order, const QString &intentKey)
{
    return RecordWrite{QStringLiteral("courier"),
                       QStringLiteral("/v1/pickups"),
                       intentKey,
                       {{QStringLiteral("order"), order},
                        {QStringLiteral("item"), QStringLiteral("GW-PAR3")},
                        {QStringLiteral("metadata[ticket_id]"), QStringLiteral("T-1")}}};
}

RecordLookupAnswer lookUp(const ProviderSettings &settings, const RecordQuery &query)
{
    RecordLookupOperation operation(settings, query);
    return RecordLookupOperation::waitFor(&operation);
}

RecordWriteAttempt post(const ProviderSettings &settings, const RecordWrite &write)
{
    RecordWriteOperation operation(settings, write);
    return RecordWriteOperation::waitFor(&operation);
}

// Not a system: a hop in front of one. Each connection it accepts meets the next step of its
// script (the last step for every connection after): forwarded to the sandbox, answered 500
// and closed, held without an answer, or closed without an answer once the whole request
// (its body included) has arrived. It counts the requests it did not forward.
class Gateway : public QObject
{
public:
    enum class Step { Forward, Fail500, Hold, Drop };

    Gateway(QList<Step> script, QUrl upstream = {})
        : m_script(std::move(script))
        , m_upstream(std::move(upstream))
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *client = m_server.nextPendingConnection()) {
                const Step step = m_script.size() > 1 ? m_script.takeFirst() : m_script.first();
                connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
                if (step == Step::Forward)
                    forward(client);
                else
                    connect(client, &QTcpSocket::readyRead, this,
                            [this, client, step] { answer(client, step); });
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort())); }
    int requests() const { return m_requests; }

private:
    void forward(QTcpSocket *client)
    {
        auto *upstream = new QTcpSocket(client);
        upstream->connectToHost(QHostAddress::LocalHost, quint16(m_upstream.port()));
        // Bytes from the client wait in its socket until the upstream connection is up.
        const auto pipe = [client, upstream] {
            if (upstream->state() == QAbstractSocket::ConnectedState)
                upstream->write(client->readAll());
        };
        connect(upstream, &QTcpSocket::connected, client, pipe);
        connect(client, &QTcpSocket::readyRead, upstream, pipe);
        connect(upstream, &QTcpSocket::readyRead, client,
                [client, upstream] { client->write(upstream->readAll()); });
        connect(upstream, &QTcpSocket::disconnected, client, &QTcpSocket::disconnectFromHost);
    }

    // True once the whole request (head and Content-Length bytes of body) is in `buffer`.
    static bool wholeRequest(const QByteArray &buffer)
    {
        const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return false;
        static const QRegularExpression contentLength(QStringLiteral("\r\ncontent-length: *([0-9]+)"),
                                                      QRegularExpression::CaseInsensitiveOption);
        const QRegularExpressionMatch match = contentLength.match(QString::fromLatin1(buffer.left(headEnd)));
        return buffer.size() >= headEnd + 4 + (match.hasMatch() ? match.captured(1).toLongLong() : 0);
    }

    void answer(QTcpSocket *client, Step step)
    {
        QByteArray &buffer = m_buffers[client];
        buffer += client->readAll();
        if (!wholeRequest(buffer))
            return;
        m_buffers.remove(client);
        ++m_requests;
        if (step == Step::Hold)
            return;
        if (step == Step::Fail500) {
            const QByteArray body = R"({"error": {"type": "api_error", "message": "the gateway failed"}})";
            client->write("HTTP/1.1 500 Internal Server Error\r\nContent-Type: "
                          "application/json\r\nConnection: close\r\n"
                          "Content-Length: "
                          + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        }
        client->disconnectFromHost();
    }

    QList<Step> m_script;
    QUrl m_upstream;
    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    int m_requests = 0;
};

} // namespace

class TestRecordLookup : public QObject
{
    Q_OBJECT

private slots:
    void queryFromTheRegistry_data();
    void queryFromTheRegistry();
    void postedRecordIsFound();
    void unusedKeyIsNotFound();
    void followsEveryPage();
    void retriesA500ThenReads();
    void stalledAnswerCannotTell();
    void unreadableAnswersCannotTell();
    void postIsSentOnceAndItsAnswerClassified();
    void droppedPostIsNeverSentAgain();
    void cancelFinishesOnce();
};

void TestRecordLookup::queryFromTheRegistry_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("arguments");
    QTest::addColumn<TicketFacts>("ticket");
    QTest::addColumn<QString>("filterValue"); // empty: an error
    QTest::addColumn<QString>("errorMentions");

    const TicketFacts ticket{{QStringLiteral("ticket_id"), QStringLiteral("T-1")},
                             {QStringLiteral("order_id"), QStringLiteral("SU-TICKET")}};
    QTest::newRow("pickup: the call's order")
            << "schedule_pickup"
            << R"({"order_id": "SU-88316", "item_id": "X"})" << ticket << "SU-88316" << QString();
    QTest::newRow("pickup: a whole-number order")
            << "schedule_pickup"
            << R"({"order_id": 88316})" << ticket << "88316" << QString();
    QTest::newRow("pickup: the ticket's order when the call has none")
            << "schedule_pickup"
            << R"({"item_id": "X"})" << ticket << "SU-TICKET" << QString();
    QTest::newRow("pickup: a null order is a missing one")
            << "schedule_pickup"
            << R"({"order_id": null})" << ticket << "SU-TICKET" << QString();
    QTest::newRow("message: no order argument, the ticket's")
            << "message_seller"
            << R"({"seller_id": "s", "text": "hi"})" << ticket << "SU-TICKET" << QString();
    QTest::newRow("no order anywhere")
            << "message_seller"
            << R"({"text": "hi"})" << TicketFacts{{QStringLiteral("ticket_id"), QStringLiteral("T-1")}}
            << QString() << "order_id is missing from the call's arguments and the ticket";
    QTest::newRow("an order that is no text") << "schedule_pickup"
                                              << R"({"order_id": ["SU-1"]})" << ticket << QString()
                                              << "the argument order_id is [\"SU-1\"], not text";
}

void TestRecordLookup::queryFromTheRegistry()
{
    QFETCH(QString, tool);
    QFETCH(QString, arguments);
    QFETCH(TicketFacts, ticket);
    QFETCH(QString, filterValue);
    QFETCH(QString, errorMentions);
    const ToolRegistry registry = ToolRegistry::builtIn();
    const ToolSpec *spec = registry.find(tool);
    QVERIFY(spec && spec->lookup);
    const Expected<RecordQuery> query =
            recordQueryFor(*spec->lookup, arguments, ticket, QStringLiteral("key-1"));
    if (filterValue.isEmpty()) {
        QVERIFY(!query);
        QVERIFY2(query.message().contains(errorMentions), qPrintable(query.message()));
        return;
    }
    QVERIFY_OK(query);
    QCOMPARE(query->filter, (QList<std::pair<QString, QString>>{{QStringLiteral("order"), filterValue}}));
    QCOMPARE(query->path, spec->lookup->path);
    QCOMPARE(query->system, spec->lookup->system);
    QCOMPARE(query->key, QStringLiteral("metadata.intent_key"));
    QCOMPARE(query->intentKey, QStringLiteral("key-1"));
    QVERIFY(!recordQueryFor(*spec->lookup, arguments, ticket, QString()));
}

void TestRecordLookup::postedRecordIsFound()
{
    InProcessSandbox sandbox;
    const ProviderSettings settings = settingsFor(sandbox.url());
    // An order whose id needs encoding: '+' is not a space, '&' no separator.
    const QString order = QStringLiteral("SU 1+2&x=y");
    const RecordWriteAttempt made = post(settings, pickupFor(order, QStringLiteral("key-1")));
    QCOMPARE(made.kind, RecordWriteAttempt::Kind::Accepted);
    QVERIFY(made.record);
    QCOMPARE(made.record->raw.value(QStringLiteral("order")).toString(), order);
    QCOMPARE(post(settings, pickupFor(order, QStringLiteral("key-2"))).kind,
             RecordWriteAttempt::Kind::Accepted);
    QCOMPARE(post(settings, pickupFor(QStringLiteral("SU 1"), QStringLiteral("key-1"))).kind,
             RecordWriteAttempt::Kind::Ambiguous); // the key with other parameters

    const RecordLookupAnswer answer = lookUp(settings, pickupsOf(order, QStringLiteral("key-1")));
    QCOMPARE(answer.verdict, LookupVerdict::Found);
    QCOMPARE(answer.records.size(), 1);
    const FoundRecord &found = answer.records.first();
    QCOMPARE(found.id, made.record->id);
    QCOMPARE(found.status, QStringLiteral("scheduled"));
    QCOMPARE(found.createdMs, made.record->createdMs);
    QVERIFY(found.createdMs > 0);
    QCOMPARE(found.raw, made.record->raw);
    QVERIFY2(answer.reason.contains(found.id) && answer.reason.contains(QStringLiteral("courier")),
             qPrintable(answer.reason));
    QCOMPARE(answer.exchanges.size(), 1);
    const HttpExchange &exchange = answer.exchanges.first();
    QVERIFY2(exchange.request.startsWith(QStringLiteral("GET http://127.0.0.1:")),
             qPrintable(exchange.request));
    QVERIFY2(exchange.request.contains(QStringLiteral("/v1/pickups?order=SU%201%2B2%26x%3Dy&limit=100")),
             qPrintable(exchange.request));
    QVERIFY(exchange.request.contains(QStringLiteral("Authorization: Bearer sk_…dbox")));
    QVERIFY(!exchange.request.contains(settings.apiKey));
    QVERIFY(exchange.response.startsWith(QStringLiteral("HTTP 200")));

    // A top-level field may be the key too.
    RecordQuery byId = pickupsOf(order, made.record->id);
    byId.key = QStringLiteral("id");
    QCOMPARE(lookUp(settings, byId).verdict, LookupVerdict::Found);
    QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 2);
}

void TestRecordLookup::unusedKeyIsNotFound()
{
    InProcessSandbox sandbox;
    const ProviderSettings settings = settingsFor(sandbox.url());
    QCOMPARE(post(settings, pickupFor(QStringLiteral("SU-1"), QStringLiteral("key-used"))).kind,
             RecordWriteAttempt::Kind::Accepted);
    const RecordLookupAnswer answer =
            lookUp(settings, pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-never-used")));
    QCOMPARE(answer.verdict, LookupVerdict::NotFound);
    QVERIFY(answer.records.isEmpty());
    QVERIFY2(answer.reason.contains(QStringLiteral("none of the 1 record at")), qPrintable(answer.reason));
    // An order the courier never heard of lists nothing: not found either.
    const RecordLookupAnswer none =
            lookUp(settings, pickupsOf(QStringLiteral("SU-2"), QStringLiteral("key-used")));
    QCOMPARE(none.verdict, LookupVerdict::NotFound);
    QVERIFY2(none.reason.contains(QStringLiteral("holds no record for"))
                     && !none.reason.contains(QStringLiteral(" 0 ")),
             qPrintable(none.reason));
    // The messaging service is another system: the pickup's key is not a message there.
    RecordQuery messages = pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-used"));
    messages.path = QStringLiteral("/v1/messages");
    QCOMPARE(lookUp(settings, messages).verdict, LookupVerdict::NotFound);
}

void TestRecordLookup::followsEveryPage()
{
    InProcessSandbox sandbox;
    const ProviderSettings settings = settingsFor(sandbox.url());
    SandboxHttp http(sandbox.url());
    // The one looked for is the oldest of 130: on the second page of 100. So is a second one
    // with the same key (made without the key as Idempotency-Key), listed oldest first.
    const RecordWriteAttempt wanted =
            post(settings, pickupFor(QStringLiteral("SU-BIG"), QStringLiteral("key-wanted")));
    QCOMPARE(wanted.kind, RecordWriteAttempt::Kind::Accepted);
    const HttpResult again =
            http.post(QStringLiteral("/v1/pickups"),
                      {{QStringLiteral("order"), QStringLiteral("SU-BIG")},
                       {QStringLiteral("metadata[intent_key]"), QStringLiteral("key-wanted")}});
    QCOMPARE(again.status, 200);
    for (int i = 0; i < 128; ++i) {
        QCOMPARE(http.post(QStringLiteral("/v1/pickups"),
                           {{QStringLiteral("order"), QStringLiteral("SU-BIG")},
                            {QStringLiteral("metadata[intent_key]"), QStringLiteral("other-%1").arg(i)}})
                         .status,
                 200);
    }
    RecordLookupOperation operation(settings,
                                    pickupsOf(QStringLiteral("SU-BIG"), QStringLiteral("key-wanted")));
    QSignalSpy progress(&operation, &RecordLookupOperation::progress);
    const RecordLookupAnswer answer = RecordLookupOperation::waitFor(&operation);
    QCOMPARE(answer.verdict, LookupVerdict::Found);
    QCOMPARE(answer.records.size(), 2);
    QCOMPARE(answer.records.first().id, wanted.record->id);
    QCOMPARE(answer.records.last().id, again.json.value(QStringLiteral("id")).toString());
    QCOMPARE(answer.exchanges.size(), 2);
    QVERIFY(answer.exchanges.last().request.contains(QStringLiteral("starting_after=")));
    QCOMPARE(progress.count(), 2);
    QVERIFY2(progress.last().first().toString().contains(QStringLiteral("page 2")),
             qPrintable(progress.last().first().toString()));
}

void TestRecordLookup::retriesA500ThenReads()
{
    InProcessSandbox sandbox;
    QCOMPARE(
            post(settingsFor(sandbox.url()), pickupFor(QStringLiteral("SU-1"), QStringLiteral("key-1"))).kind,
            RecordWriteAttempt::Kind::Accepted);
    Gateway gateway({Gateway::Step::Fail500, Gateway::Step::Forward}, sandbox.url());
    const RecordLookupAnswer answer =
            lookUp(settingsFor(gateway.url()), pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-1")));
    QCOMPARE(answer.verdict, LookupVerdict::Found);
    QCOMPARE(answer.exchanges.size(), 2);
    QVERIFY(answer.exchanges.first().response.startsWith(QStringLiteral("HTTP 500")));
    QVERIFY(answer.exchanges.last().response.startsWith(QStringLiteral("HTTP 200")));
    QCOMPARE(gateway.requests(), 1);
}

void TestRecordLookup::stalledAnswerCannotTell()
{
    Gateway gateway({Gateway::Step::Hold});
    ProviderSettings settings = settingsFor(gateway.url(), 300);
    settings.maxLookupAttempts = 2;
    const RecordLookupAnswer answer =
            lookUp(settings, pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-1")));
    QCOMPARE(answer.verdict, LookupVerdict::CouldNotTell);
    QVERIFY2(answer.reason.contains(QStringLiteral("gave up after 2 attempts")), qPrintable(answer.reason));
    QVERIFY2(answer.reason.contains(QStringLiteral("timed out after 300 ms")), qPrintable(answer.reason));
    QCOMPARE(answer.exchanges.size(), 2);
    QCOMPARE(gateway.requests(), 2);
}

void TestRecordLookup::unreadableAnswersCannotTell()
{
    InProcessSandbox sandbox;
    const ProviderSettings settings = settingsFor(sandbox.url());
    QCOMPARE(post(settings, pickupFor(QStringLiteral("SU-1"), QStringLiteral("key-1"))).kind,
             RecordWriteAttempt::Kind::Accepted);
    // A path the system does not have: its 404 is no "not found".
    RecordQuery wrongPath = pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-2"));
    wrongPath.path = QStringLiteral("/v1/collections");
    const RecordLookupAnswer noSuchList = lookUp(settings, wrongPath);
    QCOMPARE(noSuchList.verdict, LookupVerdict::CouldNotTell);
    QCOMPARE(noSuchList.exchanges.size(), 1);
    // A filter the system refuses.
    RecordQuery badFilter = pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-2"));
    badFilter.filter = {{QStringLiteral("seller"), QStringLiteral("s")}};
    const RecordLookupAnswer refused = lookUp(settings, badFilter);
    QCOMPARE(refused.verdict, LookupVerdict::CouldNotTell);
    QVERIFY2(refused.reason.contains(QStringLiteral("Received unknown parameter: seller")),
             qPrintable(refused.reason));
    // A wrong API key is not retried.
    ProviderSettings wrongKey = settings;
    wrongKey.apiKey = QStringLiteral("sk_test_not_the_key");
    const RecordLookupAnswer unauthorised =
            lookUp(wrongKey, pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-2")));
    QCOMPARE(unauthorised.verdict, LookupVerdict::CouldNotTell);
    QCOMPARE(unauthorised.exchanges.size(), 1);
    QVERIFY(unauthorised.reason.contains(QStringLiteral("refused the API key")));
    // A key field no record has: every record lacks the key, but the list was read: not found.
    RecordQuery otherField = pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-1"));
    otherField.key = QStringLiteral("metadata.ticket_id");
    QCOMPARE(lookUp(settings, otherField).verdict, LookupVerdict::NotFound);
    // Nothing to look up with.
    const RecordLookupAnswer keyless = lookUp(settings, pickupsOf(QStringLiteral("SU-1"), QString()));
    QCOMPARE(keyless.verdict, LookupVerdict::CouldNotTell);
    QVERIFY(keyless.exchanges.isEmpty());
}

void TestRecordLookup::postIsSentOnceAndItsAnswerClassified()
{
    {
        // Accept-then-500: ambiguous, sent once, made once; the lookup finds it and a second
        // POST with the key replays it.
        InProcessSandbox sandbox;
        ProviderSettings faulty = settingsFor(sandbox.url());
        faulty.baseUrl.setPath(QStringLiteral("/sandbox-fault/accept-then-500"));
        const RecordWriteAttempt failed =
                post(faulty, pickupFor(QStringLiteral("SU-1"), QStringLiteral("key-1")));
        QCOMPARE(failed.kind, RecordWriteAttempt::Kind::Ambiguous);
        QCOMPARE(failed.httpStatus, 500);
        QCOMPARE(failed.exchanges.size(), 1);
        const HttpExchange &exchange = failed.exchanges.first();
        QVERIFY(exchange.request.contains(QStringLiteral("Idempotency-Key: key-1")));
        QVERIFY(exchange.request.contains(QStringLiteral("metadata%5Bintent_key%5D=key-1")));
        QVERIFY(exchange.request.contains(QStringLiteral("Connection: close")));
        QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 1);
        const RecordLookupAnswer answer =
                lookUp(faulty, pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-1")));
        QCOMPARE(answer.verdict, LookupVerdict::Found);
        const RecordWriteAttempt replayed =
                post(settingsFor(sandbox.url()), pickupFor(QStringLiteral("SU-1"), QStringLiteral("key-1")));
        QCOMPARE(replayed.kind, RecordWriteAttempt::Kind::Accepted);
        QVERIFY(replayed.replayed);
        QCOMPARE(replayed.record->id, answer.records.first().id);
        QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 1);
    }
    {
        // A stalled answer times out: ambiguous, and the record was made once.
        InProcessSandbox sandbox;
        ProviderSettings stalled = settingsFor(sandbox.url(), 300);
        stalled.baseUrl.setPath(QStringLiteral("/sandbox-fault/accept-then-stall=1s"));
        RecordWrite message{QStringLiteral("messaging"),
                            QStringLiteral("/v1/messages"),
                            QStringLiteral("key-m"),
                            {{QStringLiteral("order"), QStringLiteral("SU-1")},
                             {QStringLiteral("text"), QStringLiteral("Hello")}}};
        const RecordWriteAttempt timedOut = post(stalled, message);
        QCOMPARE(timedOut.kind, RecordWriteAttempt::Kind::Ambiguous);
        QCOMPARE(timedOut.httpStatus, 0);
        QVERIFY2(timedOut.reason.contains(QStringLiteral("timed out after 300 ms")),
                 qPrintable(timedOut.reason));
        QVERIFY(sandbox.drainHeldAnswers());
        QCOMPARE(sandbox.recordCount(QStringLiteral("message")), 1);
    }
    {
        // Refusals: the system's own, and what is never sent.
        InProcessSandbox sandbox;
        RecordWrite noText{QStringLiteral("messaging"),
                           QStringLiteral("/v1/messages"),
                           QStringLiteral("key-x"),
                           {{QStringLiteral("order"), QStringLiteral("SU-1")}}};
        const RecordWriteAttempt refused = post(settingsFor(sandbox.url()), noText);
        QCOMPARE(refused.kind, RecordWriteAttempt::Kind::Refused);
        QVERIFY2(refused.reason.contains(QStringLiteral("Missing required param: text")),
                 qPrintable(refused.reason));
        const RecordWriteAttempt keyless =
                post(settingsFor(sandbox.url()), pickupFor(QStringLiteral("SU-1"), QString()));
        QCOMPARE(keyless.kind, RecordWriteAttempt::Kind::Refused);
        QVERIFY(keyless.exchanges.isEmpty());
        QCOMPARE(sandbox.recordCount(QStringLiteral("pickup"))
                         + sandbox.recordCount(QStringLiteral("message")),
                 0);
    }
}

void TestRecordLookup::droppedPostIsNeverSentAgain()
{
    // The connection drops after the whole POST arrived: Qt would send it again on a fresh
    // connection, and the body that cannot be rewound stops it.
    Gateway gateway({Gateway::Step::Drop});
    const RecordWriteAttempt attempt =
            post(settingsFor(gateway.url()), pickupFor(QStringLiteral("SU-1"), QStringLiteral("key-1")));
    QCOMPARE(attempt.kind, RecordWriteAttempt::Kind::Ambiguous);
    QCOMPARE(attempt.httpStatus, 0);
    QVERIFY2(attempt.reason.contains(QStringLiteral("not sent again")), qPrintable(attempt.reason));
    QTest::qWait(200); // a second sending, if one were made, would arrive now
    QCOMPARE(gateway.requests(), 1);

    // Starting it twice sends it once.
    Gateway second({Gateway::Step::Drop});
    RecordWriteOperation operation(settingsFor(second.url()),
                                   pickupFor(QStringLiteral("SU-1"), QStringLiteral("key-1")));
    operation.start();
    operation.start();
    RecordWriteOperation::waitFor(&operation);
    QTest::qWait(200);
    QCOMPARE(second.requests(), 1);
}

void TestRecordLookup::cancelFinishesOnce()
{
    Gateway gateway({Gateway::Step::Hold});
    RecordLookupOperation lookup(settingsFor(gateway.url()),
                                 pickupsOf(QStringLiteral("SU-1"), QStringLiteral("key-1")));
    QSignalSpy finished(&lookup, &RecordLookupOperation::finished);
    lookup.start();
    QVERIFY(QTest::qWaitFor([&] { return gateway.requests() == 1; }, 5000));
    lookup.cancel();
    lookup.cancel();
    QCOMPARE(finished.count(), 1);
    QCOMPARE(lookup.answer().verdict, LookupVerdict::CouldNotTell);
    QCOMPARE(lookup.answer().reason, QStringLiteral("cancelled by the operator"));
    QCOMPARE(lookup.answer().exchanges.size(), 1);

    RecordWriteOperation write(settingsFor(gateway.url()),
                               pickupFor(QStringLiteral("SU-1"), QStringLiteral("key-1")));
    write.cancel(); // before it was sent: nothing was
    QCOMPARE(write.attempt().kind, RecordWriteAttempt::Kind::Refused);
    write.start();
    QTest::qWait(100);
    QCOMPARE(gateway.requests(), 1);
    QVERIFY(write.attempt().exchanges.isEmpty());
}

QTEST_GUILESS_MAIN(TestRecordLookup)
#include "tst_recordlookup.moc"

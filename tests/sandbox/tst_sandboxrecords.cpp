// The sandbox's courier (/v1/pickups) and seller-messaging service (/v1/messages) over real
// HTTP on loopback: the objects they answer, parameter errors, idempotency keys and faults as
// for refunds, lists by order with paging, and state that survives a restart.

#include "support/inprocesssandbox.h"
#include "support/testmacros.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QLocale>
#include <QTimeZone>

using namespace verity;
using namespace verity::test;

namespace {

const QString pickups = QStringLiteral("/v1/pickups");
const QString messages = QStringLiteral("/v1/messages");

Form pickupForm(const QString &order, const QString &item = QStringLiteral("GW-PAR3"),
                const QString &intentKey = QStringLiteral("key-1"))
{
    Form form{{QStringLiteral("order"), order}};
    if (!item.isEmpty())
        form.append({QStringLiteral("item"), item});
    form.append({QStringLiteral("metadata[intent_key]"), intentKey});
    form.append({QStringLiteral("metadata[ticket_id]"), QStringLiteral("T-1")});
    return form;
}

Form messageForm(const QString &order, const QString &text = QStringLiteral("Please send the lid."),
                 const QString &intentKey = QStringLiteral("key-1"))
{
    return {{QStringLiteral("order"), order},
            {QStringLiteral("seller"), QStringLiteral("kestrel-kitchen")},
            {QStringLiteral("text"), text},
            {QStringLiteral("metadata[intent_key]"), intentKey}};
}

QString kindAt(const QString &path)
{
    return path == pickups ? QStringLiteral("pickup") : QStringLiteral("message");
}

// A form of the kind at `path` for `order`; `variant` changes a parameter other than the order.
Form formFor(const QString &path, const QString &order, bool variant = false,
             const QString &intentKey = QStringLiteral("key-1"))
{
    return path == pickups
            ? pickupForm(order, variant ? QStringLiteral("OTHER") : QStringLiteral("GW-PAR3"), intentKey)
            : messageForm(order,
                          variant ? QStringLiteral("Other words.") : QStringLiteral("Please send the lid."),
                          intentKey);
}

QStringList idsOf(const QJsonArray &data)
{
    QStringList ids;
    for (const QJsonValue &value : data)
        ids.append(value.toObject().value(QStringLiteral("id")).toString());
    return ids;
}

} // namespace

class TestSandboxRecords : public QObject
{
    Q_OBJECT

private slots:
    void createsAPickup();
    void createsAMessage();
    void badRequestsNameTheParameter_data();
    void badRequestsNameTheParameter();
    void bothKinds_data();
    void sameKeySameParametersReplays();
    void sameKeySameParametersReplays_data() { bothKinds_data(); }
    void sameKeyOtherParametersIsRefused();
    void sameKeyOtherParametersIsRefused_data() { bothKinds_data(); }
    void sameKeyDuringAStallIsInProgress();
    void sameKeyDuringAStallIsInProgress_data() { bothKinds_data(); }
    void faultsStrikeAsForRefunds();
    void faultsStrikeAsForRefunds_data() { bothKinds_data(); }
    void listsByOrderNewestFirstWithPaging();
    void listsByOrderNewestFirstWithPaging_data() { bothKinds_data(); }
    void stateSurvivesARestart();
};

void TestSandboxRecords::createsAPickup()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    const HttpResult created =
            http.post(pickups, pickupForm(QStringLiteral("SU-88316")), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(created.status, 200);
    const QString id = created.json.value(QStringLiteral("id")).toString();
    QVERIFY2(id.startsWith(QStringLiteral("pu_")) && id.size() == 27, qPrintable(id));
    const qint64 createdAt = created.json.value(QStringLiteral("created")).toInteger();
    QVERIFY(qAbs(createdAt - QDateTime::currentSecsSinceEpoch()) < 60);
    // The courier books the morning of the next working day after the booking.
    QDate day = QDateTime::fromSecsSinceEpoch(createdAt, QTimeZone::utc()).date().addDays(1);
    while (day.dayOfWeek() > 5)
        day = day.addDays(1);
    const QString window = QLocale(QLocale::English).toString(day, QStringLiteral("ddd d MMM"))
            + QStringLiteral(", 08:00-12:00");
    // The whole object, keys in order, as Stripe writes its objects.
    QCOMPARE(QString::fromUtf8(created.body),
             QStringLiteral("{\n    \"created\": %1,\n    \"id\": \"%2\",\n    \"item\": \"GW-PAR3\",\n"
                            "    \"metadata\": {\n        \"intent_key\": \"key-1\",\n        \"ticket_id\": "
                            "\"T-1\"\n    },\n"
                            "    \"object\": \"pickup\",\n    \"order\": \"SU-88316\",\n    \"status\": "
                            "\"scheduled\",\n    \"window\": \"%3\"\n}\n")
                     .arg(createdAt)
                     .arg(id, window));
    QCOMPARE(created.headers.value("idempotency-key"), QByteArray("key-1"));

    // Without an item, the item is null.
    const HttpResult whole =
            http.post(pickups, pickupForm(QStringLiteral("SU-88316"), QString(), QStringLiteral("key-2")));
    QCOMPARE(whole.status, 200);
    QVERIFY(whole.json.contains(QStringLiteral("item")));
    QVERIFY(whole.json.value(QStringLiteral("item")).isNull());

    const HttpResult read = http.get(pickups + u'/' + id);
    QCOMPARE(read.status, 200);
    QCOMPARE(read.body, created.body);
    const HttpResult missing = http.get(pickups + QStringLiteral("/pu_nothing"));
    QCOMPARE(missing.status, 404);
    QCOMPARE(missing.errorField("code"), QStringLiteral("resource_missing"));
    QCOMPARE(missing.errorField("message"), QStringLiteral("No such pickup: 'pu_nothing'"));
    // A message is not a pickup.
    QCOMPARE(http.get(messages + u'/' + id).status, 404);
    QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 2);
    QCOMPARE(sandbox.recordCount(QStringLiteral("message")), 0);
}

void TestSandboxRecords::createsAMessage()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    const HttpResult created = http.post(messages, messageForm(QStringLiteral("SU-88402")));
    QCOMPARE(created.status, 200);
    const QJsonObject &message = created.json;
    QVERIFY(message.value(QStringLiteral("id")).toString().startsWith(QStringLiteral("msg_")));
    QCOMPARE(message.value(QStringLiteral("object")).toString(), QStringLiteral("message"));
    QCOMPARE(message.value(QStringLiteral("order")).toString(), QStringLiteral("SU-88402"));
    QCOMPARE(message.value(QStringLiteral("seller")).toString(), QStringLiteral("kestrel-kitchen"));
    QCOMPARE(message.value(QStringLiteral("text")).toString(), QStringLiteral("Please send the lid."));
    QCOMPARE(message.value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("intent_key"))
                     .toString(),
             QStringLiteral("key-1"));
    QVERIFY(!message.contains(QStringLiteral("status")));
    QCOMPARE(message.keys(),
             (QStringList{QStringLiteral("created"), QStringLiteral("id"), QStringLiteral("metadata"),
                          QStringLiteral("object"), QStringLiteral("order"), QStringLiteral("seller"),
                          QStringLiteral("text")}));
    // Without a seller, the seller is null.
    const HttpResult unnamed = http.post(messages,
                                         {{QStringLiteral("order"), QStringLiteral("SU-1")},
                                          {QStringLiteral("text"), QStringLiteral("Hello")}});
    QCOMPARE(unnamed.status, 200);
    QVERIFY(unnamed.json.value(QStringLiteral("seller")).isNull());
    QCOMPARE(http.get(messages + u'/' + message.value(QStringLiteral("id")).toString()).body, created.body);
}

void TestSandboxRecords::badRequestsNameTheParameter_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<Form>("form");
    QTest::addColumn<QString>("param");
    QTest::addColumn<QString>("message");

    const Form noOrder{{QStringLiteral("item"), QStringLiteral("X")}};
    QTest::newRow("pickup without order") << "POST" << pickups << noOrder << "order"
                                          << "Missing required param: order.";
    QTest::newRow("pickup with empty order")
            << "POST" << pickups << Form{{QStringLiteral("order"), QString()}} << "order"
            << "order must not be empty.";
    QTest::newRow("pickup with empty item")
            << "POST" << pickups
            << Form{{QStringLiteral("order"), QStringLiteral("SU-1")}, {QStringLiteral("item"), QString()}}
            << "item"
            << "item must not be empty.";
    QTest::newRow("pickup with unknown parameter") << "POST" << pickups
                                                   << Form{{QStringLiteral("order"), QStringLiteral("SU-1")},
                                                           {QStringLiteral("colour"), QStringLiteral("red")}}
                                                   << "colour"
                                                   << "Received unknown parameter: colour";
    QTest::newRow("pickup order too long")
            << "POST" << pickups << Form{{QStringLiteral("order"), QString(201, u'x')}} << "order"
            << "order can have at most 200 characters; got 201.";
    QTest::newRow("message without text")
            << "POST" << messages << Form{{QStringLiteral("order"), QStringLiteral("SU-1")}} << "text"
            << "Missing required param: text.";
    QTest::newRow("message text too long") << "POST" << messages
                                           << Form{{QStringLiteral("order"), QStringLiteral("SU-1")},
                                                   {QStringLiteral("text"), QString(5001, u'x')}}
                                           << "text"
                                           << "text can have at most 5000 characters; got 5001.";
    QTest::newRow("message with a long metadata key")
            << "POST" << messages
            << Form{{QStringLiteral("order"), QStringLiteral("SU-1")},
                    {QStringLiteral("text"), QStringLiteral("hi")},
                    {QStringLiteral("metadata[%1]").arg(QString(41, u'k')), QStringLiteral("v")}}
            << QStringLiteral("metadata[%1]").arg(QString(41, u'k'))
            << "Metadata keys must have 1 to 40 characters.";
    QTest::newRow("list with a bad limit")
            << "GET" << pickups + QStringLiteral("?limit=0") << Form{} << "limit"
            << "limit must be a whole number from 1 to 100; got '0'.";
    QTest::newRow("list with an empty order")
            << "GET" << messages + QStringLiteral("?order=") << Form{} << "order"
            << "order must not be empty.";
    QTest::newRow("list by an unknown filter")
            << "GET" << pickups + QStringLiteral("?payment_intent=pi_1") << Form{} << "payment_intent"
            << "Received unknown parameter: payment_intent";
    QTest::newRow("list after an unknown cursor")
            << "GET" << pickups + QStringLiteral("?starting_after=pu_gone") << Form{} << "starting_after"
            << "No such pickup: 'pu_gone'";
}

void TestSandboxRecords::badRequestsNameTheParameter()
{
    QFETCH(QString, method);
    QFETCH(QString, path);
    QFETCH(Form, form);
    QFETCH(QString, param);
    QFETCH(QString, message);
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    const HttpResult result =
            method == u"POST" ? http.post(path, form, {{"Idempotency-Key", "key-1"}}) : http.get(path);
    QCOMPARE(result.status, 400);
    QCOMPARE(result.errorField("param"), param);
    QCOMPARE(result.errorField("message"), message);
    if (method == u"POST") {
        // Refused before executing: nothing made, nothing stored for the key.
        QCOMPARE(sandbox.recordCount(kindAt(path)), 0);
        QCOMPARE(
                http.post(path, formFor(path, QStringLiteral("SU-1")), {{"Idempotency-Key", "key-1"}}).status,
                200);
    }
}

void TestSandboxRecords::bothKinds_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("pickups") << pickups;
    QTest::newRow("messages") << messages;
}

void TestSandboxRecords::sameKeySameParametersReplays()
{
    QFETCH(QString, path);
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    const HttpResult first =
            http.post(path, formFor(path, QStringLiteral("SU-1")), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(first.status, 200);
    QVERIFY(!first.headers.contains("idempotent-replayed"));
    // The same parameters in another order are the same request.
    Form reordered = formFor(path, QStringLiteral("SU-1"));
    std::reverse(reordered.begin(), reordered.end());
    const HttpResult replay = http.post(path, reordered, {{"Idempotency-Key", "key-1"}});
    QCOMPARE(replay.status, 200);
    QCOMPARE(replay.body, first.body);
    QCOMPARE(replay.headers.value("idempotent-replayed"), QByteArray("true"));
    QCOMPARE(sandbox.recordCount(kindAt(path)), 1);
    // Without a key, each POST makes another.
    QCOMPARE(http.post(path, formFor(path, QStringLiteral("SU-1"))).status, 200);
    QCOMPARE(sandbox.recordCount(kindAt(path)), 2);
}

void TestSandboxRecords::sameKeyOtherParametersIsRefused()
{
    QFETCH(QString, path);
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.post(path, formFor(path, QStringLiteral("SU-1")), {{"Idempotency-Key", "key-1"}}).status,
             200);
    const HttpResult other =
            http.post(path, formFor(path, QStringLiteral("SU-1"), true), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(other.status, 400);
    QCOMPARE(other.errorField("type"), QStringLiteral("idempotency_error"));
    QCOMPARE(other.errorField("param"), QStringLiteral("Idempotency-Key"));
    // A key is the same key on another path, and another path is another request.
    const QString otherPath = path == pickups ? messages : pickups;
    QCOMPARE(http.post(otherPath, formFor(otherPath, QStringLiteral("SU-1")), {{"Idempotency-Key", "key-1"}})
                     .status,
             400);
    QCOMPARE(sandbox.recordCount(kindAt(path)), 1);
    QCOMPARE(sandbox.recordCount(kindAt(otherPath)), 0);
}

void TestSandboxRecords::sameKeyDuringAStallIsInProgress()
{
    QFETCH(QString, path);
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QElapsedTimer clock;
    clock.start();
    QNetworkReply *stalled =
            http.start("POST", path, formFor(path, QStringLiteral("SU-1")),
                       {{"Idempotency-Key", "key-1"}, {"Sandbox-Fault", "accept-then-stall=1s"}});
    // Accept-then-stall: made, and listed, while the answer is held.
    QVERIFY(QTest::qWaitFor([&] { return sandbox.recordCount(kindAt(path)) == 1; }, 5000));
    QVERIFY(!stalled->isFinished());
    const QJsonArray listed =
            http.get(path + QStringLiteral("?order=SU-1")).json.value(QStringLiteral("data")).toArray();
    QCOMPARE(listed.size(), 1);

    const HttpResult concurrent =
            http.post(path, formFor(path, QStringLiteral("SU-1")), {{"Idempotency-Key", "key-1"}});
    QVERIFY2(clock.elapsed() < 900, "the stall blocked the server");
    QCOMPARE(concurrent.status, 409);
    QCOMPARE(concurrent.errorField("code"), QStringLiteral("idempotency_key_in_use"));

    const HttpResult held = SandboxHttp::finish(stalled);
    QVERIFY(clock.elapsed() >= 1000);
    QCOMPARE(held.status, 200);
    QCOMPARE(held.json.value(QStringLiteral("id")), listed.at(0).toObject().value(QStringLiteral("id")));
    const HttpResult replay =
            http.post(path, formFor(path, QStringLiteral("SU-1")), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(replay.status, 200);
    QCOMPARE(replay.body, held.body);
    QCOMPARE(replay.headers.value("idempotent-replayed"), QByteArray("true"));
    QCOMPARE(sandbox.recordCount(kindAt(path)), 1);
}

void TestSandboxRecords::faultsStrikeAsForRefunds()
{
    QFETCH(QString, path);
    {
        InProcessSandbox sandbox;
        SandboxHttp http(sandbox.url());
        // Fail-before-accept: nothing made, nothing stored; the retry executes.
        QCOMPARE(http.post(path, formFor(path, QStringLiteral("SU-1")),
                           {{"Idempotency-Key", "key-1"}, {"Sandbox-Fault", "fail-before-accept=503"}})
                         .status,
                 503);
        QCOMPARE(sandbox.recordCount(kindAt(path)), 0);
        const HttpResult retry =
                http.post(path, formFor(path, QStringLiteral("SU-1")), {{"Idempotency-Key", "key-1"}});
        QCOMPARE(retry.status, 200);
        QVERIFY(!retry.headers.contains("idempotent-replayed"));

        // Accept-then-500 in the path: made, answered 500, and the retry replays the success.
        const QString faulty = QStringLiteral("/sandbox-fault/accept-then-500") + path;
        const HttpResult failed =
                http.post(faulty, formFor(path, QStringLiteral("SU-2")), {{"Idempotency-Key", "key-2"}});
        QCOMPARE(failed.status, 500);
        QVERIFY2(failed.errorField("message").contains(
                         QStringLiteral("the %1 was committed").arg(kindAt(path))),
                 qPrintable(failed.errorField("message")));
        QCOMPARE(sandbox.recordCount(kindAt(path)), 2);
        const HttpResult replay =
                http.post(path, formFor(path, QStringLiteral("SU-2")), {{"Idempotency-Key", "key-2"}});
        QCOMPARE(replay.status, 200);
        QCOMPARE(replay.headers.value("idempotent-replayed"), QByteArray("true"));
        QCOMPARE(sandbox.recordCount(kindAt(path)), 2);
        // A read through the same faulty base URL is not struck, and a read cannot be stalled.
        QCOMPARE(http.get(faulty + QStringLiteral("?order=SU-2")).status, 200);
        QCOMPARE(http.get(path, {{"Sandbox-Fault", "accept-then-500"}}).status, 400);
    }
    {
        // The server-wide plan draws for these writes too.
        SandboxOptions options;
        options.faults = SandboxFaultPlan(1.0, *SandboxFault::parse(QStringLiteral("accept-then-500")), 7);
        InProcessSandbox sandbox(options);
        SandboxHttp http(sandbox.url());
        QCOMPARE(http.post(path, formFor(path, QStringLiteral("SU-1"))).status, 500);
        QCOMPARE(sandbox.recordCount(kindAt(path)), 1);
        QCOMPARE(http.get(path).status, 200); // reads draw nothing
    }
}

void TestSandboxRecords::listsByOrderNewestFirstWithPaging()
{
    QFETCH(QString, path);
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QStringList madeForA; // oldest first
    for (int i = 0; i < 5; ++i) {
        const HttpResult made =
                http.post(path, formFor(path, QStringLiteral("SU-A"), false, QStringLiteral("a-%1").arg(i)));
        QCOMPARE(made.status, 200);
        madeForA.append(made.json.value(QStringLiteral("id")).toString());
        QCOMPARE(http.post(path, formFor(path, QStringLiteral("SU-B"), false, QStringLiteral("b-%1").arg(i)))
                         .status,
                 200);
    }
    // The other kind's records are another system's.
    const QString otherPath = path == pickups ? messages : pickups;
    QCOMPARE(http.post(otherPath, formFor(otherPath, QStringLiteral("SU-A"))).status, 200);

    QStringList read;
    QString cursor;
    for (int page = 0; page < 5; ++page) {
        const HttpResult result =
                http.get(path + QStringLiteral("?order=SU-A&limit=2")
                         + (cursor.isEmpty() ? QString() : QStringLiteral("&starting_after=") + cursor));
        QCOMPARE(result.status, 200);
        QCOMPARE(result.json.value(QStringLiteral("object")).toString(), QStringLiteral("list"));
        QCOMPARE(result.json.value(QStringLiteral("url")).toString(), path);
        const QJsonArray data = result.json.value(QStringLiteral("data")).toArray();
        for (const QJsonValue &value : data)
            QCOMPARE(value.toObject().value(QStringLiteral("order")).toString(), QStringLiteral("SU-A"));
        read += idsOf(data);
        QCOMPARE(result.json.value(QStringLiteral("has_more")).toBool(), read.size() < 5);
        if (read.size() >= 5)
            break;
        QCOMPARE(data.size(), 2);
        cursor = read.last();
    }
    std::reverse(madeForA.begin(), madeForA.end());
    QCOMPARE(read, madeForA); // newest first
    QCOMPARE(idsOf(http.get(path + QStringLiteral("?limit=100")).json.value(QStringLiteral("data")).toArray())
                     .size(),
             10);
    QCOMPARE(http.get(path + QStringLiteral("?order=SU-none"))
                     .json.value(QStringLiteral("data"))
                     .toArray()
                     .size(),
             0);
    QCOMPARE(http.get(otherPath + QStringLiteral("?order=SU-A"))
                     .json.value(QStringLiteral("data"))
                     .toArray()
                     .size(),
             1);
}

void TestSandboxRecords::stateSurvivesARestart()
{
    QTemporaryDir folder;
    const QString file = folder.filePath(QStringLiteral("sandbox.sqlite"));
    QByteArray pickup;
    QByteArray message;
    for (int run = 0; run < 2; ++run) {
        Expected<std::unique_ptr<SandboxState>> state = SandboxState::open(file);
        QVERIFY_OK(state);
        SandboxServer server(**state, {});
        QVERIFY(server.listenLocal(0));
        SandboxHttp http(server.url());
        const HttpResult madePickup =
                http.post(pickups, pickupForm(QStringLiteral("SU-1")), {{"Idempotency-Key", "key-p"}});
        const HttpResult madeMessage =
                http.post(messages, messageForm(QStringLiteral("SU-1")), {{"Idempotency-Key", "key-m"}});
        QCOMPARE(madePickup.status, 200);
        QCOMPARE(madeMessage.status, 200);
        if (run == 0) {
            pickup = madePickup.body;
            message = madeMessage.body;
            continue;
        }
        // After the restart: the keys replay what the first run answered, and nothing is made twice.
        QCOMPARE(madePickup.body, pickup);
        QCOMPARE(madePickup.headers.value("idempotent-replayed"), QByteArray("true"));
        QCOMPARE(madeMessage.body, message);
        const QString pickupId =
                QJsonDocument::fromJson(pickup).object().value(QStringLiteral("id")).toString();
        QCOMPARE(http.get(pickups + u'/' + pickupId).body, pickup);
        QCOMPARE(idsOf(http.get(pickups + QStringLiteral("?order=SU-1"))
                               .json.value(QStringLiteral("data"))
                               .toArray()),
                 QStringList{pickupId});
        QCOMPARE(*(*state)->countRecords(QStringLiteral("message")), 1);
    }
}

QTEST_GUILESS_MAIN(TestSandboxRecords)
#include "tst_sandboxrecords.moc"

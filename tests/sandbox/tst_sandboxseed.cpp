// --seed-demo: the provider's side of the demo data agrees with Verity's own reading of it.

#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "sandbox/sandboxseed.h"
#include "store/storefactory.h"
#include "support/inprocesssandbox.h"
#include "support/testmacros.h"

#include <QJsonArray>

using namespace verity;
using namespace verity::test;

namespace {

// The intent keys Verity computes for the demo's calls, by "ticket/call".
QHash<QString, QString> demoIntentKeys()
{
    QTemporaryDir folder;
    Expected<std::unique_ptr<Store>> store = openStore(folder.filePath(QStringLiteral("demo.sqlite")));
    if (!store)
        qFatal("%s", qPrintable(store.message()));
    const ToolRegistry registry = ToolRegistry::builtIn();
    TranscriptImporter importer(**store, registry);
    if (!importer.importFile(demoDataResource()).clean())
        qFatal("the demo data did not import");
    QHash<QString, QString> keys;
    for (const QString &ticket : {QStringLiteral("T-20260317-0412"), QStringLiteral("T-20260329-0264"),
                                  QStringLiteral("T-20260331-0158"), QStringLiteral("T-20260318-0152"),
                                  QStringLiteral("T-20260320-0233"), QStringLiteral("T-20260330-0362"),
                                  QStringLiteral("T-20260401-0247"), QStringLiteral("T-20260402-0502")}) {
        const Expected<std::optional<qint64>> id = (*store)->ticketIdByExtId(ticket);
        const Expected<QList<TranscriptEntry>> transcript = (*store)->transcript(id->value());
        for (const TranscriptEntry &entry : *transcript) {
            if (entry.isToolCall)
                keys.insert(ticket + u'/' + entry.call.callExtId, entry.call.intentKey);
        }
    }
    return keys;
}

QStringList intentKeysOf(const QJsonArray &objects)
{
    QStringList keys;
    for (const QJsonValue &object : objects)
        keys.append(object.toObject()
                            .value(QStringLiteral("metadata"))
                            .toObject()
                            .value(QStringLiteral("intent_key"))
                            .toString());
    return keys;
}

qint64 secondsAt(const char *time)
{
    return QDateTime::fromString(QString::fromLatin1(time), Qt::ISODate).toSecsSinceEpoch();
}

} // namespace

class TestSandboxSeed : public QObject
{
    Q_OBJECT

private slots:
    void seedsTheProviderSideOfTheDemo();
    void seedsTheCourierAndTheMessagingSide();
    void aStateSeededByTheFirstVersionGetsWhatIsNew();
};

void TestSandboxSeed::seedsTheProviderSideOfTheDemo()
{
    InProcessSandbox sandbox;
    Expected<SandboxSeedReport> seeded = seedDemo(sandbox.state());
    QVERIFY_OK(seeded);
    QVERIFY(!seeded->alreadySeeded);
    QCOMPARE(seeded->accounts, 12);
    QCOMPARE(seeded->payments, 46);
    QCOMPARE(seeded->notPerformed,
             (QStringList{QStringLiteral("T-20260331-0158/c3"), QStringLiteral("T-20260402-0287/c3")}));

    SandboxHttp http(sandbox.url());
    // Ashcombe Furniture: $189.00, less two refunds of $118.00.
    QCOMPARE(http.balance(QStringLiteral("ashcombe-furniture")), -4700);

    const QHash<QString, QString> keys = demoIntentKeys();
    const QJsonArray incident = http.refundsOf(QStringLiteral("pi_SU-88421"));
    QCOMPARE(incident.size(), 2);
    QVERIFY(!keys.value(QStringLiteral("T-20260317-0412/c3")).isEmpty());
    QCOMPARE(keys.value(QStringLiteral("T-20260317-0412/c3")),
             keys.value(QStringLiteral("T-20260317-0412/c4")));
    QCOMPARE(intentKeysOf(incident), QStringList(2, keys.value(QStringLiteral("T-20260317-0412/c3"))));
    const QJsonObject second = incident.at(0).toObject(); // newest first: the retry
    QCOMPARE(second.value(QStringLiteral("id")).toString(),
             QStringLiteral("re_B69RgwuSCddMBH")); // as the demo's result says
    QCOMPARE(second.value(QStringLiteral("amount")).toInteger(), 11800);
    QCOMPARE(second.value(QStringLiteral("created")).toInteger(),
             QDateTime::fromString(QStringLiteral("2026-03-17T14:32:14Z"), Qt::ISODate).toSecsSinceEpoch());
    const QJsonObject metadata = second.value(QStringLiteral("metadata")).toObject();
    QCOMPARE(metadata.value(QStringLiteral("ticket_id")).toString(), QStringLiteral("T-20260317-0412"));
    QCOMPARE(metadata.value(QStringLiteral("order_id")).toString(), QStringLiteral("SU-88421"));
    QCOMPARE(metadata.value(QStringLiteral("item_id")).toString(), QStringLiteral("OAK-4S"));

    // Of the fixed tool's unknown refunds, the first reached the provider and the second did not.
    QCOMPARE(intentKeysOf(http.refundsOf(QStringLiteral("pi_SU-88642"))),
             QStringList{keys.value(QStringLiteral("T-20260329-0264/c3"))});
    QCOMPARE(http.refundsOf(QStringLiteral("pi_SU-88648")).size(), 0);
    // Linden Home Textiles: two timeouts the provider had accepted, then the success.
    QCOMPARE(http.refundsOf(QStringLiteral("pi_SU-88556")).size(), 3);

    const qint64 refunds = sandbox.refundCount();
    Expected<SandboxSeedReport> again = seedDemo(sandbox.state());
    QVERIFY(again);
    QVERIFY(again->alreadySeeded);
    QCOMPARE(sandbox.refundCount(), refunds);
    QCOMPARE(http.balance(QStringLiteral("ashcombe-furniture")), -4700);
}

void TestSandboxSeed::seedsTheCourierAndTheMessagingSide()
{
    InProcessSandbox sandbox;
    Expected<SandboxSeedReport> seeded = seedDemo(sandbox.state());
    QVERIFY_OK(seeded);
    // Every schedule_pickup and message_seller call recorded as performed, and of the unknown
    // ones of each tool, the first in time.
    QCOMPARE(seeded->pickups, 7);
    QCOMPARE(seeded->messages, 12);
    QCOMPARE(seeded->pickupsNotMade, QStringList{QStringLiteral("T-20260402-0502/c3")});
    QCOMPARE(seeded->messagesNotSent, QStringList{QStringLiteral("T-20260330-0362/c2")});
    QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 7);
    QCOMPARE(sandbox.recordCount(QStringLiteral("message")), 12);

    SandboxHttp http(sandbox.url());
    const QHash<QString, QString> keys = demoIntentKeys();
    const auto listed = [&](const QString &path, const QString &order) {
        return http.get(path + QStringLiteral("?limit=100&order=") + order)
                .json.value(QStringLiteral("data"))
                .toArray();
    };
    // A performed pickup, as the call sent it: the call's order and item, its time, its key.
    const QJsonArray performed = listed(QStringLiteral("/v1/pickups"), QStringLiteral("SU-88316"));
    QCOMPARE(performed.size(), 1); // c3 was refused: only c4 reached the courier
    const QJsonObject pickup = performed.at(0).toObject();
    QCOMPARE(pickup.value(QStringLiteral("item")).toString(), QStringLiteral("GW-PAR3"));
    QCOMPARE(pickup.value(QStringLiteral("status")).toString(), QStringLiteral("scheduled"));
    // The window the courier told the agent, as the call's result names it.
    QCOMPARE(pickup.value(QStringLiteral("window")).toString(), QStringLiteral("Fri 20 Mar, 08:00-12:00"));
    QCOMPARE(pickup.value(QStringLiteral("created")).toInteger(), secondsAt("2026-03-18T10:13:39Z"));
    QCOMPARE(intentKeysOf(performed), QStringList{keys.value(QStringLiteral("T-20260318-0152/c4"))});
    QCOMPARE(
            pickup.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("ticket_id")).toString(),
            QStringLiteral("T-20260318-0152"));

    // The unknown ones: the first of each tool reached its system, the second did not.
    QVERIFY(!keys.value(QStringLiteral("T-20260401-0247/c3")).isEmpty());
    QCOMPARE(intentKeysOf(listed(QStringLiteral("/v1/pickups"), QStringLiteral("SU-88598"))),
             QStringList{keys.value(QStringLiteral("T-20260401-0247/c3"))});
    QCOMPARE(listed(QStringLiteral("/v1/pickups"), QStringLiteral("SU-88684")).size(), 0);
    // message_seller names no order: the message is for the ticket's.
    const QJsonArray reached = listed(QStringLiteral("/v1/messages"), QStringLiteral("SU-88411"));
    QCOMPARE(intentKeysOf(reached), QStringList{keys.value(QStringLiteral("T-20260320-0233/c3"))});
    const QJsonObject message = reached.at(0).toObject();
    QCOMPARE(message.value(QStringLiteral("seller")).toString(), QStringLiteral("thistle-pine-homeware"));
    QVERIFY(message.value(QStringLiteral("text"))
                    .toString()
                    .startsWith(QStringLiteral("Order SU-88411: the buyer received")));
    QCOMPARE(listed(QStringLiteral("/v1/messages"), QStringLiteral("SU-88585")).size(), 0);
    QVERIFY(!keys.value(QStringLiteral("T-20260330-0362/c2")).isEmpty());

    Expected<SandboxSeedReport> again = seedDemo(sandbox.state());
    QVERIFY(again && again->alreadySeeded);
    QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 7);
    QCOMPARE(sandbox.recordCount(QStringLiteral("message")), 12);
}

void TestSandboxSeed::aStateSeededByTheFirstVersionGetsWhatIsNew()
{
    InProcessSandbox sandbox;
    QVERIFY(seedDemo(sandbox.state()));
    const qint64 refunds = sandbox.refundCount();
    // As if the first version, which seeded the payment provider alone, had seeded it.
    QVERIFY(sandbox.state().setMeta(QStringLiteral("demo_seed"), QStringLiteral("march-incident/1")));
    Expected<SandboxSeedReport> upgraded = seedDemo(sandbox.state());
    QVERIFY_OK(upgraded);
    QVERIFY(!upgraded->alreadySeeded);
    // Everything is inserted by a fixed id: what the state has is left as it was.
    QCOMPARE(upgraded->refunds, 0);
    QCOMPARE(upgraded->accounts, 0);
    QCOMPARE(upgraded->pickups, 0);
    QCOMPARE(sandbox.refundCount(), refunds);
    QCOMPARE(sandbox.recordCount(QStringLiteral("pickup")), 7);
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.balance(QStringLiteral("ashcombe-furniture")), -4700);
    QVERIFY(seedDemo(sandbox.state())->alreadySeeded);
}

QTEST_GUILESS_MAIN(TestSandboxSeed)
#include "tst_sandboxseed.moc"

// --seed-demo: the provider's side of the demo data agrees with Verity's own reading of it.

#include "sandboxtestsupport.h"

#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "sandbox/sandboxseed.h"
#include "store/sqlitestore.h"

#include <QJsonArray>

using namespace verity;
using namespace verity::test;

namespace {

// The intent keys Verity computes for the demo's calls, by "ticket/call".
QHash<QString, QString> demoIntentKeys()
{
    QTemporaryDir folder;
    Expected<std::unique_ptr<SqliteStore>> store = SqliteStore::open(folder.filePath(QStringLiteral("demo.sqlite")));
    if (!store)
        qFatal("%s", qPrintable(store.message()));
    const ToolRegistry registry = ToolRegistry::builtIn();
    TranscriptImporter importer(**store, registry);
    if (!importer.importFile(demoDataResource()).clean())
        qFatal("the demo data did not import");
    QHash<QString, QString> keys;
    for (const QString &ticket : {QStringLiteral("T-20260317-0412"), QStringLiteral("T-20260329-0264"),
                                  QStringLiteral("T-20260331-0158")}) {
        const Expected<std::optional<qint64>> id = (*store)->ticketIdByExtId(ticket);
        const Expected<QList<TranscriptEntry>> transcript = (*store)->transcript(id->value());
        for (const TranscriptEntry &entry : *transcript) {
            if (entry.isToolCall)
                keys.insert(ticket + u'/' + entry.call.callExtId, entry.call.intentKey);
        }
    }
    return keys;
}

QStringList intentKeysOf(const QJsonArray &refunds)
{
    QStringList keys;
    for (const QJsonValue &refund : refunds)
        keys.append(refund.toObject().value(QStringLiteral("metadata")).toObject().value(QStringLiteral("intent_key")).toString());
    return keys;
}

} // namespace

class TestSandboxSeed : public QObject
{
    Q_OBJECT

private slots:
    void seedsTheProviderSideOfTheDemo();
};

void TestSandboxSeed::seedsTheProviderSideOfTheDemo()
{
    InProcessSandbox sandbox;
    Expected<SandboxSeedReport> seeded = seedDemo(sandbox.state());
    QVERIFY2(seeded, qPrintable(seeded ? QString() : seeded.message()));
    QVERIFY(!seeded->alreadySeeded);
    QCOMPARE(seeded->accounts, 12);
    QCOMPARE(seeded->payments, 46);
    QCOMPARE(seeded->notPerformed, (QStringList{QStringLiteral("T-20260331-0158/c3"), QStringLiteral("T-20260402-0287/c3")}));

    SandboxHttp http(sandbox.url());
    // Ashcombe Furniture: $189.00, less two refunds of $118.00.
    QCOMPARE(http.balance(QStringLiteral("ashcombe-furniture")), -4700);

    const QHash<QString, QString> keys = demoIntentKeys();
    const QJsonArray incident = http.refundsOf(QStringLiteral("pi_SU-88421"));
    QCOMPARE(incident.size(), 2);
    QVERIFY(!keys.value(QStringLiteral("T-20260317-0412/c3")).isEmpty());
    QCOMPARE(keys.value(QStringLiteral("T-20260317-0412/c3")), keys.value(QStringLiteral("T-20260317-0412/c4")));
    QCOMPARE(intentKeysOf(incident), QStringList(2, keys.value(QStringLiteral("T-20260317-0412/c3"))));
    const QJsonObject second = incident.at(0).toObject(); // newest first: the retry
    QCOMPARE(second.value(QStringLiteral("id")).toString(), QStringLiteral("re_B69RgwuSCddMBH")); // as the demo's result says
    QCOMPARE(second.value(QStringLiteral("amount")).toInteger(), 11800);
    QCOMPARE(second.value(QStringLiteral("created")).toInteger(), QDateTime::fromString(QStringLiteral("2026-03-17T14:32:14Z"), Qt::ISODate).toSecsSinceEpoch());
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

QTEST_GUILESS_MAIN(TestSandboxSeed)
#include "tst_sandboxseed.moc"

// A tool's class confirmed in the console while `verity collect` runs: the receiver reads the
// user's registry again before its next request, so the tool's next call is keyed as the stored
// calls were keyed again, and its retry of a write whose outcome is unknown is caught.

#include "domain/registrychoice.h"
#include "domain/userregistry.h"
#include "import/reclassifier.h"
#include "support/collectprocess.h"
#include "support/otlppost.h"
#include "support/rawsqlite.h"
#include "support/teststore.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

class CollectRegistryTest : public QObject
{
    Q_OBJECT

private slots:
    void aClassConfirmedWhileRunningKeysTheNextCall();
};

void CollectRegistryTest::aClassConfirmedWhileRunningKeysTheNextCall()
{
    QTemporaryDir home;
    // The receiver's user registry, where the console saves a confirmed class.
    qputenv("HOME", home.path().toUtf8());
    qunsetenv("XDG_CONFIG_HOME");
    const QString userFile = home.filePath(QStringLiteral(".config/Verity/verity/registry.json"));
    const QString live = home.filePath(QStringLiteral("live.sqlite"));
    CollectProcess receiver(live, QStringLiteral("127.0.0.1:0"));
    QVERIFY(!receiver.url().isEmpty());

    // No registry knows zz_refund: its amount_cents makes it a money write, inferred.
    QCOMPARE(postTimedOutCall(receiver.url(), QStringLiteral("1111111111111111"), QStringLiteral("call_1"),
                              QStringLiteral("zz_refund"), QStringLiteral("conv-confirm")),
             200);
    {
        // A person confirms it, as the console does: saved to the file, the calls read again.
        ToolSpec spec;
        spec.name = QStringLiteral("zz_refund");
        spec.toolClass = ToolClass::WriteMoney;
        spec.intent = {{QStringLiteral("order_id"), IntentField::Type::String},
                       {QStringLiteral("amount_cents"), IntentField::Type::Integer}};
        spec.amountField = QStringLiteral("amount_cents");
        QVERIFY(saveToolToUserRegistry(userFile, spec));
        std::unique_ptr<Store> store = openTestStore(live);
        QVERIFY(store);
        const Expected<Reclassification> done =
                reclassifyTool(*store, automaticRegistries(userFile), spec.name);
        QVERIFY2(done && done->calls == 1,
                 qPrintable(done ? QStringLiteral("calls: %1").arg(done->calls) : done.message()));
    }
    // The agent's retry, sent next: keyed by the confirmed class's fields, as the first now is.
    QCOMPARE(postTimedOutCall(receiver.url(), QStringLiteral("2222222222222222"), QStringLiteral("call_2"),
                              QStringLiteral("zz_refund"), QStringLiteral("conv-confirm")),
             200);
    // The file broken by a hand edit: the class confirmed stays, and the next retry is caught too.
    {
        QFile broken(userFile);
        QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
        broken.write("{ broken");
    }
    QCOMPARE(postTimedOutCall(receiver.url(), QStringLiteral("3333333333333333"), QStringLiteral("call_3"),
                              QStringLiteral("zz_refund"), QStringLiteral("conv-confirm")),
             200);
    QVERIFY(receiver.stop());
    QVERIFY2(receiver.log().contains(QStringLiteral("read again: ") + userFile), qPrintable(receiver.log()));
    QVERIFY2(receiver.log().contains(QStringLiteral("the registry read before stays in force until ")
                                     + userFile),
             qPrintable(receiver.log()));

    RawSqlite raw(live);
    QCOMPARE(rows(raw.db(),
                  QStringLiteral("SELECT call_ext_id, tool_class, class_inferred, intent_error, "
                                 "repeat_kind FROM tool_calls ORDER BY seq")),
             (QStringList{QStringLiteral("call_1|write_money|<null>|<null>|<null>"),
                          QStringLiteral("call_2|write_money|<null>|<null>|retry"),
                          QStringLiteral("call_3|write_money|<null>|<null>|retry")}));
}

QTEST_GUILESS_MAIN(CollectRegistryTest)
#include "tst_collectregistry.moc"

// What a support agent sees of an agent built on a framework (the Vercel AI SDK 7, exporting its
// own OpenTelemetry spans, no conversation named): the ticket called by its order, the refund that
// timed out waiting for a lookup, and its identical retry flagged as its repeat, keyed from all of
// its arguments since it names no item.

#include "import/transcriptimporter.h"
#include "itemmodels/ticketqueuemodel.h"
#include "mainwindow.h"
#include "outcomebadge.h"
#include "store/storefactory.h"
#include "support/testmacros.h"
#include "ticketqueuepane.h"
#include "ticketview.h"
#include "toolcallcard.h"

#include <QLabel>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;

class TestAgentTelemetryGui : public QObject
{
    Q_OBJECT

private slots:
    void theRetryOfAnUnknownRefundIsCaught();
};

void TestAgentTelemetryGui::theRetryOfAnUnknownRefundIsCaught()
{
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("desk.sqlite"));
    auto store = openStore(path);
    QVERIFY_OK(store);
    TranscriptImporter importer(**store, ToolRegistry::builtIn());
    const ImportReport report =
            importer.importFile(QStringLiteral(VERITY_TEST_DATA "/formats/otlp-ai-sdk-7-refund-retry.jsonl"));
    QVERIFY2(report.clean(), qPrintable(report.summary()));

    MainWindow window(**store, path, RegistrySource{});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QLineEdit *search = window.queuePane()->searchBox();
    QTest::keyClicks(search, QStringLiteral("SU-55502"));
    QTest::keyClick(search, Qt::Key_Return);
    QTRY_COMPARE(window.ticketQueue().rowCount(), 1);
    // No conversation was named: the trace's ticket is called by the order its calls name.
    QCOMPARE(window.ticketQueue().index(0, TicketQueueModel::TicketColumn).data().toString(),
             QStringLiteral("SU-55502"));
    QCOMPARE(window.ticketQueue().index(0, TicketQueueModel::AttentionColumn).data().toString(),
             QStringLiteral("Unknown"));
    auto *title = window.ticketView()->findChild<QLabel *>(QStringLiteral("ticketTitle"));
    QTRY_VERIFY(title->text().startsWith(QStringLiteral("SU-55502 · My order SU-55502 arrived damaged")));
    auto *facts = window.ticketView()->findChild<QLabel *>(QStringLiteral("ticketFacts"));
    QVERIFY2(facts->text().contains(QStringLiteral("Order SU-55502 (named by the ticket's tool calls)"))
                     && facts->text().contains(QStringLiteral("Seller: S-77")),
             qPrintable(facts->text()));

    ToolCallCard *first = window.ticketView()->card(QStringLiteral("call_issue_refund_1"));
    ToolCallCard *retry = window.ticketView()->card(QStringLiteral("call_issue_refund_2"));
    QVERIFY(first && retry);
    QCOMPARE(first->badge()->text(), QStringLiteral("Unknown: do not retry"));
    QCOMPARE(retry->findChild<QLabel *>(QStringLiteral("repeatNotice"))->text(),
             QStringLiteral(
                     "Retry after an error: repeats call call_issue_refund_1 (no earlier call with this key "
                     "is known to have taken effect). Same intent key as call call_issue_refund_1."));
    const QString key = first->findChild<QLineEdit *>(QStringLiteral("intentKey"))->text();
    QCOMPARE(retry->findChild<QLineEdit *>(QStringLiteral("intentKey"))->text(), key);
    auto *basis = retry->findChild<QLabel *>(QStringLiteral("intentKeyBasis"));
    QVERIFY(basis);
    QVERIFY2(basis->text().startsWith(QStringLiteral("Key from all arguments"))
                     && basis->text().contains(QStringLiteral("item_id")),
             qPrintable(basis->text()));
}

QTEST_MAIN(TestAgentTelemetryGui)
#include "tst_agenttelemetrygui.moc"

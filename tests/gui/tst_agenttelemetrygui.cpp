// What a support agent sees of an agent built on a framework (the Vercel AI SDK 7, exporting its
// own OpenTelemetry spans, no conversation named): the ticket called by its order, the refund that
// timed out waiting for a lookup, and its identical retry flagged as its repeat, keyed from all of
// its arguments since it names no item. And with a registry that knows none of its tools: the
// refund judged as the money write its telemetry says it is, marked inferred on the card, and the
// class confirmed into the registry in one click. And a refund `verity guard` held: its card says
// the guard kept it from the tool.

#include "classifytoolsdialog.h"
#include "guard/guardrecorder.h"
#include "import/transcriptimporter.h"
#include "itemmodels/ticketqueuemodel.h"
#include "mainwindow.h"
#include "outcomebadge.h"
#include "store/storefactory.h"
#include "support/testmacros.h"
#include "ticketqueuepane.h"
#include "ticketview.h"
#include "toolcallcard.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;

namespace {

// A new desk holding the AI SDK's spans of the refund that timed out and its retry, read with
// `registries`; null, or with the problem, when it cannot be made as it should.
std::unique_ptr<Store> importedDesk(const QString &path, const RegistrySelection &registries,
                                    QString &problem)
{
    auto store = openStore(path);
    if (!store) {
        problem = store.message();
        return nullptr;
    }
    TranscriptImporter importer(**store, registries);
    const ImportReport report =
            importer.importFile(QStringLiteral(VERITY_TEST_DATA "/formats/otlp-ai-sdk-7-refund-retry.jsonl"));
    if (!report.clean())
        problem = report.summary();
    return std::move(*store);
}

// The window shown, and the order's ticket found as a person finds it: typed into the search.
void searchOrder(MainWindow &window)
{
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QLineEdit *search = window.queuePane()->searchBox();
    QTest::keyClicks(search, QStringLiteral("SU-55502"));
    QTest::keyClick(search, Qt::Key_Return);
    QTRY_COMPARE(window.ticketQueue().rowCount(), 1);
}

} // namespace

class TestAgentTelemetryGui : public QObject
{
    Q_OBJECT

private slots:
    void theRetryOfAnUnknownRefundIsCaught();
    void anUnregisteredToolIsJudgedAndConfirmedInOneClick();
    void aWindowReadsAgainToolsItsRegistryKnows();
    void aRefundTheGuardHeldSaysItNeverReachedTheTool();
};

void TestAgentTelemetryGui::theRetryOfAnUnknownRefundIsCaught()
{
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("desk.sqlite"));
    QString problem;
    std::unique_ptr<Store> store = importedDesk(
            path,
            RegistrySelection::forced(NamedRegistry{QStringLiteral("default"), ToolRegistry::builtIn()}),
            problem);
    QVERIFY2(store && problem.isEmpty(), qPrintable(problem));

    MainWindow window(*store, path, RegistrySource{});
    searchOrder(window);
    if (QTest::currentTestFailed())
        return;
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

void TestAgentTelemetryGui::anUnregisteredToolIsJudgedAndConfirmedInOneClick()
{
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("desk.sqlite"));
    QString problem;
    std::unique_ptr<Store> store = importedDesk(
            path, RegistrySelection::forced(NamedRegistry{QStringLiteral("empty"), ToolRegistry()}), problem);
    QVERIFY2(store && problem.isEmpty(), qPrintable(problem));

    // A profile that does not know the agent's tools either (the default one would read the calls
    // again as soon as the window opens: it knows issue_refund).
    MainWindow window(
            *store, path,
            RegistrySource{QStringLiteral("tau-airline"), dir.filePath(QStringLiteral("registry.json"))});
    searchOrder(window);
    if (QTest::currentTestFailed())
        return;
    QTRY_VERIFY(window.ticketView()->card(QStringLiteral("call_issue_refund_2")));

    // Judged as a money write, and saying it was inferred, from what.
    ToolCallCard *first = window.ticketView()->card(QStringLiteral("call_issue_refund_1"));
    ToolCallCard *retry = window.ticketView()->card(QStringLiteral("call_issue_refund_2"));
    QCOMPARE(first->badge()->text(), QStringLiteral("Unknown: do not retry"));
    QCOMPARE(retry->findChild<QLabel *>(QStringLiteral("toolClass"))->text(),
             QStringLiteral("Write: money \u00b7 inferred"));
    const QString inferred = retry->findChild<QLabel *>(QStringLiteral("classInferredNotice"))->text();
    QVERIFY2(inferred.startsWith(QStringLiteral("Class inferred: no registry knows issue_refund"))
                     && inferred.contains(QStringLiteral("gen_ai.tool.definitions")),
             qPrintable(inferred));
    QVERIFY(retry->findChild<QLabel *>(QStringLiteral("repeatNotice"))
                    ->text()
                    .startsWith(QStringLiteral("Retry after an error: repeats call call_issue_refund_1")));
    QVERIFY2(retry->findChild<QLabel *>(QStringLiteral("intentKeyBasis"))
                     ->text()
                     .contains(QStringLiteral("no registry knows issue_refund")),
             qPrintable(retry->findChild<QLabel *>(QStringLiteral("intentKeyBasis"))->text()));

    // Tools > Classify tools: the refund listed as inferred, its class chosen; one click confirms.
    window.findChild<QAction *>(QStringLiteral("classifyToolsAction"))->trigger();
    ClassifyToolsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = window.findChild<ClassifyToolsDialog *>()) && dialog->isVisible());
    int row = -1;
    for (int i = 0; i < dialog->toolList()->count(); ++i) {
        if (dialog->toolList()->item(i)->data(Qt::UserRole).toString() == QLatin1String("issue_refund"))
            row = i;
    }
    QVERIFY(row >= 0);
    QVERIFY2(dialog->toolList()->item(row)->text().endsWith(QStringLiteral("inferred: Write: money")),
             qPrintable(dialog->toolList()->item(row)->text()));
    QTest::mouseClick(dialog->toolList()->viewport(), Qt::LeftButton, {},
                      dialog->toolList()->visualItemRect(dialog->toolList()->item(row)).center());
    QCOMPARE(dialog->classBox()->currentText(), QStringLiteral("Write: money"));
    QCOMPARE(dialog->amountBox()->currentText(), QStringLiteral("amount_cents"));
    QVERIFY2(dialog->suggestionLabel()->text().startsWith(QStringLiteral("Inferred as Write: money because")),
             qPrintable(dialog->suggestionLabel()->text()));
    QCOMPARE(dialog->saveButton()->text(), QStringLiteral("Confirm Write: money"));
    QTest::mouseClick(dialog->saveButton(), Qt::LeftButton);
    QTRY_VERIFY2(dialog->statusLabel()->text().startsWith(QStringLiteral("issue_refund is now Write: money")),
                 qPrintable(dialog->statusLabel()->text()));
    // Gone from the list; the tool left, get_order, is shown in its place, with its call.
    QCOMPARE(dialog->toolList()->count(), 1);
    QCOMPARE(dialog->toolList()->currentItem()->data(Qt::UserRole).toString(), QStringLiteral("get_order"));
    QVERIFY(dialog->findChild<QPlainTextEdit *>(QStringLiteral("sampleArguments"))
                    ->toPlainText()
                    .contains(QStringLiteral("SU-55502")));
    dialog->close();

    // The registry's now: the card says so, and the retry is still caught.
    QTRY_VERIFY(window.ticketView()->card(QStringLiteral("call_issue_refund_2"))
                && window.ticketView()
                                ->card(QStringLiteral("call_issue_refund_2"))
                                ->findChild<QLabel *>(QStringLiteral("toolClass"))
                                ->text()
                        == QStringLiteral("Write: money"));
    retry = window.ticketView()->card(QStringLiteral("call_issue_refund_2"));
    QVERIFY(!retry->findChild<QLabel *>(QStringLiteral("classInferredNotice")));
    QVERIFY(retry->findChild<QLabel *>(QStringLiteral("repeatNotice")));
}

// Calls stored as inferred, opened by a console whose registry knows their tools (a confirmation
// cut short after the registry was saved): read again as it says before anyone works on them.
void TestAgentTelemetryGui::aWindowReadsAgainToolsItsRegistryKnows()
{
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("desk.sqlite"));
    QString problem;
    std::unique_ptr<Store> store = importedDesk(
            path, RegistrySelection::forced(NamedRegistry{QStringLiteral("empty"), ToolRegistry()}), problem);
    QVERIFY2(store && problem.isEmpty(), qPrintable(problem));

    MainWindow window(*store, path, RegistrySource{});
    searchOrder(window);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(window.statusBar()->currentMessage(),
             QStringLiteral("Read again as the registry now says: issue_refund, get_order."));
    QTRY_VERIFY(window.ticketView()->card(QStringLiteral("call_issue_refund_2")));
    ToolCallCard *retry = window.ticketView()->card(QStringLiteral("call_issue_refund_2"));
    QCOMPARE(retry->findChild<QLabel *>(QStringLiteral("toolClass"))->text(), QStringLiteral("Write: money"));
    QVERIFY(!retry->findChild<QLabel *>(QStringLiteral("classInferredNotice")));
    QVERIFY(retry->findChild<QLabel *>(QStringLiteral("repeatNotice")));
}

QTEST_MAIN(TestAgentTelemetryGui)
#include "tst_agenttelemetrygui.moc"

void TestAgentTelemetryGui::aRefundTheGuardHeldSaysItNeverReachedTheTool()
{
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("desk.sqlite"));
    auto store = openStore(path);
    QVERIFY_OK(store);
    {
        // As the guard records it: the refund sent, its client giving up, the retry held.
        GuardRecorder recorder(
                **store, [path] { return openStore(path); },
                RegistrySelection::forced(NamedRegistry{QStringLiteral("default"), ToolRegistry::builtIn()}),
                5000, [](const QString &why) { qWarning("%s", qPrintable(why)); });
        const auto refund = [](const QString &callId) {
            GuardedCall call;
            call.conversation = QStringLiteral("SU-55502-chat");
            call.conversationNamed = true;
            call.callId = callId;
            call.sourceId = QStringLiteral("session 1 ") + callId;
            call.tool = QStringLiteral("issue_refund");
            call.arguments = {{"order_id", "SU-55502"}, {"amount_cents", 4999}, {"reason", "damaged"}};
            call.origin = QStringLiteral("ledger");
            call.at = QDateTime::currentMSecsSinceEpoch();
            return call;
        };
        GuardedCall sent = refund(QStringLiteral("c1"));
        Expected<WriteAdmission> first = recorder.admitWrite(sent, QString());
        QVERIFY_OK(first);
        QCOMPARE(first->verdict.kind, RepeatVerdict::Kind::Send);
        QVERIFY_OK(recorder.giveUp(first->storedCallId));
        GuardedCall retry = refund(QStringLiteral("c2"));
        Expected<WriteAdmission> second = recorder.admitWrite(retry, QString());
        QVERIFY_OK(second);
        QCOMPARE(second->verdict.kind, RepeatVerdict::Kind::Hold);
    }

    MainWindow window(**store, path, RegistrySource{});
    searchOrder(window);
    if (QTest::currentTestFailed())
        return;
    QTRY_VERIFY(window.ticketView()->card(QStringLiteral("c2")));
    ToolCallCard *first = window.ticketView()->card(QStringLiteral("c1"));
    ToolCallCard *held = window.ticketView()->card(QStringLiteral("c2"));
    QCOMPARE(first->badge()->text(), QStringLiteral("Unknown: do not retry"));
    QCOMPARE(held->badge()->text(), QStringLiteral("Not performed"));
    QCOMPARE(held->findChild<QLabel *>(QStringLiteral("repeatNotice"))->text(),
             QStringLiteral("Held by the guard, never sent: repeats call c1. Same intent key as call c1."));
}

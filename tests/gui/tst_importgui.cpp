// Importing foreign transcripts in the console as a person does: drop a file, read the summary
// of what repeated, confirm the class of the tool nobody knew, see the cards change; and cancel a long
// import.

#include "classifytoolsdialog.h"
#include "itemmodels/ticketqueuemodel.h"
#include "mainwindow.h"
#include "store/storefactory.h"
#include "ticketqueuepane.h"
#include "ticketview.h"
#include "toolcallcard.h"

#include <QAction>
#include <QComboBox>
#include <QDropEvent>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace verity;

namespace {

// One OpenAI chat conversation per line: each call (id, tool, arguments, result) answered at once.
QByteArray chatLine(const QString &id, const QList<std::array<QString, 4>> &calls)
{
    QJsonArray messages{
            QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                        {QStringLiteral("content"), QStringLiteral("Please refund my cracked shelf.")}}};
    for (const auto &[callId, tool, arguments, result] : calls) {
        const QJsonObject function{{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}};
        messages.append(
                QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                            {QStringLiteral("tool_calls"),
                             QJsonArray{QJsonObject{{QStringLiteral("id"), callId},
                                                    {QStringLiteral("type"), QStringLiteral("function")},
                                                    {QStringLiteral("function"), function}}}}});
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("tool")},
                                    {QStringLiteral("tool_call_id"), callId},
                                    {QStringLiteral("content"), result}});
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("messages"), messages}})
                   .toJson(QJsonDocument::Compact)
            + '\n';
}

} // namespace

class TestImportGui : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_dbPath = m_dir.filePath(QStringLiteral("gui-%1.sqlite").arg(++m_runs));
        m_userRegistry = m_dir.filePath(QStringLiteral("config-%1/registry.json").arg(m_runs));
        auto store = openStore(m_dbPath);
        QVERIFY(store.ok());
        m_store = std::move(*store);
        m_window =
                std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{QString(), m_userRegistry});
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup()
    {
        m_window.reset();
        m_store.reset();
    }

    void dropClassifyAndSeeTheCardsChange()
    {
        const QString refund = QStringLiteral(R"({"order_id":"SU-1","item_id":"A","amount_cents":11800})");
        const QString ok = QStringLiteral(R"({"status":"refunded"})");
        const QString credit = QStringLiteral(R"({"account":"acct-9","cents":500})");
        const QString file = m_dir.filePath(QStringLiteral("agent-log.jsonl"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(chatLine(QStringLiteral("CHAT-1"),
                           {{QStringLiteral("c1"), QStringLiteral("issue_refund"), refund, ok},
                            {QStringLiteral("c2"), QStringLiteral("issue_refund"), refund, ok}}));
        out.write(chatLine(QStringLiteral("CHAT-2"),
                           {{QStringLiteral("k1"), QStringLiteral("apply_credit"), credit,
                             QStringLiteral("credit applied")},
                            {QStringLiteral("k2"), QStringLiteral("apply_credit"), credit,
                             QStringLiteral("credit applied")}}));
        out.close();

        // Dropped onto the window, as from a file manager.
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(file)});
        QSignalSpy finished(m_window.get(), &MainWindow::importFinished);
        QDragEnterEvent enter(QPoint(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted()); // the window takes files
        QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &drop);
        QVERIFY(finished.wait(10000));

        auto *result = m_window->findChild<QMessageBox *>(QStringLiteral("importResult"));
        QVERIFY(result && result->isVisible());
        QVERIFY2(result->text().contains(QStringLiteral("OpenAI Chat Completions")),
                 qPrintable(result->text()));
        // The credit tool nobody registered is judged by its cents already: its repeat is caught too.
        QVERIFY2(result->text().contains(QStringLiteral("2 duplicate effects ($123.00 paid twice)")),
                 qPrintable(result->text()));
        QVERIFY2(result->text().contains(QStringLiteral("tools no registry knows: apply_credit")),
                 qPrintable(result->text()));

        // Raised in the status bar; its link and the queue filter find the duplicate.
        auto *raised = m_window->findChild<QLabel *>(QStringLiteral("duplicateCount"));
        QVERIFY(raised->isVisible());
        QVERIFY2(raised->text().contains(QStringLiteral("2 tickets with duplicate effects")),
                 qPrintable(raised->text()));
        QTest::mouseClick(raised, Qt::LeftButton, {}, QPoint(20, raised->height() / 2));
        QVERIFY(m_window->queuePane()
                        ->findChild<QToolButton *>(
                                QStringLiteral("filter_%1").arg(int(TicketFilter::DuplicateEffect)))
                        ->isChecked());
        QCOMPARE(m_window->ticketQueue().rowCount(), 2);

        // Confirm the inferred class of the unknown tool from the summary.
        QPointer<QMessageBox> summary = result;
        auto *classifyButton = result->findChild<QPushButton *>(QStringLiteral("classifyToolsButton"));
        QVERIFY(classifyButton);
        QTest::mouseClick(classifyButton, Qt::LeftButton);
        ClassifyToolsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<ClassifyToolsDialog *>()) && dialog->isVisible());
        QCOMPARE(dialog->toolList()->count(), 1);
        QCOMPARE(dialog->toolList()->item(0)->text(),
                 QStringLiteral("apply_credit  (2 calls in 1 ticket)\ninferred: Write: money"));
        // "cents" says money: its calls are judged as a money write carried by it, to confirm.
        QCOMPARE(dialog->classBox()->currentText(), toolClassLabel(ToolClass::WriteMoney));
        QCOMPARE(dialog->intentList()->count(), 2); // account, cents: both part of the intent
        QCOMPARE(dialog->amountBox()->currentText(), QStringLiteral("cents"));
        QCOMPARE(dialog->saveButton()->text(), QStringLiteral("Confirm Write: money"));
        QTest::mouseClick(dialog->saveButton(), Qt::LeftButton);
        QTRY_COMPARE(dialog->toolList()->count(), 0);
        QVERIFY2(dialog->statusLabel()->text().contains(QStringLiteral("apply_credit is now Write: money")),
                 qPrintable(dialog->statusLabel()->text()));
        QVERIFY(QFile::exists(m_userRegistry));
        dialog->close();

        // Both credit calls are judged again, by the registry now: the second is still a
        // duplicate effect of $5.00, and no longer says its class was inferred.
        QCOMPARE(m_window->ticketQueue().rowCount(), 2);
        QLineEdit *search = m_window->queuePane()->searchBox();
        QTest::keyClicks(search, QStringLiteral("CHAT-2"));
        QTest::keyClick(search, Qt::Key_Return);
        QTRY_VERIFY(m_window->ticketView()->card(QStringLiteral("k2")));
        auto *notice = m_window->ticketView()
                               ->card(QStringLiteral("k2"))
                               ->findChild<QLabel *>(QStringLiteral("repeatNotice"));
        QVERIFY(notice);
        QVERIFY2(notice->text().startsWith(QStringLiteral("Duplicate effect: repeats call k1")),
                 qPrintable(notice->text()));
        QVERIFY(!m_window->ticketView()
                         ->card(QStringLiteral("k2"))
                         ->findChild<QLabel *>(QStringLiteral("classInferredNotice")));
        QVERIFY(!summary); // the summary closed when its button opened the dialog
    }

    // Nothing starts as a read: a refund-like tool as a money write, one that makes an id as a
    // costly write, and one with no clue with nothing chosen, so it cannot be saved as it stands.
    void classifyNeverDefaultsToRead()
    {
        const QString file = m_dir.filePath(QStringLiteral("unknown-tools.jsonl"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(chatLine(QStringLiteral("CHAT-7"),
                           {{QStringLiteral("r1"), QStringLiteral("refund_payment_v2"),
                             QStringLiteral(R"({"order_id":"SU-7","amount":4500})"),
                             QStringLiteral(R"({"refund_id":"re_77","status":"succeeded"})")},
                            // The first booking failed: the sample is the call that answered.
                            {QStringLiteral("p0"), QStringLiteral("book_courier"),
                             QStringLiteral(R"({"order_id":"SU-7"})"),
                             QStringLiteral("Error: courier service unavailable")},
                            {QStringLiteral("p1"), QStringLiteral("book_courier"),
                             QStringLiteral(R"({"order_id":"SU-7"})"),
                             QStringLiteral(R"({"pickup_id":"pk_9","window":"9-12"})")},
                            {QStringLiteral("w1"), QStringLiteral("check_warranty"),
                             QStringLiteral(R"({"order_id":"SU-7"})"),
                             QStringLiteral(R"({"covered":true,"months":12})")}}));
        out.close();
        QSignalSpy finished(m_window.get(), &MainWindow::importFinished);
        m_window->importFiles({file});
        QVERIFY(finished.wait(10000));
        if (auto *result = m_window->findChild<QMessageBox *>(QStringLiteral("importResult")))
            result->close();

        m_window->findChild<QAction *>(QStringLiteral("classifyToolsAction"))->trigger();
        ClassifyToolsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<ClassifyToolsDialog *>()) && dialog->isVisible());
        QCOMPARE(dialog->toolList()->count(), 3);
        const auto select = [dialog](const QString &tool) {
            for (int row = 0; row < dialog->toolList()->count(); ++row) {
                if (dialog->toolList()->item(row)->data(Qt::UserRole).toString() == tool) {
                    const QRect rect = dialog->toolList()->visualItemRect(dialog->toolList()->item(row));
                    QTest::mouseClick(dialog->toolList()->viewport(), Qt::LeftButton, {}, rect.center());
                    return dialog->toolList()->currentRow() == row;
                }
            }
            return false;
        };

        QVERIFY(select(QStringLiteral("refund_payment_v2")));
        QCOMPARE(dialog->classBox()->currentText(), QStringLiteral("Write: money"));
        QCOMPARE(dialog->amountBox()->currentText(), QStringLiteral("amount"));
        // The dialog as a person sees it, for looking at the layout: unset, nothing is written.
        if (const QString shot = qEnvironmentVariable("VERITY_CLASSIFY_SCREENSHOT"); !shot.isEmpty())
            QVERIFY(dialog->grab().save(shot));
        QVERIFY(dialog->amountBox()->isEnabled());
        QVERIFY2(dialog->suggestionLabel()->text().contains(QStringLiteral("amount looks like money")),
                 qPrintable(dialog->suggestionLabel()->text()));
        QVERIFY(dialog->saveButton()->isEnabled());

        QVERIFY(select(QStringLiteral("book_courier")));
        QCOMPARE(dialog->classBox()->currentText(), QStringLiteral("Write: costly"));
        QVERIFY2(dialog->suggestionLabel()->text().contains(QStringLiteral("pickup_id")),
                 qPrintable(dialog->suggestionLabel()->text()));

        QVERIFY(select(QStringLiteral("check_warranty")));
        QCOMPARE(dialog->classBox()->currentIndex(), -1);
        QCOMPARE(dialog->classBox()->currentText(), QString());
        QVERIFY(dialog->classBox()->placeholderText().startsWith(QStringLiteral("Choose")));
        QVERIFY(!dialog->saveButton()->isEnabled());
        QVERIFY(!dialog->intentList()->isEnabled());
        if (QString shot = qEnvironmentVariable("VERITY_CLASSIFY_SCREENSHOT"); !shot.isEmpty())
            QVERIFY(dialog->grab().save(
                    shot.replace(QStringLiteral(".png"), QStringLiteral("-unknown.png"))));
        // Read is there to be chosen, by a person.
        dialog->classBox()->setCurrentIndex(dialog->classBox()->findText(QStringLiteral("Read")));
        QVERIFY(dialog->saveButton()->isEnabled());

        // Back to the refund-like tool: its suggestion again, not the choice made on another tool.
        QVERIFY(select(QStringLiteral("refund_payment_v2")));
        QCOMPARE(dialog->classBox()->currentText(), QStringLiteral("Write: money"));
        dialog->close();
    }

    void cancelKeepsWhatWasCommitted()
    {
        // Enough tickets that the import is still running when Cancel is pressed.
        const QString file = m_dir.filePath(QStringLiteral("big.jsonl"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        const QString read = QStringLiteral(R"({"order_id":"SU-1"})");
        for (int i = 0; i < 30000; ++i)
            out.write(chatLine(
                    QStringLiteral("BIG-%1").arg(i),
                    {{QStringLiteral("r1"), QStringLiteral("get_order"), read, QStringLiteral("{}")}}));
        out.close();

        QSignalSpy finished(m_window.get(), &MainWindow::importFinished);
        m_window->importFiles({file});
        QProgressDialog *progress = nullptr;
        QTRY_VERIFY((progress = m_window->findChild<QProgressDialog *>(QStringLiteral("importProgress")))
                    && progress->isVisible() && progress->value() > 0);
        auto *cancel = progress->findChild<QPushButton *>();
        QVERIFY(cancel);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(finished.wait(20000));

        const auto reports = finished.first().first().value<QList<ImportReport>>();
        QCOMPARE(reports.size(), 1);
        QVERIFY(reports.first().cancelled);
        auto *result = m_window->findChild<QMessageBox *>(QStringLiteral("importResult"));
        QVERIFY(result);
        QVERIFY2(result->informativeText().contains(
                         QStringLiteral("Cancelled: everything committed before the stop is kept")),
                 qPrintable(result->informativeText()));
        const qint64 kept = m_window->ticketQueue().rowCount();
        QVERIFY2(kept > 0 && kept < 30000, qPrintable(QString::number(kept)));
        result->close();
    }

private:
    QTemporaryDir m_dir;
    int m_runs = 0;
    QString m_dbPath;
    QString m_userRegistry;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestImportGui)
#include "tst_importgui.moc"

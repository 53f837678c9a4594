// A trainer's walk through the March incident in the console: open the ticket, replay it from
// the Training menu, step with the keys, the buttons and the scrubber, read what each layer
// knew, leave a note, export the incident and open the export read-only.

#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "incidentreplaywindow.h"
#include "itemmodels/replaystepmodel.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "simulation/whatifcomparison.h"
#include "store/storefactory.h"
#include "ticketview.h"
#include "toolcallcard.h"
#include "trainingmenu.h"
#include "whatifwindow.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSlider>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace verity;

namespace {

const QString incidentTicket = QStringLiteral("T-20260317-0412");

IncidentReplayWindow *openReplayWindow()
{
    for (QWidget *widget : QApplication::topLevelWidgets()) {
        if (auto *replay = qobject_cast<IncidentReplayWindow *>(widget); replay && replay->isVisible())
            return replay;
    }
    return nullptr;
}

// Answers the next question box, the real one, as a person would: the button it names. What
// the box said and which window it belonged to are kept for the test to read.
struct QuestionAnswerer
{
    int asked = 0;
    QString text;
    QPointer<QWidget> parent;
    QPointer<QTimer> timer;

    void answerNext(QMessageBox::StandardButton answer)
    {
        delete timer;
        timer = new QTimer;
        timer->setInterval(10);
        QObject::connect(timer, &QTimer::timeout, timer, [this, answer] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box || !box->isVisible())
                return;
            ++asked;
            text = box->text();
            parent = box->parentWidget();
            timer->deleteLater();
            box->button(answer)->click();
        });
        timer->start();
    }
    ~QuestionAnswerer() { delete timer; }
};

int stepRow(const ReplayStepModel &model, const QString &key)
{
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.step(row)->key == key)
            return row;
    }
    return -1;
}

} // namespace

class TestReplayGui : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_dbPath;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<MainWindow> m_window;

    IncidentReplayWindow *replayIncident()
    {
        const qint64 id = m_store->ticketIdByExtId(incidentTicket)->value_or(0);
        m_window->openTicket(id);
        QTest::keySequence(m_window.get(), QKeySequence(QStringLiteral("Ctrl+R")));
        return openReplayWindow();
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_dbPath = m_dir.filePath(QStringLiteral("demo.sqlite"));
        auto store = openStore(m_dbPath);
        QVERIFY(store.ok());
        const ImportReport report =
                TranscriptImporter(**store, ToolRegistry::builtIn()).importFile(demoDataResource());
        QVERIFY2(report.clean(), qPrintable(report.summary()));
    }

    void init()
    {
        auto store = openStore(m_dbPath);
        QVERIFY(store.ok());
        m_store = std::move(*store);
        m_window = std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{});
        m_window->show();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get())); // before a replay window takes over
    }

    void cleanup()
    {
        for (QWidget *widget : QApplication::topLevelWidgets()) {
            if (auto *replay = qobject_cast<IncidentReplayWindow *>(widget)) {
                // A test that stopped half way may leave a note typed: nobody is there to answer.
                replay->setUnsavedNoteQuestion([](QWidget *, const QString &) {
                    return IncidentReplayWindow::UnsavedNoteAnswer::Discard;
                });
                widget->close();
            }
        }
        m_window.reset();
        m_store.reset();
    }

    void stepThroughTheTwelveSeconds()
    {
        IncidentReplayWindow *replay = replayIncident();
        QVERIFY(replay);
        QVERIFY(QTest::qWaitForWindowExposed(replay));
        auto &model = *qobject_cast<ReplayStepModel *>(replay->stepList()->model());
        QCOMPARE(model.currentStep(), 0);
        QVERIFY(!replay->backButton()->isEnabled());

        // Jump to the model's first refund with the scrubber, then walk with the keys.
        const int call = stepRow(model, QStringLiteral("c3.call"));
        QVERIFY(call > 0);
        replay->scrubber()->setValue(call);
        QCOMPARE(model.currentStep(), call);
        QVERIFY(replay->positionLabel()->text().contains(QStringLiteral("14:32:07.000")));

        QTest::keyClick(replay, Qt::Key_Right, Qt::AltModifier); // the POST
        QTest::keyClick(replay, Qt::Key_Right, Qt::AltModifier); // the provider accepts
        QVERIFY2(replay->layerText(int(ReplayLayer::Provider)).contains(QStringLiteral("Accepted 1 refund")),
                 qPrintable(replay->layerText(int(ReplayLayer::Provider))));
        QVERIFY(replay->layerText(int(ReplayLayer::HttpClient)).contains(QStringLiteral("waiting")));
        QVERIFY(replay->positionLabel()->text().contains(QStringLiteral("14:32:07.412")));

        QTest::mouseClick(replay->forwardButton(), Qt::LeftButton); // the client gives up
        QTest::mouseClick(replay->forwardButton(), Qt::LeftButton); // the tool says failed
        QTest::mouseClick(replay->forwardButton(), Qt::LeftButton); // the model reads it
        QCOMPARE(model.step(model.currentStep())->key, QStringLiteral("c3.read"));
        QVERIFY(replay->layerText(int(ReplayLayer::Model))
                        .contains(QStringLiteral("takes issue_refund c3 as failed")));
        QVERIFY(!replay->retryText(int(RetryMechanism::Model)).startsWith(QStringLiteral("RETRIED")));

        // Down the list to the repeat: the model retried, and only the model.
        replay->stepList()->setFocus();
        while (model.step(model.currentStep())->key != u"c4.call"
               && model.currentStep() + 1 < model.rowCount())
            QTest::keyClick(replay->stepList(), Qt::Key_Down);
        QCOMPARE(model.step(model.currentStep())->key, QStringLiteral("c4.call"));
        QVERIFY(replay->retryText(int(RetryMechanism::Model)).startsWith(QStringLiteral("RETRIED")));
        QVERIFY(!replay->retryText(int(RetryMechanism::HttpClient)).startsWith(QStringLiteral("RETRIED")));

        QTest::keyClick(replay, Qt::Key_Left, Qt::AltModifier);
        QVERIFY(model.step(model.currentStep())->key != u"c4.call");
        QTest::keyClick(replay, Qt::Key_End, Qt::AltModifier);
        QCOMPARE(model.currentStep(), model.rowCount() - 1);
        QVERIFY(!replay->forwardButton()->isEnabled());
        QVERIFY(replay->layerText(int(ReplayLayer::Customer)).contains(QStringLiteral("refunded $118.00")));

        if (const QByteArray shot = qgetenv("VERITY_REPLAY_SCREENSHOT"); !shot.isEmpty()) {
            replay->scrubber()->setValue(stepRow(model, QStringLiteral("c3.read")));
            replay->noteEditor()->setPlainText(
                    QStringLiteral("The provider paid 4.6 s ago; the model is about to ask again."));
            QApplication::processEvents();
            QVERIFY(replay->grab().save(QString::fromLocal8Bit(shot)));
            replay->noteEditor()->clear(); // a picture, not a note
        }
    }

    void notesAreSavedWithTheTicket()
    {
        IncidentReplayWindow *replay = replayIncident();
        QVERIFY(replay);
        auto &model = *qobject_cast<ReplayStepModel *>(replay->stepList()->model());
        const int read = stepRow(model, QStringLiteral("c3.read"));
        replay->scrubber()->setValue(read);
        // The offscreen platform does not move activation to a second window as a window manager would.
        QApplication::setActiveWindow(replay);
        replay->noteEditor()->setFocus();
        QTest::keyClicks(replay->noteEditor(),
                         QStringLiteral("Here the <b>word</b> \"failed\" hides an unknown."));
        QTest::keyClick(replay->noteEditor(), Qt::Key_S, Qt::ControlModifier); // Ctrl+S from the note itself
        QCOMPARE(model.data(model.index(read, ReplayStepModel::NoteColumn)).toString(),
                 QStringLiteral("Here the <b>word</b> \"failed\" hides an unknown."));
        replay->close();

        // Another replay, another day: the note is on its step.
        IncidentReplayWindow *again = replayIncident();
        QVERIFY(again && again != replay);
        auto &reloaded = *qobject_cast<ReplayStepModel *>(again->stepList()->model());
        again->scrubber()->setValue(stepRow(reloaded, QStringLiteral("c3.read")));
        QCOMPARE(again->noteEditor()->toPlainText(),
                 QStringLiteral("Here the <b>word</b> \"failed\" hides an unknown."));
    }

    // The replay is a window of its own, and closes as one: Esc, or Ctrl+W from the step list.
    void escapeAndControlWCloseTheReplay()
    {
        QPointer<IncidentReplayWindow> replay = replayIncident();
        QVERIFY(replay);
        QApplication::setActiveWindow(replay);
        replay->stepList()->setFocus();
        QTest::keyClick(replay->stepList(), Qt::Key_Escape);
        QTRY_VERIFY(!replay || !replay->isVisible());

        QPointer<IncidentReplayWindow> again = replayIncident();
        QVERIFY(again);
        QApplication::setActiveWindow(again);
        again->stepList()->setFocus();
        QTest::keyClick(again->stepList(), Qt::Key_W, Qt::ControlModifier);
        QTRY_VERIFY(!again || !again->isVisible());
    }

    // A note typed and not saved is never lost without asking: moving to another step, by any
    // way of stepping, or closing the window asks Save / Discard / Cancel, and Cancel stays.
    void unsavedNoteIsAskedAbout()
    {
        IncidentReplayWindow *replay = replayIncident();
        QVERIFY(replay);
        auto &model = *qobject_cast<ReplayStepModel *>(replay->stepList()->model());
        const int step = stepRow(model, QStringLiteral("c3.call")); // it and the step after it have no note
        QVERIFY(step >= 0);
        QCOMPARE(model.note(step), QString());
        QCOMPARE(model.note(step + 1), QString());
        replay->scrubber()->setValue(step);
        QApplication::setActiveWindow(replay);
        const QString note = QStringLiteral("The provider had paid 4.6 s before this.");
        replay->noteEditor()->setFocus();
        QTest::keyClicks(replay->noteEditor(), note);
        QVERIFY(replay->hasUnsavedNote());

        // Forward, Cancel: the same step, the text still there, the question the replay's own.
        QuestionAnswerer answer;
        answer.answerNext(QMessageBox::Cancel);
        QTest::mouseClick(replay->forwardButton(), Qt::LeftButton);
        QCOMPARE(answer.asked, 1);
        QCOMPARE(answer.parent.data(), replay);
        QVERIFY2(answer.text.contains(QStringLiteral("not saved")), qPrintable(answer.text));
        QCOMPARE(model.currentStep(), step);
        QCOMPARE(replay->noteEditor()->toPlainText(), note);

        // The scrubber and the list, Cancel: they go back to the step the person stays on.
        answer.answerNext(QMessageBox::Cancel);
        replay->scrubber()->setValue(step + 3);
        QCOMPARE(answer.asked, 2);
        QCOMPARE(model.currentStep(), step);
        QCOMPARE(replay->scrubber()->value(), step);
        answer.answerNext(QMessageBox::Cancel);
        replay->stepList()->setFocus();
        QTest::keyClick(replay->stepList(), Qt::Key_Down);
        QCOMPARE(answer.asked, 3);
        QCOMPARE(model.currentStep(), step);
        QCOMPARE(replay->stepList()->currentIndex().row(), step);
        QCOMPARE(replay->noteEditor()->toPlainText(), note);
        // A click on another row, Cancel: the highlight goes back too, not left on the row clicked.
        answer.answerNext(QMessageBox::Cancel);
        const QRect clicked = replay->stepList()->visualRect(model.index(step + 2, 0));
        QVERIFY(replay->stepList()->viewport()->rect().contains(clicked.center()));
        QTest::mouseClick(replay->stepList()->viewport(), Qt::LeftButton, {}, clicked.center());
        QCOMPARE(answer.asked, 4);
        QCoreApplication::processEvents();
        QCOMPARE(model.currentStep(), step);
        const QModelIndexList highlighted = replay->stepList()->selectionModel()->selectedRows();
        QCOMPARE(highlighted.size(), 1);
        QCOMPARE(highlighted.first().row(), step);
        QCOMPARE(replay->stepList()->currentIndex().row(), step);

        // Discard: on to the next step, and the note is gone.
        answer.answerNext(QMessageBox::Discard);
        QApplication::setActiveWindow(replay); // a window manager would give it back after the box
        QTest::keyClick(replay, Qt::Key_Right, Qt::AltModifier);
        QCOMPARE(answer.asked, 5);
        QCOMPARE(model.currentStep(), step + 1);
        QCOMPARE(model.note(step), QString());
        // Nothing unsaved: stepping back asks nothing.
        QTest::mouseClick(replay->backButton(), Qt::LeftButton);
        QCOMPARE(model.currentStep(), step);
        QCOMPARE(answer.asked, 5);
        QCOMPARE(replay->noteEditor()->toPlainText(), QString());

        // Save: saved with the ticket, then on.
        replay->noteEditor()->setFocus();
        QTest::keyClicks(replay->noteEditor(), note);
        answer.answerNext(QMessageBox::Save);
        QTest::mouseClick(replay->forwardButton(), Qt::LeftButton);
        QCOMPARE(answer.asked, 6);
        QCOMPARE(model.currentStep(), step + 1);
        QCOMPARE(model.note(step), note);

        // Closing with a note typed: Cancel keeps the window open, Discard closes it.
        QPointer<IncidentReplayWindow> window = replay;
        replay->noteEditor()->setFocus();
        QTest::keyClicks(replay->noteEditor(), QStringLiteral("half a thought"));
        answer.answerNext(QMessageBox::Cancel);
        QVERIFY(!replay->close());
        QCOMPARE(answer.asked, 7);
        QVERIFY(replay->isVisible());
        QCOMPARE(replay->noteEditor()->toPlainText(), QStringLiteral("half a thought"));
        answer.answerNext(QMessageBox::Discard);
        QVERIFY(replay->close());
        QCOMPARE(answer.asked, 8);
        QTRY_VERIFY(!window); // deleted on close
    }

    // Export incident… from the replay: the save dialog is the replay's, and when it closes the
    // replay is still the window in front, saying what was written.
    void exportFromTheReplayKeepsItInFront()
    {
        IncidentReplayWindow *replay = replayIncident();
        QVERIFY(replay);
        QApplication::setActiveWindow(replay);
        QVERIFY(QTest::qWaitForWindowActive(replay));
        const QString path = m_dir.filePath(QStringLiteral("from-replay.verity-incident"));
        // Qt's own save dialog (the offscreen platform has no native one), filled in and accepted.
        QPointer<QWidget> dialogParent;
        QTimer fill;
        fill.setInterval(10);
        connect(&fill, &QTimer::timeout, this, [&] {
            auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
            if (!dialog || !dialog->isVisible())
                return;
            fill.stop();
            dialogParent = dialog->parentWidget();
            dialog->selectFile(path);
            QMetaObject::invokeMethod(dialog, "accept"); // the Save button
        });
        fill.start();
        QTest::mouseClick(replay->exportButton(), Qt::LeftButton);
        fill.stop();
        QVERIFY(QFile::exists(path));
        QCOMPARE(dialogParent.data(), replay);
        QTRY_COMPARE(QApplication::activeWindow(), replay);
        QVERIFY2(replay->statusText().startsWith(QStringLiteral("Exported ") + incidentTicket),
                 qPrintable(replay->statusText()));
    }

    void exportOpensReadOnly()
    {
        const QString path = m_dir.filePath(QStringLiteral("incident.verity-incident"));
        m_window->training()->setSaveChooser([&](QWidget *, const QString &suggested) {
            return suggested.startsWith(incidentTicket) ? path : QString();
        });
        const qint64 id = m_store->ticketIdByExtId(incidentTicket)->value_or(0);
        const QString note = QStringLiteral("Here the client gave up; the provider had already paid.");
        {
            ReplayStepModel source(*m_store);
            QVERIFY(source.load(id).ok());
            QVERIFY(source.setNote(stepRow(source, QStringLiteral("c3.read")), note,
                                   QStringLiteral("trainer"))
                            .ok());
        }
        m_window->openTicket(id);
        m_window->findChild<QAction *>(QStringLiteral("exportIncidentAction"))->trigger();
        QVERIFY(QFile::exists(path));
        QVERIFY2(m_window->statusBar()->currentMessage().contains(QStringLiteral("Redacted")),
                 qPrintable(m_window->statusBar()->currentMessage()));

        MainWindow *exported = m_window->training()->openExport(path);
        QVERIFY(exported);
        QVERIFY(exported->isReadOnly());
        QVERIFY(exported->windowTitle().contains(QStringLiteral("read-only")));
        QVERIFY(!exported->findChild<QAction *>(QStringLiteral("importAction"))->isEnabled());
        QVERIFY(!exported->findChild<QAction *>(QStringLiteral("exportIncidentAction"))->isEnabled());
        QCOMPARE(exported->transcript().ticketId() > 0, true);
        // Nothing can be settled here, and every button that would says so, greyed; the
        // evidence still opens.
        ToolCallCard *unknown = exported->ticketView()->card(QStringLiteral("c3"));
        QVERIFY(unknown);
        int settling = 0;
        for (const char *name : {"lookupButton", "attestButton", "performAgainButton"}) {
            for (QPushButton *button : unknown->findChildren<QPushButton *>(QLatin1String(name))) {
                ++settling;
                QVERIFY2(!button->isEnabled(), name);
                QVERIFY2(button->toolTip().contains(QStringLiteral("nothing can be settled here")),
                         qPrintable(button->toolTip()));
            }
        }
        QVERIFY(settling > 0);
        QVERIFY(unknown->findChild<QPushButton *>(QStringLiteral("evidenceButton"))->isEnabled());
        QVERIFY(!exported->findChild<QPushButton *>(QStringLiteral("queueLookupButton"))->isEnabled());
        // Its keys say why nothing happens, rather than nothing.
        exported->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(exported));
        for (const QKeyCombination keys : {Qt::CTRL | Qt::Key_K, Qt::CTRL | Qt::Key_I}) {
            exported->statusBar()->clearMessage();
            QTest::keyClick(exported, keys.key(), keys.keyboardModifiers());
            QTRY_VERIFY2(exported->statusBar()->currentMessage().contains(QLatin1String("read-only")),
                         qPrintable(exported->statusBar()->currentMessage()));
        }

        // The replay of the export has the same steps, shows the note, and takes no new one.
        QWidget *replayWidget = exported->training()->replay(exported->transcript().ticketId());
        auto *replay = qobject_cast<IncidentReplayWindow *>(replayWidget);
        QVERIFY(replay);
        QVERIFY(replay->noteEditor()->isReadOnly());
        QVERIFY(!replay->saveNoteButton()->isEnabled());
        auto &model = *qobject_cast<ReplayStepModel *>(replay->stepList()->model());
        const int read = stepRow(model, QStringLiteral("c3.read"));
        QVERIFY(read >= 0);
        replay->scrubber()->setValue(read);
        QCOMPARE(replay->noteEditor()->toPlainText(), note);
        replay->close();
        exported->close();
    }

    void whatIfSideBySide()
    {
        const qint64 id = m_store->ticketIdByExtId(incidentTicket)->value_or(0);
        m_window->openTicket(id);
        QTest::keySequence(m_window.get(), QKeySequence(QStringLiteral("Ctrl+Shift+W")));
        WhatIfWindow *whatIf = nullptr;
        for (QWidget *widget : QApplication::topLevelWidgets()) {
            if (auto *w = qobject_cast<WhatIfWindow *>(widget); w && w->isVisible())
                whatIf = w;
        }
        QVERIFY(whatIf);
        QVERIFY(QTest::qWaitForWindowExposed(whatIf));
        QTRY_VERIFY_WITH_TIMEOUT(whatIf->runButton()->isEnabled(), 60000);
        QCOMPARE(whatIf->statusLabel()->text(), QStringLiteral("Done."));
        const QAbstractItemModel *table = whatIf->table()->model();
        const auto cell = [table](int row, int column) {
            return table->index(row, column).data().toString();
        };
        // As shipped: the fault, "failed", a retry, a second refund; Ashcombe below zero.
        QVERIFY2(cell(WhatIfComparison::RefundsRow, 0).startsWith(QStringLiteral("2 refunds, $236.00")),
                 qPrintable(cell(WhatIfComparison::RefundsRow, 0)));
        QVERIFY(cell(WhatIfComparison::BalanceRow, 0).startsWith(QStringLiteral("-$47.00")));
        // Intent key: the same fault, a lookup that finds the refund, one refund.
        QVERIFY2(cell(WhatIfComparison::RefundsRow, 1).startsWith(QStringLiteral("1 refund, $118.00")),
                 qPrintable(cell(WhatIfComparison::RefundsRow, 1)));
        QVERIFY(cell(WhatIfComparison::BalanceRow, 1).startsWith(QStringLiteral("$71.00")));
        QCOMPARE(cell(WhatIfComparison::EscalationRow, 1), QStringLiteral("None"));
        QVERIFY(cell(WhatIfComparison::ToldRow, 0).contains(QStringLiteral("$118.00")));
        QVERIFY(whatIf->eventsOf(1)->toPlainText().contains(QStringLiteral("GET")));
        if (const QByteArray shot = qgetenv("VERITY_WHATIF_SCREENSHOT"); !shot.isEmpty()) {
            QApplication::processEvents();
            QVERIFY(whatIf->grab().save(QString::fromLocal8Bit(shot)));
        }
        // Esc closes it, wherever the focus is in it.
        QPointer<WhatIfWindow> window = whatIf;
        QApplication::setActiveWindow(whatIf);
        whatIf->eventsOf(0)->setFocus();
        QTest::keyClick(whatIf->eventsOf(0), Qt::Key_Escape);
        QTRY_VERIFY(!window || !window->isVisible());
    }

    void unreadableExportIsRefusedClearly()
    {
        const QString path = m_dir.filePath(QStringLiteral("not-an-export.verity-incident"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not a database");
        file.close();
        QString shown;
        // The refusal is a message box: closed by the test as soon as it appears.
        QTimer::singleShot(0, [&] {
            for (QWidget *widget : QApplication::topLevelWidgets()) {
                if (widget->inherits("QMessageBox") && widget->isVisible()) {
                    shown = widget->findChild<QLabel *>(QStringLiteral("qt_msgbox_label"))->text();
                    widget->close();
                }
            }
        });
        QVERIFY(!m_window->training()->openExport(path));
        QVERIFY2(shown.contains(path), qPrintable(shown));
    }
};

QTEST_MAIN(TestReplayGui)
#include "tst_replaygui.moc"

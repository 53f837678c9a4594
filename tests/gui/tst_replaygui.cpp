// A trainer's walk through the March incident in the console: open the ticket, replay it from
// the Training menu, step with the keys, the buttons and the scrubber, read what each layer
// knew, leave a note, export the incident and open the export read-only.

#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "incidentreplaywindow.h"
#include "itemmodels/replaystepmodel.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "store/sqlitestore.h"
#include "simulation/whatifcomparison.h"
#include "trainingmenu.h"
#include "whatifwindow.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
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
    std::unique_ptr<SqliteStore> m_store;
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
        auto store = SqliteStore::open(m_dbPath);
        QVERIFY(store.ok());
        const ImportReport report = TranscriptImporter(**store, ToolRegistry::builtIn()).importFile(demoDataResource());
        QVERIFY2(report.clean(), qPrintable(report.summary()));
    }

    void init()
    {
        auto store = SqliteStore::open(m_dbPath);
        QVERIFY(store.ok());
        m_store = std::move(*store);
        m_window = std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{});
        m_window->show();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get())); // before a replay window takes over
    }

    void cleanup()
    {
        for (QWidget *widget : QApplication::topLevelWidgets()) {
            if (qobject_cast<IncidentReplayWindow *>(widget))
                widget->close();
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
        QVERIFY(replay->layerText(int(ReplayLayer::Model)).contains(QStringLiteral("takes issue_refund c3 as failed")));
        QVERIFY(!replay->retryText(int(RetryMechanism::Model)).startsWith(QStringLiteral("RETRIED")));

        // Down the list to the repeat: the model retried, and only the model.
        replay->stepList()->setFocus();
        while (model.step(model.currentStep())->key != u"c4.call" && model.currentStep() + 1 < model.rowCount())
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
            replay->noteEditor()->setPlainText(QStringLiteral("The provider paid 4.6 s ago; the model is about to ask again."));
            QApplication::processEvents();
            QVERIFY(replay->grab().save(QString::fromLocal8Bit(shot)));
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
        QTest::keyClicks(replay->noteEditor(), QStringLiteral("Here the <b>word</b> \"failed\" hides an unknown."));
        QTest::keyClick(replay->noteEditor(), Qt::Key_S, Qt::ControlModifier); // Ctrl+S from the note itself
        QCOMPARE(model.data(model.index(read, ReplayStepModel::NoteColumn)).toString(),
                 QStringLiteral("Here the <b>word</b> \"failed\" hides an unknown."));
        replay->close();

        // Another replay, another day: the note is on its step.
        IncidentReplayWindow *again = replayIncident();
        QVERIFY(again && again != replay);
        auto &reloaded = *qobject_cast<ReplayStepModel *>(again->stepList()->model());
        again->scrubber()->setValue(stepRow(reloaded, QStringLiteral("c3.read")));
        QCOMPARE(again->noteEditor()->toPlainText(), QStringLiteral("Here the <b>word</b> \"failed\" hides an unknown."));
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
            QVERIFY(source.setNote(stepRow(source, QStringLiteral("c3.read")), note, QStringLiteral("trainer")).ok());
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
        const auto cell = [table](int row, int column) { return table->index(row, column).data().toString(); };
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
        whatIf->close();
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

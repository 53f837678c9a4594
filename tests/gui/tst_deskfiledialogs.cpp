// Every file dialog of the console, opened on the folder of the desk's own database (and on a
// folder holding a copy of it), then cancelled, while another process writes to the same file.
// A file dialog reads each file it lists to pick its icon and type, and closes it: with SQLite's
// stock POSIX locks that close dropped every lock the console held, and the next command deleted
// the console's live -wal and -shm. The console's files must stay, its next write must reach
// every other process, and the database and its audit chain must come out whole.

#include "duplicatepayoutspane.h"
#include "financepane.h"
#include "import/importjob.h"
#include "itemmodels/ticketqueuemodel.h"
#include "mainwindow.h"
#include "reconciliationpane.h"
#include "support/deskfile.h"
#include "support/teststore.h"
#include "support/verityprocess.h"
#include "ticketqueuepane.h"
#include "trainingmenu.h"

#include <QAction>
#include <QApplication>
#include <QDateEdit>
#include <QFileDialog>
#include <QFileSystemModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace verity;
using namespace verity::test;

namespace {

// Waits for the next file dialog, shows it `folder`, lets it read the folder's files for its
// icons and types, then cancels it, as a person who looked and changed their mind.
class DialogCanceller : public QObject
{
public:
    explicit DialogCanceller(QString folder)
        : m_folder(std::move(folder))
    {
        m_poll.setInterval(50);
        connect(&m_poll, &QTimer::timeout, this, &DialogCanceller::look);
        m_poll.start();
    }
    QString seenTitle() const { return m_title; }
    QStringList listed() const { return m_listed; }

private:
    void look()
    {
        auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        m_poll.stop();
        m_title = dialog->windowTitle();
        // As a person looking for the database would: every file shown, whatever its name.
        dialog->setNameFilter(QStringLiteral("All files (*)"));
        dialog->setDirectory(m_folder);
        // What the dialog's own model lists, once its gatherer has been through the folder.
        QTimer::singleShot(1500, dialog, [this, dialog] {
            if (auto *files = dialog->findChild<QFileSystemModel *>()) {
                const QModelIndex root = files->index(m_folder);
                for (int row = 0; row < files->rowCount(root); ++row)
                    m_listed << files->index(row, 0, root).data().toString() + QLatin1Char(' ')
                                    + files->index(row, 2, root).data().toString();
            }
            dialog->reject();
        });
    }

    QString m_folder;
    QTimer m_poll;
    QString m_title;
    QStringList m_listed;
};

} // namespace

class DeskFileDialogsTest : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void aCancelledDialogLeavesTheDeskFileWhole_data();
    void aCancelledDialogLeavesTheDeskFileWhole();
    void aReportIsNeverSavedOverTheDatabase_data();
    void aReportIsNeverSavedOverTheDatabase();
};

void DeskFileDialogsTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void DeskFileDialogsTest::aCancelledDialogLeavesTheDeskFileWhole_data()
{
    QTest::addColumn<QString>("control");
    QTest::addColumn<bool>("onACopy");
    const char *controls[] = {"importAction",          "openIncidentAction", "exportIncidentAction",
                              "readExportButton",      "exportCsvButton",    "exportPdfButton",
                              "exportDuplicatesButton"};
    for (const char *control : controls) {
        QTest::addRow("%s on its folder", control) << QString::fromLatin1(control) << false;
        QTest::addRow("%s on a copy's folder", control) << QString::fromLatin1(control) << true;
    }
}

void DeskFileDialogsTest::aCancelledDialogLeavesTheDeskFileWhole()
{
    QFETCH(QString, control);
    QFETCH(bool, onACopy);
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("desk.sqlite"));
    const QProcessEnvironment environment = isolatedEnvironment(folder.path());
    std::unique_ptr<Store> store = openTestStore(path);
    QVERIFY(store);
    QVERIFY(importInto(*store, demoDataResource()));

    MainWindow window(*store, path, RegistrySource{});
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTableView *queue = window.queuePane()->table();
    QTRY_VERIFY(queue->model()->rowCount() > 0);
    window.openTicket(queue->model()->index(0, 0).data(TicketQueueModel::TicketIdRole).toLongLong());

    QString dialogFolder = folder.path();
    if (onACopy) {
        // Copied by this process, too: one more open and close of the live file.
        QVERIFY(QDir(folder.path()).mkdir(QStringLiteral("copy")));
        dialogFolder = folder.filePath(QStringLiteral("copy"));
        QVERIFY(QFile::copy(path, dialogFolder + QStringLiteral("/desk.sqlite")));
    }
    if (control.startsWith(QLatin1String("export")) && control.contains(QLatin1String("Button"))
        && control != QLatin1String("exportDuplicatesButton")) {
        // The report's exports need a reconciliation: one read from a provider export.
        const QString csv = folder.filePath(QStringLiteral("provider.csv"));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("id,amount,currency,created,payment_intent\r\nre_1,118.00,USD,2026-03-17 "
                   "14:32:07,pi_SU-88421\r\n");
        file.close();
        ReconciliationPane *pane = window.financePane()->reconciliationPane();
        pane->fromEdit()->setDate(QDate(2026, 3, 1));
        pane->toEdit()->setDate(QDate(2026, 4, 30));
        pane->setOpenFileChooser([csv](QWidget *, const QString &, const QString &) { return csv; });
        pane->readExportButton()->click();
        QTRY_VERIFY(pane->exportCsvButton()->isEnabled());
    }
    if (control == QLatin1String("exportDuplicatesButton")) {
        window.showFinance();
        QTRY_VERIFY(window.findChild<QPushButton *>(control)->isEnabled());
    }

    DialogCanceller canceller(dialogFolder);
    if (auto *action = window.findChild<QAction *>(control)) {
        QVERIFY2(action->isEnabled(), qPrintable(control));
        action->trigger();
    } else {
        auto *button = window.findChild<QPushButton *>(control);
        QVERIFY2(button, qPrintable(control));
        QVERIFY2(button->isEnabled(), qPrintable(control));
        button->click();
    }
    QVERIFY2(!canceller.seenTitle().isEmpty(), "no file dialog opened");
    QVERIFY2(!canceller.listed().filter(QStringLiteral("desk.sqlite")).isEmpty(),
             qPrintable(canceller.listed().join(QStringLiteral(", "))));

    // Another process writes to the file: it claims an escalation.
    const VerityRun claimed =
            runVerity({QStringLiteral("claim"), QStringLiteral("--next"), QStringLiteral("--db"), path,
                       QStringLiteral("--operator"), QStringLiteral("ana")},
                      environment);
    QVERIFY2(claimed.exitCode == 0, qPrintable(claimed.err));
    QCOMPARE(deletedStoreFilesHeldOpen(path), QStringList());
    QVERIFY(QFile::exists(path + QStringLiteral("-wal")));

    // The console's next write reaches the other processes, and the console sees theirs.
    QVERIFY(importInto(*store, writeUnknownRefund(folder.path(), QStringLiteral("T-DIALOG-1"), 1)));
    QCOMPARE(sqliteShell(path, QStringLiteral("SELECT count(*) FROM tickets WHERE ext_id = 'T-DIALOG-1'")),
             QStringLiteral("1"));
    QCOMPARE(sqliteShell(path, QStringLiteral("SELECT count(*) FROM escalations WHERE claimed_by = 'ana'")),
             QStringLiteral("1"));
    window.close();
    store.reset();
    const QString broken = brokenAfterClose(path, environment);
    QVERIFY2(broken.isEmpty(), qPrintable(broken));
}

void DeskFileDialogsTest::aReportIsNeverSavedOverTheDatabase_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::newRow("the database") << QString();
    QTest::newRow("its -wal") << QStringLiteral("-wal");
    QTest::newRow("its -shm") << QStringLiteral("-shm");
}

// A person who types the database's own name into a Save dialog, and says yes to "replace it?":
// every export refuses, says why, and the console's file stays whole.
void DeskFileDialogsTest::aReportIsNeverSavedOverTheDatabase()
{
    QFETCH(QString, suffix);
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("desk.sqlite"));
    const QString target = path + suffix;
    const QProcessEnvironment environment = isolatedEnvironment(folder.path());
    std::unique_ptr<Store> store = openTestStore(path);
    QVERIFY(store);
    QVERIFY(importInto(*store, demoDataResource()));
    MainWindow window(*store, path, RegistrySource{});
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTableView *queue = window.queuePane()->table();
    QTRY_VERIFY(queue->model()->rowCount() > 0);
    const qint64 ticket = queue->model()->index(0, 0).data(TicketQueueModel::TicketIdRole).toLongLong();
    window.openTicket(ticket);
    const QByteArray before = sqliteShell(path, QStringLiteral("SELECT count(*) FROM tickets")).toUtf8();

    // The finance report's CSV and PDF, from a reconciliation read from an export.
    const QString csv = folder.filePath(QStringLiteral("provider.csv"));
    {
        QFile file(csv);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("id,amount,currency,created,payment_intent\r\nre_1,118.00,USD,2026-03-17 "
                   "14:32:07,pi_SU-88421\r\n");
    }
    window.showFinance();
    ReconciliationPane *pane = window.financePane()->reconciliationPane();
    pane->fromEdit()->setDate(QDate(2026, 3, 1));
    pane->toEdit()->setDate(QDate(2026, 4, 30));
    pane->setOpenFileChooser([csv](QWidget *, const QString &, const QString &) { return csv; });
    pane->readExportButton()->click();
    QTRY_VERIFY(pane->exportCsvButton()->isEnabled());
    window.financePane()->setSaveFileChooser(
            [target](QWidget *, const QString &, const QString &, const QString &) { return target; });
    for (QPushButton *button : {pane->exportCsvButton(), pane->exportPdfButton()}) {
        button->click();
        QVERIFY2(pane->statusText().startsWith(QLatin1String("Not saved: ")), qPrintable(pane->statusText()));
        QVERIFY2(pane->statusText().contains(QLatin1String("a database Verity has open")),
                 qPrintable(pane->statusText()));
    }
    auto *duplicates = window.findChild<QPushButton *>(QStringLiteral("exportDuplicatesButton"));
    QTRY_VERIFY(duplicates->isEnabled());
    duplicates->click();
    const QString duplicatesSaid = window.financePane()->duplicatesPane()->statusText();
    QVERIFY2(duplicatesSaid.contains(QLatin1String("a database Verity has open")),
             qPrintable(duplicatesSaid));

    // An incident export, as a trainer saves it.
    window.training()->setSaveChooser([target](QWidget *, const QString &) { return target; });
    QString told;
    QTimer::singleShot(0, [&told] {
        QTRY_VERIFY(QApplication::activeModalWidget());
        if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
            told = box->text();
            box->accept();
        }
    });
    QCOMPARE(window.training()->exportTicket(ticket, QStringLiteral("T-1")), QString());
    QVERIFY2(told.contains(QLatin1String("a database Verity has open")), qPrintable(told));

    // Nothing was replaced: the console's files are the ones on disk, and whole.
    QCOMPARE(deletedStoreFilesHeldOpen(path), QStringList());
    QCOMPARE(sqliteShell(path, QStringLiteral("SELECT count(*) FROM tickets")).toUtf8(), before);
    window.close();
    store.reset();
    const QString broken = brokenAfterClose(path, environment);
    QVERIFY2(broken.isEmpty(), qPrintable(broken));
}

QTEST_MAIN(DeskFileDialogsTest)
#include "tst_deskfiledialogs.moc"

// Settling escalations from the window, as a support agent and a finance reviewer would, on
// the demo with its sandbox on 127.0.0.1: Ctrl+K acts on the call in front of the person and
// every dialog names it; focus, sorting and an import never change the open ticket; saving the
// provider's settings runs nothing; a repeat is confirmed with every fact of it, Cancel the
// default; evidence reopens from the card and the audit log; a write no system can be asked
// about is settled by an attested check; a reconciliation settles what it proves; and after
// every lookup the queue, the status bar and Finance agree on the duplicate effects, in one
// palette.

#include "attestdialog.h"
#include "audit/auditlog.h"
#include "auditview.h"
#include "democonsole.h"
#include "dialogwait.h"
#include "domain/displaytext.h"
#include "escalationactions.h"
#include "escalationqueuepane.h"
#include "evidencedialog.h"
#include "financepane.h"
#include "itemmodels/auditlogmodel.h"
#include "itemmodels/duplicatepayoutmodel.h"
#include "itemmodels/escalationqueuemodel.h"
#include "itemmodels/palette.h"
#include "itemmodels/ticketqueuemodel.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "outcomebadge.h"
#include "outcomestyle.h"
#include "reconciliationpane.h"
#include "resolution/escalationclaims.h"
#include "resolution/escalationresolver.h"
#include "resolutiondialog.h"
#include "sellerbalancechart.h"
#include "support/testmacros.h"
#include "ticketqueuepane.h"
#include "ticketview.h"
#include "toolcallcard.h"

#include <QAbstractButton>
#include <QDateEdit>
#include <QDateTime>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace verity;
using namespace verity::test;

namespace {

const QString ticketX = QStringLiteral("T-20260402-0287"); // a refund that never reached the provider
const QString ticketY = QStringLiteral("T-20260319-0187"); // a refund the provider made twice

void closeDialogs(QWidget *window)
{
    for (QDialog *dialog : window->findChildren<QDialog *>())
        dialog->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

} // namespace

class TestSettlementGui : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void ctrlKLooksUpTheOpenTicketNotAHiddenQueueRow();
    void ctrlKInTheQueueActsOnTheSelectedRow();
    void ctrlKWithNothingToLookUpSaysSo();
    void ctrlKInTheTicketActsOnTheCallChosenInTheQueue();
    void focusSortMenusAndImportsKeepTheOpenTicket();
    void savingSettingsRunsNothing();
    void repeatIsConfirmedWithEveryFactCancelFirst();
    void evidenceReopensFromTheCardAndTheAuditLog();
    void writeNoSystemCanBeAskedAboutIsAttested();
    void reconciliationSettlesWhatItProves();
    void afterEveryLookupEveryViewAgrees();
    void onePaletteEverywhere();
    void aCheckSettledElsewhereIsNotRecorded();

private:
    qint64 escalationOf(const QString &ticket, const QString &tool = QStringLiteral("issue_refund"));
    qint64 ticketIdOf(const QString &extId) { return (*m_store->ticketIdByExtId(extId)).value_or(0); }
    void pressCtrlK(QWidget *target);

    QTemporaryDir m_dir;
    QString m_dbPath;
    std::unique_ptr<InProcessSandbox> m_sandbox;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<MainWindow> m_window;
};

void TestSettlementGui::initTestCase()
{
    m_dbPath = m_dir.filePath(QStringLiteral("console.sqlite"));
    const QString problem = openDemoWithSandbox(m_dbPath, m_store, m_sandbox);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QSettings().clear(); // no layout or settings left by another test
    m_window = std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{});
    QVERIFY(m_window->provider().save(m_sandbox->url(), QStringLiteral("alice"), QString()));
    QVERIFY(m_window->provider().resolver());
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
}

void TestSettlementGui::init()
{
    // Dialogs of the test before are gone; the window is the active one again, as after a
    // person closed them.
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
}

void TestSettlementGui::cleanup()
{
    closeDialogs(m_window.get());
}

qint64 TestSettlementGui::escalationOf(const QString &ticket, const QString &tool)
{
    const QList<EscalationRow> open = *m_store->openEscalations(0, 100);
    for (const EscalationRow &row : open) {
        if (row.ticketExtId == ticket && row.tool == tool)
            return row.id;
    }
    return 0;
}

void TestSettlementGui::pressCtrlK(QWidget *target)
{
    target->setFocus();
    QTest::keyClick(target, Qt::Key_K, Qt::ControlModifier);
}

void TestSettlementGui::ctrlKLooksUpTheOpenTicketNotAHiddenQueueRow()
{
    const qint64 x = escalationOf(ticketX);
    const qint64 y = escalationOf(ticketY);
    QVERIFY(x > 0 && y > 0);
    // Y's row is current in the escalation queue; then X is opened, and the queue is hidden
    // behind the audit log.
    QTableView *queue = m_window->escalationPane()->table();
    for (int row = 0; row < queue->model()->rowCount(); ++row) {
        if (queue->model()->index(row, 0).data(EscalationQueueModel::EscalationIdRole).toLongLong() == y)
            queue->selectRow(row);
    }
    QCOMPARE(queue->currentIndex().data(EscalationQueueModel::EscalationIdRole).toLongLong(), y);
    m_window->openTicket(ticketIdOf(ticketX));
    // The queue keeps the keyboard focus while the audit log's tab is brought in front of it,
    // as when a person clicks the tab: its current row is out of sight.
    queue->setFocus();
    m_window->findChild<QDockWidget *>(QStringLiteral("auditDock"))->raise();
    QTRY_VERIFY(queue->visibleRegion().isEmpty());
    QVERIFY(queue->hasFocus());

    QTest::keyClick(queue, Qt::Key_K, Qt::ControlModifier);
    auto *dialog = waitForDialog<ResolutionDialog>(
            m_window.get(), [](ResolutionDialog *d) { return !d->resultText().isEmpty(); });
    QVERIFY(dialog);
    QCOMPARE(dialog->escalationId(), x);
    const EscalationDetail detail = **m_store->escalation(x);
    // The heading names the call: ticket, customer, order, seller, tool, call, amount.
    for (const QString &fact : {ticketX, detail.customerName, detail.orderId, detail.sellerName,
                                QStringLiteral("issue_refund c3"), QStringLiteral("$112.50")})
        QVERIFY2(dialog->headingText().contains(fact),
                 qPrintable(fact + QStringLiteral(" in ") + dialog->headingText()));
    QVERIFY(!dialog->headingText().contains(ticketY));
    QVERIFY2(dialog->resultText().startsWith(QStringLiteral("Not performed (verified)")),
             qPrintable(dialog->resultText()));
    QVERIFY2(dialog->customerDraft().startsWith(
                     QStringLiteral("Hello %1,").arg(detail.customerName.section(u' ', 0, 0))),
             qPrintable(dialog->customerDraft()));
    QCOMPARE((**m_store->escalation(y)).state, EscalationState::Open);
}

void TestSettlementGui::ctrlKInTheQueueActsOnTheSelectedRow()
{
    const qint64 y = escalationOf(ticketY);
    QVERIFY(y > 0);
    QTest::keyClick(m_window.get(), Qt::Key_E, Qt::ControlModifier); // the queue, in front, with focus
    QTableView *queue = m_window->escalationPane()->table();
    QTRY_VERIFY(queue->isVisible() && queue->hasFocus());
    int rowOfY = -1;
    for (int row = 0; row < queue->model()->rowCount(); ++row) {
        if (queue->model()->index(row, 0).data(EscalationQueueModel::EscalationIdRole).toLongLong() == y)
            rowOfY = row;
    }
    QVERIFY(rowOfY >= 0);
    QTest::mouseClick(queue->viewport(), Qt::LeftButton, {},
                      queue->visualRect(queue->model()->index(rowOfY, 0)).center());
    // Choosing the row brings its ticket into view: what is selected is what is shown.
    QCOMPARE(m_window->transcript().ticketId(), ticketIdOf(ticketY));
    pressCtrlK(queue);
    auto *dialog = waitForDialog<ResolutionDialog>(m_window.get(), [y](ResolutionDialog *d) {
        return d->escalationId() == y && !d->resultText().isEmpty();
    });
    QVERIFY(dialog);
    QVERIFY2(dialog->headingText().contains(ticketY), qPrintable(dialog->headingText()));
    QVERIFY2(dialog->resultText().startsWith(QStringLiteral("Performed (verified)")),
             qPrintable(dialog->resultText()));
}

void TestSettlementGui::ctrlKWithNothingToLookUpSaysSo()
{
    // A ticket whose writes all have a known outcome.
    const QList<TicketRow> rows = *m_store->tickets(TicketQuery{}, 0, 100);
    qint64 calm = 0;
    for (const TicketRow &row : rows) {
        if (!row.hasUnknown && row.writeCount > 0)
            calm = row.id;
    }
    QVERIFY(calm > 0);
    m_window->openTicket(calm);
    const int dialogs = int(m_window->findChildren<ResolutionDialog *>().size());
    pressCtrlK(m_window->ticketView());
    QTest::qWait(100);
    QCOMPARE(int(m_window->findChildren<ResolutionDialog *>().size()), dialogs);
    QVERIFY2(m_window->statusBar()->currentMessage().startsWith(QStringLiteral("Nothing to look up")),
             qPrintable(m_window->statusBar()->currentMessage()));

    // A row chosen in the escalation queue, then another ticket opened from the ticket queue:
    // the row is no longer chosen, so neither Ctrl+K in the queue, in front and focused, nor
    // its button acts on a write whose ticket is out of sight.
    const QList<EscalationRow> open = *m_store->openEscalations(0, 100);
    QVERIFY(!open.isEmpty());
    const qint64 y = open.first().id;
    QTest::keyClick(m_window.get(), Qt::Key_E, Qt::ControlModifier);
    QTableView *queue = m_window->escalationPane()->table();
    QTRY_VERIFY(queue->isVisible() && queue->hasFocus());
    for (int row = 0; row < queue->model()->rowCount(); ++row) {
        if (queue->model()->index(row, 0).data(EscalationQueueModel::EscalationIdRole).toLongLong() == y)
            QTest::mouseClick(queue->viewport(), Qt::LeftButton, {},
                              queue->visualRect(queue->model()->index(row, 1)).center());
    }
    QCOMPARE(queue->currentIndex().data(EscalationQueueModel::EscalationIdRole).toLongLong(), y);
    QCOMPARE(m_window->transcript().ticketId(), (**m_store->escalation(y)).ticketId);
    m_window->openTicket(calm); // as a click in the ticket queue does
    QVERIFY(!queue->currentIndex().isValid());
    QVERIFY(queue->selectionModel()->selectedRows().isEmpty());
    QTest::keyClick(m_window.get(), Qt::Key_E, Qt::ControlModifier);
    QTRY_VERIFY(queue->hasFocus());
    QTest::keyClick(queue, Qt::Key_K, Qt::ControlModifier);
    QTest::qWait(100);
    QCOMPARE(int(m_window->findChildren<ResolutionDialog *>().size()), dialogs);
    QVERIFY2(m_window->statusBar()->currentMessage().startsWith(QStringLiteral("Nothing to look up")),
             qPrintable(m_window->statusBar()->currentMessage()));
    auto *button = m_window->escalationPane()->findChild<QPushButton *>(QStringLiteral("queueLookupButton"));
    QVERIFY(button);
    QTest::mouseClick(button, Qt::LeftButton);
    QTest::qWait(100);
    QCOMPARE(int(m_window->findChildren<ResolutionDialog *>().size()), dialogs);
    QCOMPARE((**m_store->escalation(y)).state, EscalationState::Open);
}

// T-20260325-0141 has two unknown refunds, c3 and c4. The person chooses c4's row in the queue
// (the ticket opens at c4) and clicks into the ticket: c4 is the write in front of them.
void TestSettlementGui::ctrlKInTheTicketActsOnTheCallChosenInTheQueue()
{
    qint64 c4 = 0;
    const QList<EscalationRow> open = *m_store->openEscalations(0, 100);
    for (const EscalationRow &row : open) {
        if (row.ticketExtId == u"T-20260325-0141" && row.callExtId == u"c4")
            c4 = row.id;
    }
    QVERIFY(c4 > 0);
    QTest::keyClick(m_window.get(), Qt::Key_E, Qt::ControlModifier);
    QTableView *queue = m_window->escalationPane()->table();
    QTRY_VERIFY(queue->isVisible() && queue->hasFocus());
    int rowOfC4 = -1;
    for (int row = 0; row < queue->model()->rowCount(); ++row) {
        if (queue->model()->index(row, 0).data(EscalationQueueModel::EscalationIdRole).toLongLong() == c4)
            rowOfC4 = row;
    }
    QVERIFY(rowOfC4 >= 0);
    queue->scrollTo(queue->model()->index(rowOfC4, 1));
    QTest::mouseClick(queue->viewport(), Qt::LeftButton, {},
                      queue->visualRect(queue->model()->index(rowOfC4, 1)).center());
    QTRY_VERIFY(m_window->ticketView()->card(QStringLiteral("c4")) != nullptr);
    pressCtrlK(m_window->ticketView());
    auto *dialog = waitForDialog<ResolutionDialog>(
            m_window.get(), [](ResolutionDialog *d) { return !d->resultText().isEmpty(); });
    QVERIFY(dialog);
    QCOMPARE(dialog->escalationId(), c4);
    QVERIFY2(dialog->headingText().contains(QStringLiteral("issue_refund c4")),
             qPrintable(dialog->headingText()));
}

void TestSettlementGui::focusSortMenusAndImportsKeepTheOpenTicket()
{
    QLineEdit *search = m_window->queuePane()->searchBox();
    search->clear();
    QTRY_VERIFY(m_window->ticketQueue().rowCount() > 10);
    m_window->queuePane()->table()->clearSelection();
    const qint64 open = ticketIdOf(ticketX);
    m_window->openTicket(open);
    QTableView *table = m_window->queuePane()->table();
    table->selectionModel()->clearSelection();
    table->selectionModel()->clearCurrentIndex();

    // Ctrl+L gives the queue focus: nothing opens.
    QTest::keyClick(m_window.get(), Qt::Key_L, Qt::ControlModifier);
    QTRY_VERIFY(table->hasFocus());
    QCOMPARE(m_window->transcript().ticketId(), open);
    QVERIFY(!table->currentIndex().isValid());

    // Sorting by a column: the rows move, the open ticket stays.
    QHeaderView *header = table->horizontalHeader();
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                      QPoint(header->sectionViewportPosition(TicketQueueModel::SellerColumn) + 5,
                             header->height() / 2));
    QCOMPARE(m_window->transcript().ticketId(), open);

    // A menu opened and closed returns focus to the queue: the open ticket stays.
    QMenu *view = nullptr;
    for (QAction *action : m_window->menuBar()->actions()) {
        if (action->text() == QStringLiteral("&View"))
            view = action->menu();
    }
    QVERIFY(view);
    view->popup(m_window->mapToGlobal(QPoint(40, 40)));
    QTRY_VERIFY(view->isVisible());
    QTest::keyClick(view, Qt::Key_Escape);
    QTRY_VERIFY(!view->isVisible());
    QCOMPARE(m_window->transcript().ticketId(), open);

    // An import finishing refreshes every view: the open ticket stays.
    const QString file = m_dir.filePath(QStringLiteral("one.jsonl"));
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(
            R"({"type":"ticket_opened","ticket":"T-GUI-1","at":"2026-04-06T10:00:00Z","subject":"Where is my parcel?","customer":{"name":"Ola Berg"},"order":{"id":"SU-99001","currency":"USD","items":[]},"seller":{"id":"pennant-rugs","name":"Pennant Rugs"}})"
            "\n");
    out.close();
    QSignalSpy imported(m_window.get(), &MainWindow::importFinished);
    m_window->importFiles({file});
    QVERIFY(imported.wait(20000));
    closeDialogs(m_window.get());
    table->setFocus();
    QCOMPARE(m_window->transcript().ticketId(), open);
    header->setSortIndicator(TicketQueueModel::OpenedColumn, Qt::DescendingOrder);
}

void TestSettlementGui::savingSettingsRunsNothing()
{
    // A console with no provider yet: Look up asks for the settings, and saving them runs nothing.
    const qint64 pickup = escalationOf(QStringLiteral("T-20260401-0247"), QStringLiteral("schedule_pickup"));
    QVERIFY(pickup > 0);
    ProviderConnection unset(*m_store);
    QWidget window;
    EscalationActions actions(*m_store, unset, &window);
    int prompted = 0;
    actions.setSettingsPrompt([&] {
        ++prompted;
        QVERIFY(unset.save(m_sandbox->url(), QStringLiteral("alice"), QString()));
    });
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    const qint64 audit = *m_store->countAuditEntries();
    QVERIFY(!actions.lookUp(pickup));
    QCOMPARE(prompted, 1);
    QVERIFY(unset.resolver()); // saved...
    QTest::qWait(200);
    QCOMPARE(served.count(), 0); // ...and nothing asked
    QCOMPARE(*m_store->countAuditEntries(), audit);
    QVERIFY(window.findChildren<ResolutionDialog *>().isEmpty());
    QCOMPARE((**m_store->escalation(pickup)).state, EscalationState::Open);
}

void TestSettlementGui::repeatIsConfirmedWithEveryFactCancelFirst()
{
    const qint64 id = escalationOf(QStringLiteral("T-20260331-0158"));
    QVERIFY(id > 0);
    const EscalationDetail detail = **m_store->escalation(id);
    m_window->openTicket(detail.ticketId);
    ResolutionDialog *looked = m_window->lookUp(id);
    QVERIFY(looked);
    QTRY_VERIFY(!looked->resultText().isEmpty());
    QVERIFY(looked->performAgainButton()->isVisible());
    // Nothing is promised before the write is made.
    QVERIFY2(!looked->customerDraft().contains(QStringLiteral("issuing")),
             qPrintable(looked->customerDraft()));

    // The real question box: every fact of the write and where it goes; Enter is Cancel.
    QString question;
    QString defaultButton;
    QTimer::singleShot(0, this, [&] {
        (void)QTest::qWaitFor([&] { return qobject_cast<QMessageBox *>(QApplication::activeModalWidget()); },
                              5000);
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return;
        question = box->text();
        defaultButton = box->defaultButton() ? box->defaultButton()->text() : QString();
        QTest::keyClick(box, Qt::Key_Return);
    });
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    QTest::mouseClick(looked->performAgainButton(), Qt::LeftButton);
    QTRY_VERIFY(!question.isEmpty());
    QCOMPARE(defaultButton, QStringLiteral("Cancel"));
    for (const QString &fact :
         {QStringLiteral("$74.50"), QStringLiteral("USD"), detail.customerName, detail.orderId,
          detail.ticketExtId, detail.intentKey, m_sandbox->url().toString() + QStringLiteral("/v1/refunds")})
        QVERIFY2(question.contains(fact), qPrintable(fact + QStringLiteral(" in:\n") + question));
    QCOMPARE(looked->resultText(), QStringLiteral("Nothing was sent: the repeat was not confirmed."));
    QCOMPARE(served.count(), 0);

    // Confirmed, it is sent once with the same key; the POST is evidence like a lookup.
    m_window->setConfirm([](QWidget *, const QString &, const QString &) { return true; });
    looked->close();
    ResolutionDialog *sent = m_window->performAgain(id);
    QVERIFY(sent);
    QTRY_VERIFY(!sent->resultText().isEmpty());
    QVERIFY2(sent->resultText().startsWith(QStringLiteral("Performed")), qPrintable(sent->resultText()));
    QVERIFY2(sent->evidenceShown().contains(QStringLiteral("Write sent")), qPrintable(sent->evidenceShown()));
    QVERIFY2(sent->evidenceShown().contains(QStringLiteral("Idempotency-Key: ") + detail.intentKey),
             qPrintable(sent->evidenceShown()));
    QVERIFY2(sent->customerDraft().contains(QStringLiteral("was made")), qPrintable(sent->customerDraft()));
    m_window->setConfirm({});
}

void TestSettlementGui::evidenceReopensFromTheCardAndTheAuditLog()
{
    // The refund performed again above: its card names the refund, and keeps its evidence.
    const qint64 ticket = ticketIdOf(QStringLiteral("T-20260331-0158"));
    m_window->openTicket(ticket);
    ToolCallCard *card = m_window->ticketView()->card(QStringLiteral("c3"));
    QVERIFY(card);
    auto *settled = card->findChild<QLabel *>(QStringLiteral("resolutionNotice"));
    QVERIFY(settled);
    QVERIFY2(settled->text().contains(QStringLiteral("performed again with the same key")),
             qPrintable(settled->text()));
    QVERIFY2(settled->text().contains(QStringLiteral("refund re_")), qPrintable(settled->text()));
    auto *button = card->findChild<QPushButton *>(QStringLiteral("evidenceButton"));
    QVERIFY(button);
    QTest::mouseClick(button, Qt::LeftButton);
    auto *dialog = waitForDialog<EvidenceDialog>(m_window.get());
    QVERIFY(dialog);
    QVERIFY(dialog->headingText().contains(QStringLiteral("T-20260331-0158")));
    const QString text = dialog->evidenceShown();
    QVERIFY2(text.indexOf(QStringLiteral("Lookup")) < text.indexOf(QStringLiteral("Write sent")),
             qPrintable(text));
    for (const QString &part :
         {QStringLiteral("By: alice"), QStringLiteral("SHA-256: "), QStringLiteral("POST "),
          QStringLiteral("GET "), QStringLiteral("Answered by: ")})
        QVERIFY2(text.contains(part), qPrintable(part + QStringLiteral(" in:\n") + text));
    QVERIFY2(QRegularExpression(QStringLiteral("Started: \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"))
                     .match(text)
                     .hasMatch(),
             qPrintable(text));
    QVERIFY2(dialog->standingText().contains(QStringLiteral("performed again")),
             qPrintable(dialog->standingText()));
    QVERIFY(!dialog->customerDraft().isEmpty());
    dialog->close();

    // A double-click on an audit entry opens the evidence of its escalation.
    m_window->findChild<QDockWidget *>(QStringLiteral("auditDock"))->raise();
    QTableView *audit = m_window->auditView()->table();
    QTRY_VERIFY(audit->isVisible());
    m_window->auditView()->findChild<QPushButton *>(QStringLiteral("verifyChainButton"))->click();
    const QModelIndex first = audit->model()->index(0, 0);
    const qint64 escalation = first.data(AuditLogModel::EscalationIdRole).toLongLong();
    QVERIFY(escalation > 0);
    const QPoint at = audit->visualRect(first).center();
    QTest::mouseClick(audit->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(audit->viewport(), Qt::LeftButton, {}, at);
    auto *fromAudit = waitForDialog<EvidenceDialog>(m_window.get());
    QVERIFY(fromAudit);
    QCOMPARE(fromAudit->escalationId(), escalation);
    QVERIFY(m_window->auditView()->statusText().contains(QStringLiteral("intact")));
}

void TestSettlementGui::writeNoSystemCanBeAskedAboutIsAttested()
{
    // A registry that names no system for pickups: a check is the only way out.
    const QString registry = m_dir.filePath(QStringLiteral("no-courier.json"));
    QFile file(registry);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "verity-tool-registry", "version": 1, "tools": {
        "schedule_pickup": {"class": "write_costly", "intent": ["ticket_id", "order_id", "item_id"]}}})");
    file.close();
    MainWindow window(*m_store, m_dbPath, RegistrySource{registry, QString()});
    QVERIFY(window.provider().resolver());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const qint64 pickup = escalationOf(QStringLiteral("T-20260402-0502"), QStringLiteral("schedule_pickup"));
    QVERIFY(pickup > 0);
    window.openTicket(ticketIdOf(QStringLiteral("T-20260402-0502")));
    ToolCallCard *card = window.ticketView()->card(QStringLiteral("c3"));
    QVERIFY(card);
    QVERIFY(!card->findChild<QPushButton *>(QStringLiteral("lookupButton")));
    auto *record = card->findChild<QPushButton *>(QStringLiteral("attestButton"));
    QVERIFY(record);
    QTest::mouseClick(record, Qt::LeftButton);
    auto *dialog = waitForDialog<AttestDialog>(&window);
    QVERIFY(dialog);
    QVERIFY2(dialog->headingText().contains(QStringLiteral("schedule_pickup c3")),
             qPrintable(dialog->headingText()));
    QVERIFY(dialog->headingText().contains(QStringLiteral("T-20260402-0502")));
    QVERIFY(!dialog->recordButton()->isEnabled());
    QVERIFY(!dialog->recordButton()->isDefault());
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    // On the button's circle: a radio button answers clicks on its circle and label only.
    QTest::mouseClick(dialog->performedChoice(), Qt::LeftButton, {},
                      QPoint(8, dialog->performedChoice()->height() / 2));
    QTRY_VERIFY(dialog->performedChoice()->isChecked());
    QTest::keyClicks(dialog->referenceEdit(), QStringLiteral("PK-44120"));
    QVERIFY(!dialog->recordButton()->isEnabled()); // a note says how it was checked
    QTest::keyClicks(dialog->noteEdit(), QStringLiteral("Booked in the courier's portal on 2 April"));
    QVERIFY(dialog->recordButton()->isEnabled());
    // A stray Enter neither records the check nor throws away what was typed.
    QTest::keyClick(dialog->referenceEdit(), Qt::Key_Return);
    QVERIFY(dialog->isVisible());
    QCOMPARE(dialog->referenceEdit()->text(), QStringLiteral("PK-44120"));
    QTest::mouseClick(dialog->recordButton(), Qt::LeftButton);
    QTRY_VERIFY(!dialog->isVisible());

    QCOMPARE((**m_store->escalation(pickup)).state, EscalationState::Resolved);
    ToolCallCard *after = window.ticketView()->card(QStringLiteral("c3"));
    const QString notice = after->findChild<QLabel *>(QStringLiteral("resolutionNotice"))->text();
    QVERIFY2(notice.contains(QStringLiteral("performed (attested) by alice")), qPrintable(notice));
    QVERIFY2(notice.contains(QStringLiteral("PK-44120")), qPrintable(notice));
    QVERIFY2(!notice.contains(QStringLiteral("verified")), qPrintable(notice));
    // The badge says it is a person's check, not the same "Performed" as a verified call.
    auto *badge = after->findChild<OutcomeBadge *>(QStringLiteral("outcomeBadge"));
    QVERIFY(badge);
    QCOMPARE(badge->text(), QStringLiteral("Performed (attested)"));
    const QList<AuditEntry> entries = *m_store->auditEntries(0, 1000);
    QCOMPARE(entries.at(entries.size() - 2).action, QStringLiteral("attest"));
    QCOMPARE(entries.last().action, QStringLiteral("settle"));
    m_window->refresh();
}

void TestSettlementGui::reconciliationSettlesWhatItProves()
{
    const qint64 openBefore = *m_store->countOpenEscalations();
    m_window->showFinance();
    FinancePane *finance = m_window->financePane();
    finance->tabs()->setCurrentIndex(2);
    ReconciliationPane *pane = finance->reconciliationPane();
    QTRY_VERIFY(pane->isVisible());
    pane->fromEdit()->setDate(QDate(2026, 3, 1));
    pane->toEdit()->setDate(QDate(2026, 4, 30));
    QVERIFY(!pane->settleButton()->isVisible());
    QTest::mouseClick(pane->fetchButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!pane->isFetching(), 20000);
    QVERIFY2(pane->settleButton()->isVisible(), qPrintable(pane->statusText()));
    QVERIFY2(pane->settleButton()->text().contains(QStringLiteral("unknown calls from this evidence")),
             qPrintable(pane->settleButton()->text()));
    QString asked;
    qint64 heldByBob = 0;
    pane->setConfirm([this, &asked, &heldByBob](QWidget *, const QString &question) {
        asked = question;
        // While the person reads the list, a colleague claims one of its escalations.
        const QList<EscalationRow> open = *m_store->openEscalations(0, 100);
        for (const EscalationRow &row : open) {
            if (row.tool == u"issue_refund" && question.contains(row.ticketExtId)) {
                heldByBob = row.id;
                break;
            }
        }
        return heldByBob && EscalationClaims(*m_store, QStringLiteral("bob")).claim(heldByBob).ok();
    });
    QTest::mouseClick(pane->settleButton(), Qt::LeftButton);
    QVERIFY2(heldByBob, qPrintable(asked));
    // Bob's is left to him, saying so; the others are settled all the same.
    QVERIFY2(pane->statusText().contains(QStringLiteral("Left for whoever holds them: ")),
             qPrintable(pane->statusText()));
    QVERIFY2(pane->statusText().contains(QStringLiteral("(escalation %1): bob has claimed").arg(heldByBob)),
             qPrintable(pane->statusText()));
    QCOMPARE((*m_store->escalation(heldByBob))->state, EscalationState::Open);
    QVERIFY2(asked.contains(QStringLiteral("verified by reconciliation")), qPrintable(asked));
    // The person is shown each call, with its ticket, amount and the provider's refund.
    QVERIFY2(asked.contains(QStringLiteral(", call ")), qPrintable(asked));
    QVERIFY2(asked.contains(QStringLiteral("issue_refund $")), qPrintable(asked));
    QVERIFY2(asked.contains(QStringLiteral("provider refund re_")), qPrintable(asked));
    QVERIFY2(pane->statusText().startsWith(QStringLiteral("Settled ")), qPrintable(pane->statusText()));
    // Bob gives it back: what is left of the evidence settles it too.
    QVERIFY(pane->settleButton()->isVisible());
    QVERIFY(*EscalationClaims(*m_store, QStringLiteral("bob")).release(heldByBob));
    pane->setConfirm([](QWidget *, const QString &) { return true; });
    QTest::mouseClick(pane->settleButton(), Qt::LeftButton);
    QVERIFY2(pane->statusText().startsWith(QStringLiteral("Settled 1 unknown call")),
             qPrintable(pane->statusText()));
    QVERIFY(!pane->settleButton()->isVisible());
    QCOMPARE((*m_store->escalation(heldByBob))->state, EscalationState::Resolved);
    const qint64 openAfter = *m_store->countOpenEscalations();
    QVERIFY2(openAfter < openBefore, qPrintable(QStringLiteral("%1 -> %2").arg(openBefore).arg(openAfter)));
    QCOMPARE(m_window->escalationCountText(),
             openAfter == 1 ? QStringLiteral("1 unknown outcome waiting")
                            : QStringLiteral("%1 unknown outcomes waiting").arg(openAfter));
    // Each settlement is evidence with its audit entry, and the chain checks out.
    int reconciled = 0;
    const QList<AuditEntry> entries = *m_store->auditEntries(0, 1000);
    for (const AuditEntry &entry : entries)
        reconciled += entry.action == u"reconciliation" ? 1 : 0;
    QCOMPARE(qint64(reconciled), openBefore - openAfter);
    const Expected<AuditVerification> verified = AuditLog::verify(*m_store);
    QVERIFY(verified && verified->intact);
}

void TestSettlementGui::afterEveryLookupEveryViewAgrees()
{
    // Every refund still unknown is looked up.
    EscalationResolver *resolver = m_window->provider().resolver();
    const QList<EscalationRow> open = *m_store->openEscalations(0, 100);
    for (const EscalationRow &row : open) {
        ResolutionOperation *operation = resolver->lookUp(row.id);
        EscalationResolver::waitFor(operation);
        operation->deleteLater();
    }
    m_window->refresh();
    QCOMPARE(m_window->escalationCountText(), QStringLiteral("No unknown outcomes waiting"));

    // The queue's filter, its worst-outcome column and the status bar...
    m_window->queuePane()->setFilter(TicketFilter::DuplicateEffect);
    TicketQueueModel &queue = m_window->ticketQueue();
    QTRY_COMPARE(queue.rowCount(), 5);
    QStringList inQueue;
    for (int row = 0; row < queue.rowCount(); ++row) {
        QCOMPARE(queue.index(row, TicketQueueModel::OutcomeColumn)
                         .data(TicketQueueModel::OutcomeIdRole)
                         .toString(),
                 QStringLiteral("duplicate_effect"));
        QCOMPARE(queue.index(row, TicketQueueModel::OutcomeColumn).data().toString(),
                 QStringLiteral("Duplicate effect"));
        inQueue << queue.index(row, TicketQueueModel::TicketColumn).data().toString();
    }
    auto *status = m_window->findChild<QLabel *>(QStringLiteral("duplicateCount"));
    QVERIFY2(status->text().contains(QStringLiteral("5 tickets with duplicate effects")),
             qPrintable(status->text()));
    // ...and Finance name the same five, at the same money.
    DuplicatePayoutModel &duplicates = m_window->financePane()->duplicates();
    duplicates.refresh();
    QStringList inFinance;
    for (const DuplicatePayout &duplicate : duplicates.duplicates()) {
        if (duplicate.isConfirmed())
            inFinance << duplicate.ticketExtIds();
    }
    inQueue.sort();
    inFinance.sort();
    QCOMPARE(inFinance, inQueue);
    QVERIFY2(duplicates.summary().startsWith(QStringLiteral("5 duplicate payouts, $728.00 at risk")),
             qPrintable(duplicates.summary()));
    // Sorted by worst outcome, a duplicate effect is the worst a ticket can be.
    m_window->queuePane()->setFilter(TicketFilter::All);
    queue.sort(TicketQueueModel::OutcomeColumn, Qt::DescendingOrder);
    QTRY_COMPARE(
            queue.index(0, TicketQueueModel::OutcomeColumn).data(TicketQueueModel::OutcomeIdRole).toString(),
            QStringLiteral("duplicate_effect"));
    queue.sort(TicketQueueModel::OpenedColumn, Qt::DescendingOrder);
}

void TestSettlementGui::onePaletteEverywhere()
{
    QCOMPARE(outcomeLook(Outcome::Performed).foreground, QColor(QLatin1String(palette::performed)));
    QCOMPARE(outcomeLook(Outcome::Unknown).foreground, QColor(QLatin1String(palette::unknown)));
    QCOMPARE(duplicateEffectLook().foreground, QColor(QLatin1String(palette::duplicate)));
    // The chart: Ashcombe's refunds, performed in green and the one paid twice in red.
    m_window->showFinance();
    FinancePane *finance = m_window->financePane();
    finance->tabs()->setCurrentIndex(0);
    finance->selectSeller(QStringLiteral("ashcombe-furniture"));
    SellerBalanceChart *chart = finance->chart();
    QTRY_VERIFY(chart->performedSeries() && chart->duplicateSeries());
    QCOMPARE(chart->performedSeries()->color(), QColor(QLatin1String(palette::performed)));
    QCOMPARE(chart->duplicateSeries()->color(), QColor(QLatin1String(palette::duplicateBorder)));
    QCOMPARE(chart->performedSeries()->count(), 1);
    QCOMPARE(chart->duplicateSeries()->count(), 1);
}

// Another console settles the escalation while a check is being typed: recording it is refused
// once, says so, and cannot be pressed again; what was typed stays.
void TestSettlementGui::aCheckSettledElsewhereIsNotRecorded()
{
    // The tests before may have settled every escalation: the first settled one is opened again.
    qint64 id = 0;
    for (qint64 candidate = 1; candidate < 100 && id == 0; ++candidate) {
        const Expected<std::optional<EscalationDetail>> found = m_store->escalation(candidate);
        QVERIFY_OK(found);
        if (*found && (**found).state == EscalationState::Resolved)
            id = candidate;
    }
    if (id == 0)
        id = m_store->openEscalations(0, 1)->value(0).id;
    QVERIFY(id > 0);
    if ((**m_store->escalation(id)).state == EscalationState::Resolved)
        QVERIFY_OK(m_store->reopenEscalation(id, QStringLiteral("opened again for a second check")));
    AttestDialog *dialog = m_window->attest(id);
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    dialog->performedChoice()->setChecked(true);
    QTest::keyClicks(dialog->referenceEdit(), QStringLiteral("re_seen"));
    QTest::keyClicks(dialog->noteEdit(), QStringLiteral("Found in the dashboard"));
    QVERIFY(dialog->recordButton()->isEnabled());
    // The other console: its lookup settles it, after this one's hold is let go.
    QVERIFY_OK(m_store->releaseEscalationClaim(id, m_window->provider().operatorName()));
    QVERIFY_OK(m_store->resolveEscalation(Settlement{id, Resolution::Performed, SettlementBasis::Lookup,
                                                     QStringLiteral("re_other"), QStringLiteral("ben"),
                                                     QDateTime::currentMSecsSinceEpoch()}));
    QTest::mouseClick(dialog->recordButton(), Qt::LeftButton);
    QTRY_VERIFY2(dialog->problemText().contains(QLatin1String("Nothing was recorded")),
                 qPrintable(dialog->problemText()));
    QVERIFY(dialog->isVisible());
    QVERIFY(!dialog->recordButton()->isEnabled());
    QCOMPARE(dialog->referenceEdit()->text(), QStringLiteral("re_seen"));
    dialog->close();
}

QTEST_MAIN(TestSettlementGui)
#include "tst_settlementgui.moc"

// Settling the March incident from the window: look the unknown refund up at the sandbox
// provider, see it resolved as performed (verified), and find the audit entry that records
// it; the chain verifies, and stops verifying once an entry is altered in the file.

#include "auditview.h"
#include "democonsole.h"
#include "escalationqueuepane.h"
#include "evidencedialog.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "itemmodels/auditlogmodel.h"
#include "itemmodels/ticketqueuemodel.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "resolution/providerconnection.h"
#include "resolutiondialog.h"
#include "sandbox/sandboxseed.h"
#include "sandbox/sandboxserver.h"
#include "store/storefactory.h"
#include "support/rawsqlite.h"
#include "ticketqueuepane.h"
#include "ticketview.h"
#include "toolcallcard.h"
#include "typedconfirmation.h"

#include <QAbstractButton>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

class TestResolutionGui : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void queueOpensNewestFirstAndSortsOnAClick();
    void lookupSettlesTheIncidentAndIsAudited();
    void notFoundOffersOnlyARepeatWithTheSameKey();
    void paymentNobodyNamedIsEnteredThenLookedUp();
    void liveKeyIsMarkedAndItsWritesTyped();

private:
    ToolCallCard *openIncidentCard(const QString &ticketOrOrder, const QString &callId);
    ResolutionDialog *waitForDialog();
    ResolutionDialog *lookUpFromCard(const QString &ticketOrOrder, const QString &callId);

    QTemporaryDir m_dir;
    QString m_dbPath;
    std::unique_ptr<InProcessSandbox> m_sandbox;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<MainWindow> m_window;
};

void TestResolutionGui::initTestCase()
{
    m_dbPath = m_dir.filePath(QStringLiteral("console.sqlite"));
    const QString problem = openDemoWithSandbox(m_dbPath, m_store, m_sandbox);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    m_window = std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{});
    QVERIFY(m_window->provider().save(m_sandbox->url(), QStringLiteral("alice"), QString()));
    QVERIFY(m_window->provider().resolver());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestResolutionGui::queueOpensNewestFirstAndSortsOnAClick()
{
    QTableView *table = m_window->queuePane()->table();
    QHeaderView *header = table->horizontalHeader();
    const QAbstractItemModel *model = table->model();
    QVERIFY(model->rowCount() > 2);
    const auto opened = [&](int row) {
        return model->data(model->index(row, TicketQueueModel::OpenedColumn)).toString();
    };
    const auto firstTicket = [&] {
        return model->data(model->index(0, TicketQueueModel::TicketColumn)).toString();
    };
    // What a person sees first: the newest ticket on top, and the header saying so.
    QCOMPARE(header->sortIndicatorSection(), int(TicketQueueModel::OpenedColumn));
    QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
    QVERIFY2(opened(0) >= opened(model->rowCount() - 1), qPrintable(opened(0)));
    const QString newest = firstTicket();
    const QString oldest =
            model->data(model->index(model->rowCount() - 1, TicketQueueModel::TicketColumn)).toString();

    // A click on the Opened header turns the queue round; a second click turns it back.
    const QPoint openedHeader(header->sectionViewportPosition(TicketQueueModel::OpenedColumn) + 5,
                              header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, openedHeader);
    QCOMPARE(header->sortIndicatorOrder(), Qt::AscendingOrder);
    QCOMPARE(firstTicket(), oldest);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, openedHeader);
    QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
    QCOMPARE(firstTicket(), newest);

    // Scrolled to the bottom, then a search typed (not yet entered) and a filter chosen: each
    // new list is shown from its top.
    QScrollBar *scroll = table->verticalScrollBar();
    table->scrollToBottom();
    QVERIFY(scroll->value() > 0);
    QLineEdit *search = m_window->queuePane()->searchBox();
    QTest::keyClicks(search, QStringLiteral("T-2026"));
    QTRY_COMPARE(model->rowCount(),
                 int(*m_store->countTickets(TicketQuery{TicketFilter::All, QStringLiteral("T-2026")})));
    QTRY_COMPARE(scroll->value(), 0);
    search->clear();
    QTRY_VERIFY(scroll->maximum() > 0);
    table->scrollToBottom();
    QVERIFY(scroll->value() > 0);
    m_window->findChild<QAbstractButton *>(QStringLiteral("filter_%1").arg(int(TicketFilter::All)))->click();
    QCOMPARE(scroll->value(), 0);
}

ToolCallCard *TestResolutionGui::openIncidentCard(const QString &ticketOrOrder, const QString &callId)
{
    QLineEdit *search = m_window->queuePane()->searchBox();
    search->clear();
    QTest::keyClicks(search, ticketOrOrder);
    QTest::keyClick(search, Qt::Key_Return);
    return m_window->ticketView()->card(callId);
}

ResolutionDialog *TestResolutionGui::waitForDialog()
{
    ResolutionDialog *dialog = nullptr;
    (void)QTest::qWaitFor(
            [&] {
                dialog = m_window->findChild<ResolutionDialog *>();
                return dialog && !dialog->resultText().isEmpty();
            },
            15000);
    return dialog;
}

// Opens the card of `callId` and presses its Look up button, as a person would: the dialog once
// it shows a result, or null.
ResolutionDialog *TestResolutionGui::lookUpFromCard(const QString &ticketOrOrder, const QString &callId)
{
    ToolCallCard *card = openIncidentCard(ticketOrOrder, callId);
    auto *lookup = card ? card->findChild<QPushButton *>(QStringLiteral("lookupButton")) : nullptr;
    if (!lookup || !QTest::qWaitFor([&] { return lookup->isVisible() && lookup->height() > 0; }))
        return nullptr;
    QTest::mouseClick(lookup, Qt::LeftButton);
    return waitForDialog();
}

void TestResolutionGui::lookupSettlesTheIncidentAndIsAudited()
{
    QCOMPARE(m_window->escalationCountText(), QStringLiteral("15 unknown outcomes waiting"));
    ResolutionDialog *dialog = lookUpFromCard(QStringLiteral("SU-88421"), QStringLiteral("c3"));
    QVERIFY(dialog);
    QVERIFY2(dialog->resultText().startsWith(QStringLiteral("Performed (verified)")),
             qPrintable(dialog->resultText()));
    // What the customer must now hear: one refund made, and a second in error; nobody has asked
    // for it back, so nothing is said of taking it back.
    QVERIFY(dialog->customerDraft().contains(QStringLiteral("one refund of $118.00")));
    QVERIFY(dialog->customerDraft().contains(QStringLiteral("17 March")));
    QVERIFY(dialog->customerDraft().contains(QStringLiteral("in error")));
    QVERIFY(!dialog->customerDraft().contains(QStringLiteral("recover")));
    QVERIFY(dialog->findChild<QPlainTextEdit *>(QStringLiteral("resolutionEvidence"))
                    ->toPlainText()
                    .contains(QStringLiteral("GET ")));
    // Found means settled: nothing in the console offers to send the refund again.
    QVERIFY(!dialog->performAgainButton()->isVisible());
    dialog->close();

    // The card now says how it was settled, and by whom; the queue has one unknown fewer.
    ToolCallCard *settled = m_window->ticketView()->card(QStringLiteral("c3"));
    QVERIFY(settled->findChild<QLabel *>(QStringLiteral("resolutionNotice"))
                    ->text()
                    .contains(QStringLiteral("Settled: performed (verified) by alice")));
    QVERIFY(!settled->findChild<QPushButton *>(QStringLiteral("lookupButton")));
    QCOMPARE(m_window->escalationCountText(), QStringLiteral("14 unknown outcomes waiting"));

    // The audit log holds the claim, the lookup and the resolution, and the chain verifies.
    AuditView *audit = m_window->auditView();
    auto *table = audit->findChild<QTableView *>(QStringLiteral("auditTable"));
    QCOMPARE(table->model()->rowCount(), 3);
    auto *verify = audit->findChild<QPushButton *>(QStringLiteral("verifyChainButton"));
    auto *status = audit->findChild<QLabel *>(QStringLiteral("chainStatus"));
    m_window->findChild<QDockWidget *>(QStringLiteral("auditDock"))->raise();
    QTRY_VERIFY(verify->isVisible());
    QTest::mouseClick(verify, Qt::LeftButton);
    QVERIFY2(status->text().contains(QStringLiteral("intact")), qPrintable(status->text()));

    // Someone edits the first entry in the database file behind the console's back.
    QCOMPARE(RawSqlite(m_dbPath).exec(
                     QStringLiteral("UPDATE audit_log SET detail = 'nothing happened' WHERE seq = 1")),
             QString());
    QTest::mouseClick(verify, Qt::LeftButton);
    QVERIFY2(status->text().contains(QStringLiteral("BROKEN at entry 1")), qPrintable(status->text()));
}

void TestResolutionGui::notFoundOffersOnlyARepeatWithTheSameKey()
{
    // The second of the fixed tool's unknown refunds never reached the provider.
    ToolCallCard *card = openIncidentCard(QStringLiteral("T-20260331-0158"), QStringLiteral("c3"));
    if (!card) {
        for (ToolCallCard *candidate : m_window->ticketView()->cards()) {
            if (candidate->findChild<QPushButton *>(QStringLiteral("lookupButton")))
                card = candidate;
        }
    }
    QVERIFY(card);
    const QString callId = card->callId(); // the card itself is rebuilt once the call is settled
    auto *lookup = card->findChild<QPushButton *>(QStringLiteral("lookupButton"));
    QVERIFY(lookup);
    QTRY_VERIFY(lookup->isVisible() && lookup->height() > 0);
    QTest::mouseClick(lookup, Qt::LeftButton);
    ResolutionDialog *dialog = waitForDialog();
    QVERIFY(dialog);
    QVERIFY2(dialog->resultText().startsWith(QStringLiteral("Not performed (verified)")),
             qPrintable(dialog->resultText()));
    QTRY_VERIFY(dialog->performAgainButton()->isVisible());

    // Declining the confirmation sends nothing.
    const qint64 before = m_sandbox->refundCount();
    m_window->setConfirm([](QWidget *, const QString &, const QString &) { return false; });
    // The dialog was built with the confirm in force when it opened; repeat from the card instead.
    dialog->close();
    ToolCallCard *resolved = m_window->ticketView()->card(callId);
    auto *again = resolved->findChild<QPushButton *>(QStringLiteral("performAgainButton"));
    QVERIFY(again);
    QTRY_VERIFY(again->isVisible() && again->height() > 0);
    QTest::mouseClick(again, Qt::LeftButton);
    QTest::qWait(200);
    QCOMPARE(m_sandbox->refundCount(), before);
    QPointer<ResolutionDialog> declined = m_window->findChild<ResolutionDialog *>();
    QVERIFY(declined);
    QCOMPARE(declined->resultText(), QStringLiteral("Nothing was sent: the repeat was not confirmed."));
    declined->close();
    QTRY_VERIFY(!declined); // gone, so the next dialog found is the new one

    // Confirming performs it once, with the same key, through the safe runtime. The call is
    // from March, so the provider no longer keeps its key: the confirmation says so, and a
    // lookup runs again right before the POST.
    QString question;
    QString typed = QStringLiteral("(not asked)");
    m_window->setConfirm([&](QWidget *, const QString &asked, const QString &toType) {
        question = asked;
        typed = toType;
        return true;
    });
    again = m_window->ticketView()->card(callId)->findChild<QPushButton *>(
            QStringLiteral("performAgainButton"));
    QTRY_VERIFY(again->isVisible() && again->height() > 0);
    QTest::mouseClick(again, Qt::LeftButton);
    ResolutionDialog *performed = waitForDialog();
    QVERIFY(performed);
    QVERIFY2(performed->resultText().startsWith(QStringLiteral("Performed again (verified): refund re_")),
             qPrintable(performed->resultText()));
    QCOMPARE(m_sandbox->refundCount(), before + 1);
    QVERIFY2(question.contains(QStringLiteral("The key no longer protects this write: the provider keeps "
                                              "idempotency keys for 24 hours")),
             qPrintable(question));
    QVERIFY2(question.contains(QStringLiteral("With: a test secret key")), qPrintable(question));
    QCOMPARE(typed, QString()); // a test key: a click confirms
    QVERIFY2(performed->resultText().contains(
                     QStringLiteral("looked the refund up immediately before sending")),
             qPrintable(performed->resultText()));
    performed->close();
    QVERIFY(m_window->ticketView()
                    ->card(callId)
                    ->findChild<QLabel *>(QStringLiteral("resolutionNotice"))
                    ->text()
                    .contains(QStringLiteral("Settled: performed again with the same key")));
    QVERIFY(!m_window->ticketView()->card(callId)->findChild<QPushButton *>(
            QStringLiteral("performAgainButton")));

    // A double-click on the audit entry of the refund sent opens its evidence at that piece.
    m_window->findChild<QDockWidget *>(QStringLiteral("auditDock"))->raise();
    auto *table = m_window->auditView()->findChild<QTableView *>(QStringLiteral("auditTable"));
    QTRY_VERIFY(table->isVisible());
    int sentRow = -1;
    for (int row = 0; row < table->model()->rowCount(); ++row) {
        if (table->model()
                    ->index(row, AuditLogModel::ActionColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("\"refund-sent\"")))
            sentRow = row;
    }
    QVERIFY(sentRow >= 0);
    const QModelIndex sentIndex = table->model()->index(sentRow, AuditLogModel::DetailColumn);
    table->scrollTo(sentIndex);
    const QPoint at = table->visualRect(sentIndex).center();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, at);
    EvidenceDialog *evidence = nullptr;
    QTRY_VERIFY((evidence = m_window->findChild<EvidenceDialog *>()) != nullptr);
    QTRY_VERIFY(evidence->isVisible());
    QVERIFY2(evidence->pieceInView().startsWith(QStringLiteral("=== 3. Write sent")),
             qPrintable(evidence->pieceInView()));
    evidence->close();
}

// A refund whose order names no payment: the card still offers the lookup, the dialog says what
// is missing and asks for the payment, refuses what is not one, and looks up what is.
void TestResolutionGui::paymentNobodyNamedIsEnteredThenLookedUp()
{
    const QString ticket = QStringLiteral("T-20260319-0187");
    const QStringList order =
            rows(RawSqlite(m_dbPath).db(),
                 QStringLiteral("SELECT order_id FROM tickets WHERE ext_id = '%1'").arg(ticket));
    QCOMPARE(order.size(), 1);
    QCOMPARE(
            RawSqlite(m_dbPath).exec(QStringLiteral("UPDATE orders SET payment_intent = NULL WHERE id = '%1'")
                                             .arg(order.first())),
            QString());
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);

    ResolutionDialog *dialog = lookUpFromCard(ticket, QStringLiteral("c3"));
    QVERIFY(dialog);
    QVERIFY2(dialog->resultText().startsWith(
                     QStringLiteral("no payment reference known for order %1").arg(order.first())),
             qPrintable(dialog->resultText()));
    auto *payment = dialog->findChild<QLineEdit *>(QStringLiteral("paymentReference"));
    auto *use = dialog->findChild<QPushButton *>(QStringLiteral("usePayment"));
    auto *find = dialog->findChild<QPushButton *>(QStringLiteral("findPayment"));
    QVERIFY(payment && use && find);
    QTRY_VERIFY(payment->isVisible());
    QVERIFY(dialog->attestButton()->isVisible()); // a check stays possible
    QCOMPARE(served.count(), 0);

    // The provider's search finds the order's payment and offers it; nothing is entered yet.
    QTest::mouseClick(find, Qt::LeftButton);
    QTRY_VERIFY2(dialog->resultText().startsWith(
                         QStringLiteral("The provider's search found one payment of order")),
                 qPrintable(dialog->resultText()));
    QCOMPARE(payment->text(), QStringLiteral("pi_") + order.first());
    QVERIFY(dialog->evidenceShown().contains(QStringLiteral("/v1/payment_intents/search")));
    QVERIFY(payment->isVisible()); // still the person's to use
    payment->clear();
    const int searches = int(served.count());

    QTest::keyClicks(payment, QStringLiteral("credit_card_7815826"));
    QTest::mouseClick(use, Qt::LeftButton);
    QVERIFY2(dialog->resultText().startsWith(QStringLiteral("payment: expected")),
             qPrintable(dialog->resultText()));
    QVERIFY(payment->isVisible());
    QCOMPARE(served.count(), searches);

    // Another order's payment, entered by mistake, proves nothing, and stays in the field to
    // be corrected.
    payment->clear();
    QTest::keyClicks(payment, QStringLiteral("pi_SU-88421"));
    QTest::keyClick(payment, Qt::Key_Return);
    QTRY_VERIFY2_WITH_TIMEOUT(
            dialog->resultText().contains(QStringLiteral("pi_SU-88421 is the payment of order "
                                                         "SU-88421, not of order %1")
                                                  .arg(order.first())),
            qPrintable(dialog->resultText()), 15000);
    QVERIFY(!dialog->performAgainButton()->isVisible());
    QTRY_VERIFY(payment->isVisible());
    QCOMPARE(payment->text(), QStringLiteral("pi_SU-88421"));

    payment->clear();
    QTest::keyClicks(payment, QStringLiteral("pi_") + order.first());
    QTest::keyClick(payment, Qt::Key_Return);
    QTRY_VERIFY2_WITH_TIMEOUT(
            dialog->resultText().startsWith(QStringLiteral("Performed (verified)")),
            qPrintable(dialog->resultText() + u'|'
                       + dialog->findChild<QLabel *>(QStringLiteral("resolutionStatus"))->text()),
            15000);
    QVERIFY(!payment->isVisible());
    QVERIFY2(dialog->findChild<QLabel *>(QStringLiteral("resolutionFacts"))
                     ->text()
                     .contains(QStringLiteral("Payment: pi_%1 (entered by alice)").arg(order.first())),
             qPrintable(dialog->findChild<QLabel *>(QStringLiteral("resolutionFacts"))->text()));
    QVERIFY(served.count() > 0);
    dialog->close();
}

// A live key: a red band across the window that stays, the key's kind in the status bar, and a
// repeat that asks for the amount to be typed. A restricted key is refused for writes up front.
void TestResolutionGui::liveKeyIsMarkedAndItsWritesTyped()
{
    auto *banner = m_window->findChild<QLabel *>(QStringLiteral("liveAccountBanner"));
    auto *kind = m_window->findChild<QLabel *>(QStringLiteral("providerKeyKind"));
    QVERIFY(banner && kind);
    QVERIFY(!banner->isVisible());
    QVERIFY2(kind->text().contains(QStringLiteral("a test secret key")), qPrintable(kind->text()));

    QVERIFY(m_window->provider().save(m_sandbox->url(), QStringLiteral("alice"),
                                      QStringLiteral("sk_live_51Hxyzabcd4242")));
    QTRY_VERIFY(banner->isVisible());
    QVERIFY2(banner->text().startsWith(QStringLiteral("Live account")), qPrintable(banner->text()));
    QVERIFY(banner->text().contains(QStringLiteral("sk_live_…4242")));
    QVERIFY(!banner->text().contains(QStringLiteral("51Hxyzabcd")));
    QVERIFY2(kind->text().contains(QStringLiteral("a live secret key")), qPrintable(kind->text()));
    // The band is above everything the person acts on, and stays there.
    QVERIFY(banner->mapTo(m_window.get(), QPoint(0, 0)).y()
            < m_window->ticketView()->mapTo(m_window.get(), QPoint(0, 0)).y());

    // The typed confirmation: Send waits for the amount; Enter alone sends nothing.
    TypedConfirmation confirm(QStringLiteral("Send a refund of $118.00 once more?"),
                              QStringLiteral("$118.00"), m_window.get());
    confirm.show();
    auto *typed = confirm.findChild<QLineEdit *>(QStringLiteral("typedAmount"));
    auto *send = confirm.findChild<QPushButton *>(QStringLiteral("sendTyped"));
    QVERIFY(typed && send);
    QVERIFY(!send->isEnabled());
    QTest::keyClicks(typed, QStringLiteral("118"));
    QVERIFY(!send->isEnabled());
    QSignalSpy accepted(&confirm, &QDialog::accepted);
    QSignalSpy rejected(&confirm, &QDialog::rejected);
    QTest::keyClicks(typed, QStringLiteral(".00"));
    QVERIFY(send->isEnabled());
    QVERIFY(send->isDefault());
    QTest::keyClick(typed, Qt::Key_Return); // typed in full, Enter sends
    QCOMPARE(accepted.count(), 1);
    QCOMPARE(rejected.count(), 0);
    QVERIFY(TypedConfirmation::sameAmount(QStringLiteral("$118.00"), QStringLiteral("$118.00")));
    QVERIFY(!TypedConfirmation::sameAmount(QStringLiteral("11.80"), QStringLiteral("$118.00")));

    // A restricted key reads; a repeat with it is refused before anything is sent.
    QVERIFY(m_window->provider().save(m_sandbox->url(), QStringLiteral("alice"),
                                      QStringLiteral("rk_live_51Hxyzabcd4242")));
    QTRY_VERIFY2(kind->text().contains(QStringLiteral("a live restricted key")), qPrintable(kind->text()));
    QVERIFY(banner->isVisible());
    QVERIFY(m_window->provider().save(m_sandbox->url(), QStringLiteral("alice"),
                                      QStringLiteral("sk_test_sandbox")));
    QTRY_VERIFY(!banner->isVisible());
}

QTEST_MAIN(TestResolutionGui)
#include "tst_resolutiongui.moc"

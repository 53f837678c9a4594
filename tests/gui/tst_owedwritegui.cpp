// The way back from a write settled "not performed", in the window, on the demo with its
// sandbox on 127.0.0.1. A seller message a person found absent keeps its ticket at "Needs a
// look", and its card says it is still owed and offers "Perform with the same key…", which asks
// the messaging service first and sends it only because the service has no record of it. A
// pickup a person found absent that the courier does have is settled as performed by that
// lookup, and nothing is sent. Where no system can be asked, the card says to do it by hand with
// the same key and a new check that it was performed replaces the first. A read-only console
// sees all of it, greyed.

#include "attestdialog.h"
#include "democonsole.h"
#include "dialogwait.h"
#include "escalationactions.h"
#include "itemmodels/ticketqueuemodel.h"
#include "mainwindow.h"
#include "resolution/escalationresolver.h"
#include "resolutiondialog.h"
#include "sandbox/sandboxserver.h"
#include "store/changefeed.h"
#include "support/testmacros.h"
#include "ticketqueuepane.h"
#include "ticketview.h"
#include "toolcallcard.h"

#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

namespace {

const QString messageTicket = QStringLiteral("T-20260330-0362"); // a message that never reached the seller
const QString pickupTicket = QStringLiteral("T-20260401-0247"); // a pickup the courier booked
const QString handTicket = QStringLiteral("T-20260320-0233"); // a message no system is asked about here

// The call's card as the window shows it once it has followed its own last commit: the change
// feed reads the database again a moment after it, and may build the cards anew.
ToolCallCard *shownCard(MainWindow &window, const QString &callId)
{
    QTest::qWait(4 * ChangeFeed::gatherMs);
    QPointer<ToolCallCard> card = window.ticketView()->card(callId);
    (void)QTest::qWaitFor([&card] { return card && card->isVisible(); }, 5000);
    return card ? card.data() : window.ticketView()->card(callId);
}

// What the sandbox was asked while this lives, as "GET /v1/messages?…", in order.
class ServedRequests : public QObject
{
public:
    explicit ServedRequests(SandboxServer &server)
    {
        connect(&server, &SandboxServer::served, this,
                [this](const QString &line) { lines << line.section(u' ', 0, 1); });
    }
    QStringList lines;
};

QString textOf(QWidget *parent, const QString &name)
{
    auto *label = parent ? parent->findChild<QLabel *>(name) : nullptr;
    return label ? label->text() : QString();
}

} // namespace

class TestOwedWriteGui : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();

    void aMessageACheckFoundAbsentIsSentAgainAfterALookup();
    void aPickupACheckFoundAbsentThatWasMadeIsNotSent();
    void whereNoSystemCanBeAskedALaterCheckReplacesTheFirst();
    void aHiddenCharacterIsSaidWhileTypedAndGoesOnceRemoved();

private:
    qint64 escalationOf(const QString &ticket, const QString &tool);
    qint64 ticketIdOf(const QString &extId) { return (*m_store->ticketIdByExtId(extId)).value_or(0); }
    // The ticket's "Attention" in the queue, as a person reads it.
    QString attentionOf(MainWindow &window, const QString &ticket);
    // Records a check that the write was not there, from the dialog a person fills in.
    void attestAbsent(MainWindow &window, qint64 escalationId);
    // The call's card as a console that cannot write the database shows it.
    void readOnlyCardIsGreyed(const QString &ticket, const QString &callId, const char *button);

    QTemporaryDir m_dir;
    QString m_dbPath;
    std::unique_ptr<InProcessSandbox> m_sandbox;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<MainWindow> m_window;
};

void TestOwedWriteGui::initTestCase()
{
    m_dbPath = m_dir.filePath(QStringLiteral("console.sqlite"));
    const QString problem = openDemoWithSandbox(m_dbPath, m_store, m_sandbox);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QSettings().clear();
    m_window = std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{});
    QVERIFY(m_window->provider().save(m_sandbox->url(), QStringLiteral("alice"), QString()));
    QVERIFY(m_window->provider().resolver());
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestOwedWriteGui::cleanup()
{
    for (QDialog *dialog : m_window->findChildren<QDialog *>())
        dialog->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    m_window->setConfirm({});
}

qint64 TestOwedWriteGui::escalationOf(const QString &ticket, const QString &tool)
{
    const QList<EscalationRow> open = *m_store->openEscalations(0, 100);
    for (const EscalationRow &row : open) {
        if (row.ticketExtId == ticket && row.tool == tool)
            return row.id;
    }
    return 0;
}

QString TestOwedWriteGui::attentionOf(MainWindow &window, const QString &ticket)
{
    window.queuePane()->searchBox()->setText(ticket);
    TicketQueueModel &queue = window.ticketQueue();
    const auto found = [&] {
        return queue.rowCount() == 1
                && queue.index(0, TicketQueueModel::TicketColumn).data().toString() == ticket;
    };
    if (!QTest::qWaitFor(found, 5000))
        return QStringLiteral("(%1 rows for %2)").arg(queue.rowCount()).arg(ticket);
    const QModelIndex attention = queue.index(0, TicketQueueModel::AttentionColumn);
    return QStringLiteral("%1 | %2").arg(attention.data().toString(),
                                         attention.data(Qt::ToolTipRole).toString());
}

void TestOwedWriteGui::attestAbsent(MainWindow &window, qint64 escalationId)
{
    AttestDialog *dialog = window.attest(escalationId);
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    QVERIFY(!dialog->replacesCheck());
    QTest::mouseClick(dialog->notPerformedChoice(), Qt::LeftButton, {},
                      QPoint(8, dialog->notPerformedChoice()->height() / 2));
    QTRY_VERIFY(dialog->notPerformedChoice()->isChecked());
    QTest::keyClicks(dialog->referenceEdit(), QStringLiteral("the seller's inbox"));
    QTest::keyClicks(dialog->noteEdit(), QStringLiteral("Nothing arrived, the seller says"));
    QTest::mouseClick(dialog->recordButton(), Qt::LeftButton);
    QTRY_VERIFY(!dialog->isVisible());
}

void TestOwedWriteGui::readOnlyCardIsGreyed(const QString &ticket, const QString &callId, const char *button)
{
    QWidget shell;
    shell.setProperty("verityReadOnly", true);
    shell.setProperty("verityReadOnlyReason", QStringLiteral("This database is open read-only"));
    EscalationActions actions(*m_store, m_window->provider(), &shell);
    const QList<TranscriptEntry> entries = *m_store->transcript(ticketIdOf(ticket));
    for (const TranscriptEntry &entry : entries) {
        if (!entry.isToolCall || entry.call.callExtId != callId)
            continue;
        ToolCallCard card(entry.call, actions.actionsFor(entry.call));
        // What is owed is shown as to anyone; what would be done is greyed, saying why.
        QVERIFY2(textOf(&card, QStringLiteral("owedNotice")).startsWith(QStringLiteral("Still owed")),
                 qPrintable(textOf(&card, QStringLiteral("owedNotice"))));
        auto *action = card.findChild<QPushButton *>(QLatin1String(button));
        QVERIFY2(action, button);
        QVERIFY(!action->isEnabled());
        QVERIFY2(action->toolTip().contains(QStringLiteral("nothing can be settled here")),
                 qPrintable(action->toolTip()));
        return;
    }
    QFAIL(qPrintable(QStringLiteral("no call %1 on %2").arg(callId, ticket)));
}

void TestOwedWriteGui::aMessageACheckFoundAbsentIsSentAgainAfterALookup()
{
    const qint64 id = escalationOf(messageTicket, QStringLiteral("message_seller"));
    QVERIFY(id > 0);
    const EscalationDetail detail = **m_store->escalation(id);
    attestAbsent(*m_window, id);

    // The ticket stays in view: marked, and saying why.
    const QString attention = attentionOf(*m_window, messageTicket);
    QVERIFY2(attention.startsWith(QStringLiteral("Needs a look | Needs attention: ")), qPrintable(attention));
    QVERIFY2(attention.contains(QStringLiteral("still owed")), qPrintable(attention));
    m_window->openTicket(ticketIdOf(messageTicket));
    // The ticket opens on a link to it, as it does for an unknown.
    auto *owedLink = m_window->ticketView()->findChild<QPushButton *>(QStringLiteral("summaryOwed"));
    QVERIFY(owedLink);
    QCOMPARE(owedLink->text(), QStringLiteral("Still owed: call %1").arg(detail.callExtId));
    QVERIFY(!owedLink->icon().isNull()); // the attention mark, as in the queue
    ToolCallCard *card = shownCard(*m_window, detail.callExtId);
    QVERIFY(card);
    QVERIFY2(textOf(card, QStringLiteral("resolutionNotice"))
                     .contains(QStringLiteral("not performed (attested)")),
             qPrintable(textOf(card, QStringLiteral("resolutionNotice"))));
    const QString owed = textOf(card, QStringLiteral("owedNotice"));
    QVERIFY2(owed.startsWith(QStringLiteral("Still owed to the customer")), qPrintable(owed));
    QVERIFY2(owed.contains(QStringLiteral("asks the seller-messaging service first")), qPrintable(owed));
    auto *perform = card->findChild<QPushButton *>(QStringLiteral("performAgainButton"));
    QVERIFY(perform);
    QVERIFY(perform->isVisible() && perform->isEnabled());
    QCOMPARE(perform->text(), QStringLiteral("Perform with the same key…"));
    QVERIFY2(perform->toolTip().startsWith(
                     QStringLiteral("Asks the seller-messaging service first, with the same "
                                    "intent key, whether it was made")),
             qPrintable(perform->toolTip()));
    readOnlyCardIsGreyed(messageTicket, detail.callExtId, "performAgainButton");

    // Pressed: the confirmation says the service is asked first; then the lookup, then the POST.
    QString question;
    m_window->setConfirm([&question](QWidget *, const QString &asked, const QString &) {
        question = asked;
        return true;
    });
    ServedRequests served(m_sandbox->server());
    const QStringList &requests = served.lines;
    QTest::mouseClick(perform, Qt::LeftButton);
    auto *dialog = waitForDialog<ResolutionDialog>(
            m_window.get(), [](ResolutionDialog *d) { return !d->resultText().isEmpty(); });
    QVERIFY(dialog);
    QCOMPARE(dialog->escalationId(), id);
    QVERIFY2(question.contains(
                     QStringLiteral("Before anything is sent, the seller-messaging service is asked with the "
                                    "same key")),
             qPrintable(question));
    QVERIFY2(question.contains(detail.intentKey), qPrintable(question));
    QVERIFY2(dialog->resultText().startsWith(
                     QStringLiteral("Looked up first: the seller-messaging service had no "
                                    "record of it, so it was sent. Performed again "
                                    "(verified)")),
             qPrintable(dialog->resultText()));
    QVERIFY2(!requests.isEmpty() && requests.first().startsWith(QStringLiteral("GET /v1/messages")),
             qPrintable(requests.join(u'\n')));
    QCOMPARE(requests.filter(QStringLiteral("POST /v1/messages")).size(), 1);
    QVERIFY(!dialog->performAgainButton()->isVisible());
    dialog->close();

    // Settled: the card says so, nothing is owed, and the ticket leaves the attention.
    QTRY_VERIFY(textOf(m_window->ticketView()->card(detail.callExtId), QStringLiteral("resolutionNotice"))
                        .contains(QStringLiteral("performed again with the same key")));
    ToolCallCard *after = m_window->ticketView()->card(detail.callExtId);
    QVERIFY(textOf(after, QStringLiteral("owedNotice")).isEmpty());
    QVERIFY(!after->findChild<QPushButton *>(QStringLiteral("performAgainButton")));
    QVERIFY2(!attentionOf(*m_window, messageTicket).startsWith(QStringLiteral("Needs a look")),
             qPrintable(attentionOf(*m_window, messageTicket)));
}

void TestOwedWriteGui::aPickupACheckFoundAbsentThatWasMadeIsNotSent()
{
    const qint64 id = escalationOf(pickupTicket, QStringLiteral("schedule_pickup"));
    QVERIFY(id > 0);
    const QString callId = (**m_store->escalation(id)).callExtId;
    attestAbsent(*m_window, id);
    QVERIFY2(attentionOf(*m_window, pickupTicket).startsWith(QStringLiteral("Needs a look")),
             qPrintable(attentionOf(*m_window, pickupTicket)));
    m_window->openTicket(ticketIdOf(pickupTicket));
    ToolCallCard *card = shownCard(*m_window, callId);
    QVERIFY(card);
    auto *perform = card->findChild<QPushButton *>(QStringLiteral("performAgainButton"));
    QVERIFY(perform && perform->isVisible() && perform->isEnabled());

    bool asked = false;
    m_window->setConfirm([&asked](QWidget *, const QString &, const QString &) { return asked = true; });
    ServedRequests served(m_sandbox->server());
    const QStringList &requests = served.lines;
    QTest::mouseClick(perform, Qt::LeftButton);
    auto *dialog = waitForDialog<ResolutionDialog>(
            m_window.get(), [](ResolutionDialog *d) { return !d->resultText().isEmpty(); });
    QVERIFY(dialog);
    QVERIFY(asked);
    // The courier has it: performed (verified), in place of the check, and nothing sent.
    QVERIFY2(dialog->resultText().startsWith(QStringLiteral("Performed (verified): found pickup ")),
             qPrintable(dialog->resultText()));
    QVERIFY2(dialog->resultText().contains(QStringLiteral("It replaces the check alice recorded at")),
             qPrintable(dialog->resultText()));
    QVERIFY2(dialog->resultText().endsWith(QStringLiteral("Nothing was sent.")),
             qPrintable(dialog->resultText()));
    QVERIFY(!requests.isEmpty());
    QCOMPARE(requests.filter(QStringLiteral("POST ")).size(), 0);
    dialog->close();
    QTRY_VERIFY(textOf(m_window->ticketView()->card(callId), QStringLiteral("resolutionNotice"))
                        .contains(QStringLiteral("performed (verified)")));
    QVERIFY(!attentionOf(*m_window, pickupTicket).startsWith(QStringLiteral("Needs a look")));
}

void TestOwedWriteGui::whereNoSystemCanBeAskedALaterCheckReplacesTheFirst()
{
    // A registry that names no system for seller messages: nothing can be asked or sent.
    const QString registry = m_dir.filePath(QStringLiteral("no-messaging.json"));
    QFile file(registry);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "verity-tool-registry", "version": 1, "tools": {
        "message_seller": {"class": "write_irreversible",
                           "intent": ["ticket_id", "seller_id", {"name": "text", "type": "sha256"}]}}})");
    file.close();
    MainWindow window(*m_store, m_dbPath, RegistrySource{registry, QString()});
    QVERIFY(window.provider().resolver());
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const qint64 id = escalationOf(handTicket, QStringLiteral("message_seller"));
    QVERIFY(id > 0);
    const EscalationDetail detail = **m_store->escalation(id);
    attestAbsent(window, id);
    QVERIFY2(attentionOf(window, handTicket).startsWith(QStringLiteral("Needs a look")),
             qPrintable(attentionOf(window, handTicket)));

    // A console with no provider settings yet offers the same way back: nothing can be asked
    // from there either.
    {
        QWidget shell;
        ProviderConnection bare(*m_store);
        QVERIFY(!bare.resolver());
        EscalationActions actions(*m_store, bare, &shell);
        const QList<TranscriptEntry> entries = *m_store->transcript(ticketIdOf(handTicket));
        for (const TranscriptEntry &entry : entries) {
            if (entry.isToolCall && entry.call.callExtId == detail.callExtId) {
                const CallActions offered = actions.actionsFor(entry.call);
                QVERIFY(offered.owed);
                QVERIFY(offered.mayReplaceCheck);
                QVERIFY(!offered.mayPerformAgain);
            }
        }
    }

    window.openTicket(ticketIdOf(handTicket));
    ToolCallCard *card = shownCard(window, detail.callExtId);
    QVERIFY(card);
    // Said what to do, by hand and with the same key; then a check that replaces the first.
    const QString owed = textOf(card, QStringLiteral("owedNotice"));
    QVERIFY2(owed.contains(
                     QStringLiteral("No system can be asked about message_seller from here: do it in the "
                                    "system it goes to, with the same intent key (below), then record a "
                                    "check that it was performed")),
             qPrintable(owed));
    QVERIFY(!card->findChild<QPushButton *>(QStringLiteral("performAgainButton")));
    auto *recheck = card->findChild<QPushButton *>(QStringLiteral("recheckButton"));
    QVERIFY(recheck && recheck->isVisible() && recheck->isEnabled());
    QCOMPARE(card->findChild<QLineEdit *>(QStringLiteral("intentKey"))->text(), detail.intentKey);
    QTest::mouseClick(recheck, Qt::LeftButton);
    auto *dialog = waitForDialog<AttestDialog>(&window);
    QVERIFY(dialog);
    QVERIFY(dialog->replacesCheck());
    QVERIFY2(dialog->guidanceText().startsWith(QStringLiteral("alice found it not performed (attested at ")),
             qPrintable(dialog->guidanceText()));
    QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("attestIntentKey"))->text(), detail.intentKey);
    QVERIFY(dialog->performedChoice()->isChecked());
    QVERIFY(!dialog->notPerformedChoice()->isVisible());
    QTest::keyClicks(dialog->referenceEdit(), QStringLiteral("msg-8841"));
    QTest::keyClicks(dialog->noteEdit(),
                     QStringLiteral("Sent from the seller portal with the same intent key"));
    const qint64 auditBefore = *m_store->countAuditEntries();
    QTest::mouseClick(dialog->recordButton(), Qt::LeftButton);
    QTRY_VERIFY(!dialog->isVisible());

    // Settled as performed (attested), by the new check; both checks are in the audit log.
    QTRY_VERIFY(textOf(window.ticketView()->card(detail.callExtId), QStringLiteral("resolutionNotice"))
                        .contains(QStringLiteral("performed (attested) by alice")));
    ToolCallCard *after = window.ticketView()->card(detail.callExtId);
    QVERIFY(textOf(after, QStringLiteral("owedNotice")).isEmpty());
    const QList<AuditEntry> entries = *m_store->auditEntries(0, 1000);
    QCOMPARE(qint64(entries.size()), auditBefore + 2);
    QCOMPARE(entries.at(entries.size() - 2).action, QStringLiteral("attest"));
    QCOMPARE(entries.last().action, QStringLiteral("settle"));
    QVERIFY2(entries.last().detail.contains(QStringLiteral("It replaces the check alice recorded at")),
             qPrintable(entries.last().detail));
    QVERIFY(!attentionOf(window, handTicket).startsWith(QStringLiteral("Needs a look")));
}

// A right-to-left override typed into a check's reference is said at once, Record check waits,
// and taking it out makes the check recordable again: nothing typed is lost to a refusal.
void TestOwedWriteGui::aHiddenCharacterIsSaidWhileTypedAndGoesOnceRemoved()
{
    const QList<EscalationRow> open = *m_store->openEscalations(0, 1);
    QVERIFY(!open.isEmpty());
    AttestDialog *dialog = m_window->attest(open.first().id);
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    QTest::mouseClick(dialog->notPerformedChoice(), Qt::LeftButton, {},
                      QPoint(8, dialog->notPerformedChoice()->height() / 2));
    QTest::keyClicks(dialog->noteEdit(), QStringLiteral("Looked in the seller's inbox"));
    dialog->referenceEdit()->setText(QStringLiteral("inbox \u202e2026"));
    QVERIFY(!dialog->recordButton()->isEnabled());
    auto *problem = dialog->findChild<QLabel *>(QStringLiteral("attestProblem"));
    QVERIFY(problem && problem->isVisible());
    QVERIFY2(problem->text().contains(QStringLiteral("U+202E")), qPrintable(problem->text()));
    dialog->referenceEdit()->setText(QStringLiteral("inbox 2026"));
    QVERIFY(dialog->recordButton()->isEnabled());
    QVERIFY(!problem->isVisible());
    dialog->close();
}

QTEST_MAIN(TestOwedWriteGui)
#include "tst_owedwritegui.moc"

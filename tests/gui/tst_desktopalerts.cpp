// Told when it matters: an escalation that arrives while the console is behind another window,
// and a claim of one's own about to lapse, are told once each, naming the ticket and the amount;
// in front of the console, or with the setting off, nothing is; the title counts what waits; an
// alert opens its escalation.

#include "escalationalerts.h"
#include "escalationqueuepane.h"
#include "import/importjob.h"
#include "itemmodels/escalationqueuemodel.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "resolution/escalationclaims.h"
#include "support/deskfile.h"
#include "support/teststore.h"

#include <QAction>
#include <QDateTime>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

namespace {

// A console on the demo desk file, and another connection to the file for "someone else".
struct AlertDesk
{
    QTemporaryDir folder;
    QString path = folder.filePath(QStringLiteral("desk.sqlite"));
    std::unique_ptr<Store> console = openTestStore(path);
    std::unique_ptr<Store> other = openTestStore(path);
    std::unique_ptr<MainWindow> window;
    bool inFront = false;

    bool open()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(QStringLiteral("alerts"));
        if (!console || !other || !importInto(*console, demoDataResource()))
            return false;
        window = std::make_unique<MainWindow>(*console, path, RegistrySource{});
        window->alerts().setInFront([this] { return inFront; });
        window->alerts().setOperatorName([] { return QStringLiteral("ana"); });
        window->resize(1280, 800);
        window->show();
        return QTest::qWaitForWindowExposed(window.get());
    }
    // A new ticket with an unknown $42.00 refund, written by "someone else"; the console reads it.
    bool arrive(const QString &ticket, int serial)
    {
        const QString file = writeUnknownRefund(folder.path(), ticket, serial);
        if (file.isEmpty() || !importInto(*other, file))
            return false;
        window->refresh();
        return true;
    }
};

} // namespace

class DesktopAlertsTest : public QObject
{
    Q_OBJECT

private slots:
    void arrivalsAreToldOnceAndOnlyWhenBehind_data();
    void arrivalsAreToldOnceAndOnlyWhenBehind();
    void severalArrivalsAreOneAlert();
    void aClaimAboutToLapseIsToldOnce();
    void theTitleCountsWhatWaits();
    void anAlertOpensItsEscalation();
    void theSettingTurnsThemOff();
    void aNextStepHintGoesOnceThePersonActs();
};

void DesktopAlertsTest::arrivalsAreToldOnceAndOnlyWhenBehind_data()
{
    QTest::addColumn<bool>("inFront");
    QTest::addColumn<bool>("enabled");
    QTest::addColumn<bool>("told");
    QTest::newRow("behind another window") << false << true << true;
    QTest::newRow("in front: the queue shows it") << true << true << false;
    QTest::newRow("turned off") << false << false << false;
}

void DesktopAlertsTest::arrivalsAreToldOnceAndOnlyWhenBehind()
{
    QFETCH(bool, inFront);
    QFETCH(bool, enabled);
    QFETCH(bool, told);
    AlertDesk desk;
    QVERIFY(desk.open());
    desk.inFront = inFront;
    desk.window->alerts().setEnabled(enabled);
    QSignalSpy alerted(&desk.window->alerts(), &EscalationAlerts::alerted);
    desk.window->refresh(); // what was open at the start is nobody's news
    QCOMPARE(alerted.count(), 0);

    QVERIFY(desk.arrive(QStringLiteral("T-NEW-0001"), 1));
    QCOMPARE(alerted.count(), told ? 1 : 0);
    if (told) {
        const auto alert = alerted.first().first().value<EscalationAlert>();
        QCOMPARE(alert.title, QStringLiteral("New escalation: T-NEW-0001"));
        QVERIFY2(alert.text.startsWith(QLatin1String("$42.00 issue_refund, call c1: its outcome is unknown")),
                 qPrintable(alert.text));
    }
    // Told once: reading again tells nothing more, and what arrived while in front stays untold.
    desk.inFront = false;
    desk.window->alerts().setEnabled(true);
    desk.window->refresh();
    QCOMPARE(alerted.count(), told ? 1 : 0);
}

void DesktopAlertsTest::severalArrivalsAreOneAlert()
{
    AlertDesk desk;
    QVERIFY(desk.open());
    QSignalSpy alerted(&desk.window->alerts(), &EscalationAlerts::alerted);
    for (int serial = 1; serial <= 5; ++serial) {
        const QString file =
                writeUnknownRefund(desk.folder.path(), QStringLiteral("T-RUN-%1").arg(serial), serial);
        QVERIFY(importInto(*desk.other, file));
    }
    desk.window->refresh();
    QCOMPARE(alerted.count(), 1);
    const auto alert = alerted.first().first().value<EscalationAlert>();
    QCOMPARE(alert.title, QStringLiteral("5 new escalations"));
    QVERIFY2(alert.text.startsWith(QLatin1String("T-RUN-5 $42.00 issue_refund; T-RUN-4 $42.00 issue_refund; "
                                                 "T-RUN-3 $42.00 issue_refund; and 2 more.")),
             qPrintable(alert.text));
    const Expected<std::optional<qint64>> newest = desk.console->ticketIdByExtId(QStringLiteral("T-RUN-5"));
    QVERIFY(newest && *newest);
    QCOMPARE(alert.ticketId, **newest);
}

void DesktopAlertsTest::aClaimAboutToLapseIsToldOnce()
{
    AlertDesk desk;
    QVERIFY(desk.open());
    QSignalSpy alerted(&desk.window->alerts(), &EscalationAlerts::alerted);
    // ana took one from the command line for a minute; nothing renews it.
    EscalationClaims shortClaim(*desk.other, QStringLiteral("ana"));
    shortClaim.setLease(60 * 1000);
    const Expected<std::optional<EscalationClaim>> taken = shortClaim.claimNext();
    QVERIFY(taken && *taken && (*taken)->taken);
    // And another for a quarter of an hour: not yet worth a word. Someone else's is not hers.
    EscalationClaims longClaim(*desk.other, QStringLiteral("ana"));
    QVERIFY(longClaim.claimNext());
    EscalationClaims bens(*desk.other, QStringLiteral("ben"));
    bens.setLease(30 * 1000);
    QVERIFY(bens.claimNext());

    desk.window->alerts().checkClaims();
    QCOMPARE(alerted.count(), 1);
    const auto alert = alerted.first().first().value<EscalationAlert>();
    QCOMPARE(alert.escalationId, (*taken)->escalationId);
    QCOMPARE(alert.title, QStringLiteral("Your claim lapses at %1").arg(claimEndWords((*taken)->until)));
    QVERIFY2(alert.text.startsWith(QStringLiteral("Escalation #%1, T-").arg(alert.escalationId)),
             qPrintable(alert.text));
    desk.window->alerts().checkClaims();
    QCOMPARE(alerted.count(), 1); // once
}

void DesktopAlertsTest::theTitleCountsWhatWaits()
{
    AlertDesk desk;
    QVERIFY(desk.open());
    desk.window->setTitle(QStringLiteral("Verity — desk.sqlite"));
    QVERIFY2(desk.window->windowTitle().endsWith(QStringLiteral(" waiting) Verity — desk.sqlite")),
             qPrintable(desk.window->windowTitle()));
    const QString before = desk.window->windowTitle();
    QVERIFY(desk.arrive(QStringLiteral("T-NEW-0002"), 2));
    QTRY_VERIFY(desk.window->windowTitle() != before);
    const int count = before.mid(1, before.indexOf(u' ') - 1).toInt();
    QVERIFY(count > 0);
    QCOMPARE(desk.window->windowTitle(), QStringLiteral("(%1 waiting) Verity — desk.sqlite").arg(count + 1));
}

void DesktopAlertsTest::anAlertOpensItsEscalation()
{
    AlertDesk desk;
    QVERIFY(desk.open());
    QSignalSpy alerted(&desk.window->alerts(), &EscalationAlerts::alerted);
    QVERIFY(desk.arrive(QStringLiteral("T-NEW-0003"), 3));
    QCOMPARE(alerted.count(), 1);
    const auto alert = alerted.first().first().value<EscalationAlert>();
    desk.window->openAlert(alert);
    QCOMPARE(desk.window->transcript().ticketId(), alert.ticketId);
    const QModelIndex chosen = desk.window->escalationPane()->table()->currentIndex();
    QVERIFY(chosen.isValid());
    QCOMPARE(chosen.data(EscalationQueueModel::EscalationIdRole).toLongLong(), alert.escalationId);
}

void DesktopAlertsTest::theSettingTurnsThemOff()
{
    AlertDesk desk;
    QVERIFY(desk.open());
    auto *setting = desk.window->findChild<QAction *>(QStringLiteral("desktopAlertsAction"));
    QVERIFY(setting);
    QVERIFY(setting->isChecked());
    setting->trigger();
    QVERIFY(!desk.window->alerts().isEnabled());
    QCOMPARE(QSettings().value(QStringLiteral("alerts/desktop")).toBool(), false);
    QSignalSpy alerted(&desk.window->alerts(), &EscalationAlerts::alerted);
    QVERIFY(desk.arrive(QStringLiteral("T-NEW-0004"), 4));
    QCOMPARE(alerted.count(), 0);
    // A new window starts as it was left.
    MainWindow second(*desk.console, desk.path, RegistrySource{});
    QVERIFY(!second.alerts().isEnabled());
    QSettings().remove(QStringLiteral("alerts"));
}

// "Nothing to look up: open a ticket…" is advice for that moment: opening a ticket ends it,
// rather than leaving it beside what the person now sees.
void DesktopAlertsTest::aNextStepHintGoesOnceThePersonActs()
{
    AlertDesk desk;
    QVERIFY(desk.open());
    QVERIFY(!desk.window->lookUpInFront());
    QVERIFY2(desk.window->statusBar()->currentMessage().startsWith(QLatin1String("Nothing to look up")),
             qPrintable(desk.window->statusBar()->currentMessage()));
    const Expected<std::optional<qint64>> ticket =
            desk.console->ticketIdByExtId(QStringLiteral("T-20260317-0412"));
    QVERIFY(ticket && *ticket);
    desk.window->openTicket(**ticket);
    QCOMPARE(desk.window->statusBar()->currentMessage(), QString());
}

QTEST_MAIN(DesktopAlertsTest)
#include "tst_desktopalerts.moc"

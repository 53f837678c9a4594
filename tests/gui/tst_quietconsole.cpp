// A console nobody touches, on a desk file nobody else writes to for a while: what it shows about
// time must still move. A claim another person took lapses, and the queue stops showing it as
// held within two seconds of its end, with nothing else happening.

#include "escalationqueuepane.h"
#include "import/importjob.h"
#include "itemmodels/escalationqueuemodel.h"
#include "mainwindow.h"
#include "resolution/escalationclaims.h"
#include "resolution/providerconnection.h"
#include "resolutiondialog.h"
#include "support/deskfile.h"
#include "support/teststore.h"
#include "support/verityprocess.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

namespace {

// The queue's "Claimed by" text for escalation `id`, or "(not listed)".
QString claimShown(QTableView *queue, qint64 id)
{
    QAbstractItemModel *model = queue->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex cell = model->index(row, EscalationQueueModel::ClaimColumn);
        if (cell.data(EscalationQueueModel::EscalationIdRole).toLongLong() == id)
            return cell.data().toString();
    }
    return QStringLiteral("(not listed)");
}

// A console on the demo desk file, and another connection to the file for "someone else".
struct QuietDesk
{
    QTemporaryDir folder;
    QString path = folder.filePath(QStringLiteral("desk.sqlite"));
    std::unique_ptr<Store> console = openTestStore(path);
    std::unique_ptr<Store> other = openTestStore(path);
    std::unique_ptr<MainWindow> window;

    // False (and the test fails) when the file or the window cannot be made.
    bool open()
    {
        QStandardPaths::setTestModeEnabled(true);
        if (!console || !other || !importInto(*console, demoDataResource()))
            return false;
        window = std::make_unique<MainWindow>(*console, path, RegistrySource{});
        window->resize(1280, 800);
        window->show();
        return QTest::qWaitForWindowExposed(window.get());
    }
};

} // namespace

class QuietConsoleTest : public QObject
{
    Q_OBJECT

private slots:
    void aLapsedClaimLeavesTheQueueOnTime();
    void aClaimNoLongerRenewedIsSaidSo();
    void aStatusAboutAClaimGoesWhenTheClaimDoes();
    void anOpenDialogShowsASettlementMadeElsewhere();
};

void QuietConsoleTest::aLapsedClaimLeavesTheQueueOnTime()
{
    QuietDesk desk;
    QVERIFY(desk.open());
    MainWindow &window = *desk.window;
    Store &other = *desk.other;
    QTableView *queue = window.escalationPane()->table();
    QTRY_VERIFY(queue->model()->rowCount() > 0);

    // user_b claims the oldest escalation in another process's place, for three seconds.
    EscalationClaims claims(other, QStringLiteral("user_b"));
    claims.setLease(3000);
    const Expected<std::optional<EscalationClaim>> claimed = claims.claimNext();
    QVERIFY(claimed && *claimed && (*claimed)->taken);
    const qint64 id = (*claimed)->escalationId;
    const qint64 lapse = (*claimed)->until;
    QTRY_VERIFY_WITH_TIMEOUT(claimShown(queue, id).startsWith(QLatin1String("user_b, until")), 2000);

    // Then nothing happens, and the claim's end passes: the model tells the view the cell
    // changed (what makes a quiet view paint again), and the cell reads free.
    // Only a change told once the claim has ended counts: a busy machine may still be repainting
    // the claim itself when the wait begins.
    bool toldTheView = false;
    const QMetaObject::Connection told =
            connect(queue->model(), &QAbstractItemModel::dataChanged, this,
                    [&](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                        if (QDateTime::currentMSecsSinceEpoch() >= lapse
                            && topLeft.column() <= EscalationQueueModel::ClaimColumn
                            && bottomRight.column() >= EscalationQueueModel::ClaimColumn)
                            toldTheView = true;
                    });
    QTRY_VERIFY_WITH_TIMEOUT(toldTheView, int(lapse - QDateTime::currentMSecsSinceEpoch()) + 2000);
    disconnect(told);
    QCOMPARE(claimShown(queue, id), QString());
}

// A console that renews its claim every second, then is killed: the queue says the claim is no
// longer renewed, on its own, while it still holds until its lease ends.
void QuietConsoleTest::aClaimNoLongerRenewedIsSaidSo()
{
    QuietDesk desk;
    QVERIFY(desk.open());
    MainWindow &window = *desk.window;
    Store &other = *desk.other;
    QTableView *queue = window.escalationPane()->table();
    QTRY_VERIFY(queue->model()->rowCount() > 0);

    EscalationClaims claims(other, QStringLiteral("user_b"));
    claims.setLease(10 * 60 * 1000);
    claims.setRenewal(1000);
    const Expected<std::optional<EscalationClaim>> claimed = claims.claimNext();
    QVERIFY(claimed && *claimed && (*claimed)->taken);
    const qint64 id = (*claimed)->escalationId;
    QTRY_VERIFY_WITH_TIMEOUT(claimShown(queue, id).startsWith(QLatin1String("user_b, until")), 2000);
    QVERIFY(!claimShown(queue, id).contains(QLatin1String("not renewed")));
    // Its console is gone: no renewal comes. Two seconds after the claim was taken, and within
    // two more, the queue says so.
    QTRY_VERIFY_WITH_TIMEOUT(claimShown(queue, id).contains(QLatin1String("not renewed since")), 4000);
    QVERIFY(claimShown(queue, id).startsWith(QLatin1String("user_b, until")));
}

// "You claimed c3 … until 17:47" stays only while it is so: an admin elsewhere releases the claim,
// and the status bar no longer says it, with the console untouched.
void QuietConsoleTest::aStatusAboutAClaimGoesWhenTheClaimDoes()
{
    QuietDesk desk;
    QVERIFY(desk.open());
    MainWindow &window = *desk.window;
    Store &other = *desk.other;
    QVERIFY(window.provider().save(QUrl(QStringLiteral("http://127.0.0.1:9")), QStringLiteral("ana"),
                                   QString(), {}));

    window.claimNext();
    QTRY_VERIFY(window.statusBar()->currentMessage().startsWith(QLatin1String("You claimed")));
    const Expected<QList<EscalationRow>> open = other.openEscalations(0, 100);
    QVERIFY(open);
    qint64 claimed = 0;
    for (const EscalationRow &row : *open) {
        if (row.claimedBy == QLatin1String("ana"))
            claimed = row.id;
    }
    QVERIFY(claimed > 0);
    EscalationClaims admin(other, QStringLiteral("lead"));
    QVERIFY(*admin.releaseAnyone(claimed));
    QTRY_VERIFY_WITH_TIMEOUT(window.statusBar()->currentMessage().isEmpty(), 3000);
}

// The console's dialog for an escalation stays open while, elsewhere, an admin takes the claim
// off and bob records his check from the command line: the dialog says it is settled, by bob.
void QuietConsoleTest::anOpenDialogShowsASettlementMadeElsewhere()
{
    QuietDesk desk;
    QVERIFY(desk.open());
    MainWindow &window = *desk.window;
    QVERIFY(window.provider().save(QUrl(QStringLiteral("http://127.0.0.1:9")), QStringLiteral("ana"),
                                   QString(), {}));
    window.claimNext();
    ResolutionDialog *dialog = window.findChild<ResolutionDialog *>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QVERIFY2(!dialog->resultText().contains(QLatin1String("bob")), qPrintable(dialog->resultText()));
    const Expected<QList<EscalationRow>> open = desk.other->openEscalations(0, 100);
    QVERIFY(open);
    qint64 claimed = 0;
    for (const EscalationRow &row : *open) {
        if (row.claimedBy == QLatin1String("ana"))
            claimed = row.id;
    }
    QVERIFY(claimed > 0);
    QVERIFY(*EscalationClaims(*desk.other, QStringLiteral("lead")).releaseAnyone(claimed));
    const VerityRun resolved = runVerity(
            {QStringLiteral("resolve"), QStringLiteral("--db"), desk.path, QString::number(claimed),
             QStringLiteral("--attest"), QStringLiteral("performed"), QStringLiteral("--reference"),
             QStringLiteral("re_seen"), QStringLiteral("--note"), QStringLiteral("in the dashboard"),
             QStringLiteral("--operator"), QStringLiteral("bob")},
            isolatedEnvironment(desk.folder.path()));
    QVERIFY2(resolved.exitCode == 0, qPrintable(resolved.out + resolved.err));
    QTRY_VERIFY_WITH_TIMEOUT(dialog->resultText().startsWith(QLatin1String("Settled: ")), 3000);
    QVERIFY2(dialog->resultText().contains(QLatin1String("by bob")), qPrintable(dialog->resultText()));
}

QTEST_MAIN(QuietConsoleTest)
#include "tst_quietconsole.moc"

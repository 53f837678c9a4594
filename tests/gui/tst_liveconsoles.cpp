// Two consoles on one team database, as two people at two desks: what one does, the other sees
// within a second, announced by the database (LISTEN/NOTIFY), while the watcher keeps the row
// they chose, the rows in sight and the ticket they have open. A third console, a trainer's,
// shows what its role cannot do greyed out with the reason. When the server restarts, the
// watcher says so and keeps its views, then follows again.

#include "attestdialog.h"
#include "auditview.h"
#include "domain/toolregistry.h"
#include "escalationqueuepane.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "itemmodels/escalationqueuemodel.h"
#include "itemmodels/ticketqueuemodel.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "resolution/escalationclaims.h"
#include "resolution/escalationresolver.h"
#include "resolution/providerconnection.h"
#include "resolutiondialog.h"
#include "serverwaitdialog.h"
#include "store/postgresroles.h"
#include "store/serverwatch.h"
#include "store/sqlstore.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"
#include "support/testmacros.h"
#include "ticketqueuepane.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QRadioButton>
#include <QSqlQuery>
#include <QStatusBar>
#include <QTableView>
#include <QTest>

using namespace verity;
using namespace verity::test;

namespace {

// The announcement travels through the server and the event loop; a second is what the
// people at the two desks are promised.
constexpr int followMs = 1000;

} // namespace

class LiveConsolesTest : public QObject
{
    Q_OBJECT

    PostgresCluster m_cluster;
    QString m_location;
    std::unique_ptr<Store> m_acting; // the console that changes things (its window is not needed)
    std::unique_ptr<Store> m_watching;
    std::unique_ptr<MainWindow> m_window; // the console that follows

    QTableView *escalations() const { return m_window->escalationPane()->table(); }
    qint64 escalationAt(int row) const
    {
        return escalations()
                ->model()
                ->index(row, 0)
                .data(EscalationQueueModel::EscalationIdRole)
                .toLongLong();
    }

    // The other console, ana's, settles an escalation: a person's check found no refund.
    ResolutionReport settleByAnother(qint64 escalation, const QString &note)
    {
        ProviderClient noProvider(ProviderSettings{});
        EscalationResolver resolver(*m_acting, noProvider, QStringLiteral("ana"));
        return resolver.attest(
                escalation,
                Attestation{Resolution::NotPerformed, QStringLiteral("dashboard: no refund"), note});
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
        m_location = m_cluster.createDatabase(QStringLiteral("live"));
        QVERIFY2(!m_location.isEmpty(), qPrintable(m_cluster.error()));
        Expected<std::unique_ptr<Store>> acting = openStore(m_location);
        QVERIFY_OK(acting);
        m_acting = std::move(*acting);
        TranscriptImporter importer(*m_acting, ToolRegistry::builtIn());
        QVERIFY(importer.importFile(demoDataResource()).clean());
        Expected<std::unique_ptr<Store>> watching = openStore(m_location);
        QVERIFY_OK(watching);
        m_watching = std::move(*watching);
        m_window = std::make_unique<MainWindow>(*m_watching, m_location, RegistrySource{});
        m_window->resize(1280, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void aClaimShowsInTheOtherConsoleWithoutLosingItsChoice()
    {
        QVERIFY(escalations()->model()->rowCount() >= 3);
        // The watcher chose the third escalation; the other console claims the first.
        escalations()->setCurrentIndex(escalations()->model()->index(2, 0));
        const qint64 chosen = escalationAt(2);
        const qint64 claimed = escalationAt(0);
        // A result the watcher's connection has not read to its end (a page, say) must not hold
        // the announcement back.
        QSqlQuery unread(dynamic_cast<SqlStore &>(*m_watching).connection());
        unread.setForwardOnly(true);
        QVERIFY(unread.exec(QStringLiteral("SELECT generate_series(1, 100000)")) && unread.next());
        const Expected<EscalationClaim> claim =
                EscalationClaims(*m_acting, QStringLiteral("ana")).claim(claimed);
        QVERIFY2(claim && claim->taken, qPrintable(claim ? QString() : claim.message()));
        QTRY_VERIFY_WITH_TIMEOUT(escalations()
                                         ->model()
                                         ->index(0, EscalationQueueModel::ClaimColumn)
                                         .data()
                                         .toString()
                                         .contains(QLatin1String("ana")),
                                 followMs);
        QCOMPARE(escalations()->currentIndex().data(EscalationQueueModel::EscalationIdRole).toLongLong(),
                 chosen);
        QVERIFY(escalations()->selectionModel()->isRowSelected(escalations()->currentIndex().row()));
    }

    void aSettlementLeavesTheQueueAndUpdatesTheOpenTicket()
    {
        // The watcher reads the ticket of the first escalation; the other console settles it.
        const qint64 escalation = escalationAt(0);
        const qint64 ticket =
                escalations()->model()->index(0, 0).data(EscalationQueueModel::TicketIdRole).toLongLong();
        m_window->openTicket(ticket);
        const qint64 waiting = m_window->escalationPane()->table()->model()->rowCount();
        const QString countBefore = m_window->escalationCountText();
        const TicketDetail before = *m_window->transcript().detail();
        const ResolutionReport report =
                settleByAnother(escalation, QStringLiteral("checked while the customer waited"));
        QVERIFY2(report.kind == ResolutionReport::Kind::Resolved, qPrintable(report.message));
        QTRY_COMPARE_WITH_TIMEOUT(escalations()->model()->rowCount(), int(waiting - 1), followMs);
        QVERIFY(m_window->escalationCountText() != countBefore);
        QTRY_VERIFY_WITH_TIMEOUT(*m_window->transcript().detail() != before, followMs);
        QCOMPARE(m_window->transcript().ticketId(), ticket); // the same ticket, read again
    }

    void aChangeWhileAConsoleOpensIsNotMissed()
    {
        // A console listens once its queue is painted; what another console settles between its
        // first reads and then is read again, not left stale until the next announcement.
        Expected<std::unique_ptr<Store>> store = openStore(m_location);
        QVERIFY_OK(store);
        MainWindow opening(**store, m_location, RegistrySource{});
        const QString countBefore = opening.escalationCountText();
        QAbstractItemModel *queue = opening.escalationPane()->table()->model();
        const int waiting = queue->rowCount();
        QVERIFY(waiting > 0);
        const qint64 escalation =
                queue->index(0, 0).data(EscalationQueueModel::EscalationIdRole).toLongLong();
        const ResolutionReport report =
                settleByAnother(escalation, QStringLiteral("settled while another console opened"));
        QVERIFY2(report.kind == ResolutionReport::Kind::Resolved, qPrintable(report.message));
        opening.resize(1280, 800);
        opening.show();
        QVERIFY(QTest::qWaitForWindowExposed(&opening));
        QTRY_COMPARE_WITH_TIMEOUT(queue->rowCount(), waiting - 1, followMs);
        QVERIFY(opening.escalationCountText() != countBefore);
    }

    void aNewTicketArrivesWithoutMovingTheChosenOne()
    {
        QTableView *tickets = m_window->queuePane()->table();
        const int before = tickets->model()->rowCount();
        tickets->setCurrentIndex(tickets->model()->index(1, 0));
        const qint64 chosen = tickets->currentIndex().data(TicketQueueModel::TicketIdRole).toLongLong();
        const qint64 open = m_window->transcript().ticketId();
        TranscriptImporter importer(*m_acting, ToolRegistry::builtIn());
        QVERIFY(importer.importFile(QStringLiteral(VERITY_TEST_DATA "/formats/openai-chat-payments.jsonl"))
                        .clean());
        QTRY_VERIFY_WITH_TIMEOUT(tickets->model()->rowCount() > before, followMs);
        QCOMPARE(tickets->currentIndex().data(TicketQueueModel::TicketIdRole).toLongLong(), chosen);
        QCOMPARE(m_window->transcript().ticketId(), open); // nothing opened that was not chosen
    }

    void aTrainersConsoleGreysOutWhatItsRoleCannotDo()
    {
        QVERIFY(m_cluster.execute(QStringLiteral("CREATE ROLE tom LOGIN")));
        QSqlDatabase &owner = dynamic_cast<SqlStore &>(*m_acting).connection();
        QVERIFY(postgres::grantTeamRole(owner, TeamRole::Trainer, QStringLiteral("tom")));
        Expected<std::unique_ptr<Store>> toms =
                openStore(m_cluster.location(QStringLiteral("live"), QStringLiteral("tom")));
        QVERIFY_OK(toms);
        MainWindow trainer(**toms, m_location, RegistrySource{});
        trainer.show();
        auto *next = trainer.escalationPane()->findChild<QPushButton *>(QStringLiteral("queueNextButton"));
        QVERIFY(next);
        QVERIFY(!next->isEnabled());
        QVERIFY2(next->toolTip().contains(QLatin1String("needs the support role")),
                 qPrintable(next->toolTip()));
        QVERIFY(next->toolTip().contains(QLatin1String("verity db grant --db URI --role support tom")));
        auto *import = trainer.findChild<QAction *>(QStringLiteral("importAction"));
        QVERIFY(import && !import->isEnabled());
        QVERIFY(trainer.findChild<QAction *>(QStringLiteral("classifyToolsAction"))
                        ->statusTip()
                        .contains(QLatin1String("admin role")));
        // Granted support, F5 enables it.
        QVERIFY(postgres::grantTeamRole(owner, TeamRole::Support, QStringLiteral("tom")));
        trainer.refresh();
        QVERIFY(next->isEnabled());
        QVERIFY(import->isEnabled());
    }

    void aRestartedServerIsShownAndTheViewsKept()
    {
        // The server goes away under both consoles: the watcher says so across the top, keeps
        // what it showed, and refuses changes saying why; once it is back, it follows again.
        const int rows = escalations()->model()->rowCount();
        QVERIFY(rows > 0);
        auto *banner = m_window->findChild<QLabel *>(QStringLiteral("databaseUnreachableBanner"));
        auto *next = m_window->escalationPane()->findChild<QPushButton *>(QStringLiteral("queueNextButton"));
        QVERIFY(banner && next);
        QVERIFY(!banner->isVisible());
        QVERIFY(next->isEnabled());
        // Two dialogs are open when it goes: a lookup that found no provider to ask (nothing
        // listens on the discard port), and a check being typed.
        qputenv(ProviderConnection::apiKeyVariable, "sk_test_sandbox");
        QVERIFY_OK(m_window->provider().save(QUrl(QStringLiteral("http://127.0.0.1:9")), QString(),
                                             QStringLiteral("sk_test_sandbox")));
        QPointer<ResolutionDialog> lookup = m_window->lookUp(escalationAt(0));
        QVERIFY(lookup);
        auto *lookAgain = lookup->findChild<QPushButton *>(QStringLiteral("lookAgain"));
        QTRY_VERIFY_WITH_TIMEOUT(lookAgain->isVisible(), 10000);
        QVERIFY(lookAgain->isEnabled());
        QPointer<AttestDialog> check = m_window->attest(escalationAt(1));
        QVERIFY(check);
        check->notPerformedChoice()->setChecked(true);
        check->referenceEdit()->setText(QStringLiteral("dashboard"));
        check->noteEdit()->setPlainText(QStringLiteral("no refund there"));
        QVERIFY(check->recordButton()->isEnabled());

        QVERIFY2(m_cluster.halt(), qPrintable(m_cluster.error()));
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 3 * ServerWatch::intervalMs);
        // The open dialogs say so and offer nothing that would need it; what was typed stays.
        QVERIFY(!lookAgain->isEnabled());
        QVERIFY2(lookup->databaseAwayText().contains(QLatin1String("cannot be reached")),
                 qPrintable(lookup->databaseAwayText()));
        QVERIFY(!check->recordButton()->isEnabled());
        QVERIFY2(check->problemText().contains(QLatin1String("cannot be reached")),
                 qPrintable(check->problemText()));
        QCOMPARE(check->referenceEdit()->text(), QStringLiteral("dashboard"));
        // The audit log asked to verify meanwhile keeps the entries it shows, and says why not.
        auto *auditTable = m_window->auditView()->findChild<QTableView *>(QStringLiteral("auditTable"));
        const int entries = auditTable->model()->rowCount();
        QVERIFY(entries > 0);
        m_window->auditView()->verifyChain();
        QCOMPARE(auditTable->model()->rowCount(), entries);
        QVERIFY2(m_window->auditView()->statusText().contains(QLatin1String("cannot be reached")),
                 qPrintable(m_window->auditView()->statusText()));
        QVERIFY2(banner->text().contains(QLatin1String("cannot be reached since")),
                 qPrintable(banner->text()));
        QVERIFY(banner->text().contains(m_watching->location()));
        QVERIFY(!next->isEnabled());
        QVERIFY2(next->toolTip().contains(QLatin1String("cannot be reached")), qPrintable(next->toolTip()));
        m_window->refresh(); // F5 while it is away: the rows stay
        QCOMPARE(escalations()->model()->rowCount(), rows);

        QVERIFY2(m_cluster.launch(), qPrintable(m_cluster.error()));
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), 3 * ServerWatch::intervalMs);
        QVERIFY(next->isEnabled());
        QVERIFY(lookAgain->isEnabled());
        QVERIFY(lookup->databaseAwayText().isEmpty());
        QVERIFY(check->recordButton()->isEnabled());
        QVERIFY2(check->problemText().contains(QLatin1String("answers again")),
                 qPrintable(check->problemText()));
        lookup->close();
        check->close();
        QTRY_VERIFY(!lookup && !check);
        QVERIFY2(m_window->statusBar()->currentMessage().contains(QLatin1String("Database back at")),
                 qPrintable(m_window->statusBar()->currentMessage()));
        // The other console, opened anew, changes something: followed as before.
        Expected<std::unique_ptr<Store>> acting = openStore(m_location);
        QVERIFY_OK(acting);
        m_acting = std::move(*acting);
        const qint64 first = escalationAt(0);
        QVERIFY_OK(EscalationClaims(*m_acting, QStringLiteral("cleo")).claim(first));
        QTRY_VERIFY_WITH_TIMEOUT(escalations()
                                         ->model()
                                         ->index(0, EscalationQueueModel::ClaimColumn)
                                         .data()
                                         .toString()
                                         .contains(QLatin1String("cleo")),
                                 followMs);
    }

    void aConsoleStartedWhileTheServerIsDownWaitsForIt()
    {
        QVERIFY2(m_cluster.halt(), qPrintable(m_cluster.error()));
        const QString away = unreachableServer(m_location);
        QVERIFY2(away.contains(QLatin1String("does not answer")), qPrintable(away));
        ServerWaitDialog wait(
                storeDisplayName(m_location), away, [this] { return unreachableServer(m_location); },
                [this] { return openStore(m_location); });
        wait.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wait));
        QVERIFY2(wait.statusText().contains(QLatin1String("does not answer")), qPrintable(wait.statusText()));
        // Still away at the next ask: it says so, and waits on.
        QTest::qWait(ServerWaitDialog::intervalMs + 500);
        QVERIFY(wait.isVisible());
        QVERIFY2(m_cluster.launch(), qPrintable(m_cluster.error()));
        QTRY_VERIFY_WITH_TIMEOUT(!wait.isVisible(), 3 * ServerWaitDialog::intervalMs);
        QCOMPARE(wait.result(), int(QDialog::Accepted));
        std::unique_ptr<Store> opened = wait.takeStore();
        QVERIFY(opened);
        QVERIFY_OK(opened->countOpenEscalations());
    }

    void cleanupTestCase()
    {
        m_window.reset();
        m_watching.reset();
        m_acting.reset();
    }
};

QTEST_MAIN(LiveConsolesTest)
#include "tst_liveconsoles.moc"

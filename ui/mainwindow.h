#pragma once
// The console's window: the ticket queue, the open ticket and the escalation queue, wired to
// their models. It composes panes and forwards what the person asks for; the panes show
// models, and the models talk to the store.

#include "domain/registrychoice.h"
#include "import/importreport.h"
#include "store/changefeed.h"

#include <QMainWindow>

#include <functional>

class QDockWidget;
class QLabel;
class QSplitter;

namespace verity {

class AccountBanner;
class ChangeFeed;
class DatabaseBanner;
class DesktopNotifier;
class EscalationAlerts;
struct EscalationAlert;
class AttestDialog;
class AuditLogModel;
class AuditView;
class EscalationActions;
class EscalationQueueModel;
class EvidenceDialog;
class ProviderConnection;
class ResolutionDialog;
class RoleLimits;
class EscalationQueuePane;
class FinancePane;
class Store;
class TicketQueueModel;
class TicketQueuePane;
class TicketView;
class TrainingMenu;
class TranscriptImportFlow;
class TranscriptModel;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    // `databasePath` is where background imports open their own connection.
    // `registrySource`: the registries in force, and the user's file where classifications are saved.
    // IncidentExport: the store is an incident export; ReadOnlyDatabase: a database this user
    // cannot write. Either way nothing is imported, classified, looked up or noted, and the
    // window says why.
    enum Mode { ReadWrite, IncidentExport, ReadOnlyDatabase };
    // The whole Store: the window hands each of its panes and models the door that one needs.
    MainWindow(Store &store, QString databasePath, RegistrySource registrySource, Mode mode = ReadWrite,
               QWidget *parent = nullptr);
    ~MainWindow() override;

    void openTicket(qint64 ticketId, const QString &callId = {});
    // Claims the oldest escalation nobody is working on and opens it (Next, Ctrl+N).
    void claimNext();
    void importFiles(const QStringList &files);
    // Seam for tests: how File > Import asks for files (a file dialog by default).
    void setFileChooser(std::function<QStringList(QWidget *)> chooser);
    // Seam for tests: how a repeated write is confirmed (a question box, Cancel the default).
    void setConfirm(std::function<bool(QWidget *, const QString &, const QString &)> confirm);

    // Settling unknowns: a lookup at the system the write went to, a repeat only after one
    // proved absence, a person's attested check where nothing can be asked; and the evidence.
    ResolutionDialog *lookUp(qint64 escalationId);
    ResolutionDialog *performAgain(qint64 escalationId);
    AttestDialog *attest(qint64 escalationId);
    EvidenceDialog *showEvidence(qint64 escalationId, const QString &evidenceSha256 = QString());
    // Ctrl+K: the escalation selected in the queue while the queue has focus; otherwise the
    // open ticket's first open unknown; otherwise it says there is nothing to look up.
    ResolutionDialog *lookUpInFront();
    ProviderConnection &provider() const { return *m_provider; }
    // Reads every view again, keeping the person's place in each (F5, and after their own changes).
    void refresh();
    // Reads again the views showing `areas`, keeping the person's place (another console's changes).
    void followChanges(StoreAreas areas);

    TicketQueueModel &ticketQueue() const { return *m_ticketModel; }
    TranscriptModel &transcript() const { return *m_transcriptModel; }
    TicketQueuePane *queuePane() const { return m_queuePane; }
    TicketView *ticketView() const { return m_ticketView; }
    EscalationQueuePane *escalationPane() const { return m_escalationPane; }
    AuditView *auditView() const { return m_auditView; }
    FinancePane *financePane() const { return m_financePane; }
    TrainingMenu *training() const { return m_training; }
    bool isReadOnly() const { return m_mode != ReadWrite; }
    QString readOnlyReason() const; // "This is a read-only incident export", or empty
    // Says in the status bar, for as long as the window is open, why nothing can be changed.
    // `text` on the status bar, short enough for a small screen; `detail` after it in the badge's tooltip.
    void showReadOnlyNotice(const QString &text, const QString &detail = {});
    void showFinance();
    QString escalationCountText() const;
    // The title after the waiting count: "Verity — ana@db.example:5432".
    void setTitle(const QString &title);
    // What arrives while the window is behind another, and claims about to lapse, go to the
    // desktop through `notifier`; its clicks open their escalation, its tray shows the count.
    void notifyDesktop(DesktopNotifier *notifier);
    EscalationAlerts &alerts() const { return *m_alerts; }
    // The ticket and call an alert names, in front of the person, its escalation chosen.
    void openAlert(const EscalationAlert &alert);

signals:
    void importFinished(const QList<verity::ImportReport> &reports);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // The window's parts, built and wired once, in this order.
    void buildCentralArea(); // the ticket queue beside the open ticket, under the banners
    void buildDocks(); // the escalation queue, the audit log and finance, tabbed below
    void buildStatusBar();
    void connectPanes();
    void connectEscalationActions();
    void connectProvider();
    void connectImportFlow();
    void buildMenus();
    // Listens for other consoles' changes (a team's database), once the queue is on screen.
    void startFollowing();
    // Greys out what this user's roles do not allow, each saying why; again when they change.
    void applyRoles();
    // The team's database lost and back: the band, the limits, and every view read again.
    void databaseUnreachable(const QString &reason);
    void databaseReachable();
    void showProviderSettings();
    void showError(const QString &message);
    void updateEscalationCount();
    void showHint(const QString &text); // a next step, gone once the person does something
    void dropHint();
    void updateDuplicateCount();
    void restoreLayout();
    void saveLayout() const;

    Store &m_store;
    Mode m_mode;
    TicketQueueModel *m_ticketModel;
    TranscriptModel *m_transcriptModel;
    EscalationQueueModel *m_escalationModel;
    TicketQueuePane *m_queuePane;
    TicketView *m_ticketView;
    EscalationQueuePane *m_escalationPane;
    QDockWidget *m_escalationDock;
    AuditLogModel *m_auditModel;
    AuditView *m_auditView;
    QDockWidget *m_auditDock;
    FinancePane *m_financePane;
    QDockWidget *m_financeDock;
    QSplitter *m_splitter;
    QLabel *m_escalationCount;
    QLabel *m_duplicateCount;
    QLabel *m_keyKind; // the kind of API key in use, in the status bar
    QLabel *m_operatorRoles; // "ben · support" in a team's database
    AccountBanner *m_accountBanner;
    DatabaseBanner *m_databaseBanner;
    ChangeFeed *m_feed = nullptr; // a team's database only
    ProviderConnection *m_provider;
    EscalationActions *m_actions;
    QString m_actionsSaid; // the actions' last message, while the status bar may still show it
    RoleLimits *m_limits;
    TranscriptImportFlow *m_importFlow; // File > Import and Tools > Classify tools
    TrainingMenu *m_training = nullptr;
    EscalationAlerts *m_alerts = nullptr;
    DesktopNotifier *m_notifier = nullptr; // none in tests, unless they give one
    QString m_title = QStringLiteral("Verity"); // after the waiting count
    QString m_hintSaid; // the last next step the status bar suggested
};

} // namespace verity

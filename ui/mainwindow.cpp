#include "mainwindow.h"

#include "accountbanner.h"
#include "attestdialog.h"
#include "auditview.h"
#include "databasebanner.h"
#include "desktopnotifier.h"
#include "domain/displaytext.h"
#include "escalationactions.h"
#include "escalationalerts.h"
#include "escalationqueuepane.h"
#include "evidencedialog.h"
#include "financepane.h"
#include "itemmodels/auditlogmodel.h"
#include "itemmodels/escalationqueuemodel.h"
#include "itemmodels/ticketqueuemodel.h"
#include "itemmodels/transcriptmodel.h"
#include "provider/apikeykind.h"
#include "providersettingsdialog.h"
#include "resolution/providerconnection.h"
#include "resolutiondialog.h"
#include "rolelimits.h"
#include "screenfit.h"
#include "shortcutsfirst.h"
#include "statusline.h"
#include "store/changefeed.h"
#include "store/store.h"
#include "theme.h"
#include "ticketqueuepane.h"
#include "ticketview.h"
#include "trainingmenu.h"
#include "transcriptimportflow.h"
#include "viewplace.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace verity {

MainWindow::MainWindow(Store &store, QString databasePath, RegistrySource registrySource, Mode mode,
                       QWidget *parent)
    : QMainWindow(parent)
    , m_store(store)
    , m_mode(mode)
    , m_ticketModel(new TicketQueueModel(store, this))
    , m_transcriptModel(new TranscriptModel(store, this))
    , m_escalationModel(new EscalationQueueModel(store, this))
    , m_provider(new ProviderConnection(store, this))
    , m_actions(new EscalationActions(store, *m_provider, this))
    , m_limits(new RoleLimits(store, readOnlyReason(), this))
    , m_importFlow(new TranscriptImportFlow(store, std::move(databasePath), std::move(registrySource),
                                            readOnlyReason(), *m_limits, *this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(m_title);
    m_alerts = new EscalationAlerts(store, this);
    m_alerts->setOperatorName([this] { return m_provider->operatorName(); });
    // A dialog of the console's own (an import's progress, a settlement) in front counts: the
    // person is at the console and sees the queue grow.
    m_alerts->setInFront([this] { return !isMinimized() && QApplication::activeWindow(); });
    m_alerts->setEnabled(QSettings().value(QStringLiteral("alerts/desktop"), true).toBool());
    connect(m_alerts, &EscalationAlerts::errorOccurred, this, &MainWindow::showError);
    setAcceptDrops(mode == ReadWrite);
    setProperty("verityReadOnly", isReadOnly());
    setProperty("verityReadOnlyReason", readOnlyReason());

    // The parts in the order they are made: the keyboard's focus goes through widgets in that order.
    buildCentralArea();
    buildDocks();
    buildStatusBar();
    connectPanes();
    connectEscalationActions();
    connectProvider();
    connectImportFlow();
    buildMenus();
    // A greyed item says why when the pointer rests on it (RoleLimits sets the reason).
    for (QMenu *menu : menuBar()->findChildren<QMenu *>())
        menu->setToolTipsVisible(true);
    applyRoles();
    m_importFlow->readAgainKnownTools();
    updateEscalationCount();
    updateDuplicateCount();
    m_alerts->start(); // what is open now is not news
    restoreLayout();
    // Someone whose work is finance alone opens on it.
    if (m_limits->roles().isTeam() && m_limits->allows(TeamRole::Finance)
        && !m_limits->allows(TeamRole::Support))
        QTimer::singleShot(0, this, &MainWindow::showFinance); // once shown: a hidden tab does not rise
}

MainWindow::~MainWindow() = default;

void MainWindow::buildCentralArea()
{
    m_queuePane = new TicketQueuePane(*m_ticketModel, this);
    m_ticketView = new TicketView(*m_transcriptModel, this);
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    m_splitter->addWidget(m_queuePane);
    m_splitter->addWidget(m_ticketView);
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 3);
    // The live-account band sits above everything the operator acts on.
    m_accountBanner = new AccountBanner(this);
    m_databaseBanner = new DatabaseBanner(this);
    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_accountBanner);
    centralLayout->addWidget(m_databaseBanner);
    centralLayout->addWidget(m_splitter, 1);
    setCentralWidget(central);
}

void MainWindow::buildDocks()
{
    m_escalationPane = new EscalationQueuePane(*m_escalationModel, this);
    m_escalationDock = new QDockWidget(this);
    m_escalationDock->setObjectName(QStringLiteral("escalationDock"));
    m_escalationDock->setWidget(m_escalationPane);
    m_escalationDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::BottomDockWidgetArea, m_escalationDock);

    // The audit log sits behind the escalation queue, one tab away.
    m_auditModel = new AuditLogModel(m_store, this);
    m_auditView = new AuditView(m_store, *m_auditModel, this);
    m_auditView->setRegistries(m_importFlow->registries());
    m_auditDock = new QDockWidget(tr("Audit log"), this);
    m_auditDock->setObjectName(QStringLiteral("auditDock"));
    m_auditDock->setWidget(m_auditView);
    m_auditDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::BottomDockWidgetArea, m_auditDock);
    tabifyDockWidget(m_escalationDock, m_auditDock);

    m_financePane = new FinancePane(m_store, this);
    m_financePane->setProviderSettings([this] { return m_provider->settings(); });
    m_financePane->setOperatorName([this] { return m_provider->operatorName(); });
    m_escalationModel->setOperatorName([this] { return m_provider->operatorName(); });
    new ShortcutsFirst(*this); // Ctrl+E, Ctrl+K and the rest also from the search box
    // A key whose action this console may not take (a read-only export, a role) says why.
    connect(m_limits, &RoleLimits::refusedByKey, this,
            [this](const QString &why) { statusBar()->showMessage(why, 15000); });
    m_financeDock = new QDockWidget(tr("Finance"), this);
    m_financeDock->setObjectName(QStringLiteral("financeDock"));
    m_financeDock->setWidget(m_financePane);
    addDockWidget(Qt::BottomDockWidgetArea, m_financeDock);
    tabifyDockWidget(m_auditDock, m_financeDock);
    m_financeDock->hide(); // View > Finance
    connect(m_financePane, &FinancePane::callChosen, this, &MainWindow::openTicket);
    // A mark changes the marks (the pane re-read them) and the audit log, nothing else.
    connect(m_financePane, &FinancePane::payoutMarked, m_auditModel, &AuditLogModel::refresh);
    connect(m_financePane, &FinancePane::escalationsSettled, this, &MainWindow::refresh);
    connect(m_financePane, &FinancePane::errorOccurred, this, &MainWindow::showError);
    m_escalationDock->raise();
}

namespace {

// The key's kind in two words, for a status bar that also shows a message.
QString shortKeyKind(const QString &apiKey)
{
    switch (apiKeyKind(apiKey).mode) {
    case ApiKeyKind::Mode::None:
        return QObject::tr("No key");
    case ApiKeyKind::Mode::Test:
        return QObject::tr("Test key");
    case ApiKeyKind::Mode::Live:
        return QObject::tr("Live key");
    case ApiKeyKind::Mode::Unknown:
        break;
    }
    return QObject::tr("Key set");
}

} // namespace

void MainWindow::buildStatusBar()
{
    setStatusBar(new StatusLine(this));
    m_escalationCount = new QLabel(this);
    m_escalationCount->setObjectName(QStringLiteral("escalationCount"));
    statusBar()->addPermanentWidget(m_escalationCount);
    // Duplicate effects are not settled by a lookup (the money did move twice); they are raised
    // here, beside the unknowns, and one click shows their tickets.
    m_duplicateCount = new QLabel(this);
    m_duplicateCount->setObjectName(QStringLiteral("duplicateCount"));
    m_duplicateCount->setTextFormat(Qt::RichText);
    connect(m_duplicateCount, &QLabel::linkActivated, this,
            [this] { m_queuePane->setFilter(TicketFilter::DuplicateEffect); });
    statusBar()->addPermanentWidget(m_duplicateCount);
    m_keyKind = new QLabel(this);
    m_keyKind->setObjectName(QStringLiteral("providerKeyKind"));
    statusBar()->addPermanentWidget(m_keyKind);
    // In a team's database: who this console acts as, and with which roles.
    m_operatorRoles = new QLabel(this);
    m_operatorRoles->setObjectName(QStringLiteral("operatorRoles"));
    statusBar()->addPermanentWidget(m_operatorRoles);
    // At 1280 pixels the counts, the key and the roles leave a message little room: while one
    // shows, the key shrinks to its kind ("Test key") and the roles step aside, and the whole
    // message is the status bar's tooltip.
    connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString &text) {
        if (text.isEmpty())
            m_accountBanner->showKey(m_provider->settings().apiKey, m_keyKind);
        else
            m_keyKind->setText(shortKeyKind(m_provider->settings().apiKey));
        m_operatorRoles->setVisible(text.isEmpty() && m_limits->roles().isTeam());
    });
}

void MainWindow::connectPanes()
{
    connect(m_queuePane, &TicketQueuePane::ticketChosen, this, [this](qint64 id) { openTicket(id); });
    connect(m_escalationPane, &EscalationQueuePane::escalationChosen, this, &MainWindow::openTicket);
    connect(m_escalationModel, &EscalationQueueModel::countChanged, this, &MainWindow::updateEscalationCount);
    connect(m_ticketModel, &TicketQueueModel::errorOccurred, this, &MainWindow::showError);
    connect(m_transcriptModel, &TranscriptModel::errorOccurred, this, &MainWindow::showError);
    connect(m_escalationModel, &EscalationQueueModel::errorOccurred, this, &MainWindow::showError);
    // Another console's changes, as the team's database announces them: listened for once the
    // queue's first page is on screen, since a team's database makes a connection of its own
    // for it, and the person need not wait for that to see the queue.
    m_queuePane->table()->viewport()->installEventFilter(this);
}

void MainWindow::connectEscalationActions()
{
    m_actions->setSettingsPrompt([this] { showProviderSettings(); });
    m_actions->setLimits(m_limits);
    connect(m_limits, &RoleLimits::changed, this, &MainWindow::applyRoles);
    connect(m_actions, &EscalationActions::settled, this, &MainWindow::refresh);
    connect(m_actions, &EscalationActions::claimsChanged, this,
            [this] { followChanges(StoreArea::Escalations); });
    connect(m_actions, &EscalationActions::message, this, [this](const QString &text) {
        m_actionsSaid = text;
        statusBar()->showMessage(text, 15000);
    });
    // A message that said who holds an escalation, or how it stands, goes once that changes
    // (given back, lapsed, taken over, settled by someone else), not when its time is up.
    const auto checkStatedFact = [this] {
        if (!m_actionsSaid.isEmpty() && statusBar()->currentMessage() == m_actionsSaid
            && !m_actions->statedFactHolds())
            statusBar()->clearMessage();
    };
    connect(m_escalationModel, &QAbstractItemModel::modelReset, this, checkStatedFact);
    connect(m_escalationModel, &QAbstractItemModel::dataChanged, this, checkStatedFact);
    connect(m_ticketView, &TicketView::lookupRequested, this, &MainWindow::lookUp);
    connect(m_ticketView, &TicketView::performAgainRequested, this, &MainWindow::performAgain);
    connect(m_ticketView, &TicketView::attestRequested, this, &MainWindow::attest);
    connect(m_ticketView, &TicketView::evidenceRequested, this, [this](qint64 id) { showEvidence(id); });
    connect(m_escalationPane, &EscalationQueuePane::lookupRequested, this, &MainWindow::lookUp);
    connect(m_escalationPane, &EscalationQueuePane::nextRequested, this, &MainWindow::claimNext);
    connect(m_auditView, &AuditView::evidenceRequested, this, &MainWindow::showEvidence);
    connect(m_auditView, &AuditView::message, this,
            [this](const QString &text) { statusBar()->showMessage(text, 15000); });
}

void MainWindow::connectProvider()
{
    m_provider->setRegistries(m_importFlow->registries());
    m_provider->load();
    // Which buttons a card offers depends on the provider and the registry: read them again
    // whenever the settings change.
    m_ticketView->setCallActions([this](const ToolCallRow &call) { return m_actions->actionsFor(call); });
    connect(m_provider, &ProviderConnection::changed, this, [this] {
        m_ticketView->setCallActions([this](const ToolCallRow &call) { return m_actions->actionsFor(call); });
        m_accountBanner->showKey(m_provider->settings().apiKey, m_keyKind);
    });
    m_accountBanner->showKey(m_provider->settings().apiKey, m_keyKind);
    // Said once the keychain answers, after the dialog is gone: the key will not outlive this run.
    connect(m_provider, &ProviderConnection::keyNotKept, this, [this](const QString &why) {
        statusBar()->showMessage(tr("%1 Enter it again after a restart, or set %2.")
                                         .arg(why, QLatin1String(ProviderConnection::apiKeyVariable)),
                                 60000);
    });
}

void MainWindow::connectImportFlow()
{
    connect(m_importFlow, &TranscriptImportFlow::storeChanged, this, &MainWindow::refresh);
    connect(m_importFlow, &TranscriptImportFlow::registriesChanged, m_auditView, &AuditView::setRegistries);
    // A tool classified now is looked up where its new class says, without a restart.
    connect(m_importFlow, &TranscriptImportFlow::registriesChanged, m_provider,
            [this](const RegistrySelection &registries) { m_provider->setRegistries(registries); });
    connect(m_importFlow, &TranscriptImportFlow::importFinished, this, &MainWindow::importFinished);
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *import = file->addAction(tr("&Import…"), m_importFlow, &TranscriptImportFlow::chooseAndImport);
    import->setObjectName(QStringLiteral("importAction"));
    import->setShortcut(QKeySequence(tr("Ctrl+I")));
    m_limits->limit(import, TeamRole::Support, tr("importing transcripts"));
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    const std::pair<TicketFilter, QString> filters[] = {
            {TicketFilter::All, tr("&All tickets")},
            {TicketFilter::NeedsAttention, tr("&Needs attention")},
            {TicketFilter::Unknown, tr("&Unknown outcomes")},
            {TicketFilter::RepeatedIntent, tr("&Repeated intents")},
            {TicketFilter::DuplicateEffect, tr("&Duplicate effects")},
            {TicketFilter::RetryAfterError, tr("Re&tries after errors")},
    };
    int number = 1;
    for (const auto &[filter, label] : filters) {
        QAction *action =
                view->addAction(label, this, [this, chosen = filter] { m_queuePane->setFilter(chosen); });
        action->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(number++)));
    }
    view->addSeparator();
    view->addAction(tr("&Search tickets"), QKeySequence::Find, this, [this] {
        m_queuePane->searchBox()->setFocus();
        m_queuePane->searchBox()->selectAll();
    });
    view->addAction(tr("Ticket &queue"), QKeySequence(tr("Ctrl+L")), this,
                    [this] { m_queuePane->table()->setFocus(); });
    view->addAction(tr("&Escalation queue"), QKeySequence(tr("Ctrl+E")), this, [this] {
        m_escalationDock->show();
        m_escalationDock->raise();
        // Focus only: the open ticket stays until the person chooses a row (Down chooses the first).
        m_escalationPane->table()->setFocus();
    });
    view->addAction(tr("Au&dit log"), QKeySequence(tr("Ctrl+Shift+A")), this, [this] {
        m_auditDock->show();
        m_auditDock->raise();
    });
    QAction *finance =
            view->addAction(tr("&Finance"), QKeySequence(tr("Ctrl+Shift+F")), this, &MainWindow::showFinance);
    finance->setObjectName(QStringLiteral("financeAction"));
    view->addAction(tr("&Refresh"), QKeySequence::Refresh, this, &MainWindow::refresh);
    view->addSeparator();
    QAction *alerts = view->addAction(tr("Desktop &notifications"));
    alerts->setObjectName(QStringLiteral("desktopAlertsAction"));
    alerts->setCheckable(true);
    alerts->setChecked(m_alerts->isEnabled());
    alerts->setToolTip(tr("Tell the desktop when an escalation arrives while this window is behind another, "
                          "and when a claim of yours is about to lapse"));
    connect(alerts, &QAction::toggled, this, [this](bool on) {
        m_alerts->setEnabled(on);
        QSettings().setValue(QStringLiteral("alerts/desktop"), on);
    });

    QMenu *registry = menuBar()->addMenu(tr("&Tools"));
    QAction *classify =
            registry->addAction(tr("&Classify tools…"), m_importFlow, &TranscriptImportFlow::classifyTools);
    classify->setObjectName(QStringLiteral("classifyToolsAction"));
    m_limits->limit(classify, TeamRole::Admin, tr("classifying tools"));

    m_training = new TrainingMenu(m_store, *this, isReadOnly(), *m_limits);

    QMenu *tools = menuBar()->addMenu(tr("&Provider"));
    QAction *lookup = tools->addAction(tr("&Look up the unknown write in front of you…"),
                                       QKeySequence(tr("Ctrl+K")), this, &MainWindow::lookUpInFront);
    lookup->setObjectName(QStringLiteral("lookUpAction"));
    m_limits->limit(lookup, TeamRole::Support, tr("looking up unknown writes"));
    QAction *next = tools->addAction(tr("Claim the &next escalation"), QKeySequence(tr("Ctrl+N")), this,
                                     &MainWindow::claimNext);
    next->setObjectName(QStringLiteral("claimNextAction"));
    m_limits->limit(next, TeamRole::Support, tr("claiming escalations"));
    QAction *settings =
            tools->addAction(tr("Payment provider &settings…"), this, &MainWindow::showProviderSettings);
    settings->setObjectName(QStringLiteral("providerSettingsAction"));

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Verity"), this, [this] {
        QMessageBox::about(
                this, tr("About Verity"),
                tr("Verity %1\n\nThe console for the people who work alongside an AI support agent: every "
                   "ticket and every tool call the agent made, what came of each one, and the calls whose "
                   "outcome is unknown, which wait for someone to check where they went instead of "
                   "trying again.")
                        .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::claimNext()
{
    // Claimed, then put in front of the person: its ticket, its call, and its dialog.
    const std::optional<EscalationDetail> claimed = m_actions->claimNext();
    if (!claimed)
        return;
    openTicket(claimed->ticketId, claimed->callExtId);
    m_actions->open(claimed->id);
}

void MainWindow::openTicket(qint64 ticketId, const QString &callId)
{
    dropHint();
    if (m_transcriptModel->ticketId() != ticketId && !m_transcriptModel->setTicket(ticketId)) {
        // The queue points at the ticket still shown, so nobody reads one and acts on another.
        if (m_transcriptModel->ticketId() > 0)
            m_queuePane->selectTicket(m_transcriptModel->ticketId());
        return;
    }
    m_queuePane->selectTicket(ticketId);
    m_escalationPane->ticketShown(ticketId);
    if (!callId.isEmpty())
        m_ticketView->showCall(callId);
}

void MainWindow::showFinance()
{
    m_financeDock->show();
    m_financeDock->raise();
    // The chart needs room; the ticket above keeps the rest. Once the dock is laid out.
    QTimer::singleShot(0, this, [this] {
        if (m_financeDock->height() < height() / 2)
            resizeDocks({m_financeDock}, {height() / 2}, Qt::Vertical);
    });
}

void MainWindow::setConfirm(std::function<bool(QWidget *, const QString &, const QString &)> confirm)
{
    m_actions->setConfirm(std::move(confirm));
}

ResolutionDialog *MainWindow::lookUp(qint64 escalationId)
{
    dropHint();
    return m_actions->lookUp(escalationId);
}

ResolutionDialog *MainWindow::performAgain(qint64 escalationId)
{
    dropHint();
    return m_actions->performAgain(escalationId);
}

AttestDialog *MainWindow::attest(qint64 escalationId)
{
    dropHint();
    return m_actions->attest(escalationId);
}

EvidenceDialog *MainWindow::showEvidence(qint64 escalationId, const QString &evidenceSha256)
{
    return m_actions->showEvidence(escalationId, evidenceSha256);
}

ResolutionDialog *MainWindow::lookUpInFront()
{
    // Only what the person can see: the queue's row when they are in the queue, else the
    // ticket in front of them. A row left current in a hidden queue is never the target.
    QTableView *queue = m_escalationPane->table();
    // A dock behind another dock's tab stays "visible" to Qt, and may keep the focus: only a
    // queue with something on screen is in front of the person.
    const QModelIndex chosen = queue->currentIndex();
    if (queue->hasFocus() && !queue->visibleRegion().isEmpty() && chosen.isValid()
        && chosen.data(EscalationQueueModel::TicketIdRole).toLongLong() == m_transcriptModel->ticketId())
        return lookUp(chosen.data(EscalationQueueModel::EscalationIdRole).toLongLong());
    if (const std::optional<qint64> open = m_ticketView->openEscalationInFront())
        return lookUp(*open);
    showHint(m_transcriptModel->ticketId() == 0
                     ? tr("Nothing to look up: open a ticket with an unknown write, or choose one in the "
                          "escalation queue (Ctrl+E).")
                     : tr("Nothing to look up: this ticket has no unknown write waiting. Choose one in the "
                          "escalation queue (Ctrl+E)."));
    return nullptr;
}

void MainWindow::showProviderSettings()
{
    ProviderSettingsDialog dialog(*m_provider, this);
    // Saving only saves: what to look up next is the person's choice.
    // The next step offered is one this person's role allows.
    if (dialog.exec() == QDialog::Accepted && m_provider->resolver())
        showHint(m_limits->allows(TeamRole::Support)
                         ? tr("Provider settings saved; nothing was looked up. Look up the write in front of "
                              "you with Ctrl+K.")
                         : tr("Provider settings saved; nothing was read. Reconcile a period in Finance "
                              "(Ctrl+Shift+F)."));
}

void MainWindow::applyRoles()
{
    // The queue's own settling (a lookup, a check, a claim) is support's; finance settles from a
    // provider's statement in the Finance pane, and the refusal says where.
    QString queueRefusal =
            m_limits->refusal(TeamRole::Support, tr("looking up, checking or claiming escalations"));
    if (!queueRefusal.isEmpty() && m_limits->allows(TeamRole::Finance))
        queueRefusal +=
                tr(". Your finance role settles them from a provider's statement: Finance › Reconciliation "
                   "(Ctrl+Shift+F)");
    m_escalationPane->setRefusal(queueRefusal);
    m_financePane->setRefusals(
            m_limits->refusal(TeamRole::Finance, tr("settling from a provider's statement")),
            m_limits->refusal(TeamRole::Finance, tr("marking duplicate payouts")));
    m_operatorRoles->setText(m_limits->badge());
    m_operatorRoles->setToolTip(
            m_limits->roles().isTeam()
                    ? tr("Connected to the team's database as %1, with %2. What a role does "
                         "not allow is greyed out, saying which role it needs.")
                              .arg(m_limits->roles().user(), m_limits->roles().summary())
                    : QString());
    m_operatorRoles->setVisible(m_limits->roles().isTeam() && statusBar()->currentMessage().isEmpty());
    // The cards' buttons ask again.
    m_ticketView->setCallActions([this](const ToolCallRow &call) { return m_actions->actionsFor(call); });
}

void MainWindow::databaseUnreachable(const QString &reason)
{
    m_databaseBanner->showUnreachable(m_store.location(), reason);
    m_limits->setUnreachable(reason);
}

void MainWindow::databaseReachable()
{
    statusBar()->showMessage(m_databaseBanner->showReachable(), 15000);
    m_limits->setUnreachable(QString());
    m_limits->refresh(); // the feed reads every view again next
    m_actions->catchUpClaims();
}

void MainWindow::refresh()
{
    if (m_feed && !m_feed->confirmReachable()) {
        showError(tr("The team's database cannot be reached: the views stay as they were until it is back."));
        return;
    }
    m_limits->refresh(); // an admin may have granted or revoked a role since
    followChanges(everyArea);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Paint && watched == m_queuePane->table()->viewport()) {
        watched->removeEventFilter(this);
        QTimer::singleShot(0, this, &MainWindow::startFollowing);
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::startFollowing()
{
    if (m_feed)
        return;
    m_feed = m_store.changeFeed();
    if (!m_feed)
        return; // a store that cannot tell what others changed
    connect(m_feed, &ChangeFeed::changed, this, &MainWindow::followChanges);
    connect(m_feed, &ChangeFeed::unreachable, this, &MainWindow::databaseUnreachable);
    connect(m_feed, &ChangeFeed::reachable, this, &MainWindow::databaseReachable);
    // What others changed between the window's first reads and now was announced to nobody.
    followChanges(everyArea);
}

void MainWindow::followChanges(StoreAreas areas)
{
    // What is on screen stays, stale but whole, rather than emptied by reads that must fail.
    if (m_feed && !m_feed->isReachable())
        return;
    // Each view read again where the person is in it: the chosen row, the rows in sight and the
    // open ticket stay as they were, unless what they show changed.
    if (areas & StoreArea::Tickets) {
        keepPlaceAcross(m_queuePane->table(), TicketQueueModel::TicketIdRole,
                        [this] { m_ticketModel->refresh(); });
        updateDuplicateCount();
    }
    if (areas & (StoreArea::Tickets | StoreArea::Escalations))
        m_transcriptModel->refreshIfChanged(); // its cards show each escalation's state
    if (areas & StoreArea::Escalations) {
        keepPlaceAcross(m_escalationPane->table(), EscalationQueueModel::EscalationIdRole,
                        [this] { m_escalationModel->refresh(); });
        m_actions->escalationsChanged();
        m_alerts->escalationsChanged();
    }
    if (areas & StoreArea::Audit)
        keepPlaceAcross(m_auditView->table(), AuditLogModel::SeqRole, [this] { m_auditModel->refresh(); });
    if (areas & (StoreArea::Escalations | StoreArea::Finance))
        m_financePane->refresh();
}

void MainWindow::updateDuplicateCount()
{
    TicketQuery query;
    query.filter = TicketFilter::DuplicateEffect;
    Expected<qint64> count = m_store.countTickets(query);
    if (!count) {
        showError(count.message());
        return;
    }
    m_duplicateCount->setVisible(*count > 0);
    m_duplicateCount->setText(theme::statusLink(QStringLiteral("duplicates"),
                                                *count == 1
                                                        ? tr("1 ticket with a duplicate effect")
                                                        : tr("%1 tickets with duplicate effects").arg(*count),
                                                theme::Tone::Bad));
}

QString MainWindow::escalationCountText() const
{
    return m_escalationCount->text();
}

void MainWindow::updateEscalationCount()
{
    const qint64 count = m_escalationModel->totalCount();
    const QString text = verity::escalationCountText(count);
    m_escalationCount->setText(text);
    m_escalationCount->setStyleSheet(count > 0 ? theme::status(theme::Tone::Warning) : QString());
    m_escalationDock->setWindowTitle(tr("Escalation queue: %1").arg(text));
    // In the task bar too, where a window behind others still shows its title.
    setWindowTitle(count > 0 ? tr("(%1 waiting) %2").arg(count).arg(m_title) : m_title);
    if (m_notifier)
        m_notifier->setWaitingCount(count);
}

void MainWindow::setTitle(const QString &title)
{
    m_title = title;
    updateEscalationCount();
}

void MainWindow::notifyDesktop(DesktopNotifier *notifier)
{
    m_notifier = notifier;
    connect(m_alerts, &EscalationAlerts::alerted, notifier, &DesktopNotifier::notify);
    connect(notifier, &DesktopNotifier::opened, this, &MainWindow::openAlert);
    notifier->setWaitingCount(m_escalationModel->totalCount());
}

void MainWindow::openAlert(const EscalationAlert &alert)
{
    if (isMinimized())
        showNormal();
    raise();
    activateWindow();
    if (alert.ticketId == 0)
        return; // the tray icon itself: the window is enough
    openTicket(alert.ticketId, alert.callExtId);
    m_escalationDock->raise();
    m_escalationPane->choose(alert.escalationId);
}

void MainWindow::showHint(const QString &text)
{
    m_hintSaid = text;
    statusBar()->showMessage(text, 15000);
}

void MainWindow::dropHint()
{
    if (!m_hintSaid.isEmpty() && statusBar()->currentMessage() == m_hintSaid)
        statusBar()->clearMessage();
    m_hintSaid.clear();
}

QString MainWindow::readOnlyReason() const
{
    switch (m_mode) {
    case IncidentExport:
        return tr("This is a read-only incident export");
    case ReadOnlyDatabase:
        return tr("This database is open read-only");
    case ReadWrite:
        break;
    }
    return {};
}

void MainWindow::showReadOnlyNotice(const QString &text, const QString &detail)
{
    auto *badge = new QLabel(tr("Read-only"), this);
    badge->setObjectName(QStringLiteral("readOnlyBadge"));
    badge->setToolTip(detail.isEmpty() ? text : text + u' ' + detail);
    statusBar()->addPermanentWidget(badge);
    statusBar()->showMessage(text);
}

void MainWindow::showError(const QString &message)
{
    statusBar()->showMessage(message, 15000);
}

void MainWindow::importFiles(const QStringList &files)
{
    m_importFlow->importFiles(files);
}

void MainWindow::setFileChooser(std::function<QStringList(QWidget *)> chooser)
{
    m_importFlow->setFileChooser(std::move(chooser));
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList files;
    for (const QUrl &url : event->mimeData()->urls()) {
        if (url.isLocalFile())
            files << url.toLocalFile();
    }
    if (!files.isEmpty())
        importFiles(files);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // The windows opened from this one (a replay with a note not yet saved) close first, and
    // may refuse: then nothing closes, and no window is left without the one that owns it.
    for (QWidget *window : findChildren<QWidget *>()) {
        if (window->isWindow() && window->isVisible() && !qobject_cast<QDialog *>(window)
            && !window->close()) {
            event->ignore();
            return;
        }
    }
    saveLayout();
    m_alerts->stop();
    QMainWindow::closeEvent(event);
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("window"));
    // The first time, and whenever the saved size no longer fits this screen: the screen's
    // whole available area, so that nothing (the status bar, a card's buttons) is cut off.
    const QRect screen = this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
    const bool restored = restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    if (!restored || width() > screen.width() - 16 || height() > screen.height() - 48) {
        fitToScreen(*this, screen.size());
        const QSize size = this->size();
        m_splitter->setSizes({size.width() * 58 / 100, size.width() * 42 / 100});
        // A third for the escalation queue and the audit log: at 1280×800 that is seven
        // escalations and five audit entries in view, and the ticket queue keeps ten rows.
        resizeDocks({m_escalationDock}, {size.height() * 33 / 100}, Qt::Vertical);
    }
    restoreState(settings.value(QStringLiteral("state")).toByteArray());
    m_splitter->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
    m_queuePane->table()->horizontalHeader()->restoreState(
            settings.value(QStringLiteral("queueHeader")).toByteArray());
}

void MainWindow::saveLayout() const
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("window"));
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("state"), saveState());
    settings.setValue(QStringLiteral("splitter"), m_splitter->saveState());
    settings.setValue(QStringLiteral("queueHeader"), m_queuePane->table()->horizontalHeader()->saveState());
}

} // namespace verity

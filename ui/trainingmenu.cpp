#include "trainingmenu.h"

#include "incidentreplaywindow.h"
#include "itemmodels/replaystepmodel.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "replay/incidentexport.h"
#include "resolution/providerconnection.h"
#include "rolelimits.h"
#include "simulation/whatifcomparison.h"
#include "store/store.h"
#include "whatifwindow.h"

#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

namespace verity {

namespace {

// Keeps an opened export's store alive exactly as long as the window showing it: created
// after the window's models, so destroyed after them.
class StoreKeeper : public QObject
{
public:
    StoreKeeper(std::unique_ptr<Store> store, QObject *parent)
        : QObject(parent)
        , m_store(std::move(store))
    {}

private:
    std::unique_ptr<Store> m_store;
};

} // namespace

TrainingMenu::TrainingMenu(ReplayStore &store, MainWindow &window, bool readOnly, const RoleLimits &limits)
    : QObject(&window)
    , m_store(store)
    , m_window(window)
    , m_readOnly(readOnly)
    , m_limits(limits)
{
    m_chooseSave = [](QWidget *parent, const QString &suggested) {
        return QFileDialog::getSaveFileName(parent, tr("Export incident"), suggested,
                                            tr("Verity incident (*.verity-incident);;All files (*)"));
    };
    m_chooseOpen = [](QWidget *parent) {
        return QFileDialog::getOpenFileName(parent, tr("Open incident export"), QString(),
                                            tr("Verity incident (*.verity-incident);;All files (*)"));
    };

    m_menu = window.menuBar()->addMenu(tr("T&raining"));
    QAction *replayAction = m_menu->addAction(tr("&Replay ticket…"), QKeySequence(tr("Ctrl+R")), this,
                                              [this] { replay(currentTicket()); });
    replayAction->setObjectName(QStringLiteral("replayAction"));
    QAction *whatIfAction = m_menu->addAction(tr("&What if…"), QKeySequence(tr("Ctrl+Shift+W")), this,
                                              [this] { whatIf(currentTicket()); });
    whatIfAction->setObjectName(QStringLiteral("whatIfAction"));
    m_menu->addSeparator();
    QAction *exportAction = m_menu->addAction(tr("&Export incident…"), this, [this] {
        const std::optional<TicketDetail> &open = m_window.transcript().detail();
        exportTicket(open ? open->row.id : 0, open ? open->row.extId : QString());
    });
    exportAction->setObjectName(QStringLiteral("exportIncidentAction"));
    exportAction->setEnabled(!readOnly);
    QAction *open = m_menu->addAction(tr("&Open incident export…"), this, [this] {
        const QString path = m_chooseOpen(&m_window);
        if (!path.isEmpty())
            openExport(path);
    });
    open->setObjectName(QStringLiteral("openIncidentAction"));
}

qint64 TrainingMenu::currentTicket() const
{
    return m_window.transcript().ticketId();
}

void TrainingMenu::tell(const QString &title, const QString &message, QWidget *parent) const
{
    QMessageBox box(QMessageBox::Warning, title, message, QMessageBox::Ok, parent ? parent : &m_window);
    box.setTextFormat(Qt::PlainText);
    box.exec();
}

QWidget *TrainingMenu::replay(qint64 ticketId)
{
    if (ticketId <= 0) {
        tell(tr("Replay"), tr("Open a ticket first: the replay shows the ticket on screen."));
        return nullptr;
    }
    auto *model = new ReplayStepModel(m_store);
    if (Expected<void> loaded = model->load(ticketId); !loaded) {
        delete model;
        tell(tr("Replay"), tr("Cannot replay this ticket: %1").arg(loaded.message()));
        return nullptr;
    }
    auto *window = new IncidentReplayWindow(
            *model, m_limits.refusal(TeamRole::Trainer, tr("writing notes on an incident")), &m_window);
    model->setParent(window);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setOperatorName(m_window.provider().operatorName());
    connect(window, &IncidentReplayWindow::whatIfRequested, this, [this](qint64 id) { whatIf(id); });
    connect(window, &IncidentReplayWindow::exportRequested, this,
            [this, model, window](qint64 id) { exportTicket(id, model->ticket().row.extId, window); });
    window->exportButton()->setEnabled(!m_readOnly);
    window->show();
    return window;
}

QWidget *TrainingMenu::whatIf(qint64 ticketId)
{
    if (ticketId <= 0) {
        tell(tr("What if"), tr("Open a ticket first: the what-if runs the ticket on screen again."));
        return nullptr;
    }
    auto *comparison = new WhatIfComparison(m_store);
    if (Expected<void> set = comparison->setTicket(ticketId); !set) {
        delete comparison;
        tell(tr("What if"), set.message());
        return nullptr;
    }
    auto *window = new WhatIfWindow(*comparison, &m_window);
    comparison->setParent(window);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->show();
    window->runButton()->click();
    return window;
}

QString TrainingMenu::exportTicket(qint64 ticketId, const QString &extId, QWidget *asker)
{
    // The dialogs belong to the window that asked, which stays in front: parented to the console,
    // closing one brought the console to the front, over the replay the trainer exported from.
    QWidget *parent = asker ? asker : &m_window;
    const auto backToFront = [parent] {
        parent->raise();
        parent->activateWindow();
    };
    if (m_readOnly) {
        tell(tr("Export incident"),
             tr("%1: exports are made in a console that can write the ticket's database.")
                     .arg(m_window.readOnlyReason()),
             parent);
        return {};
    }
    if (ticketId <= 0) {
        tell(tr("Export incident"), tr("Open a ticket first: the export holds the ticket on screen."),
             parent);
        return {};
    }
    const QString path = m_chooseSave(parent, extId + QStringLiteral(".verity-incident"));
    backToFront();
    if (path.isEmpty())
        return {};
    Expected<IncidentExportSummary> written = exportIncident(m_store, ticketId, path);
    if (!written) {
        tell(tr("Export incident"), tr("Nothing was written: %1").arg(written.message()), parent);
        backToFront();
        return {};
    }
    const QString done = tr("Exported %1 to %2. Redacted: %3.")
                                 .arg(written->ticketExtId, written->path,
                                      written->redactionSummary.isEmpty() ? tr("no personal data found")
                                                                          : written->redactionSummary);
    m_window.statusBar()->showMessage(done);
    if (auto *replay = qobject_cast<IncidentReplayWindow *>(asker))
        replay->showStatus(done); // where the trainer is looking
    return written->path;
}

MainWindow *TrainingMenu::openExport(const QString &path)
{
    Expected<OpenedIncidentExport> opened = openIncidentExport(path);
    if (!opened) {
        tell(tr("Open incident export"), opened.message());
        return nullptr;
    }
    Store &store = *opened->store;
    auto *window = new MainWindow(store, QString(), RegistrySource{}, MainWindow::IncidentExport);
    new StoreKeeper(std::move(opened->store), window);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setWindowTitle(tr("Verity — %1 (read-only incident export)").arg(path));
    window->show();
    window->openTicket(opened->ticketId);
    return window;
}

} // namespace verity

#pragma once
// A simulated run: tickets through one refund policy against the sandbox provider on
// loopback, K tickets in flight at once in this thread's event loop. The sandbox is the
// run's own (in this process, state in a temporary folder, refund ids derived so that a
// run replays byte for byte) unless a running `verity sandbox` is named; then the run's
// objects get a random suffix so they never meet an earlier run's.
//
// Nothing but the seed decides a number: tickets, faults, keys and virtual times all derive
// from (seed, ticket, attempt), never from the order in which tickets finish.

#include "domain/expected.h"
#include "faultschedule.h"
#include "simulationtypes.h"
#include "ticketrun.h"

#include <QHash>
#include <QObject>
#include <QTemporaryDir>
#include <QUrl>

#include <functional>
#include <memory>

class QNetworkAccessManager;

namespace verity {

class SandboxServer;
class SandboxState;
class Store;

struct SimulationSetup
{
    SimPolicy policy = SimPolicy::IntentKey;
    quint32 seed = 1;
    QList<SimSeller> sellers;
    QList<SimTicket> tickets; // ticket.index must be its position here
    FaultSchedule faults;
    QUrl sandboxUrl; // empty: start a sandbox of the run's own on 127.0.0.1
    QString apiKey = QStringLiteral("sk_test_sandbox");
    RealTiming timing;
    int concurrency = 48;
    // The events of every ticket, for transcripts and the what-if's panes. False for counting
    // only: events are most of a ticket's memory, and a finished ticket's run is dropped.
    bool keepEvents = true;
};

struct SimulationResult
{
    SimPolicy policy = SimPolicy::IntentKey;
    quint32 seed = 1;
    double faultRate = 0;
    QList<SimSeller> sellers;
    QList<TicketOutcome> tickets; // in ticket order
};

class SimulationRun : public QObject
{
    Q_OBJECT

public:
    explicit SimulationRun(SimulationSetup setup, QObject *parent = nullptr);
    ~SimulationRun() override;

    // Starts from the event loop; finished() follows, also on an error.
    void start();
    bool isFinished() const { return m_finished; }
    Expected<SimulationResult> result() const;

signals:
    void progress(int done, int total);
    void finished();

private:
    void prepare();
    Expected<void> startOwnSandbox();
    Expected<void> seedOwnSandbox();
    void seedRemoteSandbox();
    void startTickets();
    void launchNext();
    void ticketFinished(TicketRun *run);
    void readProviderRefunds(const QString &startingAfter);
    void handOutRefunds();
    void fail(const QString &message);
    void finish();

    SimulationSetup m_setup;
    TicketRunContext m_context;
    QTemporaryDir m_folder;
    std::unique_ptr<SandboxState> m_sandboxState;
    std::unique_ptr<SandboxServer> m_sandbox;
    std::unique_ptr<Store> m_ledger;
    QNetworkAccessManager *m_network = nullptr;
    SimulationResult m_result;
    // By ticket, kept until the provider's refunds are read when events are kept (their
    // provider lines need the run); otherwise dropped as each finishes, leaving its outcome in
    // m_result and its POSTs' keys here, so memory per ticket stays a few hundred bytes.
    QList<TicketRun *> m_runs;
    QList<QStringList> m_postKeys;
    QHash<QString, int> m_ticketOfPayment;
    QList<QList<AuditedRefund>> m_refunds; // by ticket
    qint64 m_startedSeconds = 0; // real: refunds older than the run are not its own
    QString m_error;
    int m_total = 0; // tickets in the run (the setup's list is emptied as they start)
    int m_next = 0;
    int m_running = 0;
    int m_done = 0;
    bool m_finished = false;
};

// Blocks, running the event loop, until the run is over. `progress` gets (done, total).
Expected<SimulationResult> runSimulation(SimulationSetup setup,
                                         const std::function<void(int, int)> &progress = {});

// True for 127.0.0.1, ::1 and localhost: the simulator talks to nothing else.
bool isLoopbackUrl(const QUrl &url);

} // namespace verity

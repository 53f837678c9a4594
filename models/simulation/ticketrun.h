#pragma once
// One simulated ticket, as an asynchronous state machine: the customer asks, the simulated
// model reads the order, calls issue_refund, reads the answer and moves by the fixed policy
// (modelpolicy.h) until it replies. Then the run hands it the provider's refunds of the
// ticket's payment (providerRefunds), because the provider, not the transcript, says how many
// refunds there were; the ticket's `provider` lines are written from them.
//
// Two clocks. Requests run on the real one, compressed (a client timeout of a few hundred
// ms, a longer stall). Events are stamped on a virtual one, the March incident's: a 5 s
// client timeout, the provider committing about 0.4 s after the POST, a second or two of
// model thinking between turns; every virtual duration comes from the ticket's seeded
// generator, so real timing never reaches a transcript or a number. A request whose real
// fate contradicts the fault schedule (a timeout no fault caused) is reported as a problem.

#include "faultschedule.h"
#include "modelpolicy.h"
#include "refundtools.h"
#include "simulationtypes.h"

#include <QObject>
#include <QRandomGenerator>
#include <QUrl>

namespace verity {

// Real, compressed timing: none of it changes a number, only how long a run takes.
struct RealTiming
{
    // The timeout is long enough that a loaded machine answers every unfaulted request well
    // within it (a request that still times out is reported, never counted); the stall is
    // longer, so a stalled answer always comes after the client has given up.
    int clientTimeoutMs = 600; // the tool's HTTP client gives up after this long
    int stallMs = 1500; // accept-then-stall holds the answer this long
    int lookupAttempts = 3; // the runtime's lookup GETs per page, the first included
    int backoffBaseMs = 5;
    int backoffCapMs = 20;
};

// The incident's timing, used for the virtual clock.
inline constexpr qint64 virtualClientTimeoutMs = 5000;

struct TicketRunContext
{
    SimPolicy policy = SimPolicy::IntentKey;
    FaultSchedule faults;
    RealTiming timing;
    QUrl sandboxUrl;
    QString apiKey;
    quint32 seed = 1;
    RefundTool *tool = nullptr;
    bool keepEvents = true; // false: count only (large runs)
};

class TicketRun : public QObject
{
    Q_OBJECT

public:
    TicketRun(SimTicket ticket, const TicketRunContext &context, QObject *parent = nullptr);

    void start();
    // After finished(): what the provider holds for the ticket's payment, in any order.
    void providerRefunds(QList<AuditedRefund> refunds);
    const TicketOutcome &outcome() const { return m_outcome; }
    TicketOutcome takeOutcome() { return std::move(m_outcome); }
    // The Idempotency-Keys of the ticket's refund POSTs, in the order sent. A run that keeps
    // no events takes these and the outcome, drops the TicketRun at once, and orders the
    // provider's refunds later with orderByPosts: memory stays small per finished ticket.
    QStringList postKeys() const;
    // Oldest first, by the POST that made each (the provider lists newest first, to the second).
    static void orderByPosts(QList<AuditedRefund> &refunds, const QStringList &postKeys);

    // The base URL a refund attempt's requests go to: the sandbox, with the attempt's faults
    // named in the path when there are any (see SandboxApi::handle).
    static QUrl faultedUrl(const QUrl &sandboxUrl, const QString &faults);

signals:
    void finished();

private:
    struct PostRecord
    {
        QString callId;
        QString key;
        qint64 commitAt = 0; // virtual: when the provider committed (or would have)
        std::optional<int> status;
        bool replayed = false;
        QString refundId;
    };

    void add(SimulatedEvent::Kind kind, qint64 at, const QString &callId, const QString &summary,
             SimJson fields);
    QString nextCallId() { return QStringLiteral("c%1").arg(++m_callNumber); }
    qint64 think() { return 800 + qint64(m_timing.bounded(1700)); }
    QString amountText() const;
    void callRefund();
    void refundAnswered(const RefundToolAnswer &answer, int attempt, const QString &callId, qint64 calledAt);
    void escalate(ModelMove move);
    void reply(ModelMove move);

    SimTicket m_ticket;
    const TicketRunContext &m_context;
    TicketOutcome m_outcome;
    QRandomGenerator m_timing;
    qint64 m_clock = 0;
    int m_callNumber = 0;
    bool m_sawUnknown = false;
    QList<PostRecord> m_posts;
};

} // namespace verity

#pragma once
// The two refund tools the simulator runs, behind one interface. Both send their requests
// through ProviderClient, so both POST exactly once per call and never retry it themselves.
//
// As shipped (the tool of the March incident): a fresh "uuid4" idempotency key per call
// (drawn from the run's seeded generator, so a run replays), and every answer but a 2xx read
// as failure: a timeout becomes {"error":"refund failed: upstream timeout"}, a 5xx
// {"error":"refund failed: upstream error 503"}, a 4xx {"error":"refund failed: HTTP 400"}.
// A success is {"refund_id": "re_…", "status": "queued", "amount_cents": N}.
//
// Intent key (the fix): the registry's intent key and SafeWriteRuntime with a real ledger.
// Its answer is always one of the four outcomes:
//   {"outcome":"performed","refund_id":…,"amount_cents":…}
//   {"outcome":"already_performed","refund_id":…,"amount_cents":…}
//   {"outcome":"not_performed","retry":"same_key","note":…}  (a lookup proved it absent)
//   {"outcome":"not_performed","note":…}                     (the provider refused it)
//   {"outcome":"unknown","retry":"never","escalate":true,"note":…}
// The notes are written from the runtime's verdicts, not its words, so that no real
// duration (a timeout of the compressed clock) reaches a transcript.

#include "domain/outcome.h"
#include "domain/toolregistry.h"
#include "provider/providerclient.h"
#include "simulationtypes.h"

#include <QHash>
#include <QObject>
#include <QUrl>

#include <functional>

namespace verity {

class SafeWriteRuntime;
class LedgerStore;

struct RefundToolCall
{
    const SimTicket *ticket = nullptr;
    int attempt = 1; // the ticket's issue_refund calls, this one included
    QUrl baseUrl; // the provider, with this attempt's faults in its path (see SandboxApi)
};

// How a request got no answer; a transcript's `http` line writes it as transportFailureId().
enum class TransportFailure { Timeout, ConnectionRefused, ConnectionReset };
QString transportFailureId(TransportFailure failure); // "timeout", "connection_refused", "connection_reset"

// One request the tool's HTTP client made, as a transcript's `http` line records it.
struct ToolHttpRequest
{
    QString method;
    QString url; // path and query, the fault prefix removed
    QString idempotencyKey;
    std::optional<int> status;
    std::optional<TransportFailure> failure; // no answer came (then no status either)
};

struct RefundToolAnswer
{
    SimJson result; // what the model reads
    QList<ToolHttpRequest> requests;
    QString key; // the Idempotency-Key this call used
    std::optional<Outcome> outcome; // the intent-key tool's; none as shipped
    bool replayed = false; // the provider answered from the key's stored response
};

class RefundTool : public QObject
{
    Q_OBJECT

public:
    using Done = std::function<void(const RefundToolAnswer &)>;
    using QObject::QObject;
    // `done` runs from the event loop once the call is answered, never before issue returns.
    virtual void issue(const RefundToolCall &call, Done done) = 0;

protected:
    RefundIntent intentFor(const RefundToolCall &call, const QString &key) const;
    // One client per base URL (a run has a handful: with or without each fault), so lookups
    // share their connections; each refund POST still gets a connection of its own.
    ProviderClient &clientFor(const RefundToolCall &call);
    static QList<ToolHttpRequest> requestsOf(const QList<HttpExchange> &exchanges);

    ProviderSettings m_settings;
    QHash<QUrl, ProviderClient *> m_clients;
};

class AsShippedRefundTool final : public RefundTool
{
    Q_OBJECT

public:
    AsShippedRefundTool(ProviderSettings settings, quint32 seed, QObject *parent = nullptr);
    void issue(const RefundToolCall &call, Done done) override;
    // The key the tool draws for a call: the same seed, ticket and attempt give the same key.
    // The ticket's payment is mixed in, so a second run against a shared sandbox (whose
    // payment ids carry a run suffix) never reuses a first run's keys.
    static QString keyFor(quint32 seed, const SimTicket &ticket, int attempt);

private:
    quint32 m_seed;
};

class IntentKeyRefundTool final : public RefundTool
{
    Q_OBJECT

public:
    IntentKeyRefundTool(ProviderSettings settings, LedgerStore &ledger, ToolRegistry registry,
                        QObject *parent = nullptr);
    void issue(const RefundToolCall &call, Done done) override;
    // The intent key of a ticket's refund, as Verity computes it on import.
    Expected<QString> keyFor(const SimTicket &ticket) const;

private:
    LedgerStore &m_ledger;
    ToolRegistry m_registry;
    QHash<ProviderClient *, SafeWriteRuntime *> m_runtimes;
};

// The arguments the model passes issue_refund for a ticket.
SimJson refundArguments(const SimTicket &ticket);

} // namespace verity

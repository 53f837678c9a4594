#pragma once
// A ticket replayed step by step across the layers that handled it: the customer, the model,
// the tool framework, the tool's HTTP client and the provider. Each step is one thing one
// layer did, in time order; after each step the timeline says what every layer knew at that
// moment, and where the three retry mechanisms (HTTP client, tool framework, model) stood.
//
// The transcript gives the customer's, the model's and the tool's steps. The `http` and
// `provider` lines of the native format give the layers beneath; where a ticket has none, a
// client timeout is inferred from a result that names one (and says so), and the provider's
// side is shown as not logged rather than guessed.

#include "store/records.h"
#include "store/tracerecords.h"

#include <QList>
#include <QString>

namespace verity {

enum class ReplayLayer { Customer, Model, ToolFramework, HttpClient, Provider };
inline constexpr ReplayLayer allReplayLayers[] = {ReplayLayer::Customer, ReplayLayer::Model,
                                                  ReplayLayer::ToolFramework, ReplayLayer::HttpClient,
                                                  ReplayLayer::Provider};
QString
replayLayerName(ReplayLayer layer); // "Customer", "Model", "Tool framework", "HTTP client", "Provider"

enum class RetryMechanism { HttpClient, ToolFramework, Model };
inline constexpr RetryMechanism allRetryMechanisms[] = {RetryMechanism::HttpClient,
                                                        RetryMechanism::ToolFramework, RetryMechanism::Model};
QString retryMechanismName(RetryMechanism mechanism);

struct LayerKnowledge
{
    ReplayLayer layer = ReplayLayer::Customer;
    QString knows; // what the layer knew after the step, in words
    bool changed = false; // the step changed it
};

struct RetryStanding
{
    RetryMechanism mechanism = RetryMechanism::HttpClient;
    QString standing; // what it had done so far
    QString blindTo; // what it could not see
    bool retried = false;
};

struct TimelineStep
{
    // Stable across openings of the same ticket, so trainers' notes stay on their step:
    // "m12" a message of seq 12, "c3.call", "c3.tool", "c3.result", "c3.read", "t15" a
    // trace line of seq 15, "t15.end" its answer or timeout.
    QString key;
    qint64 at = 0;
    ReplayLayer layer = ReplayLayer::Customer;
    QString kind; // "customer_message", "model_decision", "tool_call", "http_request",
                  // "provider_record", "client_timeout", "http_answer", "tool_result",
                  // "model_read", "reply", "system"
    QString title; // one line
    QString detail; // plain text, may span lines
    QString callExtId;
    bool inferred = false; // not logged: derived from the transcript
    QList<LayerKnowledge> knowledge; // one per layer, after this step
    QList<RetryStanding> retries; // one per mechanism, after this step
};

struct IncidentTimeline
{
    QString ticketExtId;
    bool hasLowerLayers = false; // the ticket carries http or provider lines
    QList<TimelineStep> steps;
};

IncidentTimeline buildIncidentTimeline(const TicketDetail &ticket, const QList<TranscriptEntry> &transcript,
                                       const QList<TraceEvent> &traces);

} // namespace verity

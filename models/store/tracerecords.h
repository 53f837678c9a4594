#pragma once
// Records for replaying an incident: what the layers under a tool call logged (the tool's HTTP
// client, the provider), and the notes trainers keep on the steps of a replay. Plain data, as in
// records.h.

#include <QString>

#include <optional>

namespace verity {

// One HTTP request a tool made for a call, as the tool framework's client logged it.
struct HttpTrace
{
    QString method; // "POST", "GET"
    QString url; // a path or a URL
    QString idempotencyKey; // the Idempotency-Key sent; empty: none was sent
    int attempt = 1; // the HTTP client's own attempt number: above 1, the client re-sent it
    std::optional<int> status; // none: no answer came
    QString error; // transport failure: "timeout", "connection_refused", ...
    std::optional<qint64> durationMs;

    bool operator==(const HttpTrace &) const = default;
};

// One thing the provider recorded, from its event log or webhooks.
struct ProviderTrace
{
    QString event; // "refund.created", "idempotent_replay", "request.refused"
    QString objectId; // "re_…"
    QString idempotencyKey; // the key the provider saw
    std::optional<qint64> amountCents;
    bool replayed = false; // answered from a stored key: no new money moved

    bool operator==(const ProviderTrace &) const = default;
};

enum class TraceKind { Http, Provider };
QString traceKindId(TraceKind kind); // "http", "provider"

struct TraceEvent
{
    qint64 seq = 0; // the ticket's event order, shared with messages and calls
    qint64 at = 0; // ms since the epoch, UTC: when the request was sent / the provider recorded it
    TraceKind kind = TraceKind::Http;
    QString callExtId; // the tool call it belongs to; may be empty for a provider record
    HttpTrace http; // kind Http
    ProviderTrace provider; // kind Provider

    bool operator==(const TraceEvent &) const = default;
};

// How the store keeps an event's layer details: one JSON object.
QString traceDetailJson(const TraceEvent &event);

struct NewTraceEvent
{
    qint64 ticketId = 0;
    TraceEvent event;
    QString fingerprint;
};

// A trainer's note on one step of a ticket's replay. The step is named by a key that stays
// the same when the ticket is opened again (see IncidentTimeline).
struct TrainerNote
{
    QString stepKey;
    QString text;
    QString author;
    qint64 writtenAt = 0;

    bool operator==(const TrainerNote &) const = default;
};

} // namespace verity

#pragma once
// The receiver's rules without the HTTP, from a plain request to a plain answer, as the
// OTLP/HTTP specification has exporters expect them:
//  - POST /v1/traces takes an ExportTraceServiceRequest as application/x-protobuf or
//    application/json, optionally gzip-encoded; the answer is in the request's encoding;
//  - 200 only once the spans are committed, with partial_success (how many spans were refused
//    and why) when some were; sending the same spans again changes nothing;
//  - 400 for a body that cannot be decoded, 401 without the configured bearer token, 404, 405,
//    413 above the size limit (also once inflated), 415 for another media type or encoding;
//  - 503 with Retry-After when the store cannot take the request now: nothing of it was stored,
//    and the exporter's retry brings it again;
//  - POST /v1/events takes lines of Verity's own JSONL events.
// Every answer says on one line what happened, for the receiver's log.

#include "spanintake.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <optional>

namespace verity {

struct CollectOptions
{
    QString token; // empty: no Authorization needed
    qsizetype maxBodyBytes = qsizetype(16) << 20; // as sent and as inflated
    int retryAfterSeconds = 5;
    // How long a write reported by an event line waits for its result before it is escalated.
    qint64 inFlightGraceMs = 2 * 60 * 1000;
    std::function<qint64()> clock; // ms since the epoch; empty: the system clock
    // Asked before each request: the registries again when the user's registry file changed (a
    // person confirmed a tool's class in the console), so that the next call is keyed as the
    // stored ones now are; nullopt when nothing changed. Empty: the registries never change.
    std::function<std::optional<RegistrySelection>()> changedRegistries;
};

struct CollectRequest
{
    QString method;
    QString path;
    QByteArray contentType;
    QByteArray contentEncoding;
    QByteArray authorization;
    QByteArray body;
    QString peer; // "127.0.0.1:50312", for the log
};

struct CollectAnswer
{
    int status = 200;
    QByteArray contentType;
    QByteArray body;
    std::optional<int> retryAfterSeconds;
    QByteArray allow; // 405: the methods the path takes
    QByteArray wwwAuthenticate; // 401: the scheme the receiver asks for
    QString log; // "POST /v1/traces 200 protobuf: 3 spans, 4 events stored"
};

class CollectApi
{
public:
    CollectApi(ImportWrites &store, RegistrySelection registries, CollectOptions options);

    CollectAnswer handle(const CollectRequest &request);
    // From now on every request is answered 503 with Retry-After: the receiver is stopping.
    void refuseFromNow() { m_stopping = true; }
    // While the store's server is away every request is answered 503 at once, in a few words,
    // without a try that would only fail with the driver's.
    void setStoreAway(bool away) { m_storeAway = away; }
    // Escalates the writes whose result did not come within the grace period: how many.
    Expected<int> escalateOverdue() { return m_intake.escalateOverdue(); }

private:
    enum class Encoding { Protobuf, Json };

    CollectAnswer traces(const CollectRequest &request, const QByteArray &body, Encoding encoding);
    CollectAnswer events(const CollectRequest &request, const QByteArray &body);
    CollectAnswer refusal(int status, Encoding encoding, const QString &reason) const;
    qint64 now() const;

    SpanIntake m_intake;
    void takeChangedRegistries();

    CollectOptions m_options;
    bool m_stopping = false;
    bool m_storeAway = false;
};

} // namespace verity

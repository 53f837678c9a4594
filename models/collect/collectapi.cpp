#include "collectapi.h"

#include "domain/jsontext.h"
#include "gzipbody.h"
#include "otlpprotobuf.h"

#include <QCryptographicHash>
#include <QDateTime>

namespace verity {

using nlohmann::json;

namespace {

// gRPC's codes, which OTLP/HTTP carries in a refusal's Status body.
int rpcCode(int httpStatus)
{
    switch (httpStatus) {
    case 400:
    case 413:
    case 415:
        return 3; // INVALID_ARGUMENT
    case 401:
        return 16; // UNAUTHENTICATED
    case 404:
    case 405:
        return 12; // UNIMPLEMENTED
    case 429:
        return 8; // RESOURCE_EXHAUSTED
    default:
        return 14; // UNAVAILABLE
    }
}

QByteArray mediaType(const QByteArray &contentType)
{
    const qsizetype semicolon = contentType.indexOf(';');
    return (semicolon < 0 ? contentType : contentType.left(semicolon)).trimmed().toLower();
}

// Compared by their hashes, so the time taken says nothing of how much of a guess was right.
bool sameSecret(const QByteArray &given, const QByteArray &expected)
{
    return QCryptographicHash::hash(given, QCryptographicHash::Sha256)
            == QCryptographicHash::hash(expected, QCryptographicHash::Sha256);
}

// "Bearer TOKEN": the scheme's name in any case (RFC 9110), the token exactly.
QByteArray bearerToken(const QByteArray &authorization)
{
    const QByteArray value = authorization.trimmed();
    const qsizetype space = value.indexOf(' ');
    if (space < 0 || value.left(space).toLower() != "bearer")
        return QByteArray();
    return value.mid(space + 1).trimmed();
}

QString firstProblems(const QStringList &problems)
{
    QString text = problems.mid(0, 3).join(QStringLiteral("; "));
    if (problems.size() > 3)
        text += QStringLiteral(" (and %1 more)").arg(problems.size() - 3);
    return text;
}

} // namespace

CollectApi::CollectApi(ImportWrites &store, RegistrySelection registries, CollectOptions options)
    : m_intake(store, std::move(registries), options.inFlightGraceMs, options.clock)
    , m_options(std::move(options))
{}

void CollectApi::takeChangedRegistries()
{
    if (!m_options.changedRegistries)
        return;
    if (std::optional<RegistrySelection> fresh = m_options.changedRegistries())
        m_intake.setRegistries(std::move(*fresh));
}

qint64 CollectApi::now() const
{
    return m_options.clock ? m_options.clock() : QDateTime::currentMSecsSinceEpoch();
}

CollectAnswer CollectApi::refusal(int status, Encoding encoding, const QString &reason) const
{
    CollectAnswer answer;
    answer.status = status;
    if (encoding == Encoding::Protobuf) {
        answer.contentType = QByteArrayLiteral("application/x-protobuf");
        answer.body = otlpRpcStatus(rpcCode(status), reason);
    } else {
        answer.contentType = QByteArrayLiteral("application/json");
        answer.body = QByteArray::fromStdString(
                json{{"code", rpcCode(status)}, {"message", reason.toStdString()}}.dump(
                        -1, ' ', false, json::error_handler_t::replace));
    }
    if (status == 503 || status == 429)
        answer.retryAfterSeconds = m_options.retryAfterSeconds;
    answer.log = reason;
    return answer;
}

CollectAnswer CollectApi::handle(const CollectRequest &request)
{
    const QByteArray type = mediaType(request.contentType);
    const Encoding encoding = type == "application/x-protobuf" ? Encoding::Protobuf : Encoding::Json;
    const auto finish = [&request](CollectAnswer answer) {
        answer.log = QStringLiteral("%1 %2 %3 %4: %5")
                             .arg(request.method, request.path)
                             .arg(answer.status)
                             .arg(request.peer, answer.log);
        return answer;
    };

    const bool traces = request.path == QLatin1String("/v1/traces");
    const bool events = request.path == QLatin1String("/v1/events");
    if (!traces && !events)
        return finish(
                refusal(404, encoding,
                        QStringLiteral("no such endpoint: the receiver takes POST /v1/traces (OTLP/HTTP) "
                                       "and POST /v1/events (Verity JSONL)")));
    if (request.method != QLatin1String("POST")) {
        CollectAnswer answer = refusal(405, encoding, QStringLiteral("%1 takes POST only").arg(request.path));
        answer.allow = QByteArrayLiteral("POST");
        return finish(answer);
    }
    if (!m_options.token.isEmpty()
        && !sameSecret(bearerToken(request.authorization), m_options.token.toUtf8())) {
        CollectAnswer answer =
                refusal(401, encoding,
                        request.authorization.isEmpty()
                                ? QStringLiteral("no Authorization header: this receiver needs "
                                                 "\"Authorization: Bearer TOKEN\"")
                                : QStringLiteral("the bearer token is not the one this receiver "
                                                 "was started with"));
        answer.wwwAuthenticate = QByteArrayLiteral("Bearer realm=\"verity collect\"");
        return finish(answer);
    }
    if (m_stopping)
        return finish(refusal(503, encoding, QStringLiteral("the receiver is stopping; send again later")));
    if (m_storeAway)
        return finish(
                refusal(503, encoding,
                        QStringLiteral("nothing stored: the database is not answering; send again later")));
    if (request.body.size() > m_options.maxBodyBytes)
        return finish(refusal(413, encoding,
                              QStringLiteral("the body is %1 bytes; this receiver takes at most %2")
                                      .arg(request.body.size())
                                      .arg(m_options.maxBodyBytes)));

    if (traces && type != "application/x-protobuf" && type != "application/json")
        return finish(refusal(415, encoding,
                              QStringLiteral("Content-Type \"%1\": expected application/x-protobuf or "
                                             "application/json (OTLP/HTTP)")
                                      .arg(QString::fromLatin1(request.contentType))));
    if (events && type != "application/x-ndjson" && type != "application/jsonl" && type != "application/json")
        return finish(refusal(415, encoding,
                              QStringLiteral("Content-Type \"%1\": expected application/x-ndjson (one Verity "
                                             "event a line)")
                                      .arg(QString::fromLatin1(request.contentType))));

    QByteArray body = request.body;
    const QByteArray contentEncoding = request.contentEncoding.trimmed().toLower();
    if (contentEncoding == "gzip") {
        Expected<Inflated> inflated = gunzip(request.body, m_options.maxBodyBytes);
        if (!inflated)
            return finish(refusal(400, encoding, inflated.message()));
        if (inflated->tooLarge)
            return finish(refusal(413, encoding,
                                  QStringLiteral("the body inflates to more than %1 bytes, the most this "
                                                 "receiver takes")
                                          .arg(m_options.maxBodyBytes)));
        body = std::move(inflated->bytes);
    } else if (!contentEncoding.isEmpty() && contentEncoding != "identity") {
        return finish(refusal(415, encoding,
                              QStringLiteral("Content-Encoding \"%1\": expected gzip or none")
                                      .arg(QString::fromLatin1(request.contentEncoding))));
    }
    return finish(traces ? this->traces(request, body, encoding) : this->events(request, body));
}

CollectAnswer CollectApi::traces(const CollectRequest &request, const QByteArray &body, Encoding encoding)
{
    const bool protobuf = encoding == Encoding::Protobuf;
    json decoded;
    if (protobuf) {
        Expected<json> read = otlpJsonFromProtobuf(body);
        if (!read)
            return refusal(400, encoding, read.message());
        decoded = std::move(*read);
    } else {
        try {
            decoded = json::parse(body.constBegin(), body.constEnd());
        } catch (const json::exception &error) {
            return refusal(
                    400, encoding,
                    QStringLiteral("the body is not JSON: %1").arg(jsonParseErrorReason(error.what())));
        }
        if (!looksLikeOtlpTraceRequest(decoded))
            return refusal(400, encoding,
                           QStringLiteral("expected an OTLP trace export {\"resourceSpans\": [\u2026]}"));
    }

    takeChangedRegistries();
    const IntakeResult taken = m_intake.takeTraces(decoded, now(), request.peer);
    if (!taken.storeError.isEmpty())
        return refusal(
                503, encoding,
                QStringLiteral("nothing stored, the store could not take it: %1").arg(taken.storeError));
    // What was refused, then what was kept otherwise than it came: OTLP lets a receiver warn in
    // partial_success with nothing rejected.
    QString reason = firstProblems(taken.problems);
    if (!taken.notices.isEmpty())
        reason += (reason.isEmpty() ? QString() : QStringLiteral("; "))
                + QStringLiteral("stored with notices: ") + firstProblems(taken.notices);
    CollectAnswer answer;
    const bool partial = taken.refused > 0 || !taken.notices.isEmpty();
    if (protobuf) {
        answer.contentType = QByteArrayLiteral("application/x-protobuf");
        answer.body = otlpProtobufResponse(taken.refused, partial ? reason : QString());
    } else {
        json response = json::object();
        if (partial)
            response["partialSuccess"] =
                    json{{"rejectedSpans", taken.refused}, {"errorMessage", reason.toStdString()}};
        answer.contentType = QByteArrayLiteral("application/json");
        answer.body =
                QByteArray::fromStdString(response.dump(-1, ' ', false, json::error_handler_t::replace));
    }
    answer.log = QStringLiteral("%1 spans, %2 refused, %3 events stored, %4 known, %5 tickets opened")
                         .arg(taken.received)
                         .arg(taken.refused)
                         .arg(taken.eventsStored)
                         .arg(taken.eventsKnown)
                         .arg(taken.ticketsOpened);
    if (partial)
        answer.log += QStringLiteral(": ") + reason;
    return answer;
}

CollectAnswer CollectApi::events(const CollectRequest &request, const QByteArray &body)
{
    takeChangedRegistries();
    const IntakeResult taken = m_intake.takeEvents(body, request.peer);
    if (!taken.storeError.isEmpty())
        return refusal(
                503, Encoding::Json,
                QStringLiteral("nothing stored, the store could not take it: %1").arg(taken.storeError));
    json problems = json::array();
    for (const QString &problem : taken.problems)
        problems.push_back(problem.toStdString());
    CollectAnswer answer;
    // Nothing could be read: sending it again would not help.
    answer.status = taken.refused > 0 && taken.refused == taken.received ? 400 : 200;
    answer.contentType = QByteArrayLiteral("application/json");
    answer.body = QByteArray::fromStdString(json{
            {"message", firstProblems(taken.problems).toStdString()},
            {"received", taken.received},
            {"refused", taken.refused},
            {"stored", taken.eventsStored},
            {"known", taken.eventsKnown},
            {"problems", std::move(problems)}}.dump(-1, ' ', false, json::error_handler_t::replace));
    answer.log = QStringLiteral("%1 lines, %2 refused, %3 events stored, %4 known")
                         .arg(taken.received)
                         .arg(taken.refused)
                         .arg(taken.eventsStored)
                         .arg(taken.eventsKnown);
    if (taken.refused > 0)
        answer.log += QStringLiteral(": ") + firstProblems(taken.problems);
    return answer;
}

} // namespace verity

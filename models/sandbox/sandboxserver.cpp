#include "sandboxserver.h"

#include <QHttpServerRequest>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace verity {

namespace {

QString methodName(QHttpServerRequest::Method method)
{
    switch (method) {
    case QHttpServerRequest::Method::Get:
        return QStringLiteral("GET");
    case QHttpServerRequest::Method::Post:
        return QStringLiteral("POST");
    case QHttpServerRequest::Method::Put:
        return QStringLiteral("PUT");
    case QHttpServerRequest::Method::Delete:
        return QStringLiteral("DELETE");
    case QHttpServerRequest::Method::Head:
        return QStringLiteral("HEAD");
    case QHttpServerRequest::Method::Options:
        return QStringLiteral("OPTIONS");
    case QHttpServerRequest::Method::Patch:
        return QStringLiteral("PATCH");
    default:
        return QStringLiteral("OTHER");
    }
}

// Copies what the API needs: Qt 6.4 reuses the request object for the connection's next
// request, so nothing may point into it once handleRequest returns.
SandboxRequest sandboxRequest(const QHttpServerRequest &request)
{
    SandboxRequest copy;
    copy.method = methodName(request.method());
    copy.path = request.url().path();
    copy.query = request.url().query(QUrl::FullyEncoded).toUtf8();
    copy.body = request.body();
    for (const auto &[name, value] : request.headers()) {
        const QByteArray lower = name.toLower();
        if (lower == "authorization")
            copy.authorization = value.trimmed();
        else if (lower == "idempotency-key") {
            copy.idempotencyKey = value;
            copy.hasIdempotencyKey = true;
        } else if (lower == "sandbox-fault")
            copy.fault = value;
        else if (lower == "stripe-account")
            copy.stripeAccount = value;
        else if (lower == "stripe-version")
            copy.stripeVersion = value.trimmed();
        else if (lower == "content-type")
            copy.contentType = value.trimmed().toLower();
    }
    return copy;
}

} // namespace

SandboxServer::SandboxServer(SandboxState &state, SandboxOptions options, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_api(state, std::move(options))
{}

SandboxServer::~SandboxServer()
{
    // Held answers go first: their responders point at sockets the base class owns.
    m_held.clear();
}

Expected<quint16> SandboxServer::listenLocal(quint16 port)
{
    auto *tcp = new QTcpServer(this);
    if (!tcp->listen(QHostAddress::LocalHost, port)) {
        const QString reason = tcp->errorString();
        delete tcp;
        return makeError(QStringLiteral("cannot listen on 127.0.0.1:%1: %2").arg(port).arg(reason));
    }
    bind(tcp);
    m_port = tcp->serverPort();
    return m_port;
}

QUrl SandboxServer::url() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port));
}

bool SandboxServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // Qt writes an answer's headers and its body separately; with Nagle's algorithm on, the
    // body then waits for the client's delayed ACK of the headers (up to 40 ms a request).
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    const SandboxRequest copy = sandboxRequest(request);
    SandboxAnswer answer = m_api.handle(copy);
    // As Stripe does: the version the client pinned, else the account's default.
    answer.stripeVersion =
            copy.stripeVersion.isEmpty() ? QByteArrayLiteral("2026-07-29.dahlia") : copy.stripeVersion;
    emit exchanged(copy, answer);
    const QString line = QStringLiteral("%1 %2 %3%4")
                                 .arg(copy.method, copy.path)
                                 .arg(answer.status)
                                 .arg(answer.note.isEmpty() ? QString() : QStringLiteral(" ") + answer.note);
    QHttpServerResponder responder = makeResponder(request, socket);
    if (!answer.stallMilliseconds) {
        write(responder, answer);
        emit served(line);
        return true;
    }

    auto held = std::make_unique<HeldAnswer>(std::move(responder), socket);
    held->answer = answer;
    held->requestLine = line;
    HeldAnswer *raw = held.get();
    m_held.push_back(std::move(held));
    // Answered from the event loop later; with the server gone, the timer never fires.
    QTimer::singleShot(*answer.stallMilliseconds, this, [this, raw] { sendHeld(raw); });
    emit served(line + QStringLiteral(" (committed; answer held)"));
    return true;
}

void SandboxServer::sendHeld(HeldAnswer *held)
{
    const bool connected = held->socket && held->socket->state() == QAbstractSocket::ConnectedState;
    if (connected)
        write(held->responder, held->answer);
    m_api.release(held->answer.keyInProgress);
    emit served(held->requestLine
                + (connected ? QStringLiteral(" (held answer sent)")
                             : QStringLiteral(" (held answer dropped: the client had gone)")));
    m_held.remove_if([held](const std::unique_ptr<HeldAnswer> &entry) { return entry.get() == held; });
}

void SandboxServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // handleRequest answers every request, so this only runs if Qt calls it regardless.
    QHttpServerResponder responder = makeResponder(request, socket);
    SandboxAnswer answer;
    answer.status = 404;
    answer.body = errorBody(SandboxError{404, QStringLiteral("invalid_request_error"), QString(),
                                         QStringLiteral("Unrecognized request URL."), QString()});
    write(responder, answer);
}

void SandboxServer::write(QHttpServerResponder &responder, const SandboxAnswer &answer)
{
    responder.writeStatusLine(QHttpServerResponder::StatusCode(answer.status));
    responder.writeHeader(QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json"));
    responder.writeHeader(QByteArrayLiteral("Content-Length"), QByteArray::number(answer.body.size()));
    responder.writeHeader(QByteArrayLiteral("Request-Id"), randomSandboxId(QStringLiteral("req_")).toUtf8());
    if (!answer.idempotencyKey.isEmpty())
        responder.writeHeader(QByteArrayLiteral("Idempotency-Key"), answer.idempotencyKey.toUtf8());
    if (answer.replayed)
        responder.writeHeader(QByteArrayLiteral("Idempotent-Replayed"), QByteArrayLiteral("true"));
    if (!answer.stripeVersion.isEmpty())
        responder.writeHeader(QByteArrayLiteral("Stripe-Version"), answer.stripeVersion);
    responder.writeBody(answer.body);
}

} // namespace verity

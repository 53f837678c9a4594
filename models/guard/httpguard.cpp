#include "httpguard.h"

#include "httpwire.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>
#include <QUuid>

#include <algorithm>

namespace verity {

using nlohmann::json;

struct HttpGuard::Session
{
    QString id; // Mcp-Session-Id; empty until the server names one (or for a server without sessions)
    QByteArray protocolVersion; // the client's last MCP-Protocol-Version, for the guard's own requests
    std::unique_ptr<McpRelay> relay;
    // Its own connections to the server: a session's long-lived GET stream and its POST streams
    // never wait behind another session's in one shared pool.
    QNetworkAccessManager network;
    bool ended = false; // the client deleted it
};

struct HttpGuard::Exchange
{
    QPointer<QTcpSocket> socket; // null once the client went away, or for the guard's own request
    Session *session = nullptr;
    Request request;
    QPointer<QNetworkReply> reply;
    bool own = false;
    bool headersSent = false;
    bool streaming = false; // an SSE stream to the client, in chunks
    bool done = false;
    QByteArray events; // SSE read but not yet whole
    QByteArray upstreamBody;
    QByteArray answer; // what the relay gave the client, for a JSON response
};

namespace {

const QList<QByteArray> passedToUpstream{"content-type", "accept", "mcp-session-id", "mcp-protocol-version",
                                         "last-event-id"};

} // namespace

HttpGuard::HttpGuard(McpRelay::RecorderSource recorder, HttpGuardOptions options, QObject *parent)
    : QObject(parent)
    , m_recorder(std::move(recorder))
    , m_options(std::move(options))
{
    connect(&m_server, &QTcpServer::newConnection, this, &HttpGuard::accept);
}

HttpGuard::~HttpGuard()
{
    for (const auto &session : m_sessions)
        session->relay->connectionLost(QStringLiteral("the guard stopped"));
}

Expected<quint16> HttpGuard::listen(const QHostAddress &address, quint16 port)
{
    if (!m_server.listen(address, port))
        return makeError(QStringLiteral("cannot listen on %1:%2: %3")
                                 .arg(address.toString())
                                 .arg(port)
                                 .arg(m_server.errorString()));
    m_port = m_server.serverPort();
    m_loopback = address.isLoopback();
    return m_port;
}

void HttpGuard::accept()
{
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        m_buffers.insert(socket, QByteArray());
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { readClient(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] { clientGone(socket); });
    }
}

void HttpGuard::readClient(QTcpSocket *socket)
{
    QByteArray &buffer = m_buffers[socket];
    buffer += socket->readAll();
    // One request at a time on a connection: the next is read once this one is answered.
    while (!m_busy.contains(socket)) {
        HttpRequestProblem problem = HttpRequestProblem::None;
        const std::optional<Request> request = takeHttpRequest(buffer, m_options.maxBodyBytes, problem);
        const bool tooLarge = problem == HttpRequestProblem::TooLarge;
        if (problem != HttpRequestProblem::None) {
            respond(socket, tooLarge ? 413 : 400, "text/plain",
                    tooLarge ? QStringLiteral("verity guard: a body of at most %1 bytes\n")
                                       .arg(m_options.maxBodyBytes)
                                       .toUtf8()
                             : QByteArrayLiteral(
                                     "verity guard: not an HTTP/1.1 request it can read (a chunked "
                                     "body, or a bad request line or length)\n"));
            socket->disconnectFromHost();
            return;
        }
        if (!request)
            return;
        handle(socket, *request);
    }
}

QString HttpGuard::refusal(const Request &request, int &status) const
{
    const QByteArray path = request.path.left(request.path.indexOf('?') < 0 ? request.path.size()
                                                                            : request.path.indexOf('?'));
    if (path != "/mcp") {
        status = 404;
        return QStringLiteral("MCP is served at /mcp");
    }
    if (request.method != "POST" && request.method != "GET" && request.method != "DELETE") {
        status = 405;
        return QStringLiteral("/mcp takes POST, GET and DELETE");
    }
    // A page in the person's browser must not reach a server on their own machine by a name
    // that resolves to it (DNS rebinding).
    if (m_loopback) {
        if (!isLoopbackHost(request.headers.value("host"))) {
            status = 403;
            return QStringLiteral("the Host header names another server than this guard");
        }
        const QByteArray origin = request.headers.value("origin");
        if (!origin.isEmpty() && !isLoopbackOrigin(origin)) {
            status = 403;
            return QStringLiteral("requests from the origin %1 are refused").arg(QString::fromLatin1(origin));
        }
    }
    const QByteArray authorization = request.headers.value("authorization");
    if (!m_options.token.isEmpty()
        && (authorization.left(7).toLower() != "bearer "
            || authorization.mid(7).trimmed() != m_options.token.toUtf8())) {
        status = 401;
        return QStringLiteral("this guard needs \"Authorization: Bearer TOKEN\"");
    }
    if (request.method == "POST" && !request.headers.value("content-type").contains("application/json")) {
        status = 415;
        return QStringLiteral("a POST to /mcp carries application/json");
    }
    return {};
}

void HttpGuard::respond(QTcpSocket *socket, int status, const QByteArray &contentType, const QByteArray &body,
                        const QList<QPair<QByteArray, QByteArray>> &headers)
{
    if (socket)
        socket->write(httpResponse(status, contentType, body, headers));
}

HttpGuard::Session *HttpGuard::sessionFor(const Request &request)
{
    const QString id = QString::fromLatin1(request.headers.value("mcp-session-id"));
    const json body = request.method == "POST" && request.body.contains("\"initialize\"")
                    && nestingOf(request.body) <= deepestJsonRead
            ? json::parse(request.body.toStdString(), nullptr, false)
            : json();
    const auto method = body.is_object() ? body.find("method") : body.end();
    const bool initialize = method != body.end() && *method == "initialize";
    if (!initialize) {
        for (const auto &session : m_sessions) {
            if (session->id == id && !session->ended)
                return session.get();
        }
    }
    // A new session; or one the server began before this guard started, or a server without
    // sessions, whose requests share one.
    auto session = std::make_unique<Session>();
    session->id = initialize ? QString() : id;
    const QString tag = QUuid::createUuid().toString(QUuid::Id128).left(8);
    RelayOptions options = m_options.relay;
    options.callsWaitForToolList = false; // a request's answer is written to its own exchange
    options.sessionId = QStringLiteral("mcp-") + (id.isEmpty() ? tag : id.left(36));
    options.callPrefix = tag;
    Session *const made = session.get();
    session->relay = std::make_unique<McpRelay>(
            m_recorder, options,
            McpRelay::Sinks{[this, made](const QByteArray &message) {
                                if (m_sending && m_sending->session == made && !m_sending->reply)
                                    forward(m_sending, message);
                                else
                                    sendOwn(made, message);
                            },
                            [this, made](const QByteArray &message) { deliver(made, message); },
                            [this](const QString &line) { emit logged(line); }});
    m_sessions.push_back(std::move(session));
    return made;
}

void HttpGuard::handle(QTcpSocket *socket, const Request &request)
{
    int status = 0;
    if (const QString why = refusal(request, status); !why.isEmpty()) {
        QList<QPair<QByteArray, QByteArray>> headers;
        if (status == 405)
            headers.append(qMakePair(QByteArray("Allow"), QByteArray("POST, GET, DELETE")));
        if (status == 401)
            headers.append(qMakePair(QByteArray("WWW-Authenticate"), QByteArray("Bearer")));
        respond(socket, status, "text/plain", "verity guard: " + why.toUtf8() + "\n", headers);
        return;
    }
    Session *const session = sessionFor(request);
    if (request.headers.contains("mcp-protocol-version"))
        session->protocolVersion = request.headers.value("mcp-protocol-version");
    auto owned = std::make_unique<Exchange>();
    Exchange *const exchange = owned.get();
    exchange->socket = socket;
    exchange->session = session;
    exchange->request = request;
    m_exchanges.push_back(std::move(owned));
    m_busy.insert(socket, exchange);
    if (request.method != "POST") {
        forward(exchange, QByteArray());
        return;
    }
    m_sink = exchange;
    m_sending = exchange;
    session->relay->fromClient(request.body);
    m_sink = nullptr;
    m_sending = nullptr;
    if (exchange->reply)
        return; // answered as the server answers
    // Held, or answered by the guard: never sent.
    respond(socket, exchange->answer.isEmpty() ? 202 : 200,
            exchange->answer.isEmpty() ? QByteArray() : "application/json", exchange->answer);
    finish(exchange);
}

QNetworkRequest HttpGuard::upstreamRequest(const Session *session, const Request *client) const
{
    QNetworkRequest request(m_options.upstream);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    if (client) {
        for (const QByteArray &name : passedToUpstream) {
            if (client->headers.contains(name))
                request.setRawHeader(name, client->headers.value(name));
        }
        // A client's credentials were meant for the server, unless they were the guard's own.
        if (m_options.upstreamToken.isEmpty() && m_options.token.isEmpty()
            && client->headers.contains("authorization"))
            request.setRawHeader("Authorization", client->headers.value("authorization"));
    } else {
        request.setRawHeader("Content-Type", "application/json");
        request.setRawHeader("Accept", "application/json, text/event-stream");
        if (!session->id.isEmpty())
            request.setRawHeader("Mcp-Session-Id", session->id.toLatin1());
        if (!session->protocolVersion.isEmpty())
            request.setRawHeader("MCP-Protocol-Version", session->protocolVersion);
    }
    if (!m_options.upstreamToken.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_options.upstreamToken.toUtf8());
    return request;
}

void HttpGuard::forward(Exchange *exchange, const QByteArray &message)
{
    const QNetworkRequest request =
            upstreamRequest(exchange->session, exchange->own ? nullptr : &exchange->request);
    const QByteArray &method = exchange->own ? QByteArrayLiteral("POST") : exchange->request.method;
    QNetworkAccessManager &network = exchange->session->network;
    QNetworkReply *reply = method == "POST" ? network.post(request, message)
            : method == "GET"               ? network.get(request)
                                            : network.sendCustomRequest(request, method);
    exchange->reply = reply;
    connect(reply, &QNetworkReply::metaDataChanged, this, [this, exchange] { upstreamHeaders(exchange); });
    connect(reply, &QNetworkReply::readyRead, this, [this, exchange] { upstreamData(exchange); });
    connect(reply, &QNetworkReply::finished, this, [this, exchange] { upstreamDone(exchange); });
}

void HttpGuard::sendOwn(Session *session, const QByteArray &message)
{
    auto owned = std::make_unique<Exchange>();
    owned->own = true;
    owned->session = session;
    Exchange *const exchange = owned.get();
    m_exchanges.push_back(std::move(owned));
    forward(exchange, message);
}

void HttpGuard::upstreamHeaders(Exchange *exchange)
{
    QNetworkReply *reply = exchange->reply;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (exchange->headersSent || status == 0)
        return;
    const QByteArray session = reply->rawHeader("Mcp-Session-Id");
    if (!session.isEmpty() && exchange->session->id.isEmpty())
        exchange->session->id = QString::fromLatin1(session);
    if (status != 200 || !reply->rawHeader("Content-Type").startsWith("text/event-stream"))
        return; // answered whole once it has come
    exchange->streaming = true;
    exchange->headersSent = true;
    if (!exchange->socket)
        return;
    QByteArray head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                      "Transfer-Encoding: chunked\r\n";
    if (!session.isEmpty())
        head += "Mcp-Session-Id: " + session + "\r\n";
    exchange->socket->write(head + "\r\n");
}

void HttpGuard::upstreamData(Exchange *exchange)
{
    if (!exchange->reply->isOpen())
        return;
    upstreamHeaders(exchange);
    if (!exchange->streaming) {
        exchange->upstreamBody += exchange->reply->readAll();
        return;
    }
    exchange->events += exchange->reply->readAll();
    streamEvents(exchange, false);
}

void HttpGuard::streamEvents(Exchange *exchange, bool whole)
{
    for (const SseEvent &event : takeSseEvents(exchange->events, whole)) {
        QTcpSocket *const client = exchange->own ? nullptr : exchange->socket.data();
        const QByteArray data = event.data.join('\n');
        if (data.trimmed().isEmpty()) {
            if (client) // a priming event, a retry: passed as it came
                client->write(httpChunk(event.raw + "\n\n"));
            continue;
        }
        m_sink = client ? exchange : nullptr;
        m_eventFields = event.fields;
        exchange->session->relay->fromServer(data);
        m_sink = nullptr;
        m_eventFields.clear();
    }
}

void HttpGuard::deliver(Session *, const QByteArray &message)
{
    Exchange *const exchange = m_sink;
    if (!exchange)
        return; // the client is gone, or the message answers the guard's own request
    if (exchange->streaming) {
        if (exchange->socket)
            exchange->socket->write(httpChunk(m_eventFields + "data: " + message + "\n\n"));
        return;
    }
    exchange->answer = message;
}

void HttpGuard::upstreamDone(Exchange *exchange)
{
    QNetworkReply *reply = exchange->reply;
    upstreamHeaders(exchange);
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray contentType = reply->rawHeader("Content-Type");
    const QByteArray rest = reply->isOpen() ? reply->readAll() : QByteArray();
    if (exchange->streaming) {
        exchange->events += rest;
        streamEvents(exchange, true);
        if (exchange->socket && !exchange->own)
            exchange->socket->write("0\r\n\r\n");
        finish(exchange);
        return;
    }
    const QByteArray body = exchange->upstreamBody + rest;
    if (status == 0 && reply->error() == QNetworkReply::OperationCanceledError) {
        finish(exchange); // a stream the guard closed, its client gone
        return;
    }
    if (status == 0) {
        // No answer at all: the server is not there. What was sent is unknown to the relay
        // until its deadline; the client hears why.
        emit logged(QStringLiteral("the server at %1 did not answer: %2")
                            .arg(m_options.upstream.toString(), reply->errorString()));
        // A connection refused, or a name not found, delivered nothing: a call in it did not happen.
        if (!exchange->own && exchange->request.method == "POST"
            && (reply->error() == QNetworkReply::ConnectionRefusedError
                || reply->error() == QNetworkReply::HostNotFoundError)) {
            m_sink = exchange->socket ? exchange : nullptr;
            exchange->session->relay->notDelivered(exchange->request.body, reply->errorString());
            m_sink = nullptr;
        }
        if (!exchange->own && !exchange->answer.isEmpty())
            respond(exchange->socket, 200, "application/json", exchange->answer);
        else if (!exchange->own)
            respond(exchange->socket, 502, "text/plain",
                    "verity guard: the MCP server did not answer: " + reply->errorString().toUtf8() + "\n");
        finish(exchange);
        return;
    }
    const bool isJson = contentType.startsWith("application/json") && !body.trimmed().isEmpty();
    if (isJson) {
        m_sink = exchange->own || !exchange->socket ? nullptr : exchange;
        exchange->session->relay->fromServer(body);
        m_sink = nullptr;
    }
    if (!exchange->own) {
        QList<QPair<QByteArray, QByteArray>> headers;
        for (const char *name : {"Mcp-Session-Id", "WWW-Authenticate", "Allow", "Retry-After", "Location"}) {
            if (reply->hasRawHeader(name))
                headers.append(qMakePair(QByteArray(name), reply->rawHeader(name)));
        }
        respond(exchange->socket, status, contentType,
                isJson && !exchange->answer.isEmpty() ? exchange->answer : body, headers);
    }
    if (exchange->request.method == "DELETE" && status >= 200 && status < 300)
        endSession(exchange->session);
    finish(exchange);
}

void HttpGuard::endSession(Session *session)
{
    session->relay->connectionLost(QStringLiteral("the client ended the session"));
    for (const auto &exchange : m_exchanges) {
        if (exchange->session == session && !exchange->done && exchange->request.method == "GET"
            && exchange->reply)
            exchange->reply->abort();
    }
    session->ended = true; // gone once nothing of it is in flight (see finish)
}

void HttpGuard::finish(Exchange *exchange)
{
    if (exchange->done)
        return;
    exchange->done = true;
    QTcpSocket *const socket = exchange->socket;
    if (socket && m_busy.value(socket) == exchange)
        m_busy.remove(socket);
    if (exchange->reply)
        exchange->reply->deleteLater();
    // Gone once the calls that led here have returned, and its session with it when that ended.
    QTimer::singleShot(0, this, [this, exchange] {
        Session *const session = exchange->session;
        std::erase_if(m_exchanges, [exchange](const auto &owned) { return owned.get() == exchange; });
        const bool inUse = std::any_of(m_exchanges.cbegin(), m_exchanges.cend(),
                                       [session](const auto &owned) { return owned->session == session; });
        if (session->ended && !inUse)
            std::erase_if(m_sessions, [session](const auto &owned) { return owned.get() == session; });
    });
    if (socket && !m_buffers.value(socket).isEmpty())
        QTimer::singleShot(0, this, [this, socket = QPointer<QTcpSocket>(socket)] {
            if (socket)
                readClient(socket);
        });
}

void HttpGuard::clientGone(QTcpSocket *socket)
{
    if (Exchange *exchange = m_busy.take(socket)) {
        exchange->socket = nullptr;
        if (exchange->request.method == "POST")
            exchange->session->relay->abandoned(exchange->request.body,
                                                QStringLiteral("the client's connection closed"));
        else if (exchange->reply)
            exchange->reply->abort(); // a GET stream nobody reads
    }
    m_buffers.remove(socket);
    socket->deleteLater();
}

} // namespace verity

#pragma once
// `verity guard --listen ADDR:PORT --upstream URL`: the guard in front of a Streamable HTTP MCP
// server. It serves MCP at /mcp and passes each request to the upstream server as it came
// (POST, the GET stream, DELETE; Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID kept),
// and each answer back, JSON or an SSE stream event by event, with the same status and event
// ids. Every message goes through the session's McpRelay, as on stdio: a held write is
// answered by the guard as JSON and never reaches the server. It refuses a Host or Origin that
// is not its own while it listens on loopback (DNS rebinding), and needs `Authorization: Bearer
// TOKEN` when given a token, which it never passes on.

#include "httpwire.h"
#include "mcprelay.h"

#include <QHostAddress>
#include <QNetworkRequest>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>

#include <memory>

class QNetworkReply;

namespace verity {

struct HttpGuardOptions
{
    QUrl upstream; // the server's MCP endpoint: http://127.0.0.1:3001/mcp
    QString token; // clients must send "Authorization: Bearer TOKEN"; empty: none needed
    // Sent to the upstream as "Authorization: Bearer …", and only there; empty: a client's own
    // Authorization passes to the upstream (unless `token` took it).
    QString upstreamToken;
    RelayOptions relay; // sessionId and callPrefix are set per session
    qsizetype maxBodyBytes = qsizetype(4) << 20;
};

class HttpGuard : public QObject
{
    Q_OBJECT
public:
    HttpGuard(McpRelay::RecorderSource recorder, HttpGuardOptions options, QObject *parent = nullptr);
    ~HttpGuard() override;

    Expected<quint16> listen(const QHostAddress &address, quint16 port);

signals:
    void logged(const QString &line);

private:
    struct Session;
    struct Exchange;
    using Request = HttpRequest;

    void accept();
    void readClient(QTcpSocket *socket);
    void handle(QTcpSocket *socket, const Request &request);
    QString refusal(const Request &request, int &status) const;
    Session *sessionFor(const Request &request);
    void respond(QTcpSocket *socket, int status, const QByteArray &contentType, const QByteArray &body,
                 const QList<QPair<QByteArray, QByteArray>> &headers = {});
    void forward(Exchange *exchange, const QByteArray &message);
    void sendOwn(Session *session, const QByteArray &message);
    QNetworkRequest upstreamRequest(const Session *session, const Request *client) const;
    void upstreamHeaders(Exchange *exchange);
    void upstreamData(Exchange *exchange);
    void upstreamDone(Exchange *exchange);
    void streamEvents(Exchange *exchange, bool whole);
    void deliver(Session *session, const QByteArray &message);
    void finish(Exchange *exchange);
    void endSession(Session *session);
    void clientGone(QTcpSocket *socket);

    McpRelay::RecorderSource m_recorder;
    HttpGuardOptions m_options;
    QTcpServer m_server;
    quint16 m_port = 0;
    bool m_loopback = true;
    std::vector<std::unique_ptr<Session>> m_sessions;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QHash<QTcpSocket *, Exchange *> m_busy; // a connection whose request is being answered
    std::vector<std::unique_ptr<Exchange>> m_exchanges;
    // While a relay call runs: where its answers to the client go, and the SSE fields of the event
    // they came in (so the event keeps its id).
    Exchange *m_sink = nullptr;
    QByteArray m_eventFields;
    // While a client's message is relayed: the exchange that sends it upstream.
    Exchange *m_sending = nullptr;
};

} // namespace verity

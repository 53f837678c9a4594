#pragma once
// The sandbox payment provider over HTTP, on 127.0.0.1 only (Qt HttpServer). SandboxApi
// decides every answer; this class carries requests and answers, and holds the answers of
// accept-then-stall: the responder is kept and written from a timer, so the event loop,
// and every other request, goes on meanwhile.

#include "sandboxapi.h"

#include <QAbstractHttpServer>
#include <QHttpServerResponder>
#include <QPointer>
#include <QUrl>

#include <list>
#include <memory>

class QTcpSocket;

namespace verity {

// The port `verity sandbox` listens on unless told otherwise.
constexpr quint16 defaultSandboxPort = 12111;

class SandboxServer : public QAbstractHttpServer
{
    Q_OBJECT

public:
    SandboxServer(SandboxState &state, SandboxOptions options, QObject *parent = nullptr);
    ~SandboxServer() override;

    // Port 0 picks a free port; the answer is the port actually used.
    Expected<quint16> listenLocal(quint16 port);
    QUrl url() const;
    int heldAnswers() const { return int(m_held.size()); }

signals:
    // One line per request for the log: "POST /v1/refunds 200 accept-then-stall=2s".
    void served(const QString &line);
    // Each request as it came and the answer decided for it (a held one before it is sent): for
    // tests that check what a client sends against the provider's published contract.
    void exchanged(const verity::SandboxRequest &request, const verity::SandboxAnswer &answer);

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    struct HeldAnswer
    {
        HeldAnswer(QHttpServerResponder &&held, QTcpSocket *heldSocket)
            : responder(std::move(held))
            , socket(heldSocket)
        {}
        QHttpServerResponder responder;
        QPointer<QTcpSocket> socket; // gone when the client gave up meanwhile
        SandboxAnswer answer;
        QString requestLine;
    };

    static void write(QHttpServerResponder &responder, const SandboxAnswer &answer);
    void sendHeld(HeldAnswer *held);

    SandboxApi m_api;
    quint16 m_port = 0;
    std::list<std::unique_ptr<HeldAnswer>> m_held;
};

} // namespace verity

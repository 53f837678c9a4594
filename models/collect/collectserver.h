#pragma once
// The receiver over HTTP (Qt HttpServer), on loopback unless told otherwise, plain or TLS.
// CollectApi decides every answer; this class carries requests to it and answers back, and
// says each exchange on one line for the log.

#include "collectapi.h"

#include <QAbstractHttpServer>
#include <QHostAddress>
#include <QTimer>

class QHttpServerResponder;

namespace verity {

// OTLP/HTTP's default port.
constexpr quint16 defaultCollectPort = 4318;

struct CollectTls
{
    QString certificateFile; // PEM
    QString keyFile; // PEM, unencrypted
};

class CollectServer : public QAbstractHttpServer
{
    Q_OBJECT

public:
    CollectServer(ImportWrites &store, RegistrySelection registries, CollectOptions options,
                  QObject *parent = nullptr);

    // Port 0 picks a free one; the answer is the port listened on. With TLS, both files must
    // be readable PEM, else nothing listens and the error names the file.
    Expected<quint16> listenOn(const QHostAddress &address, quint16 port, const CollectTls &tls = {});
    // Refuses every request from now on (503, Retry-After), for a clean stop.
    void refuseFromNow() { m_api.refuseFromNow(); }
    qint64 requestsAnswered() const { return m_answered; }
    // Escalates the writes whose result did not come in time, now; the server also does so
    // every few seconds while it listens. Says what it did on `served`.
    void escalateOverdue();
    // While the store's server is away the overdue writes wait for it, unsaid: the outage is
    // said once by whoever watches the server.
    void setStoreAway(bool away)
    {
        m_storeAway = away;
        m_api.setStoreAway(away);
    }
    bool storeAway() const { return m_storeAway; }

signals:
    // One line per request: "POST /v1/traces 200 127.0.0.1:50312: 3 spans, ..."
    void served(const QString &line, int status);
    // Anything else worth a line in the log: calls escalated when their result did not come.
    void noted(const QString &line);

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    void write(QHttpServerResponder &responder, const CollectAnswer &answer);

    CollectApi m_api;
    qint64 m_answered = 0;
    QTimer *m_overdue;
    bool m_storeAway = false;
};

} // namespace verity

#pragma once
// A payment provider on 127.0.0.1 scripted by the test (statements, the provider client's
// URL rule, lookups): each request is answered by a route (by path, account and how many requests came
// before), optionally after a delay, and every request is kept. For what the sandbox cannot be made to do:
// fail on cue, answer out of order, list for ever, send something that is not JSON.

#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

#include <functional>

namespace verity::test {

class LoopbackProvider : public QObject
{
public:
    struct Answer
    {
        int status = 200;
        QByteArray body;
        QByteArray location = {}; // sent as "Location:" when not empty (a redirect)
    };
    // `path` without its query (and with the base URL's prefix), `account` from the
    // Stripe-Account header, `count` 1 for the first request.
    using Route = std::function<Answer(const QString &path, const QByteArray &account, int count)>;

    // Answers in turn, the last one again for every request after it.
    static Route script(QList<Answer> answers)
    {
        return [answers](const QString &, const QByteArray &, int count) {
            return answers.at(qMin<qsizetype>(count, answers.size()) - 1);
        };
    }

    // `prefix`: a path the base URL carries (the client must keep it in every request).
    explicit LoopbackProvider(Route route, int delayMs = 0, QString prefix = {})
        : m_route(std::move(route))
        , m_delayMs(delayMs)
        , m_prefix(std::move(prefix))
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }

    QUrl url() const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(m_prefix));
    }
    // Each request's first line, as sent: "GET /prefix/v1/refunds?limit=100... HTTP/1.1".
    const QStringList &requestLines() const { return m_requestLines; }
    // Each request as path and account: "GET /v1/balance acct_a".
    const QStringList &requests() const { return m_requests; }
    // The most answers ever waiting on their delay at once: requests really in flight together.
    int mostPending() const { return m_mostPending; }
    // Each request's Authorization header, as received (empty when it had none).
    const QList<QByteArray> &authorizations() const { return m_authorizations; }

private:
    void read(QTcpSocket *socket)
    {
        QByteArray &pending = m_pending[socket];
        pending += socket->readAll();
        if (!pending.contains("\r\n\r\n"))
            return;
        const QList<QByteArray> lines = pending.left(pending.indexOf("\r\n\r\n")).split('\n');
        m_pending.remove(socket);
        m_requestLines.append(QString::fromUtf8(lines.first().trimmed()));
        const QString path = QString::fromLatin1(lines.first().split(' ').value(1)).section(u'?', 0, 0);
        QByteArray account;
        QByteArray authorization;
        for (const QByteArray &line : lines) {
            if (line.toLower().startsWith("stripe-account:"))
                account = line.mid(15).trimmed();
            if (line.toLower().startsWith("authorization:"))
                authorization = line.mid(14).trimmed();
        }
        m_authorizations.append(authorization);
        const int count = int(m_requests.count()) + 1;
        m_requests.append(QStringLiteral("GET %1 %2").arg(path, QString::fromLatin1(account)).trimmed());
        const Answer answer = m_route(path, account, count);
        m_mostPending = qMax(m_mostPending, ++m_answersPending);
        QTimer::singleShot(m_delayMs, socket, [this, socket, answer] {
            --m_answersPending;
            const QByteArray location =
                    answer.location.isEmpty() ? QByteArray() : "Location: " + answer.location + "\r\n";
            socket->write("HTTP/1.1 " + QByteArray::number(answer.status)
                          + " Loopback\r\nContent-Type: application/json\r\n" + location
                          + "Content-Length: " + QByteArray::number(answer.body.size())
                          + "\r\nConnection: close\r\n\r\n" + answer.body);
            socket->disconnectFromHost();
        });
    }

    QTcpServer m_server;
    Route m_route;
    int m_delayMs = 0;
    QString m_prefix;
    QStringList m_requestLines;
    QStringList m_requests;
    QList<QByteArray> m_authorizations;
    QHash<QTcpSocket *, QByteArray> m_pending;
    int m_answersPending = 0;
    int m_mostPending = 0;
};

// A port on 127.0.0.1 that nothing listens on (bound, then released): a provider that is down.
inline quint16 deadPort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

} // namespace verity::test

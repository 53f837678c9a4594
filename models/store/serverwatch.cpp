#include "serverwatch.h"

#include <QThread>

#include <libpq-fe.h>

#include <memory>

namespace verity {

ServerWatch::ServerWatch(QByteArray pingInfo, Hooks hooks, QObject *parent)
    : QObject(parent)
    , m_pingInfo(std::move(pingInfo))
    , m_hooks(std::move(hooks))
{
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &ServerWatch::check);
    m_timer.start();
}

void ServerWatch::check()
{
    if (!m_lost) {
        const QString broken = m_hooks.brokenLink();
        if (broken.isEmpty())
            return;
        m_lost = true;
        m_reason = broken;
        emit lost(broken);
    }
    if (!m_probing)
        probe();
}

void ServerWatch::probe()
{
    // PQping waits for the server's answer (connect_timeout bounds it): not on this thread.
    m_probing = true;
    auto answer = std::make_shared<QString>();
    QThread *thread = QThread::create([info = m_pingInfo, answer] { *answer = serverUnreachable(info); });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    // Queued to this thread; dropped if the watch is gone by then (the thread ends on its own).
    connect(thread, &QThread::finished, this, [this, answer] {
        m_probing = false;
        if (!answer->isEmpty()) {
            say(*answer);
            return; // the next tick asks again
        }
        if (Expected<void> back = m_hooks.reconnect(); !back) {
            say(back.message());
            return;
        }
        m_lost = false;
        m_reason.clear();
        emit restored();
    });
    thread->start();
}

void ServerWatch::say(const QString &reason)
{
    if (reason == m_reason)
        return; // said already
    m_reason = reason;
    emit lost(reason);
}

QString serverUnreachable(const QByteArray &pingInfo)
{
    switch (PQping(pingInfo.constData())) {
    case PQPING_OK:
        return QString();
    case PQPING_REJECT:
        return ServerWatch::tr("the server refuses connections for now (it is starting up or shutting down)");
    case PQPING_NO_ATTEMPT:
        return ServerWatch::tr("the connection's settings are not complete");
    default:
        return ServerWatch::tr("the server does not answer");
    }
}

QByteArray libpqConnectionString(const QList<QPair<QString, QString>> &keywords)
{
    QByteArray text;
    for (const auto &[key, value] : keywords) {
        QByteArray quoted = value.toUtf8();
        quoted.replace('\\', "\\\\").replace('\'', "\\'");
        if (!text.isEmpty())
            text += ' ';
        text += key.toUtf8() + "='" + quoted + '\'';
    }
    return text;
}

} // namespace verity

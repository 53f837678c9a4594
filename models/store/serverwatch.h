#pragma once
// Notices when a team database's server goes away, and when it is back. A connection to
// PostgreSQL does not come back by itself after the server restarts or the network drops, and
// a console left on a dead one would show empty views and refuse every change without saying
// why. Every two seconds the watch looks at libpq's state of each connection (no query); once
// one is broken it asks the server whether it accepts connections, on a thread of its own so
// that an unreachable host never freezes the window, and when it does has the store connect
// again.

#include "domain/expected.h"

#include <QByteArray>
#include <QObject>
#include <QTimer>

#include <functional>

namespace verity {

class ServerWatch : public QObject
{
    Q_OBJECT

public:
    static constexpr int intervalMs = 2000;

    struct Hooks
    {
        // Empty while every connection is open; else what broke, in libpq's words.
        std::function<QString()> brokenLink;
        // Opens every connection again, called on the watch's thread between two events, never
        // in the middle of a store call.
        std::function<Expected<void>()> reconnect;
    };

    // `pingInfo`: a libpq connection string of the server, without a password.
    ServerWatch(QByteArray pingInfo, Hooks hooks, QObject *parent = nullptr);

    bool isLost() const { return m_lost; }

    // Looks now rather than at the next tick (after a call failed, say).
    void check();

signals:
    // Once when the server is lost, and again whenever what keeps it away changes.
    void lost(const QString &reason);
    void restored();

private:
    void probe();
    void say(const QString &reason);

    QTimer m_timer;
    QByteArray m_pingInfo;
    Hooks m_hooks;
    bool m_lost = false;
    bool m_probing = false;
    QString m_reason; // the last said
};

// Why the server `pingInfo` names does not take connections now, in words for a person; empty
// when it does. Waits for the server's answer (bounded by connect_timeout): not on the GUI thread.
QString serverUnreachable(const QByteArray &pingInfo);

// A libpq connection string ("host='…' port=…") of `keywords`, each value quoted as libpq
// expects.
QByteArray libpqConnectionString(const QList<QPair<QString, QString>> &keywords);

} // namespace verity

#pragma once
// Shown at start-up when the team's database server does not take connections (restarting,
// or the network is down): it says so, asks the server again every few seconds on a thread of
// its own so the window never freezes, and opens the database as soon as it answers. Quit
// gives up. A console should wait for its server, not leave its user at a shell prompt.

#include "domain/expected.h"
#include "store/serverwatch.h"
#include "store/store.h"

#include <QDialog>
#include <QTimer>

#include <functional>
#include <memory>

class QLabel;

namespace verity {

class ServerWaitDialog : public QDialog
{
    Q_OBJECT

public:
    static constexpr int intervalMs = ServerWatch::intervalMs; // as the window's banner says
    // Why the server does not take connections now, empty once it does; run off the GUI thread.
    using Probe = std::function<QString()>;
    using Open = std::function<Expected<std::unique_ptr<Store>>()>;

    ServerWaitDialog(const QString &location, const QString &reason, Probe probe, Open open,
                     QWidget *parent = nullptr);

    // The database opened once the server answered; empty if the person quit.
    std::unique_ptr<Store> takeStore() { return std::move(m_store); }
    QString statusText() const;

private:
    void ask();
    void answered(const QString &reason);

    Probe m_probe;
    Open m_open;
    QLabel *m_status;
    QTimer m_timer;
    bool m_asking = false;
    std::unique_ptr<Store> m_store;
};

} // namespace verity

#pragma once
// Tells the desktop: a notification through the freedesktop notification service (the one
// every Linux desktop runs), or through the tray icon where that service is missing; and the
// tray icon's count of what is waiting. Clicking a notification asks for its escalation.

#include "escalationalerts.h"

#include <QHash>
#include <QIcon>
#include <QObject>

class QSystemTrayIcon;

namespace verity {

class DesktopNotifier : public QObject
{
    Q_OBJECT

public:
    explicit DesktopNotifier(QIcon icon, QObject *parent = nullptr);

    void notify(const EscalationAlert &alert);
    // The tray icon's count and tooltip; the icon shows only where the desktop has a tray.
    void setWaitingCount(qint64 count);

signals:
    void opened(const verity::EscalationAlert &alert); // the person clicked it

private:
    Q_SLOT void actionInvoked(uint id, const QString &action);
    Q_SLOT void notificationClosed(uint id, uint reason);
    void notifyByTray(const EscalationAlert &alert);
    void askCapabilities();

    QIcon m_icon;
    QSystemTrayIcon *m_tray = nullptr;
    EscalationAlert m_last; // the tray's message, which says nothing of itself when clicked
    QHash<uint, EscalationAlert> m_sent; // by the service's notification id
    // The last notification shown: the next one replaces it, so arrivals stack into one.
    uint m_shownId = 0;
    bool m_bodyMarkup = true; // until the service says otherwise: escape, to be safe
    bool m_serviceMissing = false;
};

} // namespace verity

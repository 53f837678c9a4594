#include "desktopnotifier.h"

#include "theme.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QPainter>
#include <QSystemTrayIcon>

namespace verity {

namespace {

const QString service = QStringLiteral("org.freedesktop.Notifications");
const QString path = QStringLiteral("/org/freedesktop/Notifications");

QDBusMessage notificationsCall(const QString &method)
{
    return QDBusMessage::createMethodCall(service, path, service, method);
}

// The count drawn on the icon, as a desktop's tray shows no text of its own.
QIcon countedIcon(const QIcon &icon, qint64 count)
{
    QPixmap pixmap = icon.pixmap(64, 64);
    if (count <= 0)
        return QIcon(pixmap);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRect badge(24, 24, 40, 40);
    painter.setBrush(theme::toneColour(theme::Tone::Bad));
    painter.setPen(Qt::NoPen);
    painter.drawEllipse(badge);
    QFont font = painter.font();
    font.setBold(true);
    font.setPixelSize(count > 99 ? 16 : 24);
    painter.setFont(font);
    painter.setPen(Qt::white);
    painter.drawText(badge, Qt::AlignCenter, count > 999 ? QStringLiteral("999+") : QString::number(count));
    return QIcon(pixmap);
}

} // namespace

DesktopNotifier::DesktopNotifier(QIcon icon, QObject *parent)
    : QObject(parent)
    , m_icon(std::move(icon))
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (bus.isConnected()) {
        bus.connect(service, path, service, QStringLiteral("ActionInvoked"), this,
                    SLOT(actionInvoked(uint, QString)));
        bus.connect(service, path, service, QStringLiteral("NotificationClosed"), this,
                    SLOT(notificationClosed(uint, uint)));
        askCapabilities();
    } else {
        m_serviceMissing = true;
    }
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(m_icon, this);
        m_tray->setToolTip(tr("Verity"));
        connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] { emit opened(m_last); });
        connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
            if (reason == QSystemTrayIcon::Trigger)
                emit opened(EscalationAlert{}); // the window, nothing in particular
        });
        m_tray->show();
    }
}

void DesktopNotifier::askCapabilities()
{
    auto *watcher = new QDBusPendingCallWatcher(
            QDBusConnection::sessionBus().asyncCall(notificationsCall(QStringLiteral("GetCapabilities"))),
            this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *call) {
        call->deleteLater();
        const QDBusPendingReply<QStringList> reply = *call;
        if (reply.isError()) {
            m_serviceMissing = true; // nobody answers: the tray tells, where there is one
            return;
        }
        m_bodyMarkup = reply.value().contains(QStringLiteral("body-markup"));
    });
}

void DesktopNotifier::notify(const EscalationAlert &alert)
{
    m_last = alert;
    if (m_serviceMissing) {
        notifyByTray(alert);
        return;
    }
    // A service that reads the body as markup would read "<" in a ticket id as a tag.
    const QString body = m_bodyMarkup ? alert.text.toHtmlEscaped() : alert.text;
    QDBusMessage call = notificationsCall(QStringLiteral("Notify"));
    call << QStringLiteral("Verity") << m_shownId << QStringLiteral("dev.verity.Console") << alert.title
         << body << QStringList{QStringLiteral("default"), tr("Open")}
         << QVariantMap{{QStringLiteral("desktop-entry"), QStringLiteral("dev.verity.Console")},
                        {QStringLiteral("category"), QStringLiteral("im.received")}}
         << int(-1);
    auto *watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, alert](QDBusPendingCallWatcher *sent) {
        sent->deleteLater();
        const QDBusPendingReply<uint> reply = *sent;
        if (reply.isError()) {
            m_serviceMissing = true;
            notifyByTray(alert);
            return;
        }
        m_shownId = reply.value();
        m_sent.insert(m_shownId, alert);
    });
}

void DesktopNotifier::notifyByTray(const EscalationAlert &alert)
{
    if (!m_tray || !QSystemTrayIcon::supportsMessages())
        return; // no desktop to tell: the window's title and the queue still count them
    m_tray->showMessage(alert.title, alert.text, m_icon);
}

void DesktopNotifier::actionInvoked(uint id, const QString &action)
{
    Q_UNUSED(action) // "default" (the notification itself) or "Open": both open it
    const auto sent = m_sent.constFind(id);
    if (sent != m_sent.constEnd())
        emit opened(*sent);
}

void DesktopNotifier::notificationClosed(uint id, uint reason)
{
    Q_UNUSED(reason)
    m_sent.remove(id);
    if (id == m_shownId)
        m_shownId = 0; // gone: the next is a notification of its own
}

void DesktopNotifier::setWaitingCount(qint64 count)
{
    if (!m_tray)
        return;
    m_tray->setIcon(countedIcon(m_icon, count));
    m_tray->setToolTip(count == 0           ? tr("Verity: no escalation waiting")
                               : count == 1 ? tr("Verity: 1 escalation waiting")
                                            : tr("Verity: %1 escalations waiting").arg(count));
}

} // namespace verity

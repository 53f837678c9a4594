#include "changefeed.h"

namespace verity {

ChangeFeed::ChangeFeed(QObject *parent)
    : QObject(parent)
{
    m_gather.setSingleShot(true);
    m_gather.setInterval(gatherMs);
    connect(&m_gather, &QTimer::timeout, this, [this] {
        const StoreAreas areas = m_pending;
        m_pending = {};
        emit changed(areas);
    });
}

void ChangeFeed::announce(const QString &area)
{
    static const std::pair<const char *, StoreArea> names[] = {
            {"tickets", StoreArea::Tickets}, {"escalations", StoreArea::Escalations},
            {"audit", StoreArea::Audit},     {"finance", StoreArea::Finance},
            {"notes", StoreArea::Notes},
    };
    bool known = false;
    for (const auto &[name, value] : names) {
        if (area == QLatin1String(name)) {
            m_pending |= value;
            known = true;
        }
    }
    if (!known)
        m_pending |= everyArea;
    if (!m_gather.isActive())
        m_gather.start();
}

bool ChangeFeed::confirmReachable()
{
    if (m_confirm)
        m_confirm();
    return m_reachable;
}

void ChangeFeed::reportUnreachable(const QString &reason)
{
    m_reachable = false;
    emit unreachable(reason);
}

void ChangeFeed::reportReachable()
{
    m_reachable = true;
    emit reachable();
    announce(QString()); // an unknown name: every area
}

} // namespace verity

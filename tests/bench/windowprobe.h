#pragma once
// What an operator waits for, measured in the real window on the offscreen platform: from
// opening the database to the queue's first page painted, each filter, a search by order id,
// jumps to the middle and the end of the queue, the escalation queue counted and listed, and
// a ticket opened. Each action is timed once, as a person meets it, from the click to the
// repaint; the figures go to stdout as "name value" lines for the parent to collect.

#include <QString>
#include <QTemporaryDir>

namespace verity::bench {

// Offscreen, with the user's folders in a temporary one: the window keeps its layout and
// provider settings there, and a probe must use neither this user's nor leave any. Made
// before the QApplication.
class ProbeHome
{
public:
    ProbeHome()
    {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toLocal8Bit());
        qputenv("XDG_DATA_HOME", m_home.filePath(QStringLiteral("data")).toLocal8Bit());
    }

private:
    QTemporaryDir m_home;
};

// Runs in a process of its own (it creates the QApplication). `searchOrder` is an order id
// the database holds.
int runWindowProbe(int argc, char **argv, const QString &database, const QString &searchOrder);

} // namespace verity::bench

#include "databasebanner.h"

#include "store/serverwatch.h"
#include "theme.h"

namespace verity {

DatabaseBanner::DatabaseBanner(QWidget *parent)
    : QLabel(parent)
{
    setObjectName(QStringLiteral("databaseUnreachableBanner"));
    setTextFormat(Qt::PlainText); // the reason is the server's text
    setWordWrap(true);
    setStyleSheet(theme::band(theme::Band::Unknown));
    hide();
}

void DatabaseBanner::showUnreachable(const QString &location, const QString &reason)
{
    if (!isVisible())
        m_since = QDateTime::currentDateTime();
    setText(tr("The team's database %1 cannot be reached since %2: %3. Verity tries again every %4 seconds. "
               "Until it is back, what you see is as it was then, and nothing can be changed or looked up.")
                    .arg(location, m_since.toString(QStringLiteral("HH:mm:ss")), reason)
                    .arg(ServerWatch::intervalMs / 1000));
    show();
}

QString DatabaseBanner::showReachable()
{
    hide();
    // Short: the status bar shares its line with the counts.
    return tr("Database back at %1 (away since %2); views read again")
            .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")),
                 m_since.toString(QStringLiteral("HH:mm:ss")));
}

} // namespace verity

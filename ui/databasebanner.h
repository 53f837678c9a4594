#pragma once
// A band across the top of the window while the team's database cannot be reached: since
// when, why, and what that means for what is on screen. Without it a lost server would look
// like an empty queue, or like buttons that fail one by one.

#include <QDateTime>
#include <QLabel>

namespace verity {

class DatabaseBanner : public QLabel
{
    Q_OBJECT

public:
    explicit DatabaseBanner(QWidget *parent = nullptr);

    // `location` without a password; the band says the time of the first report only.
    void showUnreachable(const QString &location, const QString &reason);
    // Hidden again; what the status bar says about it.
    QString showReachable();

private:
    QDateTime m_since;
};

} // namespace verity

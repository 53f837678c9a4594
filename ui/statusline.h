#pragma once

#include <QStatusBar>

namespace verity {

// The window's status bar. A message longer than the room the counters leave ends in "…",
// never cut mid-word with no sign, and the whole of it is the bar's tooltip.
class StatusLine : public QStatusBar
{
    Q_OBJECT

public:
    explicit StatusLine(QWidget *parent = nullptr);

    // The message as it is drawn now: whole, or shortened to end in "…".
    QString shownMessage() const;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    // Where the message goes: from the left edge to the first widget kept beside it.
    QRect messageRoom() const;
};

} // namespace verity

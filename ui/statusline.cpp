#include "statusline.h"

#include <QPaintEvent>
#include <QPainter>
#include <QSizeGrip>
#include <QStyleOption>

namespace verity {

StatusLine::StatusLine(QWidget *parent)
    : QStatusBar(parent)
{
    // The tooltip follows the message, so a shortened one can always be read whole.
    connect(this, &QStatusBar::messageChanged, this, [this](const QString &text) { setToolTip(text); });
}

QRect StatusLine::messageRoom() const
{
    // As QStatusBar lays it out: 6 pixels in, up to 2 pixels short of the first widget shown
    // beside a message (while one shows, only the permanent ones and the size grip are).
    int right = width() - 12;
    const QList<QWidget *> kept = findChildren<QWidget *>(QString(), Qt::FindDirectChildrenOnly);
    for (const QWidget *widget : kept) {
        if (widget->isVisible() && !widget->isWindow())
            right = qMin(right, widget->x() - 2);
    }
    return QRect(6, 0, qMax(0, right - 6), height());
}

QString StatusLine::shownMessage() const
{
    return fontMetrics().elidedText(currentMessage(), Qt::ElideRight, messageRoom().width());
}

void StatusLine::paintEvent(QPaintEvent *event)
{
    if (currentMessage().isEmpty()) {
        QStatusBar::paintEvent(event);
        return;
    }
    QPainter painter(this);
    QStyleOption panel;
    panel.initFrom(this);
    style()->drawPrimitive(QStyle::PE_PanelStatusBar, &panel, &painter, this);
    const QList<QWidget *> kept = findChildren<QWidget *>(QString(), Qt::FindDirectChildrenOnly);
    for (QWidget *widget : kept) {
        if (!widget->isVisible() || widget->isWindow() || qobject_cast<QSizeGrip *>(widget))
            continue;
        QStyleOption frame;
        frame.rect = widget->geometry().adjusted(-2, -1, 2, 1);
        frame.palette = palette();
        frame.state = QStyle::State_None;
        if (event->rect().intersects(frame.rect))
            style()->drawPrimitive(QStyle::PE_FrameStatusBarItem, &frame, &painter, widget);
    }
    painter.setPen(palette().windowText().color());
    painter.drawText(messageRoom(), Qt::AlignLeading | Qt::AlignVCenter | Qt::TextSingleLine, shownMessage());
}

} // namespace verity

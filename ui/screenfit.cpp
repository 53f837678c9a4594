#include "screenfit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace verity {

void fitToScreen(QWidget &window, QSize preferred)
{
    QScreen *screen = window.screen() ? window.screen() : QGuiApplication::primaryScreen();
    if (!screen) {
        window.resize(preferred);
        return;
    }
    // The frame is not known before the window is shown: the usual title bar and borders.
    const QRect area = screen->availableGeometry();
    const QSize size(qMin(preferred.width(), area.width() - 16),
                     qMin(preferred.height(), area.height() - 48));
    window.resize(size.expandedTo(window.minimumSizeHint().boundedTo(area.size())));
    window.move(area.topLeft()
                + QPoint((area.width() - window.width()) / 2,
                         qMax(0, (area.height() - window.height() - 32) / 2)));
}

} // namespace verity

#pragma once

#include <QSize>

class QWidget;

namespace verity {

// Sizes a top-level window to `preferred`, or to the available area of its screen when that is
// smaller (less room for the window manager's frame), and centres it there: at 1280×800 no
// window's buttons may lie off-screen.
void fitToScreen(QWidget &window, QSize preferred);

} // namespace verity

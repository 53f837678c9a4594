#pragma once
// The window's shortcuts work from anywhere in it, a text field included. Qt lets a focused
// line edit claim Ctrl+E (end of line) and Ctrl+K (delete to its end) before the window's
// actions see them, so the status bar's "press Ctrl+E" did nothing while the search box had the
// focus. A key that is one of the window's own shortcuts goes to that action (or, for an action
// refused here, to the shortcut that says why); every other key (typing, Ctrl+A, Ctrl+C, Ctrl+V,
// the arrows) stays the field's.

#include <QObject>

class QWidget;

namespace verity {

class ShortcutsFirst : public QObject
{
    Q_OBJECT

public:
    // Watches the whole application for keys typed into `window`'s text fields.
    explicit ShortcutsFirst(QWidget &window);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget &m_window;
};

} // namespace verity

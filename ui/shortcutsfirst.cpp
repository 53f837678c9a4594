#include "shortcutsfirst.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QShortcut>
#include <QTextEdit>

#include <algorithm>

namespace verity {

ShortcutsFirst::ShortcutsFirst(QWidget &window)
    : QObject(&window)
    , m_window(window)
{
    qApp->installEventFilter(this);
}

bool ShortcutsFirst::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::ShortcutOverride)
        return false;
    auto *widget = qobject_cast<QWidget *>(watched);
    if (!widget || widget->window() != &m_window
        || !(qobject_cast<QLineEdit *>(widget) || qobject_cast<QTextEdit *>(widget)
             || qobject_cast<QPlainTextEdit *>(widget) || qobject_cast<QAbstractSpinBox *>(widget)))
        return false;
    const auto *key = static_cast<QKeyEvent *>(event);
    // Typing: plain and shifted characters are never a window shortcut here.
    if (!(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier))
        && !(key->key() >= Qt::Key_F1 && key->key() <= Qt::Key_F35))
        return false;
    const QKeySequence pressed(key->keyCombination());
    const auto windows = [&pressed](const QKeySequence &shortcut) {
        return shortcut.matches(pressed) == QKeySequence::ExactMatch;
    };
    bool taken = false;
    for (const QAction *action : m_window.findChildren<QAction *>()) {
        if (action->isEnabled())
            taken = taken || std::any_of(action->shortcuts().cbegin(), action->shortcuts().cend(), windows);
    }
    // The keys of an action refused here, which say why.
    for (const QShortcut *shortcut : m_window.findChildren<QShortcut *>())
        taken = taken || (shortcut->isEnabled() && windows(shortcut->key()));
    if (!taken)
        return false;
    event->ignore(); // not the field's: the shortcut map gives it to the window
    return true;
}

} // namespace verity

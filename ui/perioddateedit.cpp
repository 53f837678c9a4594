#include "perioddateedit.h"

#include <QEvent>
#include <QLineEdit>

namespace verity {

PeriodDateEdit::PeriodDateEdit(QWidget *parent)
    : QDateEdit(parent)
{
    setDisplayFormat(QStringLiteral("yyyy-MM-dd"));
    lineEdit()->installEventFilter(this);
}

bool PeriodDateEdit::eventFilter(QObject *watched, QEvent *event)
{
    // After the click has placed the cursor; a drag that selected text keeps its selection.
    if (watched == lineEdit() && event->type() == QEvent::MouseButtonRelease
        && !lineEdit()->hasSelectedText()) {
        // The part the cursor is in: as many parts before it as there are dashes before it.
        const int index = int(lineEdit()->text().left(lineEdit()->cursorPosition()).count(u'-'));
        if (index < sectionCount())
            setSelectedSection(sectionAt(index));
    }
    return QDateEdit::eventFilter(watched, event);
}

} // namespace verity

#include "queuetable.h"

#include "theme.h"

namespace verity {

QueueTable::QueueTable(QWidget *parent)
    : QTableView(parent)
{
    setStyleSheet(theme::focusedTable(QStringLiteral("QTableView")));
}

void QueueTable::focusInEvent(QFocusEvent *event)
{
    const bool hadCurrent = currentIndex().isValid();
    QTableView::focusInEvent(event);
    if (!hadCurrent && selectionModel() && !selectionModel()->hasSelection())
        selectionModel()->clearCurrentIndex();
}

} // namespace verity

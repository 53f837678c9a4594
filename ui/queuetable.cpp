#include "queuetable.h"

namespace verity {

void QueueTable::focusInEvent(QFocusEvent *event)
{
    const bool hadCurrent = currentIndex().isValid();
    QTableView::focusInEvent(event);
    if (!hadCurrent && selectionModel() && !selectionModel()->hasSelection())
        selectionModel()->clearCurrentIndex();
}

} // namespace verity

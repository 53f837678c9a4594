#include "viewplace.h"

#include <QAbstractItemModel>
#include <QItemSelectionModel>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QTableView>
#include <QVariant>

#include <optional>

namespace verity {

namespace {

// How far from its old row an item is looked for: a burst of changes moves rows by a few.
constexpr int searchRows = 64;

// The row of the item `id` near `row`, nearest first.
std::optional<int> findNear(const QAbstractItemModel &model, int idRole, const QVariant &id, int row)
{
    const int rows = model.rowCount();
    for (int distance = 0; distance <= searchRows; ++distance) {
        for (const int candidate : {row - distance, row + distance}) {
            if (candidate >= 0 && candidate < rows && model.index(candidate, 0).data(idRole) == id)
                return candidate;
            if (distance == 0)
                break;
        }
    }
    return std::nullopt;
}

} // namespace

void keepPlaceAcross(QTableView *view, int idRole, const std::function<void()> &reset)
{
    QAbstractItemModel *model = view->model();
    if (!model) {
        reset();
        return;
    }
    const QModelIndex current = view->currentIndex();
    const QVariant currentId = current.isValid() ? current.siblingAtColumn(0).data(idRole) : QVariant();
    const QModelIndex top = view->indexAt(QPoint(0, 0));
    const QVariant topId = top.isValid() ? top.siblingAtColumn(0).data(idRole) : QVariant();
    const int horizontal = view->horizontalScrollBar()->value();
    // A view at its top is watching what comes in (the queue lists the newest first): it stays
    // at the top, where new rows appear, rather than following its old first row down.
    const bool atTop = view->verticalScrollBar()->value() == view->verticalScrollBar()->minimum();

    reset();

    if (atTop) {
        view->scrollToTop();
    } else if (top.isValid()) {
        const std::optional<int> row = findNear(*model, idRole, topId, top.row());
        const int shown = row ? *row : qMin(top.row(), model->rowCount() - 1);
        if (shown >= 0)
            view->scrollTo(model->index(shown, 0), QAbstractItemView::PositionAtTop);
    }
    view->horizontalScrollBar()->setValue(horizontal);
    if (!current.isValid())
        return;
    const std::optional<int> row = findNear(*model, idRole, currentId, current.row());
    if (!row)
        return; // gone, or moved far: nothing chosen rather than something else
    // Chosen again as it was, not chosen anew: nothing opens, nothing scrolls.
    QItemSelectionModel *selection = view->selectionModel();
    {
        const QSignalBlocker quiet(selection);
        selection->setCurrentIndex(model->index(*row, current.column()),
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    view->viewport()->update();
}

} // namespace verity

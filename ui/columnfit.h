#pragma once
// Fits a table's columns to its width, so a narrow window shows every column instead of a
// horizontal scroll bar hiding the last ones (a queue's worst outcome, at 1280 pixels). Each
// column has the width its usual values need and a least width it may be squeezed to; when
// the view is too narrow, every column gives way in proportion to how far it may (one that
// must not shrink has least = natural). A person's own dragging holds until the width changes.

#include <QList>
#include <QObject>

class QAbstractItemModel;
class QFontMetrics;
class QTableView;

namespace verity {

// The widest of a column's texts among the model's first `rows` rows (those a first screen shows,
// read anyway), in pixels of `metrics`; 0 for none.
int widestText(const QAbstractItemModel &model, int column, int rows, const QFontMetrics &metrics);

class ColumnFit : public QObject
{
    Q_OBJECT

public:
    struct Column
    {
        int column;
        int natural; // what its usual values need
        int least; // squeezed no further
        bool last = false; // gives way only once every other column is at its least (an id)
    };
    // `spare`: the column that takes any room left over, so no gap is left at the right.
    ColumnFit(QTableView &view, QList<Column> columns, int spare);

    void fit(); // to the view's present width
    // A column's widths as its values turn out to need (ids measured once rows are read); fitted
    // again at once when they changed.
    void setWidths(int column, int natural, int least);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QTableView &m_view;
    QList<Column> m_columns;
    int m_spare;
    int m_fittedTo = -1;
};

} // namespace verity

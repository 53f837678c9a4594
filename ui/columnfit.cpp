#include "columnfit.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QFontMetrics>
#include <QHeaderView>
#include <QTableView>

#include <cmath>

namespace verity {

int widestText(const QAbstractItemModel &model, int column, int rows, const QFontMetrics &metrics)
{
    int widest = 0;
    for (int row = 0, last = qMin(model.rowCount(), rows); row < last; ++row)
        widest = qMax(widest, metrics.horizontalAdvance(model.index(row, column).data().toString()));
    return widest;
}

ColumnFit::ColumnFit(QTableView &view, QList<Column> columns, int spare)
    : QObject(&view)
    , m_view(view)
    , m_columns(std::move(columns))
    , m_spare(spare)
{
    m_view.horizontalHeader()->setStretchLastSection(false);
    m_view.viewport()->installEventFilter(this);
    fit();
}

void ColumnFit::fit()
{
    const int available = m_view.viewport()->width();
    m_fittedTo = available;
    int natural = 0;
    int slack = 0; // what the columns that give way first may give
    int lastSlack = 0; // what the ids may give, once the others gave all they may
    for (const Column &column : std::as_const(m_columns)) {
        natural += column.natural;
        (column.last ? lastSlack : slack) += column.natural - column.least;
    }
    const int over = natural - available;
    // Squeezed alike: each column of a tier gives the same share of what it may give.
    const double squeeze = over <= 0 || slack <= 0 ? 0.0 : qMin(1.0, double(over) / slack);
    const int stillOver = over - slack;
    const double lastSqueeze =
            stillOver <= 0 || lastSlack <= 0 ? 0.0 : qMin(1.0, double(stillOver) / lastSlack);
    QList<int> widths;
    int total = 0;
    for (const Column &column : std::as_const(m_columns)) {
        const double share = column.last ? lastSqueeze : squeeze;
        widths.append(column.natural - int(std::ceil(share * (column.natural - column.least))));
        total += widths.last();
    }
    for (qsizetype i = 0; i < m_columns.size(); ++i) {
        if (m_columns[i].column == m_spare && total < available)
            widths[i] += available - total;
    }
    for (qsizetype i = 0; i < m_columns.size(); ++i)
        m_view.setColumnWidth(m_columns[i].column, widths[i]);
}

void ColumnFit::setWidths(int column, int natural, int least)
{
    for (Column &fitted : m_columns) {
        if (fitted.column != column || (fitted.natural == natural && fitted.least == least))
            continue;
        fitted.natural = natural;
        fitted.least = least;
        fit();
    }
}

bool ColumnFit::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view.viewport() && event->type() == QEvent::Resize
        && m_view.viewport()->width() != m_fittedTo)
        fit();
    return QObject::eventFilter(watched, event);
}

} // namespace verity

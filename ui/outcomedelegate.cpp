#include "outcomedelegate.h"

#include "outcomestyle.h"

#include <QApplication>
#include <QPainter>

namespace verity {

OutcomeDelegate::OutcomeDelegate(int outcomeIdRole, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_role(outcomeIdRole)
{}

void OutcomeDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                            const QModelIndex &index) const
{
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    painter->save();
    painter->setFont(option.font);
    paintBadge(*painter, option.rect.adjusted(4, 1, -4, -1), lookForId(index.data(m_role).toString()));
    painter->restore();
}

QSize OutcomeDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QFont bold = option.font;
    bold.setBold(true);
    return badgeSize(lookForId(index.data(m_role).toString()), bold) + QSize(8, 2);
}

} // namespace verity

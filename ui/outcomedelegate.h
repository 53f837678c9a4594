#pragma once

#include <QStyledItemDelegate>

namespace verity {

// Paints the outcome column of a table as a badge, from the model's outcome id role.
class OutcomeDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    OutcomeDelegate(int outcomeIdRole, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    int m_role;
};

} // namespace verity

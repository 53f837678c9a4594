#pragma once
// The table of a queue, where choosing a row opens what it stands for. Qt's item views make
// the first row current whenever they take focus (Ctrl+L, a menu or a dialog closing); here
// focus alone makes no row current, so nothing a person did not choose comes into view, and
// the first key they press (Down, Home) chooses the first row. With the focus, its frame takes
// the focus colour, so that where the keys go shows before any row does.

#include <QTableView>

namespace verity {

class QueueTable : public QTableView
{
    Q_OBJECT

public:
    explicit QueueTable(QWidget *parent = nullptr);

protected:
    void focusInEvent(QFocusEvent *event) override;
};

} // namespace verity

#pragma once
// The what-if of one ticket: the same ticket run again in the simulator with the same fault
// at the same moment, as shipped and with intent keys, side by side, with what happened
// under each policy step by step. Esc closes it.

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace verity {

class WhatIfComparison;

class WhatIfWindow : public QWidget
{
    Q_OBJECT

public:
    WhatIfWindow(WhatIfComparison &comparison, QWidget *parent = nullptr);

    QPushButton *runButton() const { return m_run; }
    QTableView *table() const { return m_table; }
    QLabel *statusLabel() const { return m_status; }
    QPlainTextEdit *eventsOf(int column) const { return column == 0 ? m_asShippedEvents : m_intentKeyEvents; }

private:
    void showResults();
    void fitTable();

    WhatIfComparison &m_comparison;
    QLabel *m_fault;
    QTableView *m_table;
    QPlainTextEdit *m_asShippedEvents;
    QPlainTextEdit *m_intentKeyEvents;
    QPushButton *m_run;
    QLabel *m_status;
};

} // namespace verity

#pragma once

#include <QDateEdit>

namespace verity {

// A day of a period, typed as yyyy-MM-dd. A click into the year, the month or the day selects
// that part, so the digits typed next replace it, as in most date fields; the day then stays
// within the month typed (31 March, month 04: 30 April). A plain QDateEdit leaves a cursor
// inside the part instead, and refuses the digits typed there without a word.
class PeriodDateEdit : public QDateEdit
{
    Q_OBJECT

public:
    explicit PeriodDateEdit(QWidget *parent = nullptr);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
};

} // namespace verity

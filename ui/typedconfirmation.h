#pragma once
// The confirmation of a write with live money: the whole of what would be sent, and a field
// where the person types the amount. Send stays disabled until what is typed is that amount
// ("118.00" or "$118.00" for $118.00); until then Cancel is the default, so Enter sends nothing.

#include <QDialog>

class QLineEdit;
class QPushButton;

namespace verity {

class TypedConfirmation : public QDialog
{
    Q_OBJECT

public:
    TypedConfirmation(const QString &question, const QString &amount, QWidget *parent = nullptr);

    // The same digits and separators as `amount`, currency signs and spaces aside.
    static bool sameAmount(const QString &typed, const QString &amount);

private:
    QLineEdit *m_typed;
    QPushButton *m_send;
};

} // namespace verity

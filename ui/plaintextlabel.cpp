#include "plaintextlabel.h"

namespace verity {

QLabel *plainTextLabel(const QString &text, QWidget *parent, bool selectable)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setText(text);
    label->setWordWrap(true);
    if (selectable)
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    return label;
}

} // namespace verity

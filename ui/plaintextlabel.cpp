#include "plaintextlabel.h"

namespace verity {

QLabel *plainTextLabel(const QString &text, QWidget *parent, bool selectable)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setText(text);
    label->setWordWrap(true);
    // A wrapped label asks for a width that keeps a long text short; a system prompt of a
    // hundred lines then widens the whole ticket view. A small minimum lets it wrap instead.
    label->setMinimumWidth(40);
    if (selectable) {
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        // A screen reader reads the text as its name; this says what can be done with it.
        label->setAccessibleDescription(QObject::tr("Text to read; it can be selected and copied"));
    }
    return label;
}

} // namespace verity

#include "accessibletext.h"

#include <QDialogButtonBox>
#include <QPushButton>

namespace verity {

void describeForScreenReaders(QWidget *widget, const QString &name, const QString &description)
{
    widget->setAccessibleName(name);
    widget->setAccessibleDescription(description);
}

void describeStandardButtons(QDialogButtonBox *box)
{
    for (QAbstractButton *button : box->buttons()) {
        if (!button->accessibleDescription().isEmpty() || !button->toolTip().isEmpty())
            continue;
        switch (box->standardButton(button)) {
        case QDialogButtonBox::Close:
            button->setAccessibleDescription(QObject::tr("Closes this window"));
            break;
        case QDialogButtonBox::Cancel:
            button->setAccessibleDescription(QObject::tr("Closes this window; nothing is sent or recorded"));
            break;
        case QDialogButtonBox::Save:
            button->setAccessibleDescription(
                    QObject::tr("Saves what is entered here and closes this window"));
            break;
        case QDialogButtonBox::Ok:
            button->setAccessibleDescription(
                    QObject::tr("Accepts what is entered here and closes this window"));
            break;
        default:
            break;
        }
    }
}

} // namespace verity

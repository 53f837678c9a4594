#pragma once
// What a screen reader says of a widget: its name (what it is) and its description (what it
// does or shows). Qt takes a button's name from its text and a field's from its label; these
// fill in the rest.

#include <QString>

class QDialogButtonBox;
class QWidget;

namespace verity {

void describeForScreenReaders(QWidget *widget, const QString &name, const QString &description);
// A dialog's standard buttons (Close, Cancel, Save…), each described by what it does.
void describeStandardButtons(QDialogButtonBox *box);

} // namespace verity

#pragma once

#include <QLabel>

namespace verity {

// A label that never interprets markup: transcript text, arguments and results come from
// customers and models, and "<b>" in them is text to show, not formatting.
QLabel *plainTextLabel(const QString &text, QWidget *parent = nullptr, bool selectable = true);

} // namespace verity

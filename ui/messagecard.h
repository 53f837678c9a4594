#pragma once

#include "store/records.h"

#include <QFrame>

namespace verity {

// One message of a transcript: who wrote it, when, and the text exactly as written.
class MessageCard : public QFrame
{
    Q_OBJECT

public:
    MessageCard(MessageKind kind, qint64 at, const QString &text, QWidget *parent = nullptr);
};

} // namespace verity

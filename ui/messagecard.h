#pragma once

#include "store/records.h"

#include <QFrame>

namespace verity {

// One message of a transcript: who wrote it, when, and the text exactly as written.
class MessageCard : public QFrame
{
    Q_OBJECT

public:
    // `wholeBytes`: the whole text's size when `text` is only its start, else 0. A system
    // prompt or a long text opens folded to one line.
    MessageCard(MessageKind kind, qint64 at, const QString &text, qint64 wholeBytes = 0,
                QWidget *parent = nullptr);

signals:
    void showAllRequested();
};

} // namespace verity

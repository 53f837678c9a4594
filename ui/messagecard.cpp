#include "messagecard.h"

#include "foldedtext.h"
#include "itemmodels/displaytext.h"
#include "plaintextlabel.h"

#include <QHBoxLayout>
#include <QVBoxLayout>

namespace verity {

namespace {

QString authorLabel(MessageKind kind)
{
    switch (kind) {
    case MessageKind::Customer: return QObject::tr("Customer");
    case MessageKind::Agent: return QObject::tr("Agent (note)");
    case MessageKind::System: return QObject::tr("System");
    case MessageKind::Reply: return QObject::tr("Agent's reply to the customer");
    }
    Q_UNREACHABLE();
}

} // namespace

MessageCard::MessageCard(MessageKind kind, qint64 at, const QString &text, qint64 wholeBytes, QWidget *parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("messageCard_") + messageKindId(kind));
    setFrameShape(QFrame::StyledPanel);
    const char *style = "";
    switch (kind) {
    case MessageKind::Customer: style = "QFrame { background: #ffffff; border: 1px solid #d0d4d9; border-radius: 6px; }"; break;
    case MessageKind::Agent: style = "QFrame { background: #f6f7f9; border: 1px dashed #c4c9cf; border-radius: 6px; }"; break;
    case MessageKind::System: style = "QFrame { background: #fff8e1; border: 1px solid #e6d38a; border-radius: 6px; }"; break;
    case MessageKind::Reply: style = "QFrame { background: #eef4ff; border: 1px solid #a9c1ea; border-radius: 6px; }"; break;
    }
    setStyleSheet(QString::fromLatin1(style));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 8);
    layout->setSpacing(3);
    auto *header = new QHBoxLayout;
    auto *author = plainTextLabel(authorLabel(kind), this, false);
    author->setStyleSheet(QStringLiteral("QLabel { border: none; font-weight: bold; color: #3c4043; }"));
    auto *time = plainTextLabel(formatTime(at), this, false);
    // Who and when, each on one line: the card's text wraps, its header does not.
    author->setWordWrap(false);
    time->setWordWrap(false);
    time->setStyleSheet(QStringLiteral("QLabel { border: none; color: #5f6368; }"));
    header->addWidget(author);
    header->addStretch();
    header->addWidget(time);
    layout->addLayout(header);

    // A system prompt (a policy, a tool list) is context, not the conversation: one line until
    // asked for, as is any text longer than a screenful.
    const bool fold = wholeBytes > 0 || FoldedText::isLong(text)
            || (kind == MessageKind::System && (text.size() > 200 || text.count(u'\n') >= 3));
    QLabel *body = nullptr;
    if (fold) {
        auto *folded = new FoldedText(text, wholeBytes, true, false, this);
        connect(folded, &FoldedText::showAllRequested, this, &MessageCard::showAllRequested);
        layout->addWidget(folded);
        body = folded->body();
    } else {
        body = plainTextLabel(text, this);
        layout->addWidget(body);
    }
    body->setObjectName(QStringLiteral("messageText"));
    body->setStyleSheet(kind == MessageKind::Agent
                                ? QStringLiteral("QLabel { border: none; font-style: italic; }")
                                : QStringLiteral("QLabel { border: none; }"));
}

} // namespace verity

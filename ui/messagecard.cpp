#include "messagecard.h"

#include "accessibletext.h"
#include "domain/displaytext.h"
#include "foldedtext.h"
#include "plaintextlabel.h"
#include "theme.h"

#include <QHBoxLayout>
#include <QVBoxLayout>

namespace verity {

namespace {

QString authorLabel(MessageKind kind)
{
    switch (kind) {
    case MessageKind::Customer:
        return QObject::tr("Customer");
    case MessageKind::Agent:
        return QObject::tr("Agent (note)");
    case MessageKind::System:
        return QObject::tr("System");
    case MessageKind::Reply:
        return QObject::tr("Agent's reply to the customer");
    }
    Q_UNREACHABLE();
}

} // namespace

MessageCard::MessageCard(MessageKind kind, qint64 at, const QString &text, qint64 wholeBytes, QWidget *parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("messageCard_") + messageKindId(kind));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(theme::messageCard(kind));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(theme::messageMargins);
    layout->setSpacing(3);
    auto *header = new QHBoxLayout;
    auto *author = plainTextLabel(authorLabel(kind), this, false);
    author->setStyleSheet(theme::label(theme::Text::Author));
    auto *time = plainTextLabel(formatTime(at), this, false);
    // Who and when, each on one line: the card's text wraps, its header does not.
    author->setWordWrap(false);
    time->setWordWrap(false);
    time->setStyleSheet(theme::label(theme::Text::Muted));
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
    body->setAccessibleDescription(tr("Message from: %1").arg(authorLabel(kind)));
    body->setStyleSheet(theme::messageText(kind == MessageKind::Agent));
}

} // namespace verity

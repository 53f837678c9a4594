#pragma once

#include <QHash>
#include <QWidget>

class QLabel;
class QScrollArea;
class QVBoxLayout;

namespace verity {

class ToolCallCard;
class TranscriptModel;

// One ticket: what it is about (order, items, seller and balance) and its transcript in
// time order, messages and tool-call cards. Rebuilt from the transcript model whenever the
// model is reset to another ticket.
class TicketView : public QWidget
{
    Q_OBJECT

public:
    explicit TicketView(TranscriptModel &model, QWidget *parent = nullptr);

    ToolCallCard *card(const QString &callId) const { return m_cards.value(callId); }
    QList<ToolCallCard *> cards() const;
    // Scrolls to the call and marks it, as a repeated-intent link or the escalation queue asks.
    void showCall(const QString &callId);

signals:
    void lookupRequested(qint64 escalationId);
    void performAgainRequested(qint64 escalationId);

private:
    void rebuild();

    TranscriptModel &m_model;
    QLabel *m_title;
    QLabel *m_facts;
    QScrollArea *m_scroll;
    QWidget *m_content;
    QVBoxLayout *m_entries;
    QHash<QString, ToolCallCard *> m_cards;
    QString m_highlighted;
};

} // namespace verity

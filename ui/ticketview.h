#pragma once

#include "toolcallcard.h"

#include <QHash>
#include <QWidget>

#include <functional>

class QLabel;
class QScrollArea;
class QVBoxLayout;

namespace verity {

class MessageCard;
class TicketSummaryStrip;
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
    // What each card may offer for its escalation; without it, cards offer a lookup for refunds.
    void setCallActions(std::function<CallActions(const ToolCallRow &)> actions);
    // The escalation of the write in front of the person: the marked call (chosen in the
    // escalation queue or through a link) when its escalation is open, else the ticket's first
    // call whose escalation is open, if any.
    std::optional<qint64> openEscalationInFront() const;

signals:
    void lookupRequested(qint64 escalationId);
    void performAgainRequested(qint64 escalationId);
    void attestRequested(qint64 escalationId);
    void evidenceRequested(qint64 escalationId);

private:
    void rebuild();
    // The card of an entry of the transcript, wired to the view.
    ToolCallCard *makeCallCard(const ToolCallRow &call);
    MessageCard *makeMessageCard(const TranscriptEntry &entry);
    // Reads a clipped text whole and shows it in a window of its own.
    void showWholeText(const TextPlace &place, const QString &title);

    TranscriptModel &m_model;
    QLabel *m_title;
    QLabel *m_facts;
    TicketSummaryStrip *m_summary;
    QScrollArea *m_scroll;
    QWidget *m_content;
    QVBoxLayout *m_entries;
    QHash<QString, ToolCallCard *> m_cards;
    QString m_highlighted;
    qint64 m_shownTicket = 0;
    std::function<CallActions(const ToolCallRow &)> m_actions;
};

} // namespace verity

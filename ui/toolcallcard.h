#pragma once

#include "store/records.h"

#include <QFrame>

class QPushButton;
class QVBoxLayout;

namespace verity {

class OutcomeBadge;

// What a person may do with a call's escalation, decided outside the card (by the registry
// and the resolver's rules): where it can be looked up, and whether a repeat is allowed.
struct CallActions
{
    QString lookupSystem; // "the payment provider", "the courier"; empty: only a check can settle it
    // Settled "not performed" (by a lookup or a check) with nothing of its intent performed: the
    // customer is still owed it (stillOwed()).
    bool owed = false;
    bool mayPerformAgain = false; // owed, and the console can send it again with the same key
    bool lookupFirst = false; // only a check found it absent: a repeat asks the system first
    // Owed, settled by a check, and no system can be asked: a check that it was since performed
    // (done where it is done, with the same key) replaces the one that found it absent.
    bool mayReplaceCheck = false;
    QString repeatRefusal; // owed, but why it cannot be sent again from here
    QString readOnlyReason; // not empty: the database cannot be written, so nothing can be settled
    QString unreadable; // not empty: the escalation could not be read, so how to settle it is not known
};

// One tool call as a card: tool, class, time, arguments, the raw result, the intent key and,
// for a write, the outcome badge with the reason it was read that way. A repeated intent
// links to the other calls that share the key; an unknown says it waits in the queue.
class ToolCallCard : public QFrame
{
    Q_OBJECT

public:
    explicit ToolCallCard(const ToolCallRow &call, const CallActions &actions = {},
                          QWidget *parent = nullptr);

    const QString &callId() const { return m_callId; }
    OutcomeBadge *badge() const { return m_badge; }
    void setHighlighted(bool highlighted);
    bool isHighlighted() const { return m_highlighted; }

signals:
    void showCallRequested(const QString &callId);
    void lookupRequested(qint64 escalationId);
    void performAgainRequested(qint64 escalationId);
    void attestRequested(qint64 escalationId);
    void evidenceRequested(qint64 escalationId);
    // The whole arguments or result, which came cut short.
    void showAllRequested(TextPlace::Part part);

private:
    // The card's sections, top to bottom.
    void addHeader(const ToolCallRow &call, QVBoxLayout *layout);
    OutcomeBadge *makeBadge(const ToolCallRow &call);
    void addOutcomeReason(const ToolCallRow &call, QVBoxLayout *layout);
    // An unknown (or a result that came after its escalation): what it waits for, and the way to settle it.
    void addWaitingSection(const ToolCallRow &call, const CallActions &actions, QVBoxLayout *layout);
    void addSettledSection(const ToolCallRow &call, const CallActions &actions, QVBoxLayout *layout);
    // A write settled "not performed" that the customer is still owed: the way back.
    void addOwedSection(const ToolCallRow &call, const CallActions &actions, QVBoxLayout *layout);
    void addEvidenceButton(qint64 escalationId, QVBoxLayout *layout);
    void addClassNotice(const ToolCallRow &call, QVBoxLayout *layout);
    void addAmountNotice(const ToolCallRow &call, QVBoxLayout *layout);
    void addRepeatSection(const ToolCallRow &call, QVBoxLayout *layout);
    void addArgumentsAndResult(const ToolCallRow &call);
    void addIntentKey(const ToolCallRow &call, QVBoxLayout *layout);
    // A button that asks for `request` on the escalation, greyed when nothing can be settled here.
    QPushButton *settleButton(const QString &text, const QString &objectName, const QString &toolTip,
                              void (ToolCallCard::*request)(qint64), qint64 escalationId,
                              const CallActions &actions);
    // `wholeBytes` > 0: `text` is only the start of a text that size. A long text opens folded.
    void addSection(const QString &title, const QString &text, const QString &objectName, bool monospace,
                    qint64 wholeBytes = 0, TextPlace::Part part = TextPlace::Part::Result);

    QString m_callId;
    OutcomeBadge *m_badge = nullptr;
    bool m_dangerous = false;
    bool m_highlighted = false;
};

} // namespace verity

#pragma once
// What is worth interrupting a person for, while their console is behind another window: an
// escalation that has just arrived, and a claim of theirs about to lapse. Each is told once.
// What arrived while they were looking at the console is news to nobody.

#include "store/records.h"

#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <functional>

namespace verity {

class EscalationStore;

struct EscalationAlert
{
    qint64 escalationId = 0; // the one a click opens: the newest of those told
    qint64 ticketId = 0;
    QString callExtId;
    QString title; // "New escalation: T-20260325-0141"
    QString text; // "$96.50 issue_refund, call c3: its outcome is unknown. …"

    bool operator==(const EscalationAlert &) const = default;
};

class EscalationAlerts : public QObject
{
    Q_OBJECT

public:
    // How long before a claim lapses its holder is told.
    static constexpr qint64 claimWarningMs = 2 * 60 * 1000;

    explicit EscalationAlerts(EscalationStore &store, QObject *parent = nullptr);

    void setClock(std::function<qint64()> nowMs);
    void setOperatorName(std::function<QString()> name);
    // Whether the person is looking at the console now (its window is the active one).
    void setInFront(std::function<bool()> inFront);
    // Off: nothing is told, and what arrives meanwhile is not told later either.
    void setEnabled(bool enabled);
    bool isEnabled() const { return m_enabled; }

    // What is open now was there before: only what arrives after this is news.
    void start();
    // Nothing more is told (the window closed): no claim is read from a store that may be gone.
    void stop();
    // The escalations changed (another console, `verity collect`, an import): tells what arrived.
    void escalationsChanged();
    // Tells of this person's claims that lapse within claimWarningMs (a timer calls it too).
    void checkClaims();

signals:
    void alerted(const verity::EscalationAlert &alert);
    void errorOccurred(const QString &message);

private:
    EscalationAlert arrivalAlert(const QList<EscalationRow> &arrived) const;

    EscalationStore &m_store;
    std::function<qint64()> m_now;
    std::function<QString()> m_operatorName;
    std::function<bool()> m_inFront;
    bool m_enabled = true;
    bool m_started = false;
    qint64 m_newestSeen = 0; // the highest escalation number already seen or told
    QSet<QPair<qint64, qint64>> m_claimsTold; // (escalation, claim end) already told
    QTimer m_claimClock;
};

} // namespace verity

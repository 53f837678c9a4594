#pragma once
// What a person does with an escalation, from wherever they are in the window: look it up,
// perform it again behind a confirmation, record an attested check, read its evidence. Each
// opens on one escalation that the person can see, and names it in its heading. The window
// forwards the requests; the resolver (models) does the work.

#include "toolcallcard.h"

#include <QHash>
#include <QObject>
#include <QSet>

#include <functional>

class QWidget;

namespace verity {

class AttestDialog;
class EscalationResolver;
class EvidenceDialog;
class ProviderConnection;
class ResolutionDialog;
class ResolutionStore;
class RoleLimits;

class EscalationActions : public QObject
{
    Q_OBJECT

public:
    // The question, and what the person must type to confirm (empty: a click will do).
    using Confirm = std::function<bool(QWidget *, const QString &, const QString &)>;

    EscalationActions(ResolutionStore &store, ProviderConnection &provider, QWidget *window);

    // How a write is confirmed before it is sent again (a question box, Cancel the default).
    void setConfirm(Confirm confirm) { m_confirm = std::move(confirm); }
    // How the provider's settings are asked for when none are set (the window's dialog).
    void setSettingsPrompt(std::function<void()> prompt) { m_settingsPrompt = std::move(prompt); }
    // What this user may do: settling and claiming need support; an admin may release a claim.
    void setLimits(const RoleLimits *limits) { m_limits = limits; }

    ResolutionDialog *lookUp(qint64 escalationId);
    ResolutionDialog *performAgain(qint64 escalationId);
    // The escalation's dialog, nothing started: what Next opens.
    ResolutionDialog *open(qint64 escalationId);
    // Claims the oldest escalation nobody is working on: its detail, or none when none is left
    // or the claim could not be made (the status bar says which).
    std::optional<EscalationDetail> claimNext();
    AttestDialog *attest(qint64 escalationId);
    EvidenceDialog *showEvidence(qint64 escalationId, const QString &evidenceSha256 = QString());
    // What a tool-call card may offer for its escalation.
    CallActions actionsFor(const ToolCallRow &call);
    // Where the escalation can be looked up ("the payment provider"), or empty: only a check.
    QString lookupSystem(qint64 escalationId);
    // After the database was out of reach: renews now every claim an open dialog holds, and
    // gives back those whose dialog closed while it was (else they would stay held to their end).
    void catchUpClaims();
    // Whether what the last message stated about an escalation (who holds it, until when, how it
    // stands) is still so; true when it stated nothing of the kind.
    bool statedFactHolds();
    // Escalations changed elsewhere: each open dialog shows where its own stands, if that moved.
    void escalationsChanged();

signals:
    void settled(); // something was stored: views refresh
    void claimsChanged(); // a claim was taken or given back: the queue shows who holds what
    void message(const QString &text); // for the status bar

private:
    // A message that states where an escalation stands, kept so that the window can take it
    // down once that changes.
    void stateFact(qint64 escalationId, const QString &text);
    // Who holds it and how it stands, as one comparable text; empty when it is gone.
    QString factOf(qint64 escalationId);

    // Whether the write is still owed, and the way back this console offers: a repeat (after a
    // lookup, when only a check found it absent), or a new check where no system can be asked.
    void noteWayBack(CallActions &actions, const EscalationDetail &detail, EscalationResolver *resolver);
    ResolutionDialog *openResolution(qint64 escalationId);
    // Claims the escalation for this operator; false, and the person told by whom, when another
    // holds it. Each dialog that acts on it holds the claim while it is open, renewed as the lease
    // runs; the last one to close gives it back.
    bool claimFor(EscalationResolver &resolver, qint64 escalationId);
    void holdWhileOpen(QWidget *dialog, qint64 escalationId);
    bool settledNow(qint64 escalationId);
    template<typename Dialog>
    void followDatabase(Dialog *dialog);
    void renewHold(const QString &who, qint64 escalationId);
    // The resolver, or none: a read-only export settles nothing, and without settings the
    // person is asked for them (and nothing runs); each text says so.
    EscalationResolver *resolverFor(const QString &readOnlyText, const QString &unsetText);
    bool readOnly() const;
    QString readOnlyReason() const;
    // Why this user may not settle or claim escalations; empty when they may.
    QString supportRefusal() const;

    ResolutionStore &m_store;
    ProviderConnection &m_provider;
    QWidget *m_window;
    Confirm m_confirm;
    std::function<void()> m_settingsPrompt;
    QHash<qint64, int> m_holds; // open dialogs per claimed escalation
    QList<ResolutionDialog *> m_dialogs; // open, for escalationsChanged(); each leaves as it goes
    QSet<qint64> m_unreturned; // claims whose dialog closed when they could not be given back
    qint64 m_factEscalation = 0; // what the last stated fact was about, and the fact
    QString m_fact;
    const RoleLimits *m_limits = nullptr;
};

} // namespace verity

#pragma once
// One escalation being settled. Its heading names the call it acts on (ticket, customer,
// order, seller, tool, call, amount), so a person always sees what they act on. Progress with
// a Cancel button while the system is asked; then what was found, the evidence, what to tell
// the customer (ready to copy), and, once the write is found not performed with nothing of its
// intent performed, "Perform with the same key", behind a confirmation that names every fact of
// the write and where it goes. Only a lookup's "not performed" sends it at once; one a person's
// check found is asked about first, and sent only if the system has no record of it.

#include "resolution/escalationresolver.h"

#include <QDialog>
#include <QPointer>

#include <functional>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QVBoxLayout;

namespace verity {

class ResolutionDialog : public QDialog
{
    Q_OBJECT

public:
    // `confirm` asks the person before a write is repeated, with the whole of what would be
    // sent, and with live money what they must type to confirm (a seam for tests); Cancel
    // must be its default.
    using Confirm =
            std::function<bool(QWidget *parent, const QString &question, const QString &typeToConfirm)>;

    ResolutionDialog(EscalationResolver &resolver, qint64 escalationId, Confirm confirm,
                     QWidget *parent = nullptr);

    qint64 escalationId() const { return m_escalationId; }
    void startLookup();
    // Straight to the repeat (from the card of a write found absent and still owed).
    void startPerformAgain() { performAgain(); }
    QString headingText() const;
    QString resultText() const;
    QString evidenceShown() const;
    QString customerDraft() const;
    QPushButton *performAgainButton() const { return m_performAgain; }
    QPushButton *attestButton() const { return m_attest; }
    // The escalation was settled elsewhere (a check recorded from this dialog): show where it
    // stands now, its evidence and its draft.
    void showCurrent();
    // Escalations changed elsewhere (another console, a command): when this one's settlement is
    // no longer what the dialog last said, and nothing runs from here, it shows where it stands.
    void escalationChangedElsewhere();
    // Not empty: the team's database cannot be reached, and nothing may be asked, sent or
    // recorded from here; what is shown stays. Empty: back, and where it stands is read again.
    void setDatabaseAway(const QString &reason);
    QString databaseAwayText() const;

signals:
    void settled(const verity::ResolutionReport &report);
    void attestRequested(qint64 escalationId);

private:
    // "Look up again" where a lookup is among the evidence, else "Look up"; `history` may be null.
    void nameLookupButton(const EscalationHistory *history);
    // The dialog's parts, top to bottom.
    Expected<EscalationDetail> addHeading(QVBoxLayout *layout);
    void addProgress(QVBoxLayout *layout);
    void addPaymentRow(QVBoxLayout *layout);
    void addEvidenceAndDraft(QVBoxLayout *layout);
    void addButtons(QVBoxLayout *layout);
    // Where the escalation stood when the dialog last said so: state, resolution, basis, by, at.
    QString settlementNow();
    void run(ResolutionOperation *operation);
    void showReport(const ResolutionReport &report);
    void performAgain();
    void usePayment();
    void findPayment();
    void showPaymentRow(const EscalationDetail &escalation);

    EscalationResolver &m_resolver;
    qint64 m_escalationId;
    Confirm m_confirm;
    QString m_settlementShown; // settlementNow() when the result last changed
    QPointer<ResolutionOperation> m_running; // gone if the provider settings change meanwhile
    QLabel *m_heading;
    QLabel *m_facts;
    QLabel *m_status;
    QLabel *m_away; // why nothing may be done just now, while the database is away
    QString m_awayReason;
    QString m_failure; // the last step's failure, kept to say once the database is back
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QLabel *m_result;
    QWidget *m_paymentRow; // shown for a refund whose payment nobody named
    QLineEdit *m_payment;
    QPushButton *m_usePayment;
    QPushButton *m_findPayment;
    QPlainTextEdit *m_evidence;
    QPlainTextEdit *m_draft;
    QPushButton *m_copy;
    QPushButton *m_performAgain;
    QPushButton *m_lookAgain;
    QPushButton *m_attest;
};

} // namespace verity

#pragma once
// A person's record of a check made where Verity cannot ask: they found the write (and name
// the pickup or message id) or found it absent, and say how they checked. It is stored and
// shown as attested, never as verified, and audited like a lookup. Cancel is the default.
// Opened on a write a check found absent and still owed, it records only that the write was
// since performed (done where it is done, with the same key), replacing that check.

#include "resolution/escalationresolver.h"

#include <QDialog>

class QButtonGroup;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;

namespace verity {

class AttestDialog : public QDialog
{
    Q_OBJECT

public:
    AttestDialog(const EscalationDetail &escalation, const QString &operatorName, QWidget *parent = nullptr);

    qint64 escalationId() const { return m_escalationId; }
    // It replaces a check that found the write not performed: only "performed" can be recorded.
    bool replacesCheck() const { return m_replacesCheck; }
    QString headingText() const;
    QString guidanceText() const;
    QRadioButton *performedChoice() const { return m_performed; }
    QRadioButton *notPerformedChoice() const { return m_notPerformed; }
    QLineEdit *referenceEdit() const { return m_reference; }
    QPlainTextEdit *noteEdit() const { return m_note; }
    QPushButton *recordButton() const { return m_record; }
    // What happened when the check was recorded: closes on success, else says why and stays.
    void showResult(const ResolutionReport &report);
    // Not empty: the team's database cannot be reached and nothing may be recorded; what was
    // typed stays. Empty: back.
    void setDatabaseAway(const QString &reason);
    QString problemText() const;

signals:
    void attestationChosen(const verity::Attestation &attestation);

private:
    void updateButtons();

    qint64 m_escalationId;
    bool m_replacesCheck = false;
    QLabel *m_heading;
    QLabel *m_guidance;
    QRadioButton *m_performed;
    QRadioButton *m_notPerformed;
    QButtonGroup *m_choice;
    QLineEdit *m_reference;
    QPlainTextEdit *m_note;
    QLabel *m_problem;
    QString m_typingProblem; // what in the typed text would not show as itself
    QString m_awayReason;
    bool m_failed = false; // the problem shown is a failure to record, not a refusal
    // Settled elsewhere, or not this person's to settle: recording again would be refused too.
    bool m_refused = false;
    QPushButton *m_record;
};

} // namespace verity

#include "attestdialog.h"

#include "accessibletext.h"
#include "domain/displaytext.h"
#include "domain/hiddencharacters.h"
#include "plaintextlabel.h"
#include "resolution/escalationtext.h"
#include "theme.h"

#include <QButtonGroup>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace verity {

namespace {

// What the person is asked to do: check and record what they found; or, for a write a check
// found absent, do it where it is done, with the same key, and then record that it was.
QString guidance(const EscalationDetail &escalation, const QString &operatorName, bool replacing)
{
    if (!replacing)
        return AttestDialog::tr(
                       "Check this write in the system it went to, then record what you found. It is "
                       "recorded as attested by %1, never as verified, and kept in the audit log.")
                .arg(operatorName);
    return AttestDialog::tr(
                   "%1 found it not performed (attested at %2), and the customer is still owed it. No "
                   "system can be asked about %3 from here: do it in the system it goes to, with the "
                   "same intent key (below), then record here that it was performed. This check "
                   "replaces that one, which stays in the evidence; it is recorded as attested by "
                   "%4, never as verified, and kept in the audit log.")
            .arg(escalation.resolvedBy, isoTime(escalation.resolvedAt), escalation.tool, operatorName);
}

} // namespace

AttestDialog::AttestDialog(const EscalationDetail &escalation, const QString &operatorName, QWidget *parent)
    : QDialog(parent)
    , m_escalationId(escalation.id)
    , m_replacesCheck(standsOnACheck(escalation) && escalation.resolution == Resolution::NotPerformed)
{
    setObjectName(QStringLiteral("attestDialog"));
    setWindowTitle(tr("Record a check: %1 %2 on %3")
                           .arg(escalation.tool, escalation.callExtId, escalation.ticketExtId));
    resize(640, 520);
    auto *layout = new QVBoxLayout(this);

    m_heading = plainTextLabel(escalationHeading(escalation), this);
    m_heading->setObjectName(QStringLiteral("attestHeading"));
    QFont headingFont = m_heading->font();
    headingFont.setBold(true);
    m_heading->setFont(headingFont);
    layout->addWidget(m_heading);
    QStringList facts;
    for (const auto &[label, value] : escalationFacts(escalation))
        facts << QStringLiteral("%1: %2").arg(label, value);
    layout->addWidget(plainTextLabel(facts.join(u'\n'), this));
    m_guidance = plainTextLabel(guidance(escalation, operatorName, m_replacesCheck), this);
    m_guidance->setObjectName(QStringLiteral("attestGuidance"));
    layout->addWidget(m_guidance);
    if (m_replacesCheck) {
        // The key to do it with, whole and ready to copy.
        auto *key = new QLineEdit(escalation.intentKey, this);
        key->setObjectName(QStringLiteral("attestIntentKey"));
        key->setReadOnly(true);
        key->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        key->setCursorPosition(0);
        layout->addWidget(key);
    }

    m_choice = new QButtonGroup(this);
    m_performed = new QRadioButton(tr("Performed: I found it there"), this);
    m_performed->setObjectName(QStringLiteral("attestPerformed"));
    m_performed->setAccessibleDescription(tr("You found the write in the system it went to"));
    m_notPerformed = new QRadioButton(tr("Not performed: it is not there"), this);
    m_notPerformed->setObjectName(QStringLiteral("attestNotPerformed"));
    m_notPerformed->setAccessibleDescription(tr("You looked in the system it went to and it is not there"));
    m_choice->addButton(m_performed);
    m_choice->addButton(m_notPerformed);
    layout->addWidget(m_performed);
    layout->addWidget(m_notPerformed);
    if (m_replacesCheck) {
        // Found absent already: what is left to record is that it was done since.
        m_performed->setText(tr("Performed: I did it with the same intent key, and found it there"));
        m_performed->setChecked(true);
        m_notPerformed->hide();
    }

    auto *form = new QFormLayout;
    m_reference = new QLineEdit(this);
    m_reference->setObjectName(QStringLiteral("attestReference"));
    m_reference->setMaxLength(200);
    m_reference->setPlaceholderText(
            tr("The id you found (a refund, pickup or message), or where you looked"));
    form->addRow(tr("Reference:"), m_reference);
    m_note = new QPlainTextEdit(this);
    m_note->setObjectName(QStringLiteral("attestNote"));
    m_note->setAccessibleDescription(tr("How you checked, and what you saw; kept with the check"));
    m_note->setPlaceholderText(tr("How you checked, and what you saw"));
    form->addRow(tr("Note:"), m_note);
    layout->addLayout(form, 1);

    m_problem = plainTextLabel(QString(), this);
    m_problem->setObjectName(QStringLiteral("attestProblem"));
    m_problem->setStyleSheet(theme::status(theme::Tone::Warning, false));
    m_problem->hide();
    layout->addWidget(m_problem);

    // Enter records nothing and throws nothing away: a check is recorded by its button, and what
    // was typed is not lost to a stray Enter; Escape still cancels. Not a QDialogButtonBox, which
    // would make its accept button the default.
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    auto *cancel = new QPushButton(tr("Cancel"), this);
    m_record = new QPushButton(tr("Record check"), this);
    m_record->setObjectName(QStringLiteral("recordCheck"));
    m_record->setAccessibleDescription(tr("Records your check as evidence: attested, never verified"));
    cancel->setAccessibleDescription(tr("Closes this window; nothing is recorded"));
    for (QPushButton *button : {cancel, m_record}) {
        button->setAutoDefault(false);
        buttons->addWidget(button);
    }
    layout->addLayout(buttons);

    connect(cancel, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_record, &QPushButton::clicked, this, [this] {
        Attestation attestation;
        attestation.resolution = m_performed->isChecked() ? Resolution::Performed : Resolution::NotPerformed;
        attestation.reference = m_reference->text();
        attestation.note = m_note->toPlainText();
        attestation.replacesAttestedAbsence = m_replacesCheck;
        emit attestationChosen(attestation);
    });
    connect(m_choice, &QButtonGroup::buttonToggled, this, &AttestDialog::updateButtons);
    connect(m_reference, &QLineEdit::textChanged, this, &AttestDialog::updateButtons);
    connect(m_note, &QPlainTextEdit::textChanged, this, &AttestDialog::updateButtons);
    updateButtons();
}

void AttestDialog::updateButtons()
{
    // A character that would not show as itself is said while it is typed, and goes once it is
    // taken out: the check is never sent only to be refused, and nothing typed is lost.
    Expected<void> typed = checkShownAsTyped(tr("The reference"), m_reference->text());
    if (typed)
        typed = checkShownAsTyped(tr("The note"), m_note->toPlainText(), LineBreaks::Allowed);
    if (!typed) {
        m_typingProblem = typed.message();
        m_problem->setText(m_typingProblem);
        m_problem->show();
    } else if (!m_typingProblem.isEmpty()) {
        if (m_problem->text() == m_typingProblem)
            m_problem->hide();
        m_typingProblem.clear();
    }
    m_record->setEnabled(!m_refused && m_awayReason.isEmpty() && m_typingProblem.isEmpty()
                         && m_choice->checkedButton() && !m_reference->text().trimmed().isEmpty()
                         && !m_note->toPlainText().trimmed().isEmpty());
}

void AttestDialog::setDatabaseAway(const QString &reason)
{
    const bool wasAway = !m_awayReason.isEmpty();
    m_awayReason = reason;
    updateButtons();
    if (!reason.isEmpty()) {
        m_problem->setText(tr("The team's database cannot be reached (%1). Nothing can be recorded until it "
                              "answers again; what you typed stays.")
                                   .arg(reason));
        m_problem->show();
    } else if (wasAway || m_failed) {
        m_failed = false;
        m_problem->setText(tr("The database answers again: the check can be recorded."));
        m_problem->show();
    }
}

void AttestDialog::showResult(const ResolutionReport &report)
{
    if (report.kind == ResolutionReport::Kind::Resolved) {
        accept();
        return;
    }
    m_failed = report.kind == ResolutionReport::Kind::Failed;
    // Another console settled it, or another person holds it: the same check would be refused
    // again, so it cannot be recorded from here; what was typed stays to be read.
    m_refused = report.kind == ResolutionReport::Kind::ResolvedElsewhere
            || report.kind == ResolutionReport::Kind::NotPossible
            || report.cause == StoreErrc::ClaimedByOther;
    m_problem->setText(m_refused ? tr("%1 Nothing was recorded; close this window.").arg(report.message)
                                 : report.message);
    m_problem->show();
    updateButtons();
}

QString AttestDialog::headingText() const
{
    return m_heading->text();
}

QString AttestDialog::guidanceText() const
{
    return m_guidance->text();
}

QString AttestDialog::problemText() const
{
    return m_problem->isVisible() ? m_problem->text() : QString();
}

} // namespace verity

#include "evidencedialog.h"

#include "accessibletext.h"
#include "domain/displaytext.h"
#include "plaintextlabel.h"
#include "resolution/escalationtext.h"
#include "theme.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextBlock>
#include <QTextDocument>
#include <QVBoxLayout>

namespace verity {

EvidenceDialog::EvidenceDialog(const EscalationHistory &history, QWidget *parent)
    : QDialog(parent)
    , m_escalationId(history.escalation.id)
{
    setObjectName(QStringLiteral("evidenceDialog"));
    const EscalationDetail &escalation = history.escalation;
    setWindowTitle(
            tr("Evidence: %1 %2 on %3").arg(escalation.tool, escalation.callExtId, escalation.ticketExtId));
    resize(800, 640);
    auto *layout = new QVBoxLayout(this);

    m_heading = plainTextLabel(escalationHeading(escalation), this);
    m_heading->setObjectName(QStringLiteral("evidenceHeading"));
    m_heading->setAccessibleDescription(tr("The escalated write"));
    QFont headingFont = m_heading->font();
    headingFont.setBold(true);
    headingFont.setPointSizeF(headingFont.pointSizeF() * 1.15);
    m_heading->setFont(headingFont);
    layout->addWidget(m_heading);
    QStringList facts;
    for (const auto &[label, value] : escalationFacts(escalation))
        facts << QStringLiteral("%1: %2").arg(label, value);
    facts << QStringLiteral("Intent key: %1")
                     .arg(escalation.intentKey.isEmpty() ? tr("none") : escalation.intentKey);
    layout->addWidget(plainTextLabel(facts.join(u'\n'), this));

    m_standing = plainTextLabel(history.standing, this);
    m_standing->setObjectName(QStringLiteral("evidenceStanding"));
    m_standing->setAccessibleDescription(tr("How the escalation stands now"));
    const bool open = escalation.state != EscalationState::Resolved;
    m_standing->setStyleSheet(theme::standing(open));
    layout->addWidget(m_standing);

    m_evidence = new QPlainTextEdit(this);
    m_evidence->setObjectName(QStringLiteral("evidenceText"));
    m_evidence->setReadOnly(true);
    describeForScreenReaders(m_evidence, tr("Evidence"),
                             tr("Every lookup, write and check of this escalation, oldest first, each with "
                                "its SHA-256"));
    m_evidence->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_evidence->setPlainText(evidenceText(history));
    layout->addWidget(m_evidence, 3);

    layout->addWidget(plainTextLabel(tr("What to tell the customer now:"), this, false));
    m_draft = new QPlainTextEdit(this);
    m_draft->setObjectName(QStringLiteral("evidenceDraft"));
    m_draft->setReadOnly(true);
    describeForScreenReaders(m_draft, tr("Message to the customer"), tr("What to tell the customer now"));
    m_draft->setPlainText(history.customerDraft);
    layout->addWidget(m_draft, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *copy = buttons->addButton(tr("Copy message"), QDialogButtonBox::ActionRole);
    copy->setObjectName(QStringLiteral("copyEvidenceDraft"));
    copy->setAccessibleDescription(tr("Copies the message to the customer to the clipboard"));
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_draft->toPlainText()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    describeStandardButtons(buttons);
    layout->addWidget(buttons);
}

bool EvidenceDialog::showPiece(const QString &evidenceSha256)
{
    QTextDocument *document = m_evidence->document();
    const QTextCursor hash = document->find(QStringLiteral("SHA-256: %1").arg(evidenceSha256));
    if (hash.isNull())
        return false;
    QTextCursor heading = document->find(QStringLiteral("=== "), hash, QTextDocument::FindBackward);
    if (heading.isNull())
        heading = hash;
    heading.movePosition(QTextCursor::StartOfBlock);
    // To the end first, so that moving back leaves the heading at the top of the view.
    m_evidence->moveCursor(QTextCursor::End);
    m_evidence->setTextCursor(heading);
    m_evidence->ensureCursorVisible();
    return true;
}

QString EvidenceDialog::pieceInView() const
{
    const QTextBlock top = m_evidence->cursorForPosition(QPoint(0, 0)).block();
    return top.text();
}

QString EvidenceDialog::headingText() const
{
    return m_heading->text();
}

QString EvidenceDialog::standingText() const
{
    return m_standing->text();
}

QString EvidenceDialog::evidenceShown() const
{
    return m_evidence->toPlainText();
}

QString EvidenceDialog::customerDraft() const
{
    return m_draft->toPlainText();
}

} // namespace verity

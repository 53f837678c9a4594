#include "resolutiondialog.h"

#include "itemmodels/displaytext.h"
#include "plaintextlabel.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace verity {

ResolutionDialog::ResolutionDialog(EscalationResolver &resolver, qint64 escalationId, Confirm confirm, QWidget *parent)
    : QDialog(parent), m_resolver(resolver), m_escalationId(escalationId), m_confirm(std::move(confirm))
{
    setObjectName(QStringLiteral("resolutionDialog"));
    setWindowTitle(tr("Look up at provider"));
    resize(720, 560);
    auto *layout = new QVBoxLayout(this);

    m_status = plainTextLabel(tr("Looking up escalation %1 at the provider…").arg(escalationId), this, false);
    m_status->setObjectName(QStringLiteral("resolutionStatus"));
    layout->addWidget(m_status);
    auto *progressRow = new QHBoxLayout;
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("cancelLookup"));
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_cancel);
    layout->addLayout(progressRow);

    m_result = plainTextLabel(QString(), this);
    m_result->setObjectName(QStringLiteral("resolutionResult"));
    QFont bold = m_result->font();
    bold.setBold(true);
    m_result->setFont(bold);
    layout->addWidget(m_result);

    layout->addWidget(plainTextLabel(tr("Evidence (what was asked and answered):"), this, false));
    m_evidence = new QPlainTextEdit(this);
    m_evidence->setObjectName(QStringLiteral("resolutionEvidence"));
    m_evidence->setReadOnly(true);
    m_evidence->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_evidence, 2);

    layout->addWidget(plainTextLabel(tr("What to tell the customer now:"), this, false));
    m_draft = new QPlainTextEdit(this);
    m_draft->setObjectName(QStringLiteral("customerDraft"));
    m_draft->setReadOnly(true);
    layout->addWidget(m_draft, 1);

    auto *buttons = new QDialogButtonBox(this);
    m_copy = buttons->addButton(tr("Copy message"), QDialogButtonBox::ActionRole);
    m_copy->setObjectName(QStringLiteral("copyDraft"));
    m_lookAgain = buttons->addButton(tr("Look up again"), QDialogButtonBox::ActionRole);
    m_lookAgain->setObjectName(QStringLiteral("lookAgain"));
    m_performAgain = buttons->addButton(tr("Perform with the same key…"), QDialogButtonBox::ActionRole);
    m_performAgain->setObjectName(QStringLiteral("performAgain"));
    buttons->addButton(QDialogButtonBox::Close);
    layout->addWidget(buttons);
    for (QPushButton *button : {m_copy, m_lookAgain, m_performAgain})
        button->hide();

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_running)
            m_running->cancel();
    });
    connect(m_copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_draft->toPlainText()); });
    connect(m_lookAgain, &QPushButton::clicked, this, &ResolutionDialog::startLookup);
    connect(m_performAgain, &QPushButton::clicked, this, &ResolutionDialog::performAgain);
}

void ResolutionDialog::startLookup()
{
    m_status->setText(tr("Looking up escalation %1 at the provider…").arg(m_escalationId));
    run(m_resolver.lookUp(m_escalationId));
}

void ResolutionDialog::performAgain()
{
    if (!m_confirm(this, tr("A lookup found no refund for this intent. Perform it once more, with the same intent "
                            "key? If the provider has it after all, the key makes this a replay, not a second "
                            "refund."))) {
        m_progress->hide();
        m_cancel->hide();
        m_status->setText(tr("Escalation %1").arg(m_escalationId));
        m_result->setText(tr("Nothing was sent: the repeat was not confirmed."));
        return;
    }
    m_status->setText(tr("Performing the refund with the same key…"));
    run(m_resolver.performAgain(m_escalationId));
}

void ResolutionDialog::run(ResolutionOperation *operation)
{
    m_running = operation;
    m_progress->show();
    m_cancel->show();
    m_cancel->setEnabled(true);
    for (QPushButton *button : {m_copy, m_lookAgain, m_performAgain})
        button->hide();
    m_result->clear();
    connect(operation, &ResolutionOperation::progress, m_status, &QLabel::setText);
    connect(operation, &ResolutionOperation::finished, this, [this, operation](const ResolutionReport &report) {
        operation->deleteLater();
        m_running = nullptr;
        showReport(report);
        emit settled(report);
    });
}

void ResolutionDialog::showReport(const ResolutionReport &report)
{
    m_progress->hide();
    m_cancel->hide();
    m_status->setText(tr("Escalation %1").arg(m_escalationId));
    m_result->setText(report.message);
    const bool bad = report.kind == ResolutionReport::Kind::StillUnknown || report.kind == ResolutionReport::Kind::Failed;
    m_result->setStyleSheet(bad ? QStringLiteral("QLabel { color: #9c1c14; }") : QStringLiteral("QLabel { color: #13532a; }"));
    if (report.evidence) {
        const LookupEvidence &e = *report.evidence;
        m_evidence->setPlainText(tr("Verdict: %1\nBy %2 at %3\nEvidence SHA-256: %4\n\n--- Request ---\n%5\n\n--- Response ---\n%6")
                                     .arg(lookupVerdictId(e.verdict), e.operatorName, formatTime(e.finishedAt),
                                          e.evidenceSha256, e.request, e.response));
    }
    m_draft->setPlainText(report.customerDraft);
    m_copy->setVisible(!report.customerDraft.isEmpty());
    m_lookAgain->setVisible(report.kind == ResolutionReport::Kind::StillUnknown
                            || report.kind == ResolutionReport::Kind::Failed);
    // Only a verified "not performed" opens the way to a repeat.
    m_performAgain->setVisible(report.kind == ResolutionReport::Kind::Resolved
                               && report.resolution == Resolution::NotPerformed);
}

QString ResolutionDialog::resultText() const
{
    return m_result->text();
}

QString ResolutionDialog::customerDraft() const
{
    return m_draft->toPlainText();
}

} // namespace verity

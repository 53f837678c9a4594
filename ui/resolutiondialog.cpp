#include "resolutiondialog.h"

#include "accessibletext.h"
#include "domain/displaytext.h"
#include "plaintextlabel.h"
#include "resolution/escalationhistory.h"
#include "resolution/escalationtext.h"
#include "theme.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTextCursor>
#include <QVBoxLayout>

#include <algorithm>

namespace verity {

namespace {

QString factsText(const EscalationDetail &escalation)
{
    QStringList lines;
    for (const auto &[label, value] : escalationFacts(escalation))
        lines << QStringLiteral("%1: %2").arg(label, value);
    return lines.join(u'\n');
}

} // namespace

ResolutionDialog::ResolutionDialog(EscalationResolver &resolver, qint64 escalationId, Confirm confirm,
                                   QWidget *parent)
    : QDialog(parent)
    , m_resolver(resolver)
    , m_escalationId(escalationId)
    , m_confirm(std::move(confirm))
{
    setObjectName(QStringLiteral("resolutionDialog"));
    resize(760, 620);
    auto *layout = new QVBoxLayout(this);
    const Expected<EscalationDetail> detail = addHeading(layout);
    addProgress(layout);
    m_result = plainTextLabel(QString(), this);
    m_result->setObjectName(QStringLiteral("resolutionResult"));
    m_result->setAccessibleDescription(tr("What the lookup found, once it has answered"));
    QFont bold = m_result->font();
    bold.setBold(true);
    m_result->setFont(bold);
    layout->addWidget(m_result);
    addPaymentRow(layout);
    addEvidenceAndDraft(layout);
    addButtons(layout);
    if (detail)
        showPaymentRow(*detail);
    m_settlementShown = settlementNow();
}

// What the dialog acts on, read once as it opens; a problem reading it is said in its place.
Expected<EscalationDetail> ResolutionDialog::addHeading(QVBoxLayout *layout)
{
    m_heading = plainTextLabel(QString(), this);
    m_heading->setObjectName(QStringLiteral("resolutionHeading"));
    QFont headingFont = m_heading->font();
    headingFont.setBold(true);
    headingFont.setPointSizeF(headingFont.pointSizeF() * 1.15);
    m_heading->setFont(headingFont);
    layout->addWidget(m_heading);
    m_facts = plainTextLabel(QString(), this);
    m_facts->setObjectName(QStringLiteral("resolutionFacts"));
    layout->addWidget(m_facts);
    Expected<EscalationDetail> detail = m_resolver.escalation(m_escalationId);
    if (detail) {
        setWindowTitle(tr("Settle %1 %2 on %3").arg(detail->tool, detail->callExtId, detail->ticketExtId));
        m_heading->setText(escalationHeading(*detail));
        m_facts->setText(factsText(*detail));
    } else {
        setWindowTitle(tr("Settle escalation %1").arg(m_escalationId));
        m_heading->setText(tr("Escalation %1").arg(m_escalationId));
        m_facts->setText(detail.message());
    }
    return detail;
}

// What is being asked just now, with its Cancel, and why nothing may be asked while the database is away.
void ResolutionDialog::addProgress(QVBoxLayout *layout)
{
    m_status = plainTextLabel(QString(), this, false);
    m_status->setObjectName(QStringLiteral("resolutionStatus"));
    layout->addWidget(m_status);
    m_away = plainTextLabel(QString(), this);
    m_away->setObjectName(QStringLiteral("resolutionDatabaseAway"));
    m_away->setStyleSheet(theme::status(theme::Tone::Warning, false));
    m_away->hide();
    layout->addWidget(m_away);
    auto *progressRow = new QHBoxLayout;
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("cancelLookup"));
    m_cancel->setAccessibleDescription(tr("Stops waiting for the system's answer; nothing is settled"));
    m_cancel->setAutoDefault(false); // Enter typed anywhere must never stop a lookup
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_cancel);
    layout->addLayout(progressRow);
}

// A refund is looked up under its payment at the provider. When neither the order nor the
// calls name it, the operator finds it there and enters it; nothing is guessed.
void ResolutionDialog::addPaymentRow(QVBoxLayout *layout)
{
    m_paymentRow = new QWidget(this);
    auto *paymentLayout = new QHBoxLayout(m_paymentRow);
    paymentLayout->setContentsMargins(0, 0, 0, 0);
    auto *paymentLabel = new QLabel(tr("&Payment at the provider:"), m_paymentRow);
    m_payment = new QLineEdit(m_paymentRow);
    m_payment->setObjectName(QStringLiteral("paymentReference"));
    m_payment->setPlaceholderText(tr("pi_… or ch_…, as the provider's dashboard shows it"));
    paymentLabel->setBuddy(m_payment);
    m_usePayment = new QPushButton(tr("Use and look up"), m_paymentRow);
    m_usePayment->setObjectName(QStringLiteral("usePayment"));
    m_usePayment->setToolTip(tr("Recorded under your name in the audit log, then looked up"));
    m_findPayment = new QPushButton(tr("Find with the provider's search"), m_paymentRow);
    m_findPayment->setObjectName(QStringLiteral("findPayment"));
    m_findPayment->setAutoDefault(false);
    m_findPayment->setToolTip(tr("Searches the provider's payments for this order; what it finds is offered "
                                 "here, and used only when you press \"Use and look up\""));
    paymentLayout->addWidget(paymentLabel);
    paymentLayout->addWidget(m_payment, 1);
    paymentLayout->addWidget(m_findPayment);
    paymentLayout->addWidget(m_usePayment);
    layout->addWidget(m_paymentRow);
    m_paymentRow->hide();
    connect(m_usePayment, &QPushButton::clicked, this, &ResolutionDialog::usePayment);
    connect(m_findPayment, &QPushButton::clicked, this, &ResolutionDialog::findPayment);
}

void ResolutionDialog::addEvidenceAndDraft(QVBoxLayout *layout)
{
    layout->addWidget(plainTextLabel(tr("Evidence (what was asked and answered):"), this, false));
    m_evidence = new QPlainTextEdit(this);
    m_evidence->setObjectName(QStringLiteral("resolutionEvidence"));
    m_evidence->setReadOnly(true);
    describeForScreenReaders(m_evidence, tr("Evidence"), tr("What was asked and what the system answered"));
    m_evidence->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_evidence, 2);

    layout->addWidget(plainTextLabel(tr("What to tell the customer now:"), this, false));
    m_draft = new QPlainTextEdit(this);
    m_draft->setObjectName(QStringLiteral("customerDraft"));
    m_draft->setReadOnly(true);
    describeForScreenReaders(m_draft, tr("Message to the customer"), tr("What to tell the customer now"));
    // A whole draft in view, apology and all, without scrolling.
    m_draft->setMinimumHeight(m_draft->fontMetrics().lineSpacing() * 7 + 2 * m_draft->frameWidth() + 8);
    layout->addWidget(m_draft, 1);
}

// What may follow a result, each hidden until a result allows it; and Close.
void ResolutionDialog::addButtons(QVBoxLayout *layout)
{
    auto *buttons = new QDialogButtonBox(this);
    m_copy = buttons->addButton(tr("Copy message"), QDialogButtonBox::ActionRole);
    m_copy->setObjectName(QStringLiteral("copyDraft"));
    m_lookAgain = buttons->addButton(tr("Look up again"), QDialogButtonBox::ActionRole);
    m_lookAgain->setObjectName(QStringLiteral("lookAgain"));
    m_attest = buttons->addButton(tr("Record a check…"), QDialogButtonBox::ActionRole);
    m_attest->setObjectName(QStringLiteral("attestFromDialog"));
    m_attest->setToolTip(
            tr("Record what you found in the system this write went to (attested, never verified)"));
    m_performAgain = buttons->addButton(tr("Perform with the same key…"), QDialogButtonBox::ActionRole);
    m_performAgain->setObjectName(QStringLiteral("performAgain"));
    buttons->addButton(QDialogButtonBox::Close);
    m_copy->setAccessibleDescription(tr("Copies the message to the customer to the clipboard"));
    m_lookAgain->setAccessibleDescription(tr("Asks the system again whether this write happened"));
    describeStandardButtons(buttons);
    layout->addWidget(buttons);
    for (QPushButton *button : {m_copy, m_lookAgain, m_performAgain, m_attest})
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
    connect(m_attest, &QPushButton::clicked, this, [this] { emit attestRequested(m_escalationId); });
}

void ResolutionDialog::showPaymentRow(const EscalationDetail &escalation)
{
    const EscalationRoute route = m_resolver.route(escalation);
    // A payment a person entered stays theirs to correct while the escalation is open: a wrong
    // one leaves the refund unknown, and the way to the right one must stay in front of them.
    const bool entered = !escalation.enteredPayment.isEmpty();
    const bool asked = escalation.state == EscalationState::Open && (route.needsPayment || entered);
    m_paymentRow->setVisible(asked);
    m_usePayment->setDefault(asked); // Enter in the field uses the payment typed
    if (asked && entered && m_payment->text().isEmpty())
        m_payment->setText(escalation.enteredPayment);
    QString facts = factsText(escalation);
    if (!route.payment.isEmpty())
        facts += tr("\nPayment: %1").arg(route.payment);
    m_facts->setText(facts);
}

void ResolutionDialog::usePayment()
{
    const Expected<PaymentReference> entered = m_resolver.enterPayment(m_escalationId, m_payment->text());
    if (!entered) {
        m_result->setText(entered.message());
        m_result->setStyleSheet(theme::status(theme::Tone::Warning, false));
        m_payment->setFocus();
        return;
    }
    if (const Expected<EscalationDetail> detail = m_resolver.escalation(m_escalationId))
        showPaymentRow(*detail);
    startLookup();
}

void ResolutionDialog::findPayment()
{
    Expected<PaymentSearchOperation *> search = m_resolver.findPayment(m_escalationId, this);
    if (!search) {
        m_result->setText(search.message());
        m_result->setStyleSheet(theme::status(theme::Tone::Warning, false));
        return;
    }
    m_findPayment->setEnabled(false);
    m_status->setText(tr("Searching the provider's payments…"));
    m_progress->show();
    connect(*search, &PaymentSearchOperation::progress, m_status, &QLabel::setText);
    connect(*search, &PaymentSearchOperation::finished, this,
            [this, operation = *search](const PaymentSearchAnswer &answer) {
                operation->deleteLater();
                m_progress->hide();
                m_status->clear();
                m_findPayment->setEnabled(m_awayReason.isEmpty());
                // What was asked and answered, though nothing is settled by it.
                const Evidence asked = evidenceFrom(answer.exchanges);
                m_evidence->setPlainText(asked.request + QStringLiteral("\n\n") + asked.response);
                m_result->setText(answer.reason.left(1).toUpper() + answer.reason.mid(1) + u'.');
                m_result->setStyleSheet(theme::status(
                        answer.payments.isEmpty() ? theme::Tone::Warning : theme::Tone::Neutral, false));
                if (!answer.payments.isEmpty()) {
                    m_payment->setText(answer.payments.first().id);
                    m_payment->setFocus();
                }
            });
}

void ResolutionDialog::startLookup()
{
    m_status->setText(tr("Looking it up…"));
    run(m_resolver.lookUp(m_escalationId));
}

void ResolutionDialog::performAgain()
{
    const Expected<RepeatPlan> plan = m_resolver.planRepeat(m_escalationId);
    if (!plan) {
        m_progress->hide();
        m_cancel->hide();
        m_status->clear();
        m_result->setText(tr("Nothing was sent: %1.").arg(plan.message()));
        m_performAgain->hide();
        return;
    }
    if (!plan->keyRefusal.isEmpty()) {
        m_progress->hide();
        m_cancel->hide();
        m_status->clear();
        m_result->setText(tr("Nothing was sent: %1.").arg(plan->keyRefusal));
        m_result->setStyleSheet(theme::status(theme::Tone::Warning, false));
        return;
    }
    if (!m_confirm(this,
                   repeatConfirmationText(plan->escalation, plan->endpoint, plan->system, plan->keyExpiry,
                                          plan->keyKind, plan->payment, plan->lookupFirst),
                   plan->typeToConfirm)) {
        m_progress->hide();
        m_cancel->hide();
        m_status->clear();
        m_result->setText(tr("Nothing was sent: the repeat was not confirmed."));
        return;
    }
    m_status->setText(
            plan->lookupFirst
                    ? tr("Asking %1 first, with the same key, whether it was made…").arg(plan->system)
                    : tr("Sending it with the same key to %1…").arg(plan->endpoint.toString()));
    run(m_resolver.performAgain(m_escalationId));
}

void ResolutionDialog::run(ResolutionOperation *operation)
{
    m_running = operation;
    m_progress->show();
    m_cancel->show();
    m_cancel->setEnabled(true);
    for (QPushButton *button : {m_copy, m_lookAgain, m_performAgain, m_attest})
        button->hide();
    m_result->clear();
    connect(operation, &ResolutionOperation::progress, m_status, &QLabel::setText);
    connect(operation, &ResolutionOperation::finished, this,
            [this, operation](const ResolutionReport &report) {
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
    m_status->clear();
    m_result->setText(report.message);
    m_settlementShown = settlementNow();
    m_failure = report.kind == ResolutionReport::Kind::Failed ? report.message : QString();
    const bool bad = report.kind == ResolutionReport::Kind::StillUnknown
            || report.kind == ResolutionReport::Kind::Failed
            || report.kind == ResolutionReport::Kind::NotPossible;
    const theme::Tone tone = bad                            ? theme::Tone::Warning
            : report.resolution == Resolution::NotPerformed ? theme::Tone::Neutral
                                                            : theme::Tone::Good;
    m_result->setStyleSheet(theme::status(tone, false));
    // Every piece of evidence kept for this escalation, this step's last.
    const Expected<EscalationHistory> history = m_resolver.history(m_escalationId);
    const bool open = !history || history->escalation.state != EscalationState::Resolved;
    if (history) {
        m_evidence->setPlainText(evidenceText(*history));
        // This step's evidence, the last, in view; the earlier ones are above it.
        const qsizetype last = m_evidence->toPlainText().lastIndexOf(QStringLiteral("\n=== "));
        if (last >= 0) {
            QTextCursor cursor = m_evidence->textCursor();
            cursor.setPosition(int(last + 1));
            m_evidence->setTextCursor(cursor);
            m_evidence->centerCursor();
        }
    } else if (report.evidence)
        m_evidence->setPlainText(report.evidence->request + QStringLiteral("\n\n")
                                 + report.evidence->response);
    m_draft->setPlainText(report.customerDraft);
    m_copy->setVisible(!report.customerDraft.isEmpty());
    m_lookAgain->setVisible(report.kind == ResolutionReport::Kind::StillUnknown
                            || report.kind == ResolutionReport::Kind::Failed);
    nameLookupButton(history ? &*history : nullptr);
    // Where no system can tell (or none can be asked), a person's check settles it.
    m_attest->setVisible(open
                         && (report.kind == ResolutionReport::Kind::StillUnknown
                             || report.kind == ResolutionReport::Kind::NotPossible));
    // Only a verified "not performed", with nothing of its intent performed, opens the way to a repeat.
    m_performAgain->setVisible(report.kind == ResolutionReport::Kind::Resolved && report.mayPerformAgain);
    if (history)
        showPaymentRow(history->escalation);
}

QString ResolutionDialog::settlementNow()
{
    const Expected<EscalationDetail> now = m_resolver.escalation(m_escalationId);
    if (!now)
        return QString();
    return QStringLiteral("%1|%2|%3|%4|%5")
            .arg(escalationStateId(now->state), now->resolution ? resolutionId(*now->resolution) : QString(),
                 settlementBasisId(now->basis), now->resolvedBy)
            .arg(now->resolvedAt);
}

void ResolutionDialog::escalationChangedElsewhere()
{
    if (m_running || !m_awayReason.isEmpty())
        return;
    if (const QString now = settlementNow(); !now.isEmpty() && now != m_settlementShown)
        showCurrent();
}

// "Again" only where a lookup was made before: a lookup refused (a claim, no provider) made none.
void ResolutionDialog::nameLookupButton(const EscalationHistory *history)
{
    const bool lookedUp = history
            && std::any_of(history->evidence.cbegin(), history->evidence.cend(),
                           [](const Evidence &e) { return e.kind == EvidenceKind::Lookup; });
    m_lookAgain->setText(lookedUp ? tr("Look up again") : tr("Look up"));
}

void ResolutionDialog::showCurrent()
{
    const Expected<EscalationHistory> history = m_resolver.history(m_escalationId);
    if (!history)
        return;
    m_settlementShown = settlementNow();
    m_progress->hide();
    m_cancel->hide();
    m_status->clear();
    m_result->setText(history->standing);
    const bool open = history->escalation.state != EscalationState::Resolved;
    m_result->setStyleSheet(theme::status(open ? theme::Tone::Warning : theme::Tone::Neutral, false));
    m_evidence->setPlainText(evidenceText(*history));
    m_draft->setPlainText(history->customerDraft);
    m_copy->setVisible(!history->customerDraft.isEmpty());
    // An attested check stands until a system is asked: a lookup may replace it.
    const bool attested = standsOnACheck(history->escalation);
    m_lookAgain->setVisible(open || (attested && m_resolver.route(history->escalation).canLookUp));
    nameLookupButton(&*history);
    m_attest->setVisible(open);
    // A write found not performed, and still owed, may be sent again from here (after a lookup,
    // when only a check found it absent).
    m_performAgain->setVisible(!open && history->escalation.resolution == Resolution::NotPerformed
                               && m_resolver.planRepeat(m_escalationId).ok());
    showPaymentRow(history->escalation);
}

void ResolutionDialog::setDatabaseAway(const QString &reason)
{
    const bool wasAway = !m_awayReason.isEmpty();
    m_awayReason = reason;
    const bool away = !reason.isEmpty();
    m_away->setText(away ? tr("The team's database cannot be reached (%1). Nothing can be looked up, sent or "
                              "recorded from here until it answers again; what is shown stays as it was.")
                                    .arg(reason)
                         : QString());
    m_away->setVisible(away);
    for (QPushButton *button : {m_lookAgain, m_performAgain, m_attest, m_usePayment, m_findPayment})
        button->setEnabled(!away);
    if (away || !wasAway || m_running || m_failure.isEmpty())
        return;
    // Back: a step that failed while it was away must not stay on screen as where things stand.
    // What succeeded stays as shown, with its ways on (a repeat a lookup allowed, say).
    const QString failure = std::exchange(m_failure, QString());
    showCurrent();
    m_status->setText(tr("The database answers again; below is where the escalation stands now. Before, "
                         "this step could not be finished: %1")
                              .arg(failure));
}

QString ResolutionDialog::databaseAwayText() const
{
    return m_away->isVisible() ? m_away->text() : QString();
}

QString ResolutionDialog::headingText() const
{
    return m_heading->text();
}

QString ResolutionDialog::resultText() const
{
    return m_result->text();
}

QString ResolutionDialog::evidenceShown() const
{
    return m_evidence->toPlainText();
}

QString ResolutionDialog::customerDraft() const
{
    return m_draft->toPlainText();
}

} // namespace verity

#include "auditview.h"

#include "accessibletext.h"
#include "audit/auditlog.h"
#include "domain/displaytext.h"
#include "itemmodels/auditlogmodel.h"
#include "plaintextlabel.h"
#include "store/store.h"
#include "theme.h"

#include <QApplication>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLocale>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace verity {

AuditView::AuditView(AuditCheckStore &store, AuditLogModel &model, QWidget *parent)
    : QWidget(parent)
    , m_store(store)
    , m_model(model)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 8);

    auto *top = new QHBoxLayout;
    m_headline = plainTextLabel(QString(), this, false);
    m_headline->setObjectName(QStringLiteral("auditHeadline"));
    top->addWidget(m_headline, 1);
    m_verifyButton = new QPushButton(tr("Verify chain"), this);
    m_verifyButton->setObjectName(QStringLiteral("verifyChainButton"));
    m_verifyButton->setToolTip(tr("Check every entry's hash and its link to the entry before it"));
    top->addWidget(m_verifyButton);
    layout->addLayout(top);

    m_status = plainTextLabel(QString(), this);
    m_status->setObjectName(QStringLiteral("chainStatus"));
    m_status->setToolTip(tr("Any edited or deleted entry breaks the chain, except the most recent ones "
                            "removed from its end: a chain cut short still verifies."));
    layout->addWidget(m_status);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("auditTable"));
    describeForScreenReaders(
            m_table, tr("Audit log"),
            tr("Every lookup, settlement, write and check, newest first; Enter or a double-click "
               "opens the evidence an entry cites"));
    m_table->setModel(&m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    // Widths from the font, so they fit "2026-03-17 14:32:07", every action's words ("Claim
    // released") and a short hash at any size;
    // the detail takes what is left, so the evidence column stays in view.
    const QFontMetrics metrics = m_table->fontMetrics();
    const std::pair<int, QString> samples[] = {
            {AuditLogModel::SeqColumn, QStringLiteral("000000")},
            {AuditLogModel::TimeColumn, QStringLiteral("2026-03-17 14:32:07")},
            {AuditLogModel::OperatorColumn, QStringLiteral("operator name")},
            {AuditLogModel::ActionColumn, QStringLiteral("Recovery requested")}, // the longest action, whole
            {AuditLogModel::EscalationColumn, QStringLiteral("Escalation")},
            {AuditLogModel::EvidenceColumn, shortHash(QString(64, u'0'))},
    };
    for (const auto &[column, sample] : samples)
        m_table->setColumnWidth(column, metrics.horizontalAdvance(sample) + 24);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(AuditLogModel::DetailColumn, QHeaderView::Stretch);
    layout->addWidget(m_table, 1);

    connect(m_verifyButton, &QPushButton::clicked, this, &AuditView::verifyChain);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) {
        const QVariant escalation = index.data(AuditLogModel::EscalationIdRole);
        if (escalation.isValid() && !escalation.isNull() && escalation.toLongLong() > 0)
            emit evidenceRequested(escalation.toLongLong(),
                                   index.data(AuditLogModel::EvidenceHashRole).toString());
        else
            emit message(tr("Entry %1 concerns no escalation, so it has no evidence to show.")
                                 .arg(index.data(AuditLogModel::SeqRole).toLongLong()));
    });
    m_table->setToolTip(tr("Double-click an entry to see the evidence of its escalation"));
    connect(&m_model, &AuditLogModel::countChanged, this, [this] {
        updateHeadline();
        if (m_showingProblem && m_model.readProblem().isEmpty())
            setVerdict(m_verdict, m_verdictTone); // read again: the problem is over
    });
    connect(&m_model, &AuditLogModel::errorOccurred, this, [this](const QString &message) {
        showProblem(tr("Could not read the audit log: %1").arg(message));
    });
    setVerdict(tr("Not verified yet: press Verify chain to check every entry."), Tone::Neutral);
    updateHeadline();
}

QString AuditView::statusText() const
{
    return m_status->text();
}

void AuditView::verifyChain()
{
    QApplication::setOverrideCursor(Qt::WaitCursor);
    m_model.refresh(); // show the entries being judged, not the ones read earlier
    const Expected<AuditVerification> result = AuditLog::verify(m_store, {}, &m_registries);
    QApplication::restoreOverrideCursor();

    const QString checkedAt = formatTime(QDateTime::currentMSecsSinceEpoch());
    if (!result) {
        showProblem(tr("Could not verify the audit chain: %1").arg(result.message()));
        return;
    }
    if (result->intact) {
        const QString entries = result->entriesChecked == 1
                ? tr("1 entry")
                : tr("%1 entries").arg(QLocale().toString(result->entriesChecked));
        setVerdict(tr("Audit chain intact: %1 checked at %2.").arg(entries, checkedAt), Tone::Good);
    } else {
        const qint64 seq = result->firstBrokenSeq.value_or(0);
        setVerdict(
                tr("Audit chain BROKEN at entry %1: %2. Entries from here on cannot be trusted (checked at "
                   "%3).")
                        .arg(QString::number(seq), result->reason, checkedAt),
                Tone::Bad);
        if (const int row = m_model.rowOfSeq(seq); row >= 0) {
            m_table->selectRow(row);
            m_table->scrollTo(m_model.index(row, 0), QAbstractItemView::PositionAtCenter);
        }
    }
    emit chainChecked(result->intact);
}

void AuditView::setVerdict(const QString &text, Tone tone)
{
    m_verdict = text;
    m_verdictTone = tone;
    m_showingProblem = false;
    setStatus(text, tone);
}

void AuditView::showProblem(const QString &problem)
{
    m_showingProblem = true;
    // A broken chain stays as red as it was while the log cannot be read.
    setStatus(tr("%1\nLast verdict: %2").arg(problem, m_verdict),
              m_verdictTone == Tone::Bad ? Tone::Bad : Tone::Warning);
}

void AuditView::setStatus(const QString &text, Tone tone)
{
    // The words carry the verdict; the colour and the mark only repeat it.
    // A broken chain is as red as a duplicate.
    static const theme::Tone tones[] = {theme::Tone::Neutral, theme::Tone::Good, theme::Tone::Bad,
                                        theme::Tone::Warning};
    static const char *const marks[] = {"", "\u2714 ", "\u2716 ", "\u26a0 "};
    const auto index = static_cast<size_t>(tone);
    m_status->setText(QString::fromUtf8(marks[index]) + text);
    m_status->setStyleSheet(theme::status(tones[index]));
}

void AuditView::updateHeadline()
{
    const qint64 count = m_model.totalCount();
    m_headline->setText(count == 1 ? tr("1 audit entry")
                                   : tr("%1 audit entries").arg(QLocale().toString(count)));
}

} // namespace verity

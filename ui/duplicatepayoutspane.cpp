#include "duplicatepayoutspane.h"

#include "accessibletext.h"
#include "domain/money.h"
#include "finance/financereports.h"
#include "finance/payoutrecovery.h"
#include "itemmodels/duplicatepayoutmodel.h"
#include "itemmodels/sellerbalancemodel.h"
#include "plaintextlabel.h"
#include "resolution/providerconnection.h"
#include "theme.h"

#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace verity {

DuplicatePayoutsPane::DuplicatePayoutsPane(DuplicatePayoutModel &model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_operator(defaultOperatorName)
    , m_now([] { return QDateTime::currentMSecsSinceEpoch(); })
{
    m_prompt = [](QWidget *parentWidget, const QString &title,
                  const QString &label) -> std::optional<QString> {
        QInputDialog dialog(parentWidget);
        dialog.setWindowTitle(title);
        dialog.setOption(QInputDialog::UsePlainTextEditForTextInput);
        dialog.setLabelText(label);
        // The label holds a seller's name from a transcript: plain text, never markup.
        for (QLabel *text : dialog.findChildren<QLabel *>())
            text->setTextFormat(Qt::PlainText);
        if (dialog.exec() != QDialog::Accepted)
            return std::nullopt;
        return dialog.textValue();
    };
    m_chooseSave = [](QWidget *parentWidget, const QString &caption, const QString &name,
                      const QString &filter) {
        return QFileDialog::getSaveFileName(parentWidget, caption, name, filter);
    };

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    auto *top = new QHBoxLayout;
    m_summary = plainTextLabel(QString(), this, false);
    m_summary->setObjectName(QStringLiteral("duplicateSummary"));
    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    top->addWidget(m_summary, 1);
    auto *windowLabel = new QLabel(tr("Same order and amount &within:"), this);
    m_window = new QSpinBox(this);
    m_window->setObjectName(QStringLiteral("duplicateWindow"));
    m_window->setRange(1, 7 * 24 * 3600);
    m_window->setSuffix(tr(" s"));
    m_window->setValue(m_model.windowSeconds());
    m_window->setToolTip(
            tr("Where no intent key is known (legacy data), refunds of the same seller, order and "
               "amount this close together count as a duplicate."));
    windowLabel->setBuddy(m_window);
    top->addWidget(windowLabel);
    top->addWidget(m_window);
    layout->addLayout(top);

    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(&m_model);
    m_proxy->setSortRole(DuplicatePayoutModel::SortRole);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("duplicateTable"));
    describeForScreenReaders(
            m_table, tr("Duplicate payouts"),
            tr("Refunds paid more than once for one intent, with what was done to recover them"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the model's order: by first refund
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(DuplicatePayoutModel::RecoveryColumn,
                                                      QHeaderView::Stretch);
    layout->addWidget(m_table, 1);

    auto *buttons = new QHBoxLayout;
    m_open = new QPushButton(tr("&Open ticket"), this);
    m_open->setObjectName(QStringLiteral("openDuplicateButton"));
    m_open->setAccessibleDescription(tr("Opens the ticket of the chosen duplicate at its call"));
    m_request = new QPushButton(tr("Mark recovery &requested…"), this);
    m_request->setObjectName(QStringLiteral("markRequestedButton"));
    m_request->setAccessibleDescription(tr("Records that recovery of the chosen duplicate was asked for"));
    m_recovered = new QPushButton(tr("Mark reco&vered…"), this);
    m_recovered->setObjectName(QStringLiteral("markRecoveredButton"));
    m_recovered->setAccessibleDescription(tr("Records that the chosen duplicate's money came back"));
    m_export = new QPushButton(tr("Export CSV…"), this);
    m_export->setObjectName(QStringLiteral("exportDuplicatesButton"));
    m_export->setAccessibleDescription(tr("Saves the duplicate payouts as a CSV file"));
    for (QPushButton *button : {m_open, m_request, m_recovered})
        buttons->addWidget(button);
    buttons->addStretch(1);
    buttons->addWidget(m_export);
    layout->addLayout(buttons);
    m_status = plainTextLabel(QString(), this);
    m_status->setObjectName(QStringLiteral("duplicateStatus"));
    m_status->setAccessibleDescription(tr("How many duplicates, and at what cost"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    connect(m_window, &QSpinBox::editingFinished, this,
            [this] { m_model.setWindowSeconds(m_window->value()); });
    connect(m_table, &QTableView::activated, this, &DuplicatePayoutsPane::openCurrent);
    connect(m_open, &QPushButton::clicked, this, &DuplicatePayoutsPane::openCurrent);
    connect(m_request, &QPushButton::clicked, this, [this] { mark(RecoveryState::RecoveryRequested); });
    connect(m_recovered, &QPushButton::clicked, this, [this] { mark(RecoveryState::Recovered); });
    connect(m_export, &QPushButton::clicked, this, &DuplicatePayoutsPane::exportCsv);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &DuplicatePayoutsPane::updateButtons);
    connect(&m_model, &QAbstractItemModel::modelReset, this, [this] {
        updateSummary();
        updateButtons();
    });
    updateSummary();
    updateButtons();
}

QString DuplicatePayoutsPane::summaryText() const
{
    return m_summary->text();
}

QString DuplicatePayoutsPane::statusText() const
{
    return m_status->text();
}

const DuplicatePayout *DuplicatePayoutsPane::currentDuplicate() const
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    return current.isValid() ? m_model.duplicate(current.row()) : nullptr;
}

void DuplicatePayoutsPane::selectKey(const QString &key)
{
    const int row = m_model.rowOfKey(key);
    if (row < 0)
        return;
    const QModelIndex index = m_proxy->mapFromSource(m_model.index(row, 0));
    m_table->setCurrentIndex(index);
    m_table->selectRow(index.row());
    m_table->scrollTo(index);
}

void DuplicatePayoutsPane::openCurrent()
{
    const DuplicatePayout *duplicate = currentDuplicate();
    if (!duplicate)
        return;
    // The second refund is the first that went out in error: open the ticket there.
    const PayoutEvent *chosen = nullptr;
    for (const PayoutEvent &event : duplicate->events) {
        if (event.payout && (!chosen || chosen == &duplicate->events.constFirst()))
            chosen = &event;
    }
    if (chosen) {
        emit callChosen(chosen->payout->ticketId, chosen->payout->callExtId);
        return;
    }
    setStatus(tr("No refund of this duplicate is in Verity's transcripts: only the provider has them."),
              false);
}

void DuplicatePayoutsPane::mark(RecoveryState state)
{
    const DuplicatePayout *duplicate = currentDuplicate();
    if (!duplicate) {
        setStatus(tr("Choose a duplicate payout first."), true);
        return;
    }
    const QString key = duplicate->key;
    const QString seller = duplicate->sellerName.isEmpty() ? duplicate->sellerId : duplicate->sellerName;
    const QString title =
            state == RecoveryState::Recovered ? tr("Mark recovered") : tr("Mark recovery requested");
    const QString label =
            tr("%1: %2 at risk on order %3 (%4).\nNote (who was asked, reference, amount):")
                    .arg(seller, formatMoney(duplicate->amountAtRiskCents, duplicate->currency),
                         duplicate->orderId, duplicate->ticketExtIds().join(QStringLiteral(", ")));
    const std::optional<QString> note = m_prompt(this, title, label);
    if (!note)
        return;
    const QString operatorName = m_operator();
    const Expected<PayoutMark> done =
            m_model.markDuplicate(key, state, note->trimmed(), operatorName, m_now());
    if (!done) {
        setStatus(tr("Not marked: %1").arg(done.message()), true);
        return;
    }
    selectKey(key);
    setStatus(tr("%1 marked \"%2\" by %3; the audit log records it.")
                      .arg(seller, recoveryStateText(state), operatorName),
              false);
    emit marked();
}

void DuplicatePayoutsPane::exportCsv()
{
    const QString path = m_chooseSave(this, tr("Export duplicate payouts"),
                                      QStringLiteral("duplicate-payouts.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    const Expected<void> written = writeDuplicatesCsv(path, m_model.duplicates(), m_model.marks());
    if (written)
        setStatus(tr("Saved %1.").arg(path), false);
    else
        setStatus(tr("Not saved: %1").arg(written.message()), true);
}

void DuplicatePayoutsPane::updateSummary()
{
    m_summary->setText(m_model.summary());
    if (m_window->value() != m_model.windowSeconds())
        m_window->setValue(m_model.windowSeconds());
}

void DuplicatePayoutsPane::updateButtons()
{
    const DuplicatePayout *duplicate = currentDuplicate();
    m_open->setEnabled(duplicate);
    m_request->setEnabled(duplicate && m_markRefusal.isEmpty());
    m_recovered->setEnabled(duplicate && m_markRefusal.isEmpty());
    m_request->setToolTip(m_markRefusal);
    m_recovered->setToolTip(m_markRefusal);
    m_export->setEnabled(!m_model.duplicates().isEmpty());
}

void DuplicatePayoutsPane::setMarkRefusal(const QString &reason)
{
    m_markRefusal = reason;
    updateButtons();
}

void DuplicatePayoutsPane::setStatus(const QString &text, bool bad)
{
    m_status->setText(text);
    m_status->setStyleSheet(bad ? theme::status(theme::Tone::Bad) : QString());
}

} // namespace verity

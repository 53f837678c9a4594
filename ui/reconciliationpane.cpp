#include "reconciliationpane.h"

#include "accessibletext.h"
#include "domain/displaytext.h"
#include "domain/money.h"
#include "finance/financereports.h"
#include "finance/payoutmonth.h"
#include "finance/providerexport.h"
#include "itemmodels/duplicatepayoutmodel.h"
#include "itemmodels/reconciliationmodel.h"
#include "itemmodels/sellerbalancemodel.h"
#include "perioddateedit.h"
#include "plaintextlabel.h"
#include "print/financepdf.h"
#include "provider/statementfetch.h"
#include "resolution/escalationtext.h"
#include "sellerdifferencebar.h"
#include "theme.h"

#include <QComboBox>
#include <QDateEdit>
#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace verity {

namespace {

// The filter's choice that shows the refunds of intents paid twice, beside the categories.
constexpr int paidTwiceChoice = -2;

QString refundCount(qsizetype count)
{
    return count == 1 ? QObject::tr("1 refund") : QObject::tr("%1 refunds").arg(count);
}

// Asks before settling from evidence, naming each call; Cancel the default.
bool askToSettle(QWidget *parent, const QString &question)
{
    QMessageBox box(QMessageBox::Question, ReconciliationPane::tr("Settle from this evidence?"), question,
                    QMessageBox::NoButton, parent);
    box.setTextFormat(Qt::PlainText);
    QPushButton *settle = box.addButton(ReconciliationPane::tr("Settle"), QMessageBox::AcceptRole);
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.exec();
    return box.clickedButton() == settle;
}

} // namespace

ReconciliationPane::ReconciliationPane(ReconciliationModel &model, DuplicatePayoutModel &duplicates,
                                       QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_duplicates(duplicates)
{
    m_settings = [] { return ProviderSettings{}; };
    m_accounts = [] { return QStringList{}; };
    m_chooseOpen = [](QWidget *parentWidget, const QString &caption, const QString &filter) {
        return QFileDialog::getOpenFileName(parentWidget, caption, QString(), filter);
    };
    m_chooseSave = [](QWidget *parentWidget, const QString &caption, const QString &name,
                      const QString &filter) {
        return QFileDialog::getSaveFileName(parentWidget, caption, name, filter);
    };
    m_confirm = askToSettle;

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addLayout(buildSourceRow());
    layout->addLayout(buildFilterRow());
    m_sellerBar = new SellerDifferenceBar(this);
    m_sellerBar->setObjectName(QStringLiteral("sellerDifferenceBar"));
    layout->addWidget(m_sellerBar);
    layout->addWidget(buildTableAndRecord(), 1);
    connectControls();
    updateTotals();
}

// The period, and where its statement comes from: the provider's API or its export.
QHBoxLayout *ReconciliationPane::buildSourceRow()
{
    auto *source = new QHBoxLayout;
    auto makeDate = [this](const QString &name) {
        auto *edit = new PeriodDateEdit(this);
        edit->setObjectName(name);
        edit->setCalendarPopup(true);
        connect(edit, &QDateEdit::dateChanged, this,
                [this] { m_periodChosen = m_periodChosen || !m_showingPeriod; });
        return edit;
    };
    m_from = makeDate(QStringLiteral("periodFrom"));
    m_from->setAccessibleDescription(tr("The first day of the period to reconcile"));
    m_to = makeDate(QStringLiteral("periodTo"));
    m_to->setAccessibleDescription(tr("The last day of the period to reconcile"));
    // Until shown: the current calendar month (UTC).
    showPeriod(calendarMonth(QDateTime::currentDateTimeUtc().date()));
    auto *fromLabel = new QLabel(tr("&From"), this);
    fromLabel->setBuddy(m_from);
    auto *toLabel = new QLabel(tr("&to"), this);
    toLabel->setBuddy(m_to);
    source->addWidget(fromLabel);
    source->addWidget(m_from);
    source->addWidget(toLabel);
    source->addWidget(m_to);
    source->addWidget(new QLabel(tr("(UTC, both days included)"), this));
    m_fetch = new QPushButton(tr("Fetch from &provider"), this);
    m_fetch->setObjectName(QStringLiteral("fetchStatementButton"));
    m_fetch->setToolTip(tr("Read the provider's refunds and seller balances for the period over its API. "
                           "Nothing is written at the provider."));
    m_readExport = new QPushButton(tr("Read provider e&xport…"), this);
    m_readExport->setObjectName(QStringLiteral("readExportButton"));
    m_readExport->setAccessibleDescription(
            tr("Reads a statement the provider exported, instead of asking it"));
    source->addSpacing(12);
    source->addWidget(m_fetch);
    source->addWidget(m_readExport);
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setTextVisible(false);
    m_busy->hide();
    source->addWidget(m_busy);
    m_status = plainTextLabel(QString(), this);
    m_status->setObjectName(QStringLiteral("reconciliationStatus"));
    m_status->setAccessibleDescription(tr("What was read, and what it found"));
    source->addWidget(m_status, 1);
    return source;
}

// Which rows to show, the totals, and what to do with the result.
QHBoxLayout *ReconciliationPane::buildFilterRow()
{
    auto *filter = new QHBoxLayout;
    m_category = new QComboBox(this);
    m_category->setObjectName(QStringLiteral("categoryFilter"));
    m_category->setAccessibleDescription(
            tr("Shows only the rows of one kind: matched, provider only, paid twice…"));
    m_category->addItem(tr("All categories"), -1);
    for (int i = 0; i < reconCategoryCount; ++i)
        m_category->addItem(reconCategoryText(ReconCategory(i)), i);
    m_category->addItem(tr("Paid twice (duplicate payouts)"), paidTwiceChoice);
    auto *categoryLabel = new QLabel(tr("&Show"), this);
    categoryLabel->setBuddy(m_category);
    filter->addWidget(categoryLabel);
    filter->addWidget(m_category);
    m_totals = plainTextLabel(QString(), this, false);
    m_totals->setObjectName(QStringLiteral("reconciliationTotals"));
    m_totals->setWordWrap(true);
    filter->addWidget(m_totals, 1);
    m_exportCsv = new QPushButton(tr("Export &CSV…"), this);
    m_exportCsv->setObjectName(QStringLiteral("exportCsvButton"));
    m_exportCsv->setAccessibleDescription(tr("Saves the reconciliation as a CSV file"));
    m_exportPdf = new QPushButton(tr("Export P&DF…"), this);
    m_exportPdf->setObjectName(QStringLiteral("exportPdfButton"));
    m_exportPdf->setAccessibleDescription(tr("Saves the reconciliation as a PDF report"));
    m_settle = new QPushButton(this);
    m_settle->setObjectName(QStringLiteral("settleFromEvidenceButton"));
    m_settle->hide();
    setSettleRefusal(QString());
    filter->addWidget(m_settle);
    filter->addWidget(m_exportCsv);
    filter->addWidget(m_exportPdf);
    return filter;
}

// The rows, and beside them the provider's record of the chosen one.
QSplitter *ReconciliationPane::buildTableAndRecord()
{
    auto *split = new QSplitter(Qt::Horizontal, this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(&m_model);
    m_proxy->setSortRole(ReconciliationModel::SortRole);
    m_table = new QTableView(split);
    m_table->setObjectName(QStringLiteral("reconciliationTable"));
    describeForScreenReaders(
            m_table, tr("Reconciliation"),
            tr("Each refund of the period, in Verity's ledger and at the provider, and how they "
               "match"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the model's order: by time
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(ReconciliationModel::NoteColumn, QHeaderView::Stretch);
    m_details = new QPlainTextEdit(split);
    m_details->setObjectName(QStringLiteral("providerRecord"));
    describeForScreenReaders(m_details, tr("Provider's record"),
                             tr("The chosen row's record as the provider gave it"));
    m_details->setReadOnly(true);
    m_details->setPlaceholderText(tr("Choose a row to see the provider's record of it."));
    m_details->setLineWrapMode(QPlainTextEdit::NoWrap);
    split->addWidget(m_table);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    return split;
}

void ReconciliationPane::connectControls()
{
    connect(m_settle, &QPushButton::clicked, this, &ReconciliationPane::settle);
    connect(m_fetch, &QPushButton::clicked, this, &ReconciliationPane::fetch);
    connect(m_readExport, &QPushButton::clicked, this, &ReconciliationPane::readExport);
    connect(m_exportCsv, &QPushButton::clicked, this, &ReconciliationPane::exportCsv);
    connect(m_exportPdf, &QPushButton::clicked, this, &ReconciliationPane::exportPdf);
    connect(m_category, &QComboBox::currentIndexChanged, this, [this] {
        const int category = m_category->currentData().toInt();
        m_model.setPaidTwiceFilter(category == paidTwiceChoice);
        m_model.setCategoryFilter(category < 0 ? std::nullopt
                                               : std::optional<ReconCategory>(ReconCategory(category)));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ReconciliationPane::showDetails);
    connect(&m_model, &QAbstractItemModel::modelReset, this, &ReconciliationPane::showDetails);
    connect(&m_model, &ReconciliationModel::totalsChanged, this, &ReconciliationPane::updateTotals);
    connect(&m_model, &ReconciliationModel::totalsChanged, this,
            [this] { m_sellerBar->setReconciliation(m_model.reconciliation()); });
    connect(m_sellerBar, &SellerDifferenceBar::sellerChosen, this, [this](const QString &sellerId) {
        m_model.setSellerFilter(sellerId);
        // One seller's rows all name it: its column makes room for the rest.
        m_table->setColumnHidden(ReconciliationModel::SellerColumn, !sellerId.isEmpty());
    });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) {
        const ReconRow *row = rowAt(index.row());
        if (row && row->ticketId)
            emit callChosen(*row->ticketId, row->callExtId);
    });
}

ReconciliationPane::~ReconciliationPane()
{
    if (m_running)
        m_running->disconnect(this);
}

QString ReconciliationPane::totalsText() const
{
    return m_totals->text();
}

QString ReconciliationPane::statusText() const
{
    return m_status->text();
}

bool ReconciliationPane::isFetching() const
{
    return !m_running.isNull();
}

QString ReconciliationPane::detailsText() const
{
    return m_details->toPlainText();
}

void ReconciliationPane::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // Read when shown, as the rest of finance is: the data may have grown since.
    openOnLatestPeriod();
}

void ReconciliationPane::readAgain()
{
    if (isVisible())
        openOnLatestPeriod();
}

void ReconciliationPane::openOnLatestPeriod()
{
    // An earlier problem is moot now: read again below, or the period is the person's.
    if (std::exchange(m_openingFailed, false))
        setStatus(QString(), false);
    if (m_periodChosen || m_model.hasReconciliation() || !m_opening)
        return;
    const Expected<OpeningPeriod> opening = m_opening();
    if (!opening) {
        m_openingFailed = true;
        setStatus(tr("Could not read the latest month with refunds: %1").arg(opening.message()), true);
        return;
    }
    showPeriod(opening->period);
    setStatus(opening->note, false);
}

void ReconciliationPane::showPeriod(const Period &period)
{
    m_showingPeriod = true;
    m_from->setDate(QDateTime::fromMSecsSinceEpoch(period.fromMs, Qt::UTC).date());
    // toMs is excluded: the last day holds the millisecond before it.
    m_to->setDate(QDateTime::fromMSecsSinceEpoch(qMax(period.fromMs, period.toMs - 1), Qt::UTC).date());
    m_showingPeriod = false;
}

const ReconRow *ReconciliationPane::rowAt(int tableRow) const
{
    const QModelIndex source = m_proxy->mapToSource(m_proxy->index(tableRow, 0));
    return source.isValid() ? m_model.reconRow(source.row()) : nullptr;
}

Expected<Period> ReconciliationPane::chosenPeriod() const
{
    return periodFromDates(m_from->date().toString(QStringLiteral("yyyy-MM-dd")),
                           m_to->date().toString(QStringLiteral("yyyy-MM-dd")));
}

std::optional<Period> ReconciliationPane::period()
{
    const Expected<Period> chosen = chosenPeriod();
    if (!chosen) {
        // A report already shown stays, and says which period it is, beside the refusal.
        const std::optional<Reconciliation> &shown = m_model.reconciliation();
        setStatus(shown ? tr("%1. The report below is still %2.")
                                  .arg(chosen.message(), periodText(shown->period))
                        : chosen.message(),
                  true);
        return std::nullopt;
    }
    return *chosen;
}

void ReconciliationPane::fetch()
{
    if (m_running) {
        m_running->cancel();
        return;
    }
    const std::optional<Period> chosen = period();
    if (!chosen)
        return;
    const ProviderSettings settings = m_settings();
    if (settings.baseUrl.isEmpty()) {
        setStatus(tr("Set the payment provider's address first (Provider > Payment provider settings)."),
                  true);
        return;
    }
    auto *fetch = new StatementFetch(settings, *chosen, m_accounts(), this);
    m_running = fetch;
    connect(fetch, &StatementFetch::progress, this, [this](const QString &step) { setStatus(step, false); });
    connect(fetch, &StatementFetch::finished, this, &ReconciliationPane::fetched);
    setBusy(true);
    setStatus(tr("Reading %1 from %2…").arg(periodText(*chosen), settings.baseUrl.toString()), false);
    fetch->start();
}

void ReconciliationPane::fetched(const StatementAnswer &answer)
{
    if (StatementFetch *finished = m_running.data()) {
        m_running = nullptr;
        finished->deleteLater();
    }
    setBusy(false);
    if (!answer.ok()) {
        QString why = answer.error->message;
        while (why.endsWith(u'.'))
            why.chop(1);
        const QString kept =
                m_model.hasReconciliation() ? tr(" The result below is the previous one.") : QString();
        setStatus((answer.error->code == ProviderErrc::Cancelled
                           ? tr("Fetch cancelled.")
                           : tr("Could not fetch from the provider: %1.").arg(why))
                          + kept,
                  true);
        return;
    }
    const ProviderStatement &statement = answer.statement;
    showStatement(statement,
                  tr("%1 read from %2 at %3")
                          .arg(refundCount(statement.refunds.size()))
                          .arg(statement.source, formatUtcTime(statement.fetchedAt)));
}

void ReconciliationPane::readExport()
{
    const std::optional<Period> chosen = period();
    if (!chosen)
        return;
    const QString path =
            m_chooseOpen(this, tr("Read the provider's refund export"), tr("CSV (*.csv);;All files (*)"));
    if (path.isEmpty())
        return;
    // In the file's one currency; reconciling checks it against the ledger's.
    const Expected<ProviderStatement> statement = readProviderExport(path, *chosen, QString());
    if (!statement) {
        setStatus(tr("Could not read the export: %1").arg(statement.message()), true);
        return;
    }
    showStatement(*statement, tr("%1 read from %2").arg(refundCount(statement->refunds.size()), path));
}

void ReconciliationPane::showStatement(const ProviderStatement &statement, const QString &how)
{
    if (const Expected<void> done = m_model.setStatement(statement); !done) {
        setStatus(tr("Could not reconcile: %1").arg(done.message()), true);
        return;
    }
    m_duplicates.setStatement(statement);
    m_statement = statement;
    setStatus(QStringLiteral("%1, %2.").arg(how, periodText(statement.period)), false);
    updateSettleButton();
}

void ReconciliationPane::setSettlement(ProvenCalls proven, SettleProven settle)
{
    m_provenCalls = std::move(proven);
    m_settleProven = std::move(settle);
    updateSettleButton();
}

void ReconciliationPane::updateSettleButton()
{
    qsizetype proven = 0;
    qsizetype attested = 0;
    if (m_statement && m_provenCalls) {
        const Expected<QList<ProvenCall>> calls = m_provenCalls(*m_statement);
        if (!calls)
            setStatus(
                    tr("Could not tell which unknown refunds this evidence proves: %1").arg(calls.message()),
                    true);
        proven = calls ? calls->size() : 0;
        for (const ProvenCall &call : calls ? *calls : QList<ProvenCall>())
            attested += standsOnACheck(call.escalation) ? 1 : 0;
    }
    // Calls a person only attested are not unknown: the button says how many there are.
    if (attested == 0)
        m_settle->setText(proven == 1 ? tr("&Settle 1 unknown call from this evidence")
                                      : tr("&Settle %1 unknown calls from this evidence").arg(proven));
    else
        m_settle->setText(tr("&Settle %1 calls from this evidence (%2 unknown, %3 only attested)")
                                  .arg(proven)
                                  .arg(proven - attested)
                                  .arg(attested));
    m_settle->setVisible(proven > 0);
}

void ReconciliationPane::setSettleRefusal(const QString &reason)
{
    m_settleRefusal = reason;
    m_settle->setEnabled(reason.isEmpty());
    m_settle->setToolTip(
            reason.isEmpty()
                    ? tr("The provider's records prove these refunds were made: settle their escalations "
                         "as performed (verified by reconciliation), each with its evidence and an audit "
                         "entry")
                    : reason);
}

namespace {

// One line per call, so the person confirms the calls themselves, not a number.
QString provenLines(const QList<ProvenCall> &calls)
{
    constexpr qsizetype shown = 12;
    QStringList lines;
    for (qsizetype i = 0; i < calls.size() && i < shown; ++i) {
        const ProvenCall &call = calls.at(i);
        const EscalationDetail &e = call.escalation;
        QString line = QObject::tr("\u2022 %1, call %2: %3 %4, provider refund %5")
                               .arg(e.ticketExtId, e.callExtId, e.tool,
                                    formatMoney(e.amountCents.value_or(call.refund.amountCents), e.currency),
                                    call.refund.id);
        if (e.state == EscalationState::Resolved && e.resolution) // an attested check the record replaces
            line += QObject::tr(" (now %1 by %2)").arg(settlementText(*e.resolution, e.basis), e.resolvedBy);
        lines << line;
    }
    if (calls.size() > shown)
        lines << QObject::tr("\u2022 and %1 more").arg(calls.size() - shown);
    return lines.join(u'\n');
}

} // namespace

void ReconciliationPane::settle()
{
    if (!m_statement || !m_settleProven || !m_provenCalls || !m_settleRefusal.isEmpty())
        return;
    const Expected<QList<ProvenCall>> calls = m_provenCalls(*m_statement);
    if (!calls) {
        setStatus(tr("Could not tell which unknown refunds this evidence proves: %1").arg(calls.message()),
                  true);
        return;
    }
    if (calls->isEmpty()) {
        setStatus(tr("Nothing to settle: no unknown refund call is proven by this evidence any more."),
                  false);
        updateSettleButton();
        return;
    }
    const qsizetype proven = calls->size();
    const QString question =
            tr("The provider's records for %1 (%2) hold the refunds of %3 whose outcome is unknown, or only "
               "attested:\n\n%4\n\nSettle %5 as performed (verified by reconciliation)?\n\nEach keeps the "
               "provider's "
               "record as evidence, gets its ledger row and an audit entry, and its ticket is assessed "
               "again. Nothing is "
               "sent to the provider.")
                    .arg(periodText(m_statement->period), m_statement->source,
                         proven == 1 ? tr("1 refund call") : tr("%1 refund calls").arg(proven),
                         provenLines(*calls), proven == 1 ? tr("it") : tr("them"));
    if (!m_confirm(this, question))
        return;
    const Expected<QString> done = m_settleProven(*m_statement, *calls);
    if (!done) {
        setStatus(tr("Nothing more was settled: %1").arg(done.message()), true);
        return;
    }
    setStatus(*done, false);
    m_model.refresh(); // the ledger now holds them: reconcile again
    m_duplicates.refresh();
    updateSettleButton();
    emit settled();
}

QString ReconciliationPane::suggestedName(const QString &suffix) const
{
    return QStringLiteral("reconciliation-%1-to-%2.%3")
            .arg(m_from->date().toString(Qt::ISODate), m_to->date().toString(Qt::ISODate), suffix);
}

void ReconciliationPane::exportCsv()
{
    if (!m_model.hasReconciliation())
        return;
    const QString path = m_chooseSave(this, tr("Export reconciliation"), suggestedName(QStringLiteral("csv")),
                                      tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    const Expected<void> written = writeReconciliationCsv(path, *m_model.reconciliation());
    setStatus(written ? tr("Saved %1.").arg(path) : tr("Not saved: %1").arg(written.message()), !written);
}

void ReconciliationPane::exportPdf()
{
    if (!m_model.hasReconciliation())
        return;
    const QString path = m_chooseSave(this, tr("Export finance report"), suggestedName(QStringLiteral("pdf")),
                                      tr("PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    const Expected<void> written =
            writeFinancePdf(path, *m_model.reconciliation(),
                            duplicatesInPeriod(m_duplicates.duplicates(), m_model.reconciliation()->period),
                            m_duplicates.marks());
    setStatus(written ? tr("Saved %1.").arg(path) : tr("Not saved: %1").arg(written.message()), !written);
}

void ReconciliationPane::showDetails()
{
    const ReconRow *row = rowAt(m_table->currentIndex().row());
    if (!m_table->currentIndex().isValid() || !row) {
        m_details->clear();
        return;
    }
    QStringList lines{reconCategoryText(row->category) + QStringLiteral(": ") + row->note, QString()};
    if (row->provider) {
        lines << tr("The provider's record (%1):").arg(row->provider->origin)
              << prettyJson(row->provider->record);
    } else {
        lines << tr("The provider has no refund for this payout in the period.");
    }
    if (row->ledger) {
        const LedgerPayout &ledger = *row->ledger;
        lines << QString() << tr("Verity's ledger:")
              << tr("%1 / %2, %3 at %4")
                         .arg(ledger.ticketExtId, ledger.callExtId,
                              formatMoney(ledger.amountCents, ledger.currency), formatUtcTime(ledger.at))
              << tr("intent key: %1").arg(ledger.intentKey.isEmpty() ? tr("(none)") : ledger.intentKey)
              << tr("refund id: %1").arg(ledger.refundId.isEmpty() ? tr("(none known)") : ledger.refundId);
    }
    if (!row->matchedBy.isEmpty())
        lines << QString() << tr("Matched by %1.").arg(row->matchedBy);
    m_details->setPlainText(lines.join(u'\n'));
}

void ReconciliationPane::updateTotals()
{
    m_totals->setText(m_model.totalsText());
    m_exportCsv->setEnabled(m_model.hasReconciliation());
    m_exportPdf->setEnabled(m_model.hasReconciliation());
}

void ReconciliationPane::setBusy(bool busy)
{
    m_busy->setVisible(busy);
    m_fetch->setText(busy ? tr("&Cancel fetch") : tr("Fetch from &provider"));
    m_readExport->setEnabled(!busy);
    m_from->setEnabled(!busy);
    m_to->setEnabled(!busy);
}

void ReconciliationPane::setStatus(const QString &text, bool bad)
{
    m_status->setText(text);
    m_status->setStyleSheet(bad ? theme::status(theme::Tone::Bad) : QString());
}

} // namespace verity

#include "financepane.h"

#include "accessibletext.h"
#include "columnfit.h"
#include "finance/payoutmonth.h"
#include "itemmodels/duplicatepayoutmodel.h"
#include "itemmodels/reconciliationmodel.h"
#include "itemmodels/sellerbalancemodel.h"
#include "resolution/providerconnection.h"
#include "resolution/reconciliationsettlement.h"
#include "sellerbalancechart.h"
#include "store/store.h"

#include <QDateTime>
#include <QFontMetrics>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace verity {

namespace {

// Exactly the calls the person was shown; one another console settled since is reported as
// settled elsewhere, not settled twice. Says what it did, or why not.
Expected<QString> settleShownCalls(SettlementStore &store, const ProviderStatement &statement,
                                   const QList<ProvenCall> &shown, const QString &operatorName)
{
    const Expected<StatementSettlement> done = settleFromStatement(store, shown, statement, operatorName);
    if (!done)
        return done.error();
    QString text = done->settled == 1
            ? FinancePane::tr("Settled 1 unknown call as performed (verified by reconciliation).")
            : FinancePane::tr("Settled %1 unknown calls as performed (verified by reconciliation).")
                      .arg(done->settled);
    if (!done->elsewhere.isEmpty())
        text += u' ' + done->elsewhere.join(QStringLiteral("; "));
    if (!done->held.isEmpty())
        text += u' '
                + FinancePane::tr("Left for whoever holds them: %1.")
                          .arg(done->held.join(QStringLiteral("; ")));
    return text;
}

} // namespace

FinancePane::FinancePane(FinanceReviewStore &store, QWidget *parent)
    : QWidget(parent)
    , m_sellers(new SellerBalanceModel(store, this))
    , m_duplicates(new DuplicatePayoutModel(store, this))
    , m_reconciliation(new ReconciliationModel(store, this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("financeTabs"));
    describeForScreenReaders(
            m_tabs, tr("Finance"),
            tr("Seller balances, reconciliation against the provider, and duplicate payouts"));
    m_tabs->setDocumentMode(true);
    layout->addWidget(m_tabs);

    m_tabs->addTab(buildSellersTab(), tr("&Sellers"));
    m_duplicatesPane = new DuplicatePayoutsPane(*m_duplicates, m_tabs);
    m_tabs->addTab(m_duplicatesPane, tr("&Duplicate payouts"));
    m_reconciliationPane = new ReconciliationPane(*m_reconciliation, *m_duplicates, m_tabs);
    m_reconciliationPane->setAccounts([this] { return m_sellers->sellerIds(); });
    m_reconciliationPane->setOpeningPeriod(
            [&store] { return latestReconciliationMonth(store, QDateTime::currentDateTimeUtc().date()); });
    m_tabs->addTab(m_reconciliationPane, tr("&Reconciliation"));
    // The unknown refunds a statement proves performed, and their settlement by this operator.
    m_reconciliationPane->setSettlement(
            [&store](const ProviderStatement &statement) { return callsProvenBy(store, statement); },
            [this, &store](const ProviderStatement &statement, const QList<ProvenCall> &shown) {
                const QString name = m_operatorName ? m_operatorName() : QString();
                return settleShownCalls(store, statement, shown,
                                        name.isEmpty() ? defaultOperatorName() : name);
            });

    connect(m_sellerTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &FinancePane::showCurrentSeller);
    connect(m_chart, &SellerBalanceChart::callChosen, this, &FinancePane::callChosen);
    connect(m_duplicatesPane, &DuplicatePayoutsPane::callChosen, this, &FinancePane::callChosen);
    connect(m_duplicatesPane, &DuplicatePayoutsPane::marked, this, &FinancePane::payoutMarked);
    connect(m_reconciliationPane, &ReconciliationPane::callChosen, this, &FinancePane::callChosen);
    connect(m_reconciliationPane, &ReconciliationPane::settled, this, &FinancePane::escalationsSettled);
    connect(m_sellers, &SellerBalanceModel::errorOccurred, this, &FinancePane::errorOccurred);
    connect(m_duplicates, &DuplicatePayoutModel::errorOccurred, this, &FinancePane::errorOccurred);
    connect(m_reconciliation, &ReconciliationModel::errorOccurred, this, &FinancePane::errorOccurred);
}

// The sellers and their balances, and beside them the chosen seller's balance over time.
QSplitter *FinancePane::buildSellersTab()
{
    m_sellersSplitter = new QSplitter(Qt::Horizontal, m_tabs);
    m_sellersSplitter->setObjectName(QStringLiteral("sellersSplitter"));
    m_sellerProxy = new QSortFilterProxyModel(this);
    m_sellerProxy->setSourceModel(m_sellers);
    m_sellerProxy->setSortRole(SellerBalanceModel::SortRole);
    m_sellerTable = new QTableView(m_sellersSplitter);
    m_sellerTable->setObjectName(QStringLiteral("sellerTable"));
    describeForScreenReaders(
            m_sellerTable, tr("Seller balances"),
            tr("Each seller's balance, what was refunded and what may have moved; choosing a row "
               "shows its refunds"));
    m_sellerTable->setModel(m_sellerProxy);
    m_sellerTable->setSortingEnabled(true);
    m_sellerTable->sortByColumn(SellerBalanceModel::SellerColumn, Qt::AscendingOrder);
    m_sellerTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_sellerTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_sellerTable->setAlternatingRowColors(true);
    m_sellerTable->setWordWrap(false);
    m_sellerTable->verticalHeader()->hide();
    fitSellerColumns();
    m_chart = new SellerBalanceChart(m_sellersSplitter);
    m_sellersSplitter->addWidget(m_sellerTable);
    m_sellersSplitter->addWidget(m_chart);
    m_sellersSplitter->setStretchFactor(0, 2);
    m_sellersSplitter->setStretchFactor(1, 3);
    return m_sellersSplitter;
}

// Widths from the font for the usual values and each header; when the pane is narrow the
// names and dates give way (elided), and the money columns never do.
void FinancePane::fitSellerColumns()
{
    const QFontMetrics plain(m_sellerTable->font());
    const auto width = [&plain](const QString &sample) { return plain.horizontalAdvance(sample) + 18; };
    const int money = width(QStringLiteral("-$88,888.88"));
    const int date = qMax(width(QStringLiteral("2026-03-17")), width(QStringLiteral("As of (UTC)")));
    const QList<ColumnFit::Column> columns = {
            {SellerBalanceModel::SellerColumn, width(QStringLiteral("Fenwick & Rowe Garden")),
             width(QStringLiteral("Harrow…"))},
            {SellerBalanceModel::BalanceColumn, money, money},
            {SellerBalanceModel::AsOfColumn, date, date},
            {SellerBalanceModel::PerformedColumn, money, money},
            {SellerBalanceModel::UnknownColumn, qMax(money, width(QStringLiteral("May have moved"))), money},
            {SellerBalanceModel::RefundsColumn, width(QStringLiteral("Refunds")),
             width(QStringLiteral("Refunds"))}};
    int least = 0;
    for (const ColumnFit::Column &column : columns) {
        least += column.least;
        m_sellerTableNatural += column.natural;
    }
    m_sellerTableNatural +=
            2 * m_sellerTable->frameWidth() + m_sellerTable->style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    // The chart gives way before the table is squeezed past its least widths.
    m_sellerTable->setMinimumWidth(least + 4);
    new ColumnFit(*m_sellerTable, columns, SellerBalanceModel::SellerColumn);
}

void FinancePane::setProviderSettings(std::function<ProviderSettings()> settings)
{
    m_reconciliationPane->setProviderSettings(std::move(settings));
}

void FinancePane::setOperatorName(std::function<QString()> name)
{
    m_operatorName = name;
    m_duplicatesPane->setOperatorName(std::move(name));
}

void FinancePane::setNotePrompt(NotePrompt prompt)
{
    m_duplicatesPane->setNotePrompt(std::move(prompt));
}

void FinancePane::setOpenFileChooser(OpenFileChooser chooser)
{
    m_reconciliationPane->setOpenFileChooser(std::move(chooser));
}

void FinancePane::setRefusals(const QString &settle, const QString &mark)
{
    m_reconciliationPane->setSettleRefusal(settle);
    m_duplicatesPane->setMarkRefusal(mark);
}

void FinancePane::setSaveFileChooser(SaveFileChooser chooser)
{
    m_duplicatesPane->setSaveFileChooser(chooser);
    m_reconciliationPane->setSaveFileChooser(std::move(chooser));
}

void FinancePane::refresh()
{
    m_stale = true;
    if (isVisible())
        reload();
}

void FinancePane::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        reload();
    if (!m_sellersSplit) {
        // Once the pane has its width: the table as wide as its columns want (up to two
        // thirds), the chart the rest. Later, the person's own dragging holds.
        QTimer::singleShot(0, this, [this] {
            const int total = m_sellersSplitter->width();
            if (m_sellersSplit || total <= 0)
                return;
            m_sellersSplit = true;
            const int table = qMin(m_sellerTableNatural, total * 2 / 3);
            m_sellersSplitter->setSizes({table, total - table});
        });
    }
}

void FinancePane::reload()
{
    m_stale = false;
    const QModelIndex current = m_sellerProxy->mapToSource(m_sellerTable->currentIndex());
    const QString sellerId = current.isValid()
            ? m_sellers->data(current, SellerBalanceModel::SellerIdRole).toString()
            : QString();
    const DuplicatePayout *duplicate = m_duplicatesPane->currentDuplicate();
    const QString duplicateKey = duplicate ? duplicate->key : QString();
    m_sellers->refresh();
    m_duplicates->refresh();
    m_reconciliation->refresh();
    m_reconciliationPane->readAgain();
    if (!sellerId.isEmpty())
        selectSeller(sellerId);
    if (!duplicateKey.isEmpty())
        m_duplicatesPane->selectKey(duplicateKey);
}

void FinancePane::selectSeller(const QString &sellerId)
{
    const int row = m_sellers->rowOfSeller(sellerId);
    if (row < 0)
        return;
    const QModelIndex index = m_sellerProxy->mapFromSource(m_sellers->index(row, 0));
    m_sellerTable->setCurrentIndex(index);
    m_sellerTable->selectRow(index.row());
    m_sellerTable->scrollTo(index);
    showCurrentSeller(); // the row may already have been current before a refresh
}

void FinancePane::showCurrentSeller()
{
    const QModelIndex current = m_sellerProxy->mapToSource(m_sellerTable->currentIndex());
    const SellerBalance *seller = current.isValid() ? m_sellers->seller(current.row()) : nullptr;
    if (!seller) {
        m_chart->clear(tr("Choose a seller to see its balance over time."));
        return;
    }
    Expected<SellerHistory> history = m_sellers->history(seller->id);
    if (!history) {
        m_chart->clear(tr("Could not read %1's history: %2").arg(seller->name, history.message()));
        emit errorOccurred(history.message());
        return;
    }
    m_chart->showSeller(*seller, *history);
}

} // namespace verity

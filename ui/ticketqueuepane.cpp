#include "ticketqueuepane.h"

#include "columnfit.h"
#include "itemmodels/ticketqueuemodel.h"
#include "outcomedelegate.h"
#include "outcomestyle.h"
#include "queuetable.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace verity {

namespace {

// Long ids (a benchmark run's, a trace's) keep both ends; the whole id is in the tooltip.
class MiddleElidedDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = Qt::ElideMiddle;
    }
};

// The attention mark: an icon beside the words, so it is not colour alone.
class AttentionDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (option->text.isEmpty())
            return;
        const auto state = TicketState(index.data(TicketQueueModel::StateRole).toInt());
        QPixmap icon = ticketStateIcon(state, option->decorationSize.height());
        if (icon.isNull())
            icon = attentionIcon(option->decorationSize.height());
        option->features |= QStyleOptionViewItem::HasDecoration;
        option->icon = QIcon(icon);
        option->palette.setColor(QPalette::Text, ticketStateColor(state));
        option->font.setBold(index.data(TicketQueueModel::NeedsAttentionRole).toBool());
    }
};

} // namespace

TicketQueuePane::TicketQueuePane(TicketQueueModel &model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->addLayout(buildFilterButtons());

    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("ticketSearch"));
    m_search->setPlaceholderText(tr("Ticket, order, seller or task beginning with… (Ctrl+F)"));
    m_search->setToolTip(
            tr("Finds what begins with the text: T-1 finds T-1 and T-10. Put it in quotes, \"T-1\", "
               "for that value alone."));
    m_search->setClearButtonEnabled(true);
    layout->addWidget(m_search);

    buildTable();
    fitColumns();
    layout->addWidget(m_table, 1);

    m_count = new QLabel(this);
    m_count->setObjectName(QStringLiteral("ticketCount"));
    layout->addWidget(m_count);

    connectSearch();
    connect(m_filters, &QButtonGroup::idClicked, this, [this](int id) { setFilter(TicketFilter(id)); });
    // A ticket opens when the person selects its row (a click, the arrow keys), never because
    // the table took focus (Ctrl+L, a menu or a dialog closing), was sorted or was refreshed:
    // those move the current index without selecting, and the open ticket must stay.
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (m_showingChosen)
            return;
        const QModelIndexList rows = m_table->selectionModel()->selectedRows();
        if (rows.size() == 1)
            emit ticketChosen(rows.first().data(TicketQueueModel::TicketIdRole).toLongLong());
    });
    connect(&m_model, &TicketQueueModel::countChanged, this, &TicketQueuePane::updateCount);
    updateCount();
}

QHBoxLayout *TicketQueuePane::buildFilterButtons()
{
    auto *filters = new QHBoxLayout;
    m_filters = new QButtonGroup(this);
    const std::pair<TicketFilter, QString> choices[] = {
            {TicketFilter::All, tr("All")},
            {TicketFilter::NeedsAttention, tr("Needs attention")},
            {TicketFilter::Unknown, tr("Unknown")},
            {TicketFilter::RepeatedIntent, tr("Repeated intent")},
            {TicketFilter::DuplicateEffect, tr("Duplicate effects")},
            {TicketFilter::RetryAfterError, tr("Retries after errors")},
    };
    for (const auto &[filter, label] : choices) {
        auto *button = new QToolButton(this);
        button->setText(label);
        button->setCheckable(true);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        button->setObjectName(QStringLiteral("filter_%1").arg(int(filter)));
        m_filters->addButton(button, int(filter));
        filters->addWidget(button);
    }
    m_filters->button(int(TicketFilter::All))->setChecked(true);
    filters->addStretch();
    return filters;
}

void TicketQueuePane::buildTable()
{
    m_table = new QueueTable(this);
    m_table->setObjectName(QStringLiteral("ticketTable"));
    m_table->verticalHeader()->hide();
    // Fixed row heights: the view never measures rows it has not shown. Set before the model:
    // afterwards the header would visit each of a million rows to apply them.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    m_table->setModel(&m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    // The indicator first, at the order the model already has: enabling sorting then sorts to
    // it, a no-op. Sorting to the header's default column and back cost two layout changes,
    // each of which the vertical header answers row by row.
    m_table->horizontalHeader()->setSortIndicator(TicketQueueModel::OpenedColumn, Qt::DescendingOrder);
    m_table->setSortingEnabled(true);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setItemDelegateForColumn(TicketQueueModel::TicketColumn, new MiddleElidedDelegate(m_table));
    m_table->setItemDelegateForColumn(TicketQueueModel::OutcomeColumn,
                                      new OutcomeDelegate(TicketQueueModel::OutcomeIdRole, m_table));
    m_table->setItemDelegateForColumn(TicketQueueModel::AttentionColumn, new AttentionDelegate(m_table));
}

// Widths from the font, so the usual values fit at any font size (the mark is bold). On a
// narrow screen the ids, orders, sellers and outcomes give way (they elide, the outcome to
// its short words), so every column stays in view without scrolling sideways.
void TicketQueuePane::fitColumns()
{
    QFont bold = m_table->font();
    bold.setBold(true);
    const QFontMetrics plain(m_table->font());
    const auto width = [&plain](const QString &sample) { return plain.horizontalAdvance(sample) + 14; };
    const int attention = QFontMetrics(bold).horizontalAdvance(QStringLiteral("Unsettled repeat")) + 34;
    const int outcome = qMax(badgeSize(Outcome::Unknown, m_table->font()).width(),
                             badgeSize(Outcome::AlreadyPerformed, m_table->font()).width())
            + 12;
    // Squeezed, the badge may elide: the Attention column names the state in full.
    const int leastOutcome = badgeSize(Outcome::NotPerformed, m_table->font()).width() + 12;
    new ColumnFit(*m_table,
                  {{TicketQueueModel::AttentionColumn, attention, attention},
                   {TicketQueueModel::TicketColumn, width(QStringLiteral("T-20260317-0412")),
                    width(QStringLiteral("T-20…0412"))},
                   {TicketQueueModel::OrderColumn, width(QStringLiteral("task 12 · trial 3")),
                    width(QStringLiteral("SU-88…"))},
                   {TicketQueueModel::SellerColumn, width(QStringLiteral("Fenwick & Rowe Garden")),
                    width(QStringLiteral("Harrow…"))},
                   {TicketQueueModel::OpenedColumn, width(QStringLiteral("2026-03-17 14:28:51")),
                    width(QStringLiteral("2026-03-17 14:28:51"))},
                   {TicketQueueModel::WritesColumn, width(QStringLiteral("Writes")),
                    width(QStringLiteral("Writes"))},
                   {TicketQueueModel::OutcomeColumn, outcome, leastOutcome}},
                  TicketQueueModel::SellerColumn);
}

// The search waits for a pause in the typing; Enter searches at once and opens the first match.
void TicketQueuePane::connectSearch()
{
    m_searchDelay = new QTimer(this);
    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(200);
    connect(m_search, &QLineEdit::textChanged, m_searchDelay, qOverload<>(&QTimer::start));
    // Another search or filter is another list: it starts at its top, not where the last one
    // was scrolled to.
    connect(m_searchDelay, &QTimer::timeout, this, [this] {
        m_model.setSearch(m_search->text());
        m_table->scrollToTop();
    });
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        m_searchDelay->stop();
        m_model.setSearch(m_search->text());
        m_table->setFocus();
        if (m_model.rowCount() == 0)
            return;
        // Enter opens the first match, even when it was chosen before and another ticket is
        // open now (selecting a row already selected changes no selection).
        m_table->selectRow(0);
        emit ticketChosen(m_model.index(0, 0).data(TicketQueueModel::TicketIdRole).toLongLong());
    });
}

void TicketQueuePane::setFilter(TicketFilter filter)
{
    m_filters->button(int(filter))->setChecked(true);
    m_model.setFilter(filter);
    m_table->scrollToTop();
}

void TicketQueuePane::selectTicket(qint64 ticketId)
{
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && current.data(TicketQueueModel::TicketIdRole).toLongLong() == ticketId)
        return;
    if (std::optional<int> row = m_model.rowOfTicket(ticketId)) {
        // Not by blocking the selection model's signals: the view repaints on them.
        m_showingChosen = true;
        m_table->selectRow(*row);
        m_showingChosen = false;
        m_table->scrollTo(m_model.index(*row, 0));
    }
}

void TicketQueuePane::updateCount()
{
    const qint64 count = m_model.totalCount();
    m_count->setText(count == 1 ? tr("1 ticket") : tr("%1 tickets").arg(QLocale().toString(count)));
}

} // namespace verity

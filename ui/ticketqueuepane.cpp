#include "ticketqueuepane.h"

#include "accessibletext.h"
#include "columnfit.h"
#include "itemmodels/ticketqueuemodel.h"
#include "outcomedelegate.h"
#include "outcomestyle.h"
#include "queuetable.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QStyle>
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
        // Squeezed, the mark alone (its shape tells the state; its tooltip says it): a word cut
        // to "Unkn…" says less than the mark.
        const int needed = QFontMetrics(option->font).horizontalAdvance(option->text)
                + option->decorationSize.width() + 16;
        if (option->rect.width() > 0 && option->rect.width() < needed)
            option->text.clear();
    }
};

// Squeezed, the date alone rather than a time cut short.
class OpenedDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        const int needed = QFontMetrics(option->font).horizontalAdvance(option->text) + 12;
        if (option->rect.width() > 0 && option->rect.width() < needed)
            option->text = option->text.section(u' ', 0, 0);
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
    m_search->setAccessibleName(tr("Search tickets"));
    m_search->setPlaceholderText(tr("Ticket, order, seller or task beginning with… (Ctrl+F)"));
    m_search->setToolTip(
            tr("Finds what begins with the text: T-1 finds T-1 and T-10. Put it in quotes, \"T-1\", "
               "for that value alone."));
    m_search->setClearButtonEnabled(true);
    m_search->installEventFilter(this);
    layout->addWidget(m_search);

    buildTable();
    fitColumns();
    fitIdColumns();
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
        button->setAccessibleDescription(
                tr("Shows only these tickets in the queue (Ctrl+%1)").arg(int(filter) + 1));
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
    describeForScreenReaders(
            m_table, tr("Ticket queue"),
            tr("Tickets with their order, seller, writes and worst outcome; choosing a row opens "
               "the ticket"));
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
    m_table->setItemDelegateForColumn(TicketQueueModel::OrderColumn, new MiddleElidedDelegate(m_table));
    m_table->setItemDelegateForColumn(TicketQueueModel::OutcomeColumn,
                                      new OutcomeDelegate(TicketQueueModel::OutcomeIdRole, m_table));
    m_table->setItemDelegateForColumn(TicketQueueModel::AttentionColumn, new AttentionDelegate(m_table));
    m_table->setItemDelegateForColumn(TicketQueueModel::OpenedColumn, new OpenedDelegate(m_table));
    connect(&m_model, &QAbstractItemModel::modelReset, this, &TicketQueuePane::fitIdColumns);
    m_table->viewport()->installEventFilter(this);
    connect(&m_model, &QAbstractItemModel::layoutChanged, this, &TicketQueuePane::fitIdColumns);
    // After the ids are measured, which reads the list's first rows: the open ticket is found
    // among them.
    connect(&m_model, &QAbstractItemModel::modelReset, this, &TicketQueuePane::showOpenTicket);
    connect(&m_model, &QAbstractItemModel::layoutChanged, this, &TicketQueuePane::showOpenTicket);
}

// Widths from the font, so the usual values fit at any font size (the mark is bold). On a
// narrow screen the seller, the date, the mark and the outcome give way (the seller elides, the
// date drops its time, the mark its word, the outcome its long words); the ticket and order ids,
// which people type and compare, stay whole.
void TicketQueuePane::fitColumns()
{
    QFont bold = m_table->font();
    bold.setBold(true);
    const QFontMetrics plain(m_table->font());
    const auto width = [&plain](const QString &sample) { return plain.horizontalAdvance(sample) + 14; };
    const int attention = QFontMetrics(bold).horizontalAdvance(QStringLiteral("Unsettled repeat")) + 34;
    // Squeezed, the mark keeps "Unknown" and "Needs a look" (the states a person acts on) and the
    // longer states drop to the mark alone.
    const int mark = QFontMetrics(bold).horizontalAdvance(QStringLiteral("Needs a look"))
            + m_table->style()->pixelMetric(QStyle::PM_SmallIconSize) + 22;
    const int outcome = qMax(badgeSize(Outcome::Unknown, m_table->font()).width(),
                             badgeSize(Outcome::AlreadyPerformed, m_table->font()).width())
            + 12;
    // Squeezed, the badge may elide: the Attention column names the state in full.
    const int leastOutcome = badgeSize(Outcome::NotPerformed, m_table->font()).width() + 12;
    m_usualTicketWidth = width(QStringLiteral("T-20260317-0412"));
    m_usualOrderWidth = width(QStringLiteral("SU-88421"));
    m_fit = new ColumnFit(*m_table,
                          {{TicketQueueModel::AttentionColumn, attention, mark},
                           {TicketQueueModel::TicketColumn, m_usualTicketWidth, m_usualTicketWidth, true},
                           {TicketQueueModel::OrderColumn, m_usualOrderWidth, m_usualOrderWidth, true},
                           {TicketQueueModel::SellerColumn, width(QStringLiteral("Fenwick & Rowe Garden")),
                            width(QStringLiteral("Harrow…"))},
                           {TicketQueueModel::OpenedColumn, width(QStringLiteral("2026-03-17 14:28:51")),
                            width(QStringLiteral("2026-03-17"))},
                           {TicketQueueModel::WritesColumn, width(QStringLiteral("Writes")),
                            width(QStringLiteral("Writes"))},
                           {TicketQueueModel::OutcomeColumn, outcome, leastOutcome}},
                          TicketQueueModel::SellerColumn);
}

void TicketQueuePane::fitIdColumns()
{
    // The rows a first screen shows, and a little more: the page the view reads anyway.
    const QFontMetrics plain(m_table->font());
    const int ticket =
            qMax(m_usualTicketWidth, widestText(m_model, TicketQueueModel::TicketColumn, 100, plain) + 14);
    const int order =
            qMax(m_usualOrderWidth, widestText(m_model, TicketQueueModel::OrderColumn, 100, plain) + 14);
    // Whole where the view has room (up to a third of it each). The ids give way last, once every
    // other column is at its least, and then only down to the usual id's width, eliding in their
    // middle with their tooltip whole: the outcome and the mark keep their room at 1280 pixels.
    const int cap = qMax(m_usualTicketWidth, m_table->viewport()->width() / 3);
    m_fit->setWidths(TicketQueueModel::TicketColumn, qMin(ticket, cap), m_usualTicketWidth);
    m_fit->setWidths(TicketQueueModel::OrderColumn, qMin(order, cap), m_usualOrderWidth);
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
    m_openTicket = ticketId;
    showOpenTicket();
    if (const QModelIndex current = m_table->currentIndex(); current.isValid())
        m_table->scrollTo(current);
}

// The highlighted row is always the open ticket's: when it is not among the rows of this list
// (filtered out, searched away, or further down than has been read), nothing is highlighted and
// the count says so.
void TicketQueuePane::showOpenTicket()
{
    if (m_openTicket == 0)
        return;
    const std::optional<int> row = m_model.rowOfTicket(m_openTicket);
    const QModelIndex current = m_table->currentIndex();
    const bool shown = current.isValid() && m_table->selectionModel()->isRowSelected(current.row())
            && current.data(TicketQueueModel::TicketIdRole).toLongLong() == m_openTicket;
    // Not by blocking the selection model's signals: the view repaints on them.
    m_showingChosen = true;
    if (row && !shown)
        m_table->selectRow(*row);
    else if (!row)
        m_table->selectionModel()->clear();
    m_showingChosen = false;
    updateCount();
}

bool TicketQueuePane::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize && m_fit)
        fitIdColumns(); // the third the ids may take follows the view
    if (watched != m_search || event->type() != QEvent::KeyPress
        || static_cast<QKeyEvent *>(event)->key() != Qt::Key_Down || m_model.rowCount() == 0)
        return QWidget::eventFilter(watched, event);
    m_table->setFocus();
    // Into the list at the open ticket's row; where it is not listed, the first row is chosen.
    if (const std::optional<int> open = m_model.rowOfTicket(m_openTicket)) {
        m_showingChosen = true; // open already
        m_table->setCurrentIndex(m_model.index(*open, TicketQueueModel::TicketColumn));
        m_showingChosen = false;
    } else {
        m_table->selectRow(0);
    }
    return true;
}

void TicketQueuePane::updateCount()
{
    const qint64 count = m_model.totalCount();
    QString text = count == 1 ? tr("1 ticket") : tr("%1 tickets").arg(QLocale().toString(count));
    if (m_openTicket != 0 && !m_model.rowOfTicket(m_openTicket))
        text += tr(" · the open ticket is not among these rows");
    m_count->setText(text);
}

} // namespace verity

#include "escalationqueuepane.h"

#include "accessibletext.h"
#include "columnfit.h"
#include "domain/displaytext.h"
#include "itemmodels/escalationqueuemodel.h"
#include "plaintextlabel.h"
#include "queuetable.h"
#include "theme.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLocale>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace verity {

// Ids whole, each column as wide as its widest id on the first page and at least as its sample
// ("T-20260317-0412", "SU-88421", "c3"; a τ call's 29 characters), but never more than a fifth
// of the view: a pathological id then elides in its middle, its tooltip whole.
void EscalationQueuePane::fitIdColumns()
{
    const QFontMetrics metrics = m_table->fontMetrics();
    const int cap = qMax(m_table->viewport()->width() / 5,
                         metrics.horizontalAdvance(QStringLiteral("T-20260317-0412")) + 16);
    const std::pair<int, const char *> ids[] = {{EscalationQueueModel::TicketColumn, "T-20260317-0412"},
                                                {EscalationQueueModel::OrderColumn, "SU-88421"},
                                                {EscalationQueueModel::CallColumn, "c3"}};
    for (const auto &[column, sample] : ids) {
        const int header = metrics.horizontalAdvance(m_model.headerData(column, Qt::Horizontal).toString());
        const int least = qMax(header, metrics.horizontalAdvance(QString::fromLatin1(sample)));
        m_table->setColumnWidth(column,
                                qMin(qMax(least, widestText(m_model, column, 64, metrics)) + 16, cap));
    }
}

bool EscalationQueuePane::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize)
        fitIdColumns();
    return QWidget::eventFilter(watched, event);
}

QString escalationCountText(qint64 count)
{
    if (count == 0)
        return QObject::tr("No unknown outcomes waiting");
    return count == 1 ? QObject::tr("1 unknown outcome waiting")
                      : QObject::tr("%1 unknown outcomes waiting").arg(QLocale().toString(count));
}

EscalationQueuePane::EscalationQueuePane(EscalationQueueModel &model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 8);
    auto *top = new QHBoxLayout;
    m_headline = plainTextLabel(QString(), this, false);
    m_headline->setObjectName(QStringLiteral("escalationHeadline"));
    top->addWidget(m_headline, 1);
    auto *lookup = m_lookup = new QPushButton(tr("Look up the selected write…"), this);
    lookup->setObjectName(QStringLiteral("queueLookupButton"));
    top->addWidget(lookup);
    auto *next = m_next = new QPushButton(tr("Next"), this);
    next->setObjectName(QStringLiteral("queueNextButton"));
    setRefusal(QString());
    top->addWidget(next);
    connect(next, &QPushButton::clicked, this, &EscalationQueuePane::nextRequested);
    layout->addLayout(top);

    m_table = new QueueTable(this);
    m_table->setObjectName(QStringLiteral("escalationTable"));
    describeForScreenReaders(
            m_table, tr("Escalation queue"),
            tr("Every unknown write, oldest first; choosing a row opens its ticket at that call"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    // Before the model, so that the header does not visit every row to apply them.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->setModel(&m_model);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Widths from the font: "Claimed by" a name, its end and, for a console that stopped
    // renewing, since when; the ids as fitIdColumns() says. The rest of the row is "Unknown since".
    const QFontMetrics metrics = m_table->fontMetrics();
    const auto width = [&metrics](const char *sample) {
        return metrics.horizontalAdvance(QString::fromLatin1(sample)) + 16;
    };
    const std::pair<int, int> widths[] = {
            {EscalationQueueModel::NumberColumn, width("00000")},
            {EscalationQueueModel::WaitingColumn, width("265 d 11 h")},
            {EscalationQueueModel::AmountColumn, width("$1,000.00")},
            {EscalationQueueModel::ToolColumn, width("message_seller")},
            {EscalationQueueModel::ClaimColumn, width("firstname.lastname, until 00:00")},
    };
    for (const auto &[column, pixels] : widths)
        m_table->setColumnWidth(column, pixels);
    m_table->setTextElideMode(Qt::ElideMiddle); // an id too long for its fifth keeps both ends
    fitIdColumns();
    connect(&m_model, &QAbstractItemModel::modelReset, this, &EscalationQueuePane::fitIdColumns);
    m_table->viewport()->installEventFilter(this); // the fifth the ids may take follows the view
    layout->addWidget(m_table, 1);

    auto choose = [this](const QModelIndex &index) {
        if (index.isValid())
            emit escalationChosen(index.data(EscalationQueueModel::TicketIdRole).toLongLong(),
                                  index.data(EscalationQueueModel::CallIdRole).toString());
    };
    connect(m_table, &QTableView::activated, this, choose);
    connect(m_table, &QTableView::clicked, this, choose);
    // A row chosen with the keyboard is opened too, so that the selected escalation is always
    // the one whose ticket is in view.
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this, choose] {
        const QModelIndexList rows = m_table->selectionModel()->selectedRows();
        if (rows.size() == 1)
            choose(rows.first());
    });
    connect(lookup, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = m_table->selectionModel()->selectedRows();
        const QModelIndex current = rows.size() == 1 ? rows.first() : QModelIndex();
        if (current.isValid())
            emit lookupRequested(current.data(EscalationQueueModel::EscalationIdRole).toLongLong());
        else
            m_headline->setText(tr("Choose a write in the list first."));
    });
    connect(&m_model, &EscalationQueueModel::countChanged, this, &EscalationQueuePane::updateHeadline);
    updateHeadline();
}

QString EscalationQueuePane::headline() const
{
    return m_headline->text();
}

void EscalationQueuePane::updateHeadline()
{
    const qint64 count = m_model.totalCount();
    m_headline->setText(
            count == 0 ? escalationCountText(0)
                       : escalationCountText(count)
                            + tr(": do not retry these writes; each needs a lookup, or a recorded check."));
    m_headline->setStyleSheet(theme::status(count == 0 ? theme::Tone::Neutral : theme::Tone::Warning));
}

void EscalationQueuePane::setRefusal(const QString &reason)
{
    m_lookup->setEnabled(reason.isEmpty());
    m_lookup->setToolTip(reason.isEmpty()
                                 ? tr("Ask the system the selected write went to whether it happened "
                                      "(Ctrl+K while the queue has focus)")
                                 : reason);
    m_next->setEnabled(reason.isEmpty());
    m_next->setToolTip(reason.isEmpty() ? tr("Claim the oldest escalation nobody is working on, and open it "
                                             "(Ctrl+N)")
                                        : reason);
}

void EscalationQueuePane::ticketShown(qint64 ticketId)
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid() || current.data(EscalationQueueModel::TicketIdRole).toLongLong() == ticketId)
        return;
    m_table->selectionModel()->clear(); // no selection, no current row: nothing is chosen
}

void EscalationQueuePane::choose(qint64 escalationId)
{
    const QModelIndexList found = m_model.match(m_model.index(0, 0), EscalationQueueModel::EscalationIdRole,
                                                escalationId, 1, Qt::MatchExactly);
    if (found.isEmpty())
        return;
    m_table->setCurrentIndex(found.first());
    m_table->scrollTo(found.first());
}

} // namespace verity

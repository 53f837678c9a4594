#include "ticketsummarystrip.h"

#include "itemmodels/transcriptsummary.h"
#include "outcomestyle.h"
#include "plaintextlabel.h"

#include <QBoxLayout>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPushButton>

#include <memory>

namespace verity {

TicketSummaryStrip::TicketSummaryStrip(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("ticketSummary"));
    m_rows = new QBoxLayout(QBoxLayout::LeftToRight, this);
    m_rows->setContentsMargins(0, 2, 0, 2);
    // The strip takes the width it is given and stacks to fit it; a one-row minimum would
    // instead widen it past the pane, where the end of the counts is cut off unseen.
    m_rows->setSizeConstraint(QLayout::SetNoConstraint);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_writes = plainTextLabel(QString(), this, false);
    m_writes->setObjectName(QStringLiteral("summaryWrites"));
    m_writes->setWordWrap(false);
    m_rows->addWidget(m_writes);
    m_links = new QHBoxLayout;
    m_links->setSpacing(4);
    m_links->addStretch();
    m_rows->addLayout(m_links, 1);
}

void TicketSummaryStrip::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitRows();
}

void TicketSummaryStrip::fitRows()
{
    // One row when the counts and every link fit side by side, else two.
    const int oneRow = m_writes->sizeHint().width() + m_rows->spacing() + m_links->sizeHint().width()
            + m_rows->contentsMargins().left() + m_rows->contentsMargins().right();
    const auto direction = oneRow <= width() ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (m_rows->direction() != direction)
        m_rows->setDirection(direction);
}

void TicketSummaryStrip::clear()
{
    m_writes->clear();
    while (m_links->count() > 1) {
        QLayoutItem *item = m_links->takeAt(0);
        delete item->widget();
        delete item;
    }
}

void TicketSummaryStrip::setSummary(const TranscriptSummary &summary)
{
    clear();
    QStringList parts;
    for (Outcome outcome :
         {Outcome::Unknown, Outcome::NotPerformed, Outcome::AlreadyPerformed, Outcome::Performed}) {
        if (const int count = summary.writesByOutcome.value(outcome))
            // "1 unknown", not "1 unknown: do not retry": the link beside it says that.
            parts << QStringLiteral("%1 %2").arg(count).arg(
                    outcome == Outcome::Unknown ? tr("unknown") : outcomeLabel(outcome).toLower());
    }
    if (!summary.inFlight.isEmpty())
        parts.prepend(tr("%1 in flight").arg(summary.inFlight.size()));
    m_writes->setText(
            summary.writes == 0 ? tr("No writes")
                    : summary.writes == 1
                    ? tr("1 write: %1").arg(parts.join(QStringLiteral(", ")))
                    : tr("%1 writes: %2").arg(summary.writes).arg(parts.join(QStringLiteral(", "))));

    const struct
    {
        const QStringList &calls;
        TicketState state;
        QString one;
        QString many;
        const char *name;
    } kinds[] = {
            {summary.duplicateEffects, TicketState::DuplicateEffect, tr("Duplicate effect"),
             tr("%1 duplicate effects"), "summaryDuplicate"},
            {summary.unknowns, TicketState::Unknown, tr("Unknown"), tr("%1 unknown"), "summaryUnknown"},
            {summary.inFlight, TicketState::NoWrites, tr("In flight"), tr("%1 in flight"), "summaryInFlight"},
            {summary.unsettledRepeats, TicketState::Unsettled, tr("Unsettled repeat"),
             tr("%1 unsettled repeats"), "summaryUnsettled"},
            {summary.retries, TicketState::Retry, tr("Retry"), tr("%1 retries"), "summaryRetry"},
            {summary.harmlessRepeats, TicketState::Performed, tr("Harmless repeat"),
             tr("%1 harmless repeats"), "summaryHarmless"},
            {summary.owed, TicketState::NeedsLook, tr("Still owed"), tr("%1 still owed"), "summaryOwed"},
    };
    for (const auto &kind : kinds) {
        if (kind.calls.isEmpty())
            continue;
        const QStringList calls = kind.calls;
        const QString what = calls.size() == 1 ? kind.one : kind.many.arg(calls.size());
        const auto named = [this](const QString &id) {
            const QString shown = id.size() > 14 ? id.left(13) + u'…' : id;
            // Ids such as "call_t5_b" name themselves; "c5" reads as "call c5".
            return id.startsWith(QLatin1String("call"), Qt::CaseInsensitive) ? shown
                                                                             : tr("call %1").arg(shown);
        };
        QStringList names;
        for (qsizetype i = 0; i < qMin<qsizetype>(calls.size(), 2); ++i)
            names << named(calls.at(i));
        if (calls.size() > 2)
            names << tr("…");
        auto *link = new QPushButton(tr("%1: %2").arg(what, names.join(QStringLiteral(", "))), this);
        link->setObjectName(QLatin1String(kind.name));
        link->setFlat(true);
        link->setCursor(Qt::PointingHandCursor);
        // "Still owed" wears the attention mark, as its ticket does in the queue.
        const QPixmap icon =
                kind.state == TicketState::NeedsLook ? attentionIcon(16) : ticketStateIcon(kind.state, 16);
        if (!icon.isNull())
            link->setIcon(QIcon(icon));
        link->setToolTip(
                calls.size() == 1
                        ? tr("Show call %1").arg(calls.first())
                        : tr("Show each in turn, one a click: %1").arg(calls.join(QStringLiteral(", "))));
        // Each click shows the next of its calls, and after the last the first again.
        auto next = std::make_shared<qsizetype>(0);
        connect(link, &QPushButton::clicked, this, [this, calls, next] {
            emit callChosen(calls.at(*next));
            *next = (*next + 1) % calls.size();
        });
        m_links->insertWidget(m_links->count() - 1, link);
    }
    fitRows();
}

} // namespace verity

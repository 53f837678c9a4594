#include "ticketsummarystrip.h"

#include "itemmodels/transcriptsummary.h"
#include "outcomestyle.h"
#include "plaintextlabel.h"

#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPushButton>

namespace verity {

TicketSummaryStrip::TicketSummaryStrip(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("ticketSummary"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 2);
    m_writes = plainTextLabel(QString(), this, false);
    m_writes->setObjectName(QStringLiteral("summaryWrites"));
    m_writes->setWordWrap(false);
    layout->addWidget(m_writes);
    m_links = new QHBoxLayout;
    m_links->setSpacing(4);
    layout->addLayout(m_links);
    layout->addStretch();
}

void TicketSummaryStrip::clear()
{
    m_writes->clear();
    while (QLayoutItem *item = m_links->takeAt(0)) {
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
            parts << QStringLiteral("%1 %2").arg(count).arg(outcomeLabel(outcome).toLower());
    }
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
            {summary.unsettledRepeats, TicketState::Unsettled, tr("Unsettled repeat"),
             tr("%1 unsettled repeats"), "summaryUnsettled"},
            {summary.retries, TicketState::Retry, tr("Retry"), tr("%1 retries"), "summaryRetry"},
            {summary.harmlessRepeats, TicketState::Performed, tr("Harmless repeat"),
             tr("%1 harmless repeats"), "summaryHarmless"},
    };
    for (const auto &kind : kinds) {
        if (kind.calls.isEmpty())
            continue;
        const QString first = kind.calls.first();
        const QString shown = first.size() > 14 ? first.left(13) + u'…' : first;
        const QString what = kind.calls.size() == 1 ? kind.one : kind.many.arg(kind.calls.size());
        // Ids such as "call_t5_b" name themselves; "c5" reads as "call c5".
        const QString named = first.startsWith(QLatin1String("call"), Qt::CaseInsensitive)
                ? shown
                : tr("call %1").arg(shown);
        auto *link = new QPushButton(tr("%1: %2").arg(what, named), this);
        link->setObjectName(QLatin1String(kind.name));
        link->setFlat(true);
        link->setCursor(Qt::PointingHandCursor);
        const QPixmap icon = ticketStateIcon(kind.state, 16);
        if (!icon.isNull())
            link->setIcon(QIcon(icon));
        link->setToolTip(tr("Show call %1 (%2: %3)").arg(first, what, kind.calls.join(QStringLiteral(", "))));
        connect(link, &QPushButton::clicked, this, [this, first] { emit callChosen(first); });
        m_links->addWidget(link);
    }
}

} // namespace verity

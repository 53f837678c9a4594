#include "outcomebadge.h"

#include "outcomestyle.h"

#include <QPainter>

namespace verity {

OutcomeBadge::OutcomeBadge(std::optional<Outcome> outcome, QWidget *parent) : QWidget(parent), m_outcome(outcome)
{
    setAccessibleName(text());
    setToolTip(outcome == Outcome::Unknown
                   ? tr("Nobody knows whether this write happened. Do not retry it: look it up at the provider.")
                   : text());
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

QString OutcomeBadge::text() const
{
    return outcomeLook(m_outcome).label;
}

QSize OutcomeBadge::sizeHint() const
{
    QFont bold = font();
    bold.setBold(true);
    return badgeSize(m_outcome, bold);
}

void OutcomeBadge::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    paintBadge(painter, rect(), m_outcome);
}

} // namespace verity

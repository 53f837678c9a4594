#include "outcomebadge.h"

#include "outcomestyle.h"

#include <QPainter>

namespace verity {

OutcomeBadge::OutcomeBadge(std::optional<Outcome> outcome, QWidget *parent)
    : QWidget(parent)
    , m_outcome(outcome)
    , m_look(outcomeLook(outcome))
{
    setAccessibleName(text());
    setToolTip(
            outcome == Outcome::Unknown ? tr(
                    "Nobody knows whether this write happened. Do not retry it: look it up at the provider.")
                                        : text());
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

void OutcomeBadge::setInFlight(const QString &until)
{
    m_look = inFlightLook();
    setAccessibleName(text());
    setToolTip(tr("Its result may still come until %1. Do not retry it; if none comes, it is escalated as "
                  "unknown.")
                       .arg(until));
    updateGeometry();
}

void OutcomeBadge::setAttested()
{
    if (!m_outcome)
        return;
    m_look = attestedLook(*m_outcome);
    setAccessibleName(text());
    setToolTip(tr("%1: a person's recorded check, not the system's answer. Look it up to verify it.")
                       .arg(text()));
    updateGeometry();
    update();
}

QString OutcomeBadge::text() const
{
    return m_look.label;
}

QSize OutcomeBadge::sizeHint() const
{
    QFont bold = font();
    bold.setBold(true);
    return badgeSize(m_look, bold);
}

void OutcomeBadge::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    paintBadge(painter, rect(), m_look);
}

} // namespace verity

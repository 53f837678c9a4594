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
    setToolTip(outcome == Outcome::Unknown
                   ? tr("Nobody knows whether this write happened. Do not retry it: look it up at the provider.")
                   : text());
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

OutcomeBadge::OutcomeBadge(Outcome attested, bool isAttested, QWidget *parent)
    : QWidget(parent)
    , m_outcome(attested)
    , m_look(isAttested ? attestedLook(attested) : outcomeLook(attested))
{
    setAccessibleName(text());
    setToolTip(
            isAttested
                    ? tr("%1: a person's recorded check, not the system's answer. Look it up to verify it.")
                              .arg(text())
                    : text());
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
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

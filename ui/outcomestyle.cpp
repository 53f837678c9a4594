#include "outcomestyle.h"

#include "domain/displaytext.h"
#include "domain/ticketassessment.h"
#include "itemmodels/palette.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>
#include <QPixmapCache>
#include <QSvgRenderer>

namespace verity {

namespace {

constexpr int padding = 6;
constexpr int gap = 5;

// Drawn once for each size: a queue's repaint draws a badge on every row, and parsing the SVG
// each time cost a tenth of the first paint.
QPixmap renderSvg(const QString &resource, int size, qreal ratio)
{
    const QString key = QStringLiteral("verity-icon|%1|%2|%3").arg(resource).arg(size).arg(ratio);
    QPixmap pixmap;
    if (QPixmapCache::find(key, &pixmap))
        return pixmap;
    pixmap = QPixmap(QSize(size, size) * ratio);
    pixmap.fill(Qt::transparent);
    {
        QSvgRenderer renderer(resource);
        QPainter painter(&pixmap);
        renderer.render(&painter);
    }
    pixmap.setDevicePixelRatio(ratio);
    QPixmapCache::insert(key, pixmap);
    return pixmap;
}

QColor colour(const char *hex)
{
    return QColor(QLatin1String(hex));
}

} // namespace

OutcomeLook outcomeLook(std::optional<Outcome> outcome)
{
    if (!outcome)
        return {colour(palette::noWritesBackground), colour(palette::noWrites), QString(),
                QObject::tr("No writes"), QString()};
    switch (*outcome) {
    case Outcome::Performed:
        return {colour(palette::performedBackground), colour(palette::performed),
                QStringLiteral(":/verity/icons/performed.svg"), outcomeLabel(*outcome), QString()};
    case Outcome::AlreadyPerformed:
        return {colour(palette::alreadyPerformedBackground), colour(palette::alreadyPerformed),
                QStringLiteral(":/verity/icons/already-performed.svg"), outcomeLabel(*outcome),
                QObject::tr("Already done")};
    case Outcome::NotPerformed:
        return {colour(palette::notPerformedBackground), colour(palette::notPerformed),
                QStringLiteral(":/verity/icons/not-performed.svg"), outcomeLabel(*outcome), QString()};
    case Outcome::Unknown:
        // Where the full words do not fit, the short form still names the outcome; eliding
        // "Unknown: do not retry" to "Unknown: ..." would hide the one word that matters.
        return {colour(palette::unknownBackground),
                colour(palette::unknown),
                QStringLiteral(":/verity/icons/unknown.svg"),
                outcomeLabel(*outcome),
                QObject::tr("Unknown"),
                true};
    }
    Q_UNREACHABLE();
}

OutcomeLook duplicateEffectLook()
{
    return {colour(palette::duplicateBackground),
            colour(palette::duplicate),
            QStringLiteral(":/verity/icons/duplicate-effect.svg"),
            repeatKindLabel(RepeatKind::DuplicateEffect),
            QObject::tr("Duplicate"),
            true};
}

OutcomeLook lookForId(const QString &id)
{
    if (id == repeatKindId(RepeatKind::DuplicateEffect))
        return duplicateEffectLook();
    if (id == inFlightId())
        return inFlightLook();
    return outcomeLook(outcomeFromId(id));
}

QPixmap outcomeIcon(std::optional<Outcome> outcome, int size, qreal devicePixelRatio)
{
    const OutcomeLook look = outcomeLook(outcome);
    if (look.iconResource.isEmpty())
        return {};
    return renderSvg(look.iconResource, size, devicePixelRatio);
}

QPixmap ticketStateIcon(TicketState state, int size, qreal devicePixelRatio)
{
    switch (state) {
    case TicketState::DuplicateEffect:
        return renderSvg(QStringLiteral(":/verity/icons/duplicate-effect.svg"), size, devicePixelRatio);
    case TicketState::Unknown:
        return renderSvg(QStringLiteral(":/verity/icons/unknown.svg"), size, devicePixelRatio);
    case TicketState::Unsettled:
        return renderSvg(QStringLiteral(":/verity/icons/unsettled.svg"), size, devicePixelRatio);
    case TicketState::Retry:
        return renderSvg(QStringLiteral(":/verity/icons/retry.svg"), size, devicePixelRatio);
    case TicketState::NeedsLook: // the attention mark, below
    case TicketState::NotPerformed:
    case TicketState::Performed:
    case TicketState::NoWrites:
        break;
    }
    return QPixmap();
}

QColor ticketStateColor(TicketState state)
{
    switch (state) {
    case TicketState::DuplicateEffect:
        return duplicateEffectLook().foreground;
    case TicketState::Unknown:
        return outcomeLook(Outcome::Unknown).foreground;
    case TicketState::Unsettled:
        return colour(palette::unsettled);
    case TicketState::Retry:
        return colour(palette::retry);
    case TicketState::NeedsLook:
    case TicketState::NotPerformed:
    case TicketState::Performed:
    case TicketState::NoWrites:
        break;
    }
    return colour(palette::unknown); // the attention mark's
}

QPixmap attentionIcon(int size, qreal devicePixelRatio)
{
    return renderSvg(QStringLiteral(":/verity/icons/attention.svg"), size, devicePixelRatio);
}

OutcomeLook inFlightLook()
{
    OutcomeLook look = outcomeLook(Outcome::Unknown);
    look.label = QObject::tr("In flight");
    look.shortLabel.clear();
    look.background = look.background.lighter(115);
    look.dashed = true;
    return look;
}

OutcomeLook attestedLook(Outcome outcome)
{
    OutcomeLook look = outcomeLook(outcome);
    look.label += QStringLiteral(" (attested)");
    look.shortLabel.clear();
    look.background = look.background.lighter(108);
    look.dashed = true;
    return look;
}

QSize badgeSize(const OutcomeLook &look, const QFont &font)
{
    const QFontMetrics metrics(font);
    const int icon = metrics.height();
    const int text = metrics.horizontalAdvance(look.label);
    // A little slack: eliding measures text slightly differently from horizontalAdvance.
    return {padding + icon + gap + text + 3 + padding, metrics.height() + 6};
}

QSize badgeSize(std::optional<Outcome> outcome, const QFont &font)
{
    return badgeSize(outcomeLook(outcome), font);
}

void paintBadge(QPainter &painter, const QRect &rect, std::optional<Outcome> outcome)
{
    paintBadge(painter, rect, outcomeLook(outcome));
}

void paintBadge(QPainter &painter, const QRect &rect, OutcomeLook look)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    QFont font = painter.font();
    font.setBold(look.bold);
    painter.setFont(font);
    const QFontMetrics metrics(font);
    QSize natural = badgeSize(look, font);
    if (natural.width() > rect.width() && !look.shortLabel.isEmpty()) {
        natural.setWidth(natural.width() - metrics.horizontalAdvance(look.label)
                         + metrics.horizontalAdvance(look.shortLabel));
        look.label = look.shortLabel;
    }
    const QRect badge(rect.left(), rect.top() + (rect.height() - natural.height()) / 2,
                      qMin(natural.width(), rect.width()), natural.height());
    QPainterPath path;
    path.addRoundedRect(QRectF(badge).adjusted(0.5, 0.5, -0.5, -0.5), badge.height() / 2.0,
                        badge.height() / 2.0);
    painter.fillPath(path, look.background);
    painter.setPen(look.dashed ? QPen(look.foreground, 1, Qt::DashLine)
                               : QPen(look.foreground.lighter(160), 1));
    painter.drawPath(path);

    int x = badge.left() + padding;
    const int icon = metrics.height();
    if (!look.iconResource.isEmpty()) {
        painter.drawPixmap(x, badge.top() + (badge.height() - icon) / 2,
                           renderSvg(look.iconResource, icon,
                                     painter.device() ? painter.device()->devicePixelRatioF() : 1.0));
        x += icon + gap;
    }
    painter.setPen(look.foreground);
    painter.drawText(QRect(x, badge.top(), badge.right() - x - padding + 1, badge.height()),
                     Qt::AlignVCenter | Qt::AlignLeft,
                     metrics.elidedText(look.label, Qt::ElideRight, badge.right() - x - padding + 1));
    painter.restore();
}

} // namespace verity

#include "outcomestyle.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>
#include <QSvgRenderer>

namespace verity {

namespace {

constexpr int padding = 6;
constexpr int gap = 5;

QPixmap renderSvg(const QString &resource, int size, qreal ratio)
{
    QPixmap pixmap(QSize(size, size) * ratio);
    pixmap.fill(Qt::transparent);
    QSvgRenderer renderer(resource);
    QPainter painter(&pixmap);
    renderer.render(&painter);
    pixmap.setDevicePixelRatio(ratio);
    return pixmap;
}

} // namespace

OutcomeLook outcomeLook(std::optional<Outcome> outcome)
{
    if (!outcome)
        return {QColor(0xf1, 0xf3, 0xf4), QColor(0x5f, 0x63, 0x68), QString(), QObject::tr("No writes")};
    switch (*outcome) {
    case Outcome::Performed:
        return {QColor(0xe6, 0xf4, 0xea), QColor(0x13, 0x5c, 0x2b), QStringLiteral(":/verity/icons/performed.svg"),
                outcomeLabel(*outcome)};
    case Outcome::AlreadyPerformed:
        return {QColor(0xe8, 0xf0, 0xfe), QColor(0x17, 0x4e, 0x97),
                QStringLiteral(":/verity/icons/already-performed.svg"), outcomeLabel(*outcome)};
    case Outcome::NotPerformed:
        return {QColor(0xec, 0xed, 0xef), QColor(0x3c, 0x40, 0x43), QStringLiteral(":/verity/icons/not-performed.svg"),
                outcomeLabel(*outcome)};
    case Outcome::Unknown:
        return {QColor(0xfc, 0xe8, 0xe6), QColor(0x9c, 0x1c, 0x14), QStringLiteral(":/verity/icons/unknown.svg"),
                outcomeLabel(*outcome)};
    }
    Q_UNREACHABLE();
}

QPixmap outcomeIcon(std::optional<Outcome> outcome, int size, qreal devicePixelRatio)
{
    const OutcomeLook look = outcomeLook(outcome);
    if (look.iconResource.isEmpty())
        return {};
    return renderSvg(look.iconResource, size, devicePixelRatio);
}

QPixmap attentionIcon(int size, qreal devicePixelRatio)
{
    return renderSvg(QStringLiteral(":/verity/icons/attention.svg"), size, devicePixelRatio);
}

QSize badgeSize(std::optional<Outcome> outcome, const QFont &font)
{
    const QFontMetrics metrics(font);
    const int icon = metrics.height();
    const int text = metrics.horizontalAdvance(outcomeLook(outcome).label);
    // A little slack: eliding measures text slightly differently from horizontalAdvance.
    return {padding + icon + gap + text + 3 + padding, metrics.height() + 6};
}

void paintBadge(QPainter &painter, const QRect &rect, std::optional<Outcome> outcome)
{
    OutcomeLook look = outcomeLook(outcome);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    QFont font = painter.font();
    font.setBold(outcome == Outcome::Unknown);
    painter.setFont(font);
    const QFontMetrics metrics(font);
    QSize natural = badgeSize(outcome, font);
    // Where the full words do not fit, the short form still names the outcome; eliding
    // "Unknown: do not retry" to "Unknown: ..." would hide the one word that matters.
    if (natural.width() > rect.width() && outcome == Outcome::Unknown) {
        look.label = QObject::tr("Unknown");
        natural.setWidth(natural.width() - metrics.horizontalAdvance(outcomeLabel(*outcome))
                         + metrics.horizontalAdvance(look.label));
    }
    const QRect badge(rect.left(), rect.top() + (rect.height() - natural.height()) / 2,
                      qMin(natural.width(), rect.width()), natural.height());
    QPainterPath path;
    path.addRoundedRect(QRectF(badge).adjusted(0.5, 0.5, -0.5, -0.5), badge.height() / 2.0, badge.height() / 2.0);
    painter.fillPath(path, look.background);
    painter.setPen(QPen(look.foreground.lighter(160), 1));
    painter.drawPath(path);

    int x = badge.left() + padding;
    const int icon = metrics.height();
    if (!look.iconResource.isEmpty()) {
        painter.drawPixmap(x, badge.top() + (badge.height() - icon) / 2,
                           outcomeIcon(outcome, icon, painter.device() ? painter.device()->devicePixelRatioF() : 1.0));
        x += icon + gap;
    }
    painter.setPen(look.foreground);
    painter.drawText(QRect(x, badge.top(), badge.right() - x - padding + 1, badge.height()),
                     Qt::AlignVCenter | Qt::AlignLeft,
                     metrics.elidedText(look.label, Qt::ElideRight, badge.right() - x - padding + 1));
    painter.restore();
}

} // namespace verity

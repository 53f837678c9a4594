#include "sellerbalancechart.h"

#include "accessibletext.h"
#include "domain/money.h"
#include "itemmodels/palette.h"
#include "itemmodels/sellerbalancemodel.h"
#include "plaintextlabel.h"
#include "theme.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QListWidget>
#include <QSet>
#include <QVBoxLayout>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QDateTimeAxis>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>

#include <algorithm>
#include <cmath>
#include <functional>

namespace verity {

namespace {

// As many dates under the plot as fit whole: a "MMM d" label needs some 80 pixels.
int timeTicks(int viewWidth)
{
    return qBound(3, viewWidth / 90, 6);
}

// The palette of every other view: performed green, unknown amber, a duplicate red.
const QColor performedColor{QLatin1String(palette::performed)};
const QColor unknownColor{QLatin1String(palette::unknownBorder)};
const QColor duplicateColor{QLatin1String(palette::duplicateBorder)};
const QColor lineColor(0x1a, 0x4d, 0x8f);

// QDateTimeAxis labels in local time; shifting by the local offset makes them read UTC.
qreal axisTime(qint64 ms)
{
    return qreal(ms - qint64(QDateTime::fromMSecsSinceEpoch(ms).offsetFromUtc()) * 1000);
}

qreal dollars(qint64 cents)
{
    return qreal(cents) / 100.0;
}

struct Step
{
    qint64 at;
    bool isSnapshot;
    qint64 cents; // the balance reported, or the amount debited
    int debit; // index into the debits, for a debit
};

// A tick spacing of 1, 2 or 5 times a power of ten, in whole dollars, for about five ticks.
qint64 niceStepCents(qint64 spanCents)
{
    const qint64 rough = qMax<qint64>(100, spanCents / 5);
    qint64 magnitude = 100;
    while (magnitude * 10 <= rough)
        magnitude *= 10;
    for (const qint64 factor : {1, 2, 5, 10}) {
        if (magnitude * factor >= rough)
            return magnitude * factor;
    }
    return magnitude * 10;
}

qint64 floorTo(qint64 value, qint64 step)
{
    const qint64 q = value / step;
    return (value % step != 0 && value < 0 ? q - 1 : q) * step;
}

// The reported balances and the refunds in time order. A balance reported at the moment of a
// refund was read before it was made.
QList<Step> stepsInTimeOrder(const QList<BalanceSnapshot> &snapshots, const QList<LedgerPayout> &debits)
{
    QList<Step> steps;
    for (const BalanceSnapshot &snapshot : snapshots)
        steps.append({snapshot.at, true, snapshot.balanceCents, -1});
    for (int i = 0; i < debits.size(); ++i)
        steps.append({debits.at(i).at, false, debits.at(i).amountCents, i});
    std::stable_sort(steps.begin(), steps.end(), [](const Step &a, const Step &b) {
        return a.at != b.at ? a.at < b.at : (a.isSnapshot && !b.isSnapshot);
    });
    return steps;
}

// Where the line starts: the first reported balance, with the refunds made before it added back.
qint64 openingBalance(const QList<Step> &steps)
{
    qint64 balance = 0;
    auto firstSnapshot =
            std::find_if(steps.cbegin(), steps.cend(), [](const Step &s) { return s.isSnapshot; });
    if (firstSnapshot != steps.cend()) {
        balance = firstSnapshot->cents;
        for (auto it = steps.cbegin(); it != firstSnapshot; ++it)
            balance += it->cents;
    }
    return balance;
}

// A performed refund of an intent already paid is a duplicate: the same intent key, or
// (without keys) the same call repeated.
QSet<int> paidTwice(const QList<LedgerPayout> &debits)
{
    QSet<int> duplicates;
    QSet<QString> paid;
    for (int i = 0; i < debits.size(); ++i) {
        const LedgerPayout &debit = debits.at(i);
        if (debit.effect != PayoutEffect::Performed || debit.intentKey.isEmpty())
            continue;
        if (paid.contains(debit.intentKey))
            duplicates.insert(i);
        paid.insert(debit.intentKey);
    }
    return duplicates;
}

// What the plot spans: its times, with room either side, and its balances, zero included.
struct Extent
{
    qint64 first = 0;
    qint64 last = 0;
    qint64 pad = 0;
    qint64 low = 0;
    qint64 high = 0;
};

// The balance as a line: down a step at each refund, to each balance reported. `refund` puts
// each refund's point on the chart, at its time and the balance after it.
Extent plotSteps(const QList<Step> &steps, qint64 balance, qint64 balanceAsOf, QLineSeries &line,
                 const std::function<void(int debit, const QPointF &at)> &refund)
{
    Extent extent;
    extent.low = balance;
    extent.high = balance;
    extent.first = steps.constFirst().at;
    extent.last = qMax(steps.constLast().at, balanceAsOf);
    line.append(axisTime(extent.first), dollars(balance));
    for (const Step &step : steps) {
        line.append(axisTime(step.at), dollars(balance));
        balance = step.isSnapshot ? step.cents : balance - step.cents;
        line.append(axisTime(step.at), dollars(balance));
        extent.low = qMin(extent.low, balance);
        extent.high = qMax(extent.high, balance);
        if (!step.isSnapshot)
            refund(step.debit, QPointF(axisTime(step.at), dollars(balance)));
    }
    extent.pad = qMax<qint64>((extent.last - extent.first) / 20, 60 * 60 * 1000);
    line.append(axisTime(extent.last + extent.pad), dollars(balance));
    extent.low = qMin<qint64>(extent.low, 0);
    extent.high = qMax<qint64>(extent.high, 0);
    return extent;
}

// Dates below, money at the left; every series is plotted against both.
void addAxes(QChart &chart, const Extent &extent, const QString &currency, int viewWidth)
{
    auto *x = new QDateTimeAxis;
    x->setTitleText(SellerBalanceChart::tr("Time (UTC)"));
    x->setFormat(extent.last - extent.first > 2 * 24 * 3600 * 1000 ? QStringLiteral("MMM d")
                                                                   : QStringLiteral("MMM d HH:mm"));
    x->setRange(QDateTime::fromMSecsSinceEpoch(qint64(axisTime(extent.first - extent.pad))),
                QDateTime::fromMSecsSinceEpoch(qint64(axisTime(extent.last + extent.pad))));
    x->setTickCount(timeTicks(viewWidth));

    // Money labels as finance reads them everywhere else: formatMoney, not printf.
    auto *y = new QCategoryAxis;
    y->setTitleText(SellerBalanceChart::tr("Balance (%1)").arg(currency));
    y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    const qint64 step = niceStepCents(extent.high - extent.low);
    // A point never sits on the plot's edge: at least a quarter step of room around it.
    qint64 bottom = floorTo(extent.low, step);
    if (extent.low - bottom < step / 4)
        bottom -= step;
    qint64 top = floorTo(extent.high, step) + step;
    if (top - extent.high < step / 4)
        top += step;
    y->setMin(dollars(bottom));
    y->setStartValue(dollars(bottom));
    for (qint64 tick = bottom; tick <= top; tick += step)
        y->append(formatMoney(tick, currency), dollars(tick));
    y->setMax(dollars(top));

    chart.addAxis(x, Qt::AlignBottom);
    chart.addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries *series : chart.series()) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
}

} // namespace

QString sellerHeading(const SellerBalance &seller)
{
    const QString name = seller.name.isEmpty() ? seller.id : seller.name;
    if (!seller.balanceCents)
        return SellerBalanceChart::tr("%1 — no balance reported").arg(name);
    return SellerBalanceChart::tr("%1 — balance %2 (as of %3)")
            .arg(name, formatMoney(*seller.balanceCents, seller.currency), formatUtcDate(seller.balanceAsOf));
}

SellerBalanceChart::SellerBalanceChart(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_heading = plainTextLabel(QString(), this, false);
    m_heading->setObjectName(QStringLiteral("sellerHeading"));
    QFont font = m_heading->font();
    font.setPointSizeF(font.pointSizeF() * 1.2);
    font.setBold(true);
    m_heading->setFont(font);
    layout->addWidget(m_heading);

    auto *row = new QHBoxLayout;
    m_chart = new QChart;
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->legend()->setShowToolTips(true); // a name cut short says itself
    m_chart->setMargins(QMargins(4, 4, 20, 4)); // room for the last date label
    m_view = new QChartView(m_chart, this);
    m_view->setObjectName(QStringLiteral("sellerChart"));
    describeForScreenReaders(
            m_view, tr("Seller balance chart"),
            tr("Each seller's balance over the period; the list beside it says the same in words"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(320, 240); // at 1280 pixels the seller table keeps its columns whole
    row->addWidget(m_view, 3);

    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("debitList"));
    describeForScreenReaders(
            m_list, tr("Refunds of the seller"),
            tr("Each refund of the chosen seller; choosing one opens its ticket at the call"));
    m_list->setToolTip(tr("Each refund of this seller: choose one to open its ticket at the call"));
    m_list->setAlternatingRowColors(true);
    m_list->setSpacing(2);
    const QString widest = QStringLiteral("T-20260317-0412 / c3 — may have moved");
    m_list->setMinimumWidth(m_list->fontMetrics().horizontalAdvance(widest) + 24);
    row->addWidget(m_list, 1);
    layout->addLayout(row, 1);

    connect(m_list, &QListWidget::itemClicked, this,
            [this](QListWidgetItem *item) { choose(m_list->row(item)); });
    connect(m_list, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { choose(m_list->row(item)); });
    clear(tr("Choose a seller to see its balance over time."));
}

QString SellerBalanceChart::headingText() const
{
    return m_heading->text();
}

void SellerBalanceChart::clear(const QString &message)
{
    m_chart->removeAllSeries();
    for (QAbstractAxis *axis : m_chart->axes()) {
        m_chart->removeAxis(axis);
        delete axis;
    }
    m_performed = nullptr;
    m_unknown = nullptr;
    m_duplicate = nullptr;
    m_debits.clear();
    m_performedDebits.clear();
    m_unknownDebits.clear();
    m_duplicateDebits.clear();
    m_list->clear();
    m_heading->setText(message);
    m_heading->setStyleSheet(QString());
}

void SellerBalanceChart::showSeller(const SellerBalance &seller, const SellerHistory &history)
{
    clear(sellerHeading(seller));
    const bool negative = seller.balanceCents && *seller.balanceCents < 0;
    m_heading->setStyleSheet(negative ? theme::status(theme::Tone::Bad, false) : QString());
    m_debits = history.debits;

    const QList<Step> steps = stepsInTimeOrder(history.snapshots, m_debits);
    if (steps.isEmpty()) {
        m_heading->setText(m_heading->text() + tr(": no balance reported and no refunds"));
        return;
    }
    auto *line = new QLineSeries;
    line->setName(tr("Balance"));
    line->setPen(QPen(lineColor, 2));
    makeRefundSeries();
    const QSet<int> duplicates = paidTwice(m_debits);
    const Extent extent = plotSteps(steps, openingBalance(steps), seller.balanceAsOf, *line,
                                    [this, &duplicates](int debit, const QPointF &at) {
                                        addRefundPoint(debit, at, duplicates.contains(debit));
                                    });

    auto *zero = new QLineSeries;
    zero->setPen(QPen(QColor(QLatin1String(palette::chartAxis)), 1, Qt::DashLine));
    zero->append(axisTime(extent.first - extent.pad), 0);
    zero->append(axisTime(extent.last + extent.pad), 0);
    for (QAbstractSeries *series :
         std::initializer_list<QAbstractSeries *>{zero, line, m_performed, m_unknown, m_duplicate})
        m_chart->addSeries(series);
    m_chart->legend()->markers(zero).constFirst()->setVisible(false);
    addAxes(*m_chart, extent, seller.currency, m_view->width());
    connect(m_performed, &QScatterSeries::clicked, this,
            [this](const QPointF &point) { chooseNearest(m_performed, point); });
    connect(m_unknown, &QScatterSeries::clicked, this,
            [this](const QPointF &point) { chooseNearest(m_unknown, point); });
    connect(m_duplicate, &QScatterSeries::clicked, this,
            [this](const QPointF &point) { chooseNearest(m_duplicate, point); });
    fitLegend();
    listDebits(duplicates);
}

void SellerBalanceChart::makeRefundSeries()
{
    m_performed = new QScatterSeries;
    m_performed->setName(tr("Refunded"));
    m_unknown = new QScatterSeries;
    m_unknown->setName(tr("Unknown refund"));
    m_duplicate = new QScatterSeries;
    m_duplicate->setName(tr("Paid twice"));
    for (QScatterSeries *series : {m_performed, m_unknown, m_duplicate}) {
        series->setMarkerSize(13);
        series->setBorderColor(Qt::white);
    }
    m_performed->setColor(performedColor);
    m_unknown->setColor(unknownColor);
    m_unknown->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_duplicate->setColor(duplicateColor);
    m_duplicate->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
}

void SellerBalanceChart::addRefundPoint(int debit, const QPointF &at, bool duplicate)
{
    const bool performed = m_debits.at(debit).effect == PayoutEffect::Performed;
    QScatterSeries *series = duplicate ? m_duplicate : performed ? m_performed : m_unknown;
    series->append(at);
    (duplicate ? m_duplicateDebits : performed ? m_performedDebits : m_unknownDebits).append(debit);
}

void SellerBalanceChart::listDebits(const QSet<int> &duplicates)
{
    for (int i = 0; i < m_debits.size(); ++i) {
        const LedgerPayout &debit = m_debits.at(i);
        const bool performed = debit.effect == PayoutEffect::Performed;
        const bool duplicate = duplicates.contains(i);
        // Seconds: a retry storm's refunds are seconds apart.
        const QString when = QDateTime::fromMSecsSinceEpoch(debit.at, Qt::UTC)
                                     .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        const QString text = tr("%1 UTC   %2\n%3 / %4 — %5")
                                     .arg(when, formatMoney(debit.amountCents, debit.currency),
                                          debit.ticketExtId, debit.callExtId,
                                          duplicate           ? tr("performed again: a duplicate")
                                                  : performed ? tr("performed")
                                                              : tr("may have moved"));
        auto *item = new QListWidgetItem(text, m_list);
        item->setForeground(duplicate           ? QColor(QLatin1String(palette::duplicate))
                                    : performed ? QColor(QLatin1String(palette::performed))
                                                : QColor(QLatin1String(pendingMoneyColor)));
        item->setToolTip(tr("Open %1 at call %2").arg(debit.ticketExtId, debit.callExtId));
    }
}

void SellerBalanceChart::chooseNearest(QScatterSeries *series, const QPointF &point)
{
    const QList<int> &debits = series == m_performed ? m_performedDebits
            : series == m_duplicate                  ? m_duplicateDebits
                                                     : m_unknownDebits;
    const QList<QPointF> points = series->points();
    int best = -1;
    qreal bestDistance = 0;
    // Time and money have no common scale: compare in pixels.
    const QPointF clicked = m_chart->mapToPosition(point, series);
    for (int i = 0; i < points.size() && i < debits.size(); ++i) {
        const QPointF at = m_chart->mapToPosition(points.at(i), series);
        const qreal distance = std::hypot(at.x() - clicked.x(), at.y() - clicked.y());
        if (best < 0 || distance < bestDistance) {
            best = i;
            bestDistance = distance;
        }
    }
    if (best >= 0)
        choose(debits.at(best));
}

void SellerBalanceChart::choose(int debitIndex)
{
    if (debitIndex < 0 || debitIndex >= m_debits.size())
        return;
    const LedgerPayout &debit = m_debits.at(debitIndex);
    if (m_list->currentRow() != debitIndex)
        m_list->setCurrentRow(debitIndex);
    emit callChosen(debit.ticketId, debit.callExtId);
}

void SellerBalanceChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    const QList<QAbstractAxis *> axes = m_chart->axes(Qt::Horizontal);
    if (auto *time = axes.isEmpty() ? nullptr : qobject_cast<QDateTimeAxis *>(axes.constFirst()))
        time->setTickCount(timeTicks(m_view->width()));
}

// The legend names only what the chart shows: a kind of refund with no point has no entry, so
// the names fit under the plot at 1280 pixels (four were cut to "Refun…", "Paid t…"); were
// they still cut, each says its whole name when the pointer rests on it.
void SellerBalanceChart::fitLegend()
{
    for (QScatterSeries *series : {m_performed, m_unknown, m_duplicate}) {
        for (QLegendMarker *marker : m_chart->legend()->markers(series))
            marker->setVisible(series->count() > 0);
    }
}

} // namespace verity

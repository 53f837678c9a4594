#pragma once

#include "store/financerecords.h"

#include <QSet>
#include <QWidget>

class QChart;
class QChartView;
class QLabel;
class QListWidget;
class QScatterSeries;
class QPointF;

namespace verity {

// One seller's balance over time: the balances transcripts reported, with each refund
// applied as a step down at its time and marked as a point (performed, or unknown: may have
// moved). Choosing a point, or a refund in the list beside the chart, asks to open its call.
class SellerBalanceChart : public QWidget
{
    Q_OBJECT

public:
    explicit SellerBalanceChart(QWidget *parent = nullptr);

    void showSeller(const SellerBalance &seller, const SellerHistory &history);
    void clear(const QString &message);

    QString headingText() const;
    QChart *chart() const { return m_chart; }
    QScatterSeries *performedSeries() const { return m_performed; }
    QScatterSeries *unknownSeries() const { return m_unknown; }
    QScatterSeries *duplicateSeries() const { return m_duplicate; }
    QListWidget *debitList() const { return m_list; }
    const QList<LedgerPayout> &debits() const { return m_debits; }

signals:
    void callChosen(qint64 ticketId, const QString &callExtId);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    // The points of the refunds: performed, unknown (may have moved), and paid twice.
    void makeRefundSeries();
    void fitLegend();
    void addRefundPoint(int debit, const QPointF &at, bool duplicate);
    // Each refund in the list beside the chart, in the colour of its point.
    void listDebits(const QSet<int> &duplicates);
    void chooseNearest(QScatterSeries *series, const QPointF &point);
    void choose(int debitIndex);

    QLabel *m_heading;
    QChart *m_chart;
    QChartView *m_view;
    QScatterSeries *m_performed = nullptr;
    QScatterSeries *m_unknown = nullptr;
    QScatterSeries *m_duplicate = nullptr; // a refund of an intent already paid: money moved twice
    QListWidget *m_list;
    QList<LedgerPayout> m_debits; // in list order, oldest first
    QList<int> m_performedDebits; // the debit behind each point of a series
    QList<int> m_unknownDebits;
    QList<int> m_duplicateDebits;
};

// "Ashcombe Furniture — balance -$47.00 (as of 2026-04-01)".
QString sellerHeading(const SellerBalance &seller);

} // namespace verity

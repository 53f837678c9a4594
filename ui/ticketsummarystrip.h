#pragma once

#include <QWidget>

class QBoxLayout;
class QHBoxLayout;
class QLabel;

namespace verity {

struct TranscriptSummary;

// The strip a ticket opens on: its writes by outcome, then one link for each kind of call a
// person must see (duplicate effects, unknowns, repeats). A link brings the first into view,
// and each click after it the next; the tooltip names them all. Where one row would cut the
// text, the links go under the counts.
class TicketSummaryStrip : public QWidget
{
    Q_OBJECT

public:
    explicit TicketSummaryStrip(QWidget *parent = nullptr);

    void setSummary(const TranscriptSummary &summary);
    void clear();

signals:
    void callChosen(const QString &callId);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fitRows();

    QBoxLayout *m_rows;
    QLabel *m_writes;
    QHBoxLayout *m_links;
};

} // namespace verity

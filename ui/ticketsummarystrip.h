#pragma once

#include <QWidget>

class QHBoxLayout;
class QLabel;

namespace verity {

struct TranscriptSummary;

// The strip a ticket opens on: its writes by outcome, then one link for each kind of call a
// person must see (duplicate effects, unknowns, repeats), which brings the first into view;
// the tooltip names them all.
class TicketSummaryStrip : public QWidget
{
    Q_OBJECT

public:
    explicit TicketSummaryStrip(QWidget *parent = nullptr);

    void setSummary(const TranscriptSummary &summary);
    void clear();

signals:
    void callChosen(const QString &callId);

private:
    QLabel *m_writes;
    QHBoxLayout *m_links;
};

} // namespace verity

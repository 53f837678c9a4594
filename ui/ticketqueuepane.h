#pragma once

#include "store/records.h"

#include <QWidget>

class QButtonGroup;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;

namespace verity {

class ColumnFit;
class TicketQueueModel;

// The ticket queue: filter buttons, a search box and the table. Choosing a row (a click, the
// arrow keys) opens that ticket; focus, sorting and refreshing never do.
class TicketQueuePane : public QWidget
{
    Q_OBJECT

public:
    explicit TicketQueuePane(TicketQueueModel &model, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    QLineEdit *searchBox() const { return m_search; }
    void setFilter(TicketFilter filter);
    void selectTicket(qint64 ticketId);

signals:
    void ticketChosen(qint64 ticketId);

protected:
    // Down in the search box goes into the list it made.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QHBoxLayout *buildFilterButtons();
    void buildTable();
    void fitColumns();
    // Ticket and order ids are shown whole: their columns grow to the widest id read so far.
    void fitIdColumns();
    void showOpenTicket();
    void connectSearch();
    void updateCount();

    TicketQueueModel &m_model;
    QButtonGroup *m_filters;
    QLineEdit *m_search;
    QTimer *m_searchDelay;
    QTableView *m_table;
    QLabel *m_count;
    ColumnFit *m_fit = nullptr;
    int m_usualTicketWidth = 0; // "T-20260317-0412", what the ids give way to when squeezed
    int m_usualOrderWidth = 0; // "SU-88421"
    bool m_showingChosen = false; // selecting the ticket opened elsewhere: it is open already
    qint64 m_openTicket = 0; // the ticket the window shows, whose row is the highlighted one
};

} // namespace verity

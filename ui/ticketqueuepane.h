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

private:
    QHBoxLayout *buildFilterButtons();
    void buildTable();
    void fitColumns();
    void connectSearch();
    void updateCount();

    TicketQueueModel &m_model;
    QButtonGroup *m_filters;
    QLineEdit *m_search;
    QTimer *m_searchDelay;
    QTableView *m_table;
    QLabel *m_count;
    bool m_showingChosen = false; // selecting the ticket opened elsewhere: it is open already
};

} // namespace verity

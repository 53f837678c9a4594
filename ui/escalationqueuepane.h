#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace verity {

class EscalationQueueModel;

// Every unknown write, oldest first, with a headline count that is always in view.
class EscalationQueuePane : public QWidget
{
    Q_OBJECT

public:
    explicit EscalationQueuePane(EscalationQueueModel &model, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    QString headline() const;
    // The ticket in view changed: a row of another ticket stops being the chosen one, so that
    // nothing acts on a write that is not in front of the person.
    void ticketShown(qint64 ticketId);
    // Makes the escalation the chosen row, when it is among the rows read so far.
    void choose(qint64 escalationId);
    // Not empty: this user may not settle or claim here (a database they cannot write, or a
    // role without it); the buttons stay in view, greyed, saying why. Empty: they work.
    void setRefusal(const QString &reason);

signals:
    void escalationChosen(qint64 ticketId, const QString &callId);
    void lookupRequested(qint64 escalationId);
    void nextRequested(); // claim the oldest escalation nobody holds

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateHeadline();
    void fitIdColumns();

    EscalationQueueModel &m_model;
    QLabel *m_headline;
    QPushButton *m_lookup;
    QPushButton *m_next;
    QTableView *m_table;
};

// "9 unknown outcomes waiting", for the window's status bar and the dock's title.
QString escalationCountText(qint64 count);

} // namespace verity

#pragma once

#include "store/financerecords.h"

#include <QWidget>

#include <functional>
#include <optional>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace verity {

class DuplicatePayoutModel;
struct DuplicatePayout;

// Asks for a note: nullopt when the person cancels. A seam, so tests need no modal dialog.
using NotePrompt =
        std::function<std::optional<QString>(QWidget *parent, const QString &title, const QString &label)>;
// Asks where to save: an empty path when the person cancels.
using SaveFileChooser = std::function<QString(QWidget *parent, const QString &caption,
                                              const QString &suggestedName, const QString &filter)>;

// The duplicate payouts with what is at risk, and finance's marks on them: recovery requested,
// then recovered. Each mark is written with its audit-log entry.
class DuplicatePayoutsPane : public QWidget
{
    Q_OBJECT

public:
    DuplicatePayoutsPane(DuplicatePayoutModel &model, QWidget *parent = nullptr);

    void setNotePrompt(NotePrompt prompt) { m_prompt = std::move(prompt); }
    void setSaveFileChooser(SaveFileChooser chooser) { m_chooseSave = std::move(chooser); }
    void setOperatorName(std::function<QString()> name) { m_operator = std::move(name); }
    void setClock(std::function<qint64()> nowMs) { m_now = std::move(nowMs); }
    // Not empty: this user may not mark payouts; the buttons stay, greyed, saying why.
    void setMarkRefusal(const QString &reason);

    QTableView *table() const { return m_table; }
    QPushButton *openButton() const { return m_open; }
    QPushButton *requestButton() const { return m_request; }
    QString summaryText() const;
    QString statusText() const;
    // The duplicate of the table's current row, in the model's terms.
    const DuplicatePayout *currentDuplicate() const;
    void selectKey(const QString &key);
    void mark(RecoveryState state);

signals:
    void callChosen(qint64 ticketId, const QString &callExtId);
    void marked(); // a mark and its audit entry were written

private:
    void openCurrent();
    void exportCsv();
    void updateSummary();
    void updateButtons();
    void setStatus(const QString &text, bool bad);

    DuplicatePayoutModel &m_model;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_summary;
    QSpinBox *m_window;
    QTableView *m_table;
    QPushButton *m_open;
    QPushButton *m_request;
    QPushButton *m_recovered;
    QPushButton *m_export;
    QLabel *m_status;
    NotePrompt m_prompt;
    SaveFileChooser m_chooseSave;
    std::function<QString()> m_operator;
    std::function<qint64()> m_now;
    QString m_markRefusal;
};

} // namespace verity

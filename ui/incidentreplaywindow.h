#pragma once
// A ticket replayed for training: the steps in time order on the left, and for the step being
// looked at, what happened, what each layer knew, where the three retry mechanisms stood and
// the trainer's note. Step with the buttons, Alt+Left / Alt+Right (Alt+Home / Alt+End), the
// arrow keys in the list, or the scrubber. A note typed and not saved is asked about (save,
// discard, or stay) before the window moves to another step or closes.

#include <QWidget>

#include <functional>

class QGridLayout;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QTableView;

namespace verity {

class ReplayStepModel;
struct TimelineStep;

class IncidentReplayWindow : public QWidget
{
    Q_OBJECT

public:
    enum class UnsavedNoteAnswer { Save, Discard, Cancel };
    // Asks what to do with a note not saved yet (a question box by default; a seam for tests).
    using UnsavedNoteQuestion = std::function<UnsavedNoteAnswer(QWidget *parent, const QString &question)>;

    // `readOnly`: an incident export; notes are shown, not written.
    // `notesRefusal` not empty: notes are shown, not written, and the save button says why.
    IncidentReplayWindow(ReplayStepModel &model, const QString &notesRefusal, QWidget *parent = nullptr);

    void setOperatorName(QString name) { m_operator = std::move(name); }
    void setUnsavedNoteQuestion(UnsavedNoteQuestion question) { m_askUnsaved = std::move(question); }
    // The note editor holds text that differs from the step's saved note.
    bool hasUnsavedNote() const;
    // A line under the stepping controls, for what a command of this window did (an export).
    void showStatus(const QString &text);
    QString statusText() const;

    QTableView *stepList() const { return m_steps; }
    QSlider *scrubber() const { return m_scrubber; }
    QPushButton *backButton() const { return m_back; }
    QPushButton *forwardButton() const { return m_forward; }
    QPlainTextEdit *noteEditor() const { return m_note; }
    QPushButton *saveNoteButton() const { return m_saveNote; }
    QPushButton *exportButton() const { return m_export; }
    QLabel *positionLabel() const { return m_position; }
    // The text shown for a layer (0..4) or a retry mechanism (0..2) at the current step.
    QString layerText(int layer) const;
    QString retryText(int mechanism) const;

signals:
    void whatIfRequested(qint64 ticketId);
    void exportRequested(qint64 ticketId);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    // The window's parts, in the order they are made.
    void buildStepList();
    QWidget *buildDetailPane(const QString &notesRefusal);
    QGroupBox *buildLayerBox();
    QGroupBox *buildRetryBox();
    QGroupBox *buildNoteBox(const QString &notesRefusal);
    QHBoxLayout *buildStepping();
    void connectStepping();
    void addShortcuts();
    // Every way of stepping comes here: the step changes only once an unsaved note is settled.
    void goToStep(int row);
    // True when the window may leave the note: none unsaved, saved, or discarded.
    bool settleUnsavedNote();
    void showStep(int row);
    void showPositionOf(int row); // the scrubber and the list, without changing the note
    bool saveNote();

    ReplayStepModel &m_model;
    bool m_readOnly;
    bool m_showingPosition = false;
    QString m_operator;
    QTableView *m_steps;
    QLabel *m_title;
    QLabel *m_detail;
    QList<QLabel *> m_layerLabels;
    QList<QLabel *> m_retryLabels;
    QPlainTextEdit *m_note;
    QPushButton *m_saveNote;
    QLabel *m_noteStatus;
    QPushButton *m_back;
    QPushButton *m_forward;
    QSlider *m_scrubber;
    QLabel *m_position;
    QPushButton *m_whatIf;
    QPushButton *m_export;
    QLabel *m_status;
    UnsavedNoteQuestion m_askUnsaved;
};

} // namespace verity

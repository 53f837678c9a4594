#include "incidentreplaywindow.h"

#include "accessibletext.h"
#include "domain/displaytext.h"
#include "itemmodels/replaystepmodel.h"
#include "plaintextlabel.h"
#include "screenfit.h"
#include "theme.h"

#include <QCloseEvent>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSlider>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace verity {

namespace {

QLabel *wrapped(QLabel *label)
{
    label->setWordWrap(true);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return label;
}

// The question box that asks about a note not saved yet: Save the default, Escape cancels.
IncidentReplayWindow::UnsavedNoteAnswer askByQuestionBox(QWidget *parent, const QString &question)
{
    QMessageBox box(QMessageBox::Question, IncidentReplayWindow::tr("Unsaved note"), question,
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
    box.setTextFormat(Qt::PlainText);
    box.setDefaultButton(QMessageBox::Save);
    box.setEscapeButton(QMessageBox::Cancel);
    switch (box.exec()) {
    case QMessageBox::Save:
        return IncidentReplayWindow::UnsavedNoteAnswer::Save;
    case QMessageBox::Discard:
        return IncidentReplayWindow::UnsavedNoteAnswer::Discard;
    default:
        return IncidentReplayWindow::UnsavedNoteAnswer::Cancel;
    }
}

} // namespace

IncidentReplayWindow::IncidentReplayWindow(ReplayStepModel &model, const QString &notesRefusal,
                                           QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_model(model)
    , m_readOnly(!notesRefusal.isEmpty())
{
    m_askUnsaved = askByQuestionBox;
    const TicketDetail &ticket = model.ticket();
    setWindowTitle(
            tr("Replay %1 — %2%3")
                    .arg(ticket.row.extId, ticket.row.subject, m_readOnly ? tr(" (read-only)") : QString()));

    buildStepList();
    QWidget *detailPane = buildDetailPane(notesRefusal);
    auto *splitter = new QSplitter(this);
    splitter->addWidget(m_steps);
    splitter->addWidget(detailPane);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    QHBoxLayout *stepping = buildStepping();
    m_status = plainTextLabel(QString(), this);
    m_status->setObjectName(QStringLiteral("replayStatus"));
    m_status->hide();

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addLayout(stepping);
    layout->addWidget(m_status);

    connectStepping();
    addShortcuts();
    fitToScreen(*this, QSize(1280, 760));
    showStep(model.currentStep());
}

void IncidentReplayWindow::buildStepList()
{
    m_steps = new QTableView(this);
    m_steps->setModel(&m_model);
    describeForScreenReaders(m_steps, tr("Steps"),
                             tr("The incident's steps in time order; choose one to see it"));
    m_steps->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_steps->setSelectionMode(QAbstractItemView::SingleSelection);
    m_steps->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_steps->verticalHeader()->hide();
    m_steps->horizontalHeader()->setSectionResizeMode(ReplayStepModel::StepColumn, QHeaderView::Stretch);
    m_steps->horizontalHeader()->setSectionResizeMode(ReplayStepModel::TimeColumn,
                                                      QHeaderView::ResizeToContents);
    m_steps->horizontalHeader()->setSectionResizeMode(ReplayStepModel::LayerColumn,
                                                      QHeaderView::ResizeToContents);
    m_steps->setWordWrap(false);
}

// The step being looked at: what happened, what each layer knew, the retries, the note.
QWidget *IncidentReplayWindow::buildDetailPane(const QString &notesRefusal)
{
    m_title = wrapped(plainTextLabel(QString(), this));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_detail = wrapped(plainTextLabel(QString(), this));
    QGroupBox *layers = buildLayerBox();
    QGroupBox *retries = buildRetryBox();
    QGroupBox *notes = buildNoteBox(notesRefusal);

    auto *detailPane = new QWidget(this);
    auto *detailLayout = new QVBoxLayout(detailPane);
    detailLayout->addWidget(m_title);
    detailLayout->addWidget(m_detail);
    detailLayout->addWidget(layers);
    detailLayout->addWidget(retries);
    detailLayout->addWidget(notes);
    detailLayout->addStretch(1);
    return detailPane;
}

QGroupBox *IncidentReplayWindow::buildLayerBox()
{
    auto *layers = new QGroupBox(tr("What each layer knew at this moment"), this);
    auto *layerGrid = new QGridLayout(layers);
    int row = 0;
    for (ReplayLayer layer : allReplayLayers) {
        layerGrid->addWidget(new QLabel(replayLayerName(layer), layers), row, 0, Qt::AlignTop);
        QLabel *text = wrapped(plainTextLabel(QString(), layers));
        text->setAccessibleDescription(tr("What %1 knew at this step").arg(replayLayerName(layer)));
        // Two lines each, always: a group box does not grow rows for wrapped text on its own.
        text->setMinimumHeight(2 * text->fontMetrics().lineSpacing() + 2);
        m_layerLabels.append(text);
        layerGrid->addWidget(text, row++, 1);
    }
    layerGrid->setColumnStretch(1, 1);
    return layers;
}

QGroupBox *IncidentReplayWindow::buildRetryBox()
{
    auto *retries = new QGroupBox(tr("Retry mechanisms: who retried, and what each could not see"), this);
    auto *retryGrid = new QGridLayout(retries);
    int row = 0;
    for (RetryMechanism mechanism : allRetryMechanisms) {
        retryGrid->addWidget(new QLabel(retryMechanismName(mechanism), retries), row, 0, Qt::AlignTop);
        QLabel *text = wrapped(plainTextLabel(QString(), retries));
        text->setAccessibleDescription(tr("What %1 did at this step").arg(retryMechanismName(mechanism)));
        m_retryLabels.append(text);
        retryGrid->addWidget(text, row++, 1);
    }
    retryGrid->setColumnStretch(1, 1);
    return retries;
}

QGroupBox *IncidentReplayWindow::buildNoteBox(const QString &notesRefusal)
{
    auto *notes = new QGroupBox(tr("Trainer's note on this step"), this);
    auto *noteLayout = new QVBoxLayout(notes);
    m_note = new QPlainTextEdit(notes);
    m_note->setPlaceholderText(m_readOnly ? tr("No note on this step.") : tr("What to point out here…"));
    m_note->setReadOnly(m_readOnly);
    m_note->setMaximumHeight(90);
    describeForScreenReaders(m_note, tr("Trainer's note"), tr("A note on this step, saved with the ticket"));
    m_saveNote = new QPushButton(tr("Save note"), notes);
    m_saveNote->setEnabled(!m_readOnly);
    m_saveNote->setToolTip(m_readOnly ? notesRefusal : tr("Saved with the ticket (Ctrl+S)"));
    m_noteStatus = plainTextLabel(QString(), notes, false);
    auto *noteButtons = new QHBoxLayout;
    noteButtons->addWidget(m_saveNote);
    noteButtons->addWidget(m_noteStatus, 1);
    noteLayout->addWidget(m_note);
    noteLayout->addLayout(noteButtons);
    return notes;
}

QHBoxLayout *IncidentReplayWindow::buildStepping()
{
    m_back = new QPushButton(tr("◀ Back"), this);
    m_back->setToolTip(tr("Previous step (Alt+Left)"));
    m_forward = new QPushButton(tr("Forward ▶"), this);
    m_forward->setToolTip(tr("Next step (Alt+Right)"));
    m_scrubber = new QSlider(Qt::Horizontal, this);
    m_scrubber->setRange(0, qMax(0, m_model.rowCount() - 1));
    m_scrubber->setPageStep(5);
    describeForScreenReaders(m_scrubber, tr("Step"), tr("Moves through the incident one step at a time"));
    m_position = plainTextLabel(QString(), this, false);
    m_position->setWordWrap(false);
    m_position->setMinimumWidth(
            m_position->fontMetrics().horizontalAdvance(QStringLiteral("Step 888 of 888 · 00:00:00.000")));
    m_whatIf = new QPushButton(tr("What if…"), this);
    m_whatIf->setToolTip(
            tr("Run this ticket again in the simulator, as shipped and with intent keys, side by side"));
    m_export = new QPushButton(tr("Export incident…"), this);
    m_export->setToolTip(tr("One read-only file with the buyer's personal data redacted"));
    auto *stepping = new QHBoxLayout;
    stepping->addWidget(m_back);
    stepping->addWidget(m_scrubber, 1);
    stepping->addWidget(m_forward);
    stepping->addWidget(m_position);
    stepping->addSpacing(12);
    stepping->addWidget(m_whatIf);
    stepping->addWidget(m_export);
    return stepping;
}

void IncidentReplayWindow::connectStepping()
{
    connect(m_back, &QPushButton::clicked, this, [this] { goToStep(m_model.currentStep() - 1); });
    connect(m_forward, &QPushButton::clicked, this, [this] { goToStep(m_model.currentStep() + 1); });
    connect(m_scrubber, &QSlider::valueChanged, this, &IncidentReplayWindow::goToStep);
    connect(m_steps->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid() && !m_showingPosition)
                    goToStep(current.row());
            });
    connect(&m_model, &ReplayStepModel::currentStepChanged, this, &IncidentReplayWindow::showStep);
    connect(m_saveNote, &QPushButton::clicked, this, &IncidentReplayWindow::saveNote);
    connect(m_whatIf, &QPushButton::clicked, this, [this] { emit whatIfRequested(m_model.ticketId()); });
    connect(m_export, &QPushButton::clicked, this, [this] { emit exportRequested(m_model.ticketId()); });
}

// Window-wide keys that a text field does not want for itself.
void IncidentReplayWindow::addShortcuts()
{
    const auto shortcut = [this](const QKeySequence &keys, auto slot) {
        auto *s = new QShortcut(keys, this);
        s->setContext(Qt::WindowShortcut);
        connect(s, &QShortcut::activated, this, slot);
    };
    shortcut(QKeySequence(Qt::ALT | Qt::Key_Right), [this] { goToStep(m_model.currentStep() + 1); });
    shortcut(QKeySequence(Qt::ALT | Qt::Key_Left), [this] { goToStep(m_model.currentStep() - 1); });
    shortcut(QKeySequence(Qt::ALT | Qt::Key_Home), [this] { goToStep(0); });
    shortcut(QKeySequence(Qt::ALT | Qt::Key_End), [this] { goToStep(m_model.rowCount() - 1); });
    if (!m_readOnly)
        shortcut(QKeySequence::Save, [this] { saveNote(); });
    // A window of its own closes as others do; closing asks first about an unsaved note.
    QList<QKeySequence> closing = QKeySequence::keyBindings(QKeySequence::Close);
    for (const QKeySequence &keys : {QKeySequence(Qt::CTRL | Qt::Key_W), QKeySequence(Qt::Key_Escape)}) {
        if (!closing.contains(keys))
            closing.append(keys);
    }
    auto *closer = new QShortcut(this);
    closer->setKeys(closing);
    closer->setContext(Qt::WindowShortcut);
    connect(closer, &QShortcut::activated, this, &QWidget::close);
}

QString IncidentReplayWindow::layerText(int layer) const
{
    return layer >= 0 && layer < m_layerLabels.size() ? m_layerLabels.at(layer)->text() : QString();
}

QString IncidentReplayWindow::retryText(int mechanism) const
{
    return mechanism >= 0 && mechanism < m_retryLabels.size() ? m_retryLabels.at(mechanism)->text()
                                                              : QString();
}

bool IncidentReplayWindow::hasUnsavedNote() const
{
    // Saving trims the text, so only a difference beyond spaces is unsaved.
    return !m_readOnly && m_model.step(m_model.currentStep())
            && m_note->toPlainText().trimmed() != m_model.note(m_model.currentStep());
}

void IncidentReplayWindow::showStatus(const QString &text)
{
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
}

QString IncidentReplayWindow::statusText() const
{
    return m_status->text();
}

bool IncidentReplayWindow::settleUnsavedNote()
{
    if (!hasUnsavedNote())
        return true;
    const TimelineStep *step = m_model.step(m_model.currentStep());
    const QString question = tr("The note on step %1 (%2) is not saved. Save it before you go on?")
                                     .arg(m_model.currentStep() + 1)
                                     .arg(step->title);
    switch (m_askUnsaved(this, question)) {
    case UnsavedNoteAnswer::Save:
        return saveNote();
    case UnsavedNoteAnswer::Discard:
        return true;
    case UnsavedNoteAnswer::Cancel:
        return false;
    }
    Q_UNREACHABLE();
}

void IncidentReplayWindow::goToStep(int row)
{
    if (m_model.rowCount() == 0)
        return;
    row = qBound(0, row, m_model.rowCount() - 1);
    if (row == m_model.currentStep())
        return;
    if (!settleUnsavedNote()) {
        // Where the person stays, with their text: now, and again once a click that asked has
        // finished selecting the row it was on.
        showPositionOf(m_model.currentStep());
        QMetaObject::invokeMethod(
                this, [this] { showPositionOf(m_model.currentStep()); }, Qt::QueuedConnection);
        return;
    }
    m_model.setCurrentStep(row);
}

void IncidentReplayWindow::closeEvent(QCloseEvent *event)
{
    if (settleUnsavedNote())
        event->accept();
    else
        event->ignore();
}

void IncidentReplayWindow::showStep(int row)
{
    const TimelineStep *step = m_model.step(row);
    m_back->setEnabled(step && row > 0);
    m_forward->setEnabled(step && row + 1 < m_model.rowCount());
    if (!step) {
        m_title->setText(tr("This ticket has no steps to replay."));
        return;
    }
    m_position->setText(m_model.hasTimes() ? tr("Step %1 of %2 · %3")
                                                     .arg(row + 1)
                                                     .arg(m_model.rowCount())
                                                     .arg(formatStepTime(step->at))
                                           : tr("Step %1 of %2").arg(row + 1).arg(m_model.rowCount()));
    m_title->setText(step->title);
    m_detail->setText(step->detail
                      + (step->inferred ? tr("\n(Inferred: no line of this layer was logged.)") : QString()));
    for (int i = 0; i < step->knowledge.size() && i < m_layerLabels.size(); ++i) {
        QLabel *label = m_layerLabels.at(i);
        label->setText(step->knowledge.at(i).knows);
        QFont font = label->font();
        font.setBold(step->knowledge.at(i).changed); // what this step changed stands out
        label->setFont(font);
    }
    for (int i = 0; i < step->retries.size() && i < m_retryLabels.size(); ++i) {
        const RetryStanding &r = step->retries.at(i);
        QLabel *label = m_retryLabels.at(i);
        label->setText((r.retried ? tr("RETRIED. ") : QString()) + r.standing + tr("\nCould not see: ")
                       + r.blindTo);
        label->setStyleSheet(r.retried ? theme::status(theme::Tone::Bad, false) : QString());
    }
    m_note->setPlainText(m_model.note(row));
    m_noteStatus->clear();
    showPositionOf(row);
}

void IncidentReplayWindow::showPositionOf(int row)
{
    {
        const QSignalBlocker block(m_scrubber);
        m_scrubber->setValue(row);
    }
    const QModelIndex index = m_model.index(row, ReplayStepModel::StepColumn);
    const QItemSelectionModel *selection = m_steps->selectionModel();
    if (selection->currentIndex().row() != row || selection->selectedRows().size() != 1
        || !selection->isRowSelected(row)) {
        // Not a signal blocker: the view itself listens to the selection model and must repaint.
        m_showingPosition = true;
        m_steps->selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_showingPosition = false;
    }
    m_steps->scrollTo(index);
}

bool IncidentReplayWindow::saveNote()
{
    if (m_readOnly)
        return false;
    const int row = m_model.currentStep();
    Expected<void> saved = m_model.setNote(row, m_note->toPlainText(), m_operator);
    m_noteStatus->setText(saved ? tr("Saved with the ticket.") : tr("Not saved: %1").arg(saved.message()));
    return saved.ok();
}

} // namespace verity

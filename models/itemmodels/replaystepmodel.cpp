#include "replaystepmodel.h"

#include "domain/displaytext.h"
#include "domain/hiddencharacters.h"
#include "store/store.h"

#include <QDateTime>
#include <QFont>
#include <QTextDocument>

namespace verity {

ReplayStepModel::ReplayStepModel(ReplayStore &store, QObject *parent)
    : QAbstractTableModel(parent)
    , m_store(store)
    , m_now([] { return QDateTime::currentMSecsSinceEpoch(); })
{}

Expected<void> ReplayStepModel::load(qint64 ticketId)
{
    Expected<TicketDetail> ticket = m_store.existingTicket(ticketId);
    if (!ticket)
        return ticket.error();
    Expected<QList<TranscriptEntry>> transcript = m_store.transcript(ticketId);
    if (!transcript)
        return transcript.error();
    Expected<QList<TraceEvent>> traces = m_store.traceEvents(ticketId);
    if (!traces)
        return traces.error();
    Expected<QList<TrainerNote>> notes = m_store.trainerNotes(ticketId);
    if (!notes)
        return notes.error();

    beginResetModel();
    m_ticketId = ticketId;
    m_ticket = *ticket;
    m_timeline = buildIncidentTimeline(m_ticket, *transcript, *traces);
    m_notes.clear();
    for (const TrainerNote &note : *notes)
        m_notes.insert(note.stepKey, note);
    m_current = m_timeline.steps.isEmpty() ? -1 : 0;
    endResetModel();
    emit currentStepChanged(m_current);
    return {};
}

const TimelineStep *ReplayStepModel::step(int row) const
{
    return row >= 0 && row < m_timeline.steps.size() ? &m_timeline.steps.at(row) : nullptr;
}

void ReplayStepModel::setCurrentStep(int row)
{
    if (m_timeline.steps.isEmpty())
        return;
    row = qBound(0, row, int(m_timeline.steps.size()) - 1);
    if (row == m_current)
        return;
    const int before = m_current;
    m_current = row;
    if (before >= 0)
        emit dataChanged(index(before, 0), index(before, ColumnCount - 1));
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    emit currentStepChanged(row);
}

QString ReplayStepModel::note(int row) const
{
    const TimelineStep *s = step(row);
    return s ? m_notes.value(s->key).text : QString();
}

Expected<void> ReplayStepModel::setNote(int row, const QString &text, const QString &author)
{
    const TimelineStep *s = step(row);
    if (!s)
        return makeError(QStringLiteral("there is no step %1 to note").arg(row + 1));
    // A note is shown to every trainer after: a right-to-left override would make it read as
    // something else, so it is refused with the character and its place.
    if (Expected<void> shown = checkShownAsTyped(QStringLiteral("the note"), text, LineBreaks::Allowed);
        !shown)
        return shown.error();
    const TrainerNote note{s->key, text.trimmed(), author, m_now()};
    if (Expected<void> saved = m_store.saveTrainerNote(m_ticketId, note); !saved)
        return saved.error();
    if (note.text.isEmpty())
        m_notes.remove(s->key);
    else
        m_notes.insert(s->key, note);
    emit dataChanged(index(row, NoteColumn), index(row, NoteColumn));
    return {};
}

int ReplayStepModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_timeline.steps.size());
}

int ReplayStepModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReplayStepModel::data(const QModelIndex &index, int role) const
{
    const TimelineStep *s = index.isValid() ? step(index.row()) : nullptr;
    if (!s)
        return {};
    if (role == LayerRole)
        return int(s->layer);
    if (role == InferredRole)
        return s->inferred;
    if (role == Qt::FontRole && index.row() == m_current) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole && index.column() == StepColumn)
        return Qt::convertFromPlainText(s->detail); // a tooltip would render markup in transcript text
    if (role == Qt::ToolTipRole && index.column() == TimeColumn && !hasTimes())
        return tr("The transcript has no times: the steps are in the order it gives them");
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    // A transcript without times would show one made-up time on every step.
    case TimeColumn:
        return hasTimes() ? formatStepTime(s->at) : QStringLiteral("—");
    case LayerColumn:
        return replayLayerName(s->layer);
    case StepColumn:
        return s->inferred ? s->title + QStringLiteral(" [inferred]") : s->title;
    case NoteColumn:
        return m_notes.value(s->key).text.simplified();
    }
    return {};
}

QVariant ReplayStepModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time (UTC)");
    case LayerColumn:
        return tr("Layer");
    case StepColumn:
        return tr("What happened");
    case NoteColumn:
        return tr("Trainer's note");
    }
    return {};
}

} // namespace verity

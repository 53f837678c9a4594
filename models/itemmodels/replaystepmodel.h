#pragma once
// A ticket's replay, one row per step (time, layer, what happened, the trainer's note), with
// the step being looked at. Trainers' notes are saved with the ticket in the store; a
// read-only store (an incident export) shows them and refuses new ones.

#include "domain/expected.h"
#include "replay/incidenttimeline.h"

#include <QAbstractTableModel>
#include <QHash>

#include <functional>

namespace verity {

class ReplayStore;

class ReplayStepModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { TimeColumn, LayerColumn, StepColumn, NoteColumn, ColumnCount };
    enum Role { LayerRole = Qt::UserRole, InferredRole };

    explicit ReplayStepModel(ReplayStore &store, QObject *parent = nullptr);

    // Reads the ticket's transcript, trace lines and notes; the first step becomes current.
    Expected<void> load(qint64 ticketId);
    qint64 ticketId() const { return m_ticketId; }
    const IncidentTimeline &timeline() const { return m_timeline; }
    const TicketDetail &ticket() const { return m_ticket; }
    // False when the transcript had no times and the ticket is dated by its file.
    bool hasTimes() const { return m_ticket.row.dating == TicketDating::OwnTimes; }
    const TimelineStep *step(int row) const;

    int currentStep() const { return m_current; }
    void setCurrentStep(int row); // clamped to the steps there are
    void stepForward() { setCurrentStep(m_current + 1); }
    void stepBack() { setCurrentStep(m_current - 1); }

    QString note(int row) const;
    // Saves (empty text removes) the note of a step, with who wrote it and when.
    Expected<void> setNote(int row, const QString &text, const QString &author);
    void setClock(std::function<qint64()> nowMs) { m_now = std::move(nowMs); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void currentStepChanged(int row);

private:
    ReplayStore &m_store;
    qint64 m_ticketId = 0;
    TicketDetail m_ticket;
    IncidentTimeline m_timeline;
    QHash<QString, TrainerNote> m_notes; // by step key
    int m_current = -1;
    std::function<qint64()> m_now;
};

} // namespace verity

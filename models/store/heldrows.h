#pragma once
// What an import adds for the tickets it opens, held in memory until the transaction ends and
// then written a table at a time (PostgreSQL's COPY): a statement per row costs a round trip to
// the server, which is most of an import's time there. The import reads none of these rows
// back before they are written; what it asks of them (a ticket by its name, whether a message
// is stored already, a call's result) is answered from here.
//
// Plain data: the rows, the point a savepoint marks, and the text the server reads them in.

#include "domain/ticketassessment.h"
#include "records.h"
#include "tracerecords.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>

#include <optional>

namespace verity {

class HeldRows
{
public:
    struct Ticket
    {
        qint64 id = 0;
        NewTicket ticket;
        qint64 lastSeq = 0;
        std::optional<TicketAssessment> assessment; // its summary, once assessed
    };
    struct Call
    {
        qint64 id = 0;
        NewToolCall call;
        std::optional<ToolResultUpdate> result;
        bool repeated = false;
        std::optional<RepeatLink> repeat;
    };
    // How far each kind of row had come when a savepoint was taken.
    struct Mark
    {
        qsizetype tickets = 0, calls = 0, messages = 0, traceEvents = 0, escalate = 0;
    };

    bool isEmpty() const;
    Mark mark() const;

    // A ticket opened in this transaction: its rows are held, even after it was written.
    bool isNewTicket(qint64 ticketId) const { return m_newTickets.contains(ticketId); }
    // A held (not yet written) ticket by its name, compared as the store's CITEXT column does.
    const Ticket *findTicket(const QString &extId) const;
    Ticket *heldTicket(qint64 ticketId);
    Call *heldCall(qint64 callId);
    // Where the call is held (to compare with a mark), or -1.
    qsizetype callIndex(qint64 callId) const { return m_callById.value(callId, -1); }
    // The seq of the held ticket's last held event.
    qint64 lastSeqOf(qint64 ticketId) const;

    void addTicket(qint64 id, const NewTicket &ticket);
    // False when the ticket has a message (or trace event) of that fingerprint already, as the
    // table's unique key would say.
    bool addMessage(const NewMessage &message);
    bool addTraceEvent(const NewTraceEvent &event);
    void addCall(qint64 id, const NewToolCall &call, std::optional<ToolResultUpdate> result);
    // Its escalations are opened once its calls are written.
    void escalateAfterWriting(qint64 ticketId) { m_escalate.append(ticketId); }

    // Everything added after `mark` forgotten, as ROLLBACK TO forgets it in the database.
    void rollBackTo(const Mark &mark);
    // The rows before `upTo` (by default all), taken out to be written; what is held after
    // stays, its mark moved down to match.
    struct Batch
    {
        QList<Ticket> tickets;
        QList<Call> calls;
        QList<NewMessage> messages;
        QList<NewTraceEvent> traceEvents;
        QList<qint64> escalate;
    };
    Batch take(std::optional<Mark> upTo = std::nullopt);
    // The fingerprints and names of what was written since a savepoint became a real one: a
    // rollback to it forgets them too.
    void forgetWritten(const Batch &batch);
    // The transaction ended: nothing is new any more.
    void clear();

private:
    QList<Ticket> m_tickets;
    QHash<QString, qsizetype> m_ticketByName; // folded name -> index in m_tickets
    QHash<qint64, qsizetype> m_ticketById;
    QList<Call> m_calls;
    QHash<qint64, qsizetype> m_callById;
    QList<NewMessage> m_messages;
    QList<NewTraceEvent> m_traceEvents;
    QList<qint64> m_escalate;
    QSet<qint64> m_newTickets;
    QSet<std::pair<qint64, QString>> m_messageKeys; // (ticket, fingerprint), written or held
    QSet<std::pair<qint64, QString>> m_traceKeys;
};

// COPY's text format (one row a line, tab between fields, \N for NULL) of the batch's rows,
// with the columns named in the same order.
namespace copytext {
extern const char ticketColumns[];
extern const char callColumns[];
extern const char messageColumns[];
extern const char traceColumns[];
QByteArray tickets(const QList<HeldRows::Ticket> &tickets);
QByteArray calls(const QList<HeldRows::Call> &calls);
QByteArray messages(const QList<NewMessage> &messages);
QByteArray traceEvents(const QList<NewTraceEvent> &events);
// PostgreSQL's array literal of texts ({"a","b",NULL}), for unnest(): a null QString is NULL.
QByteArray textArray(const QStringList &values);
} // namespace copytext

} // namespace verity

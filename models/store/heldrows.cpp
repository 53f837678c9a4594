#include "heldrows.h"

#include "domain/outcome.h"
#include "domain/toolclass.h"
#include "ticketsummary.h"

namespace verity {

bool HeldRows::isEmpty() const
{
    return m_tickets.isEmpty() && m_calls.isEmpty() && m_messages.isEmpty() && m_traceEvents.isEmpty()
            && m_escalate.isEmpty();
}

HeldRows::Mark HeldRows::mark() const
{
    return Mark{m_tickets.size(), m_calls.size(), m_messages.size(), m_traceEvents.size(), m_escalate.size()};
}

const HeldRows::Ticket *HeldRows::findTicket(const QString &extId) const
{
    const auto found = m_ticketByName.constFind(extId.toLower());
    return found == m_ticketByName.cend() ? nullptr : &m_tickets.at(*found);
}

HeldRows::Ticket *HeldRows::heldTicket(qint64 ticketId)
{
    const auto found = m_ticketById.constFind(ticketId);
    return found == m_ticketById.cend() ? nullptr : &m_tickets[*found];
}

HeldRows::Call *HeldRows::heldCall(qint64 callId)
{
    const auto found = m_callById.constFind(callId);
    return found == m_callById.cend() ? nullptr : &m_calls[*found];
}

qint64 HeldRows::lastSeqOf(qint64 ticketId) const
{
    qint64 last = 0;
    for (const Call &call : m_calls)
        last = call.call.ticketId == ticketId ? qMax(last, call.call.seq) : last;
    for (const NewMessage &message : m_messages)
        last = message.ticketId == ticketId ? qMax(last, message.seq) : last;
    for (const NewTraceEvent &event : m_traceEvents)
        last = event.ticketId == ticketId ? qMax(last, event.event.seq) : last;
    return last;
}

void HeldRows::addTicket(qint64 id, const NewTicket &ticket)
{
    m_ticketByName.insert(ticket.extId.toLower(), m_tickets.size());
    m_ticketById.insert(id, m_tickets.size());
    m_tickets.append(Ticket{id, ticket, 0, std::nullopt});
    m_newTickets.insert(id);
}

bool HeldRows::addMessage(const NewMessage &message)
{
    const std::pair<qint64, QString> key{message.ticketId, message.fingerprint};
    if (m_messageKeys.contains(key))
        return false;
    m_messageKeys.insert(key);
    m_messages.append(message);
    return true;
}

bool HeldRows::addTraceEvent(const NewTraceEvent &event)
{
    const std::pair<qint64, QString> key{event.ticketId, event.fingerprint};
    if (m_traceKeys.contains(key))
        return false;
    m_traceKeys.insert(key);
    m_traceEvents.append(event);
    return true;
}

void HeldRows::addCall(qint64 id, const NewToolCall &call, std::optional<ToolResultUpdate> result)
{
    m_callById.insert(id, m_calls.size());
    m_calls.append(Call{id, call, std::move(result), false, std::nullopt});
}

void HeldRows::rollBackTo(const Mark &mark)
{
    for (qsizetype i = mark.tickets; i < m_tickets.size(); ++i) {
        m_ticketByName.remove(m_tickets.at(i).ticket.extId.toLower());
        m_ticketById.remove(m_tickets.at(i).id);
        m_newTickets.remove(m_tickets.at(i).id);
    }
    m_tickets.resize(qMin(mark.tickets, m_tickets.size()));
    for (qsizetype i = mark.calls; i < m_calls.size(); ++i)
        m_callById.remove(m_calls.at(i).id);
    m_calls.resize(qMin(mark.calls, m_calls.size()));
    for (qsizetype i = mark.messages; i < m_messages.size(); ++i)
        m_messageKeys.remove({m_messages.at(i).ticketId, m_messages.at(i).fingerprint});
    m_messages.resize(qMin(mark.messages, m_messages.size()));
    for (qsizetype i = mark.traceEvents; i < m_traceEvents.size(); ++i)
        m_traceKeys.remove({m_traceEvents.at(i).ticketId, m_traceEvents.at(i).fingerprint});
    m_traceEvents.resize(qMin(mark.traceEvents, m_traceEvents.size()));
    m_escalate.resize(qMin(mark.escalate, m_escalate.size()));
}

namespace {

// The first `count` of `rows` moved out, the rest left.
template<typename T>
QList<T> takeFirst(QList<T> &rows, qsizetype count)
{
    if (count >= rows.size())
        return std::exchange(rows, {});
    QList<T> taken(rows.cbegin(), rows.cbegin() + count);
    rows.remove(0, count);
    return taken;
}

} // namespace

HeldRows::Batch HeldRows::take(std::optional<Mark> upTo)
{
    const Mark all = mark();
    const Mark &to = upTo ? *upTo : all;
    Batch batch;
    batch.tickets = takeFirst(m_tickets, to.tickets);
    batch.calls = takeFirst(m_calls, to.calls);
    batch.messages = takeFirst(m_messages, to.messages);
    batch.traceEvents = takeFirst(m_traceEvents, to.traceEvents);
    batch.escalate = takeFirst(m_escalate, to.escalate);
    // What stays moved to the front: its indexes again.
    m_ticketByName.clear();
    m_ticketById.clear();
    for (qsizetype i = 0; i < m_tickets.size(); ++i) {
        m_ticketByName.insert(m_tickets.at(i).ticket.extId.toLower(), i);
        m_ticketById.insert(m_tickets.at(i).id, i);
    }
    m_callById.clear();
    for (qsizetype i = 0; i < m_calls.size(); ++i)
        m_callById.insert(m_calls.at(i).id, i);
    return batch;
}

void HeldRows::forgetWritten(const Batch &batch)
{
    for (const Ticket &ticket : batch.tickets)
        m_newTickets.remove(ticket.id);
    for (const NewMessage &message : batch.messages)
        m_messageKeys.remove({message.ticketId, message.fingerprint});
    for (const NewTraceEvent &event : batch.traceEvents)
        m_traceKeys.remove({event.ticketId, event.fingerprint});
}

void HeldRows::clear()
{
    *this = HeldRows();
}

namespace copytext {

const char ticketColumns[] =
        "id, ext_id, order_id, seller_id, seller_name, subject, opened_at, fingerprint, "
        "seller_balance_cents, "
        "seller_balance_as_of, source_format, registry, task, origin, dated_by, last_seq, write_count, "
        "worst_outcome, needs_attention, has_unknown, has_repeat, duplicate_effects, retry_count, "
        "harmless_repeats, unsettled_repeats, duplicate_cents, attention_rank, in_flight";
const char callColumns[] =
        "id, ticket_id, seq, call_ext_id, tool, tool_class, arguments, called_at, intent_key, intent_error, "
        "amount_cents, amount_error, outcome, outcome_reason, fingerprint, raw_result, result_at, "
        "duration_ms, "
        "read_failed, result_fingerprint, result_error, result_error_type, repeated, repeat_kind, repeat_of, "
        "class_inferred";
const char messageColumns[] = "ticket_id, seq, at, kind, text, fingerprint";
const char traceColumns[] = "ticket_id, seq, at, kind, call_ext_id, detail, fingerprint";

namespace {

// A row's fields, each after a tab but the first; the row ends with a newline.
class Row
{
public:
    explicit Row(QByteArray &out)
        : m_out(out)
    {}
    ~Row() { m_out += '\n'; }

    void null()
    {
        separate();
        m_out += "\\N";
    }
    void number(qint64 value)
    {
        separate();
        m_out += QByteArray::number(value);
    }
    void number(const std::optional<qint64> &value) { value ? number(*value) : null(); }
    // A null QString is NULL, as QtSql binds it.
    void text(const QString &value)
    {
        if (value.isNull())
            return null();
        separate();
        const QByteArray utf8 = value.toUtf8();
        for (const char c : utf8) {
            switch (c) {
            case '\\':
                m_out += "\\\\";
                break;
            case '\t':
                m_out += "\\t";
                break;
            case '\n':
                m_out += "\\n";
                break;
            case '\r':
                m_out += "\\r";
                break;
            default:
                m_out += c;
            }
        }
    }
    // Empty is NULL, as nullableText() binds it.
    void optionalText(const QString &value) { value.isEmpty() ? null() : text(value); }

private:
    void separate()
    {
        if (m_first)
            m_first = false;
        else
            m_out += '\t';
    }

    QByteArray &m_out;
    bool m_first = true;
};

} // namespace

QByteArray tickets(const QList<HeldRows::Ticket> &tickets)
{
    QByteArray out;
    for (const HeldRows::Ticket &held : tickets) {
        const NewTicket &t = held.ticket;
        Row row(out);
        row.number(held.id);
        row.text(t.extId);
        row.optionalText(t.order.id);
        row.optionalText(t.seller.id);
        t.seller.id.isEmpty() ? row.null() : row.text(t.seller.name);
        row.text(t.subject.isNull() ? QStringLiteral("") : t.subject);
        row.number(t.openedAt);
        row.text(t.fingerprint);
        row.number(t.seller.balanceCents);
        t.seller.id.isEmpty() ? row.null() : row.number(t.seller.balanceAsOf);
        row.text(t.sourceFormat);
        row.text(t.registry);
        row.optionalText(t.task);
        row.optionalText(t.origin);
        row.optionalText(ticketDatingId(t.dating));
        if (held.assessment) {
            for (const SummaryColumn &column : ticketSummaryColumns(held.lastSeq, *held.assessment))
                row.number(column.value);
        } else {
            for (std::size_t i = 0; i < std::tuple_size_v<SummaryColumns>; ++i)
                row.number(0);
        }
    }
    return out;
}

QByteArray calls(const QList<HeldRows::Call> &calls)
{
    QByteArray out;
    for (const HeldRows::Call &held : calls) {
        const NewToolCall &c = held.call;
        const ToolResultUpdate *result = held.result ? &*held.result : nullptr;
        // The result's outcome replaces the call's.
        const std::optional<Outcome> outcome = result ? result->outcome : c.outcome;
        Row row(out);
        row.number(held.id);
        row.number(c.ticketId);
        row.number(c.seq);
        row.text(c.callExtId);
        row.text(c.tool);
        row.text(toolClassId(c.toolClass));
        row.text(c.argumentsJson);
        row.number(c.calledAt);
        row.optionalText(c.intentKey);
        row.optionalText(c.intentError);
        row.number(c.amountCents);
        row.optionalText(c.amountError);
        outcome ? row.text(outcomeId(*outcome)) : row.null();
        row.optionalText(result ? result->outcomeReason : c.outcomeReason);
        row.text(c.fingerprint);
        if (result) {
            row.text(result->rawResult);
            row.number(result->at);
            row.number(result->durationMs);
            row.number(result->readFailed ? 1 : 0);
            row.text(result->fingerprint);
            row.number(result->errorFlag ? 1 : 0);
            row.optionalText(result->errorType);
        } else {
            row.null();
            row.null();
            row.null();
            row.number(0);
            row.null();
            row.number(0);
            row.null();
        }
        row.number(held.repeated ? 1 : 0);
        held.repeat ? row.text(repeatKindId(held.repeat->kind)) : row.null();
        held.repeat ? row.number(held.repeat->repeatOf) : row.null();
        row.optionalText(c.classInferred);
    }
    return out;
}

QByteArray messages(const QList<NewMessage> &messages)
{
    QByteArray out;
    for (const NewMessage &m : messages) {
        Row row(out);
        row.number(m.ticketId);
        row.number(m.seq);
        row.number(m.at);
        row.text(messageKindId(m.kind));
        row.text(m.text);
        row.text(m.fingerprint);
    }
    return out;
}

QByteArray traceEvents(const QList<NewTraceEvent> &events)
{
    QByteArray out;
    for (const NewTraceEvent &e : events) {
        Row row(out);
        row.number(e.ticketId);
        row.number(e.event.seq);
        row.number(e.event.at);
        row.text(traceKindId(e.event.kind));
        // A provider event need not name a call; an absent id is stored empty.
        row.text(e.event.callExtId.isNull() ? QStringLiteral("") : e.event.callExtId);
        row.text(traceDetailJson(e.event));
        row.text(e.fingerprint);
    }
    return out;
}

QByteArray textArray(const QStringList &values)
{
    QByteArray out = "{";
    for (qsizetype i = 0; i < values.size(); ++i) {
        if (i > 0)
            out += ',';
        if (values.at(i).isNull()) {
            out += "NULL";
            continue;
        }
        out += '"';
        for (const char c : values.at(i).toUtf8()) {
            if (c == '"' || c == '\\')
                out += '\\';
            out += c;
        }
        out += '"';
    }
    out += '}';
    return out;
}

} // namespace copytext

} // namespace verity

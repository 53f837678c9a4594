// The import path on PostgreSQL: while the importer holds new tickets' rows (HeldRows), each
// call below answers from what is held, and the rows reach the server a table at a time, by
// COPY, when the transaction commits. A call that needs them in the database first (a read of
// a held ticket, a write inside a savepoint) has them written then. While nothing is held,
// every call is SqlStore's.

#include "postgresconnection.h"
#include "postgresstore.h"
#include "sqlerror.h"

#include <QMap>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>

#include <algorithm>
#include <memory>
#include <utility>

namespace verity {

namespace {

struct ResultClearer
{
    void operator()(PGresult *result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultClearer>;

// The server's error as QtSql would have carried it, so that failureText() and failureCode() read it alike.
QSqlError serverError(PGconn *connection, const PGresult *result)
{
    const char *code = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    const char *text = result ? PQresultErrorMessage(result) : nullptr;
    const QString said = QString::fromUtf8(text && *text ? text : PQerrorMessage(connection)).trimmed();
    return QSqlError(QString(), said, QSqlError::StatementError, QString::fromLatin1(code ? code : ""));
}

// Several rows in one statement: each parameter is a text array, unnested column by column.
Result runWithArrays(PGconn *connection, const char *sql, const QList<QByteArray> &arrays)
{
    QList<const char *> values;
    for (const QByteArray &array : arrays)
        values.append(array.constData());
    return Result(PQexecParams(connection, sql, int(values.size()), nullptr, values.constData(), nullptr,
                               nullptr, 0));
}

// PostgreSQL's text holds every character but U+0000: refused here, where the import can still
// say which line brought it, rather than when its batch is written.
Expected<void> storable(const QString &text, const char *what)
{
    if (!text.contains(QChar(u'\0')))
        return {};
    return makeError(
            QStringLiteral("the %1 contains the character U+0000, which a PostgreSQL database cannot "
                           "store")
                    .arg(QLatin1String(what)));
}

QString optionalText(const QString &value)
{
    return value.isEmpty() ? QString() : value;
}

QString optionalNumber(const std::optional<qint64> &value)
{
    return value ? QString::number(*value) : QString();
}

} // namespace

void PostgresStore::holdNewTicketRows(bool hold)
{
    Q_ASSERT(hold || m_held.isEmpty()); // a holder commits or rolls back before it lets go
    m_holding = hold;
    m_held.clear();
    m_heldSavepoint = HeldSavepoint::None;
    m_writtenInSavepoint.clear();
}

Expected<void> PostgresStore::beforeWrite()
{
    if (m_heldSavepoint != HeldSavepoint::Marked)
        return {};
    // What was held before the savepoint belongs before it.
    if (Expected<void> written = writeHeld(m_held.take(m_savepointMark)); !written)
        return written;
    if (Expected<void> begun = SqlStore::savepoint(); !begun)
        return begun;
    m_heldSavepoint = HeldSavepoint::Real;
    m_savepointMark = HeldRows::Mark{}; // all that is held now came after it
    return {};
}

Expected<void> PostgresStore::writeAllHeld()
{
    if (m_held.isEmpty())
        return {};
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready;
    const HeldRows::Batch batch = m_held.take();
    if (m_heldSavepoint == HeldSavepoint::Real)
        m_writtenInSavepoint.append(batch);
    return writeHeld(batch);
}

Expected<qint64> PostgresStore::nextId(QList<qint64> &pool, const char *table)
{
    if (pool.isEmpty()) {
        QSqlQuery draw(m_db);
        draw.setForwardOnly(true);
        if (!draw.exec(QStringLiteral("SELECT nextval(pg_get_serial_sequence('%1', 'id')) "
                                      "FROM generate_series(1, 512)")
                               .arg(QLatin1String(table))))
            return failure(draw.lastError(),
                           QStringLiteral("%1: cannot draw ids for %2").arg(m_path, QLatin1String(table)));
        while (draw.next())
            pool.append(draw.value(0).toLongLong());
        std::reverse(pool.begin(), pool.end()); // taken from the back, lowest first
    }
    return pool.takeLast();
}

Expected<void> PostgresStore::writeOwnersOf(const QList<HeldRows::Ticket> &tickets)
{
    PGconn *connection = libpqConnection(m_db);
    // Each seller as the first ticket naming it would insert it, then the newest balance any of
    // them states, applied as one ticket after another would have applied it: only a balance
    // dated after the stored one replaces it (the earliest of equally dated ones).
    QStringList sellerIds, sellerNames, balances, balancesAsOf;
    QHash<QString, std::pair<qint64, qint64>> newest; // seller -> (balance, as of)
    QStringList newestOrder;
    QStringList orderIds, orderSellers, currencies, customerNames, customerEmails, paymentIntents;
    QStringList itemOrders, itemIds, itemTitles, itemQuantities, itemAmounts;
    QSet<QString> sellersSeen;
    for (const HeldRows::Ticket &held : tickets) {
        const NewTicket &t = held.ticket;
        if (t.order.id.isEmpty())
            continue; // a ticket without an order names no seller either
        if (!t.seller.id.isEmpty() && !sellersSeen.contains(t.seller.id)) {
            sellersSeen.insert(t.seller.id);
            sellerIds << t.seller.id;
            sellerNames << t.seller.name;
            balances << optionalNumber(t.seller.balanceCents);
            balancesAsOf << QString::number(t.seller.balanceAsOf);
        }
        if (t.seller.balanceCents) {
            auto found = newest.find(t.seller.id);
            if (found == newest.end()) {
                newest.insert(t.seller.id, {*t.seller.balanceCents, t.seller.balanceAsOf});
                newestOrder << t.seller.id;
            } else if (t.seller.balanceAsOf > found->second) {
                *found = {*t.seller.balanceCents, t.seller.balanceAsOf};
            }
        }
        orderIds << t.order.id;
        orderSellers << optionalText(t.seller.id); // none yet: an order only its calls named
        currencies << t.order.currency;
        customerNames << optionalText(t.order.customerName);
        customerEmails << optionalText(t.order.customerEmail);
        paymentIntents << optionalText(t.order.paymentIntent);
        for (const OrderItemRecord &item : t.order.items) {
            itemOrders << t.order.id;
            itemIds << item.id;
            itemTitles << item.title;
            itemQuantities << QString::number(item.quantity);
            itemAmounts << QString::number(item.amountCents);
        }
    }
    if (orderIds.isEmpty())
        return {};
    QStringList newestBalances, newestAsOf;
    for (const QString &seller : std::as_const(newestOrder)) {
        newestBalances << QString::number(newest.value(seller).first);
        newestAsOf << QString::number(newest.value(seller).second);
    }
    using namespace copytext;
    const struct
    {
        const char *what;
        const char *sql;
        QList<QByteArray> arrays;
    } statements[] = {
            {"sellers",
             "INSERT INTO sellers (id, name, balance_cents, balance_as_of) "
             "SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) "
             "ON CONFLICT (id) DO NOTHING",
             {textArray(sellerIds), textArray(sellerNames), textArray(balances), textArray(balancesAsOf)}},
            {"sellers' balances",
             "UPDATE sellers SET balance_cents = c.balance, balance_as_of = c.as_of "
             "FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS c(id, balance, as_of) "
             "WHERE sellers.id = c.id AND c.as_of > sellers.balance_as_of",
             {textArray(newestOrder), textArray(newestBalances), textArray(newestAsOf)}},
            {"orders",
             "INSERT INTO orders (id, seller_id, currency, customer_name, customer_email, payment_intent) "
             "SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) "
             "ON CONFLICT (id) DO NOTHING",
             {textArray(orderIds), textArray(orderSellers), textArray(currencies), textArray(customerNames),
              textArray(customerEmails), textArray(paymentIntents)}},
            {"order items",
             "INSERT INTO order_items (order_id, item_id, title, quantity, amount_cents) "
             "SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) "
             "ON CONFLICT DO NOTHING",
             {textArray(itemOrders), textArray(itemIds), textArray(itemTitles), textArray(itemQuantities),
              textArray(itemAmounts)}},
    };
    for (const auto &statement : statements) {
        if (statement.arrays.constFirst() == "{}")
            continue;
        const Result result = runWithArrays(connection, statement.sql, statement.arrays);
        if (PQresultStatus(result.get()) != PGRES_COMMAND_OK)
            return failure(serverError(connection, result.get()),
                           QStringLiteral("%1: cannot record the %2 of the tickets")
                                   .arg(m_path, QLatin1String(statement.what)));
    }
    return {};
}

Expected<void> PostgresStore::writeHeld(const HeldRows::Batch &batch)
{
    finishStatements(); // libpq takes one command at a time
    PGconn *connection = libpqConnection(m_db);
    if (!connection || PQstatus(connection) != CONNECTION_OK)
        return failure(QSqlError(), QStringLiteral("%1: cannot record the imported tickets").arg(m_path));
    if (Expected<void> owners = writeOwnersOf(batch.tickets); !owners)
        return owners;
    // Parents first, so that each foreign key holds as the rows arrive.
    const struct
    {
        const char *table;
        const char *columns;
        QByteArray rows;
    } tables[] = {
            {"tickets", copytext::ticketColumns, copytext::tickets(batch.tickets)},
            {"messages", copytext::messageColumns, copytext::messages(batch.messages)},
            {"tool_calls", copytext::callColumns, copytext::calls(batch.calls)},
            {"trace_events", copytext::traceColumns, copytext::traceEvents(batch.traceEvents)},
    };
    // The batch named by the tickets it opens, where it opens any.
    const QString which = batch.tickets.isEmpty()
            ? QString()
            : QStringLiteral(" (tickets %1 to %2)")
                      .arg(batch.tickets.constFirst().ticket.extId, batch.tickets.constLast().ticket.extId);
    for (const auto &table : tables) {
        if (table.rows.isEmpty())
            continue;
        const QByteArray copy = QByteArray("COPY ") + table.table + " (" + table.columns + ") FROM STDIN";
        Result started(PQexec(connection, copy.constData()));
        bool stored = false;
        QSqlError error;
        if (PQresultStatus(started.get()) != PGRES_COPY_IN) {
            error = serverError(connection, started.get());
        } else {
            started.reset();
            const bool sent = PQputCopyData(connection, table.rows.constData(), int(table.rows.size())) == 1;
            const bool ended = PQputCopyEnd(connection, sent ? nullptr : "the rows could not be sent") == 1;
            Result finished(ended ? PQgetResult(connection) : nullptr);
            stored = sent && ended && PQresultStatus(finished.get()) == PGRES_COMMAND_OK;
            if (!stored)
                error = serverError(connection, finished.get());
            finished.reset();
            // The last results read, so that the connection is ready for the next command.
            for (PGresult *rest = ended ? PQgetResult(connection) : nullptr; rest;
                 rest = PQgetResult(connection))
                PQclear(rest);
        }
        if (!stored)
            return failure(error,
                           QStringLiteral("%1: cannot record the batch's %2%3")
                                   .arg(m_path, QString::fromLatin1(table.table).replace(u'_', u' '), which));
    }
    for (qint64 ticketId : batch.escalate) {
        if (Expected<void> opened = openEscalations(ticketId); !opened)
            return opened;
    }
    return {};
}

Expected<void> PostgresStore::commit()
{
    if (m_holding) {
        m_heldSavepoint = HeldSavepoint::None; // a savepoint never made is let go with the rest
        if (Expected<void> written = writeAllHeld(); !written)
            return written;
        m_held.clear();
        m_writtenInSavepoint.clear();
    }
    return SqlStore::commit();
}

void PostgresStore::rollback()
{
    m_held.clear();
    m_heldSavepoint = HeldSavepoint::None;
    m_writtenInSavepoint.clear();
    SqlStore::rollback();
}

Expected<void> PostgresStore::savepoint()
{
    if (!m_holding)
        return SqlStore::savepoint();
    Q_ASSERT(m_heldSavepoint == HeldSavepoint::None); // one at a time, as SqlStore names it
    m_heldSavepoint = HeldSavepoint::Marked;
    m_savepointMark = m_held.mark();
    return {};
}

Expected<void> PostgresStore::releaseSavepoint()
{
    const HeldSavepoint was = std::exchange(m_heldSavepoint, HeldSavepoint::None);
    m_writtenInSavepoint.clear();
    if (!m_holding || was == HeldSavepoint::Real)
        return SqlStore::releaseSavepoint();
    return {};
}

Expected<void> PostgresStore::rollbackToSavepoint()
{
    const HeldSavepoint was = std::exchange(m_heldSavepoint, HeldSavepoint::None);
    if (m_holding) {
        m_held.rollBackTo(m_savepointMark);
        for (const HeldRows::Batch &batch : std::as_const(m_writtenInSavepoint))
            m_held.forgetWritten(batch);
        m_writtenInSavepoint.clear();
    }
    if (!m_holding || was == HeldSavepoint::Real)
        return SqlStore::rollbackToSavepoint();
    return {};
}

namespace {

TicketRef heldTicketRef(const HeldRows &held, const HeldRows::Ticket &ticket)
{
    const NewTicket &t = ticket.ticket;
    return TicketRef{ticket.id, t.fingerprint,
                     TicketFacts{{QStringLiteral("ticket_id"), t.extId},
                                 {QStringLiteral("order_id"), t.order.id},
                                 {QStringLiteral("seller_id"), t.seller.id}},
                     held.lastSeqOf(ticket.id)};
}

} // namespace

Expected<std::optional<TicketRef>> PostgresStore::findTicket(const QString &extId)
{
    if (const HeldRows::Ticket *held = m_holding ? m_held.findTicket(extId) : nullptr)
        return std::optional<TicketRef>(heldTicketRef(m_held, *held));
    return SqlStore::findTicket(extId);
}

Expected<std::optional<TicketRef>> PostgresStore::readTicket(const QString &extId)
{
    if (const HeldRows::Ticket *held = m_holding ? m_held.findTicket(extId) : nullptr)
        return std::optional<TicketRef>(heldTicketRef(m_held, *held));
    return SqlStore::readTicket(extId);
}

Expected<QList<TicketRef>> PostgresStore::findTickets(const QStringList &extIds)
{
    QList<TicketRef> found;
    QStringList stored;
    for (const QString &extId : extIds) {
        if (const HeldRows::Ticket *held = m_holding ? m_held.findTicket(extId) : nullptr)
            found.append(heldTicketRef(m_held, *held));
        else
            stored.append(extId);
    }
    if (stored.isEmpty())
        return found;
    // Planned for these names each time (libpq's unnamed statement): a plan kept from when
    // the table was small would scan it whole once it is not.
    finishStatements();
    PGconn *connection = libpqConnection(m_db);
    const Result result(
            runWithArrays(connection,
                          "SELECT id, fingerprint, ext_id, order_id, seller_id, last_seq FROM tickets "
                          "WHERE ext_id = ANY($1::citext[]) ORDER BY id FOR UPDATE",
                          {copytext::textArray(stored)}));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
        return failure(serverError(connection, result.get()),
                       QStringLiteral("%1: finding tickets failed").arg(m_path));
    const auto text = [&](int row, int column) {
        return PQgetisnull(result.get(), row, column)
                ? QString()
                : QString::fromUtf8(PQgetvalue(result.get(), row, column));
    };
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        found.append(TicketRef{text(row, 0).toLongLong(), text(row, 1),
                               TicketFacts{{QStringLiteral("ticket_id"), text(row, 2)},
                                           {QStringLiteral("order_id"), text(row, 3)},
                                           {QStringLiteral("seller_id"), text(row, 4)}},
                               text(row, 5).toLongLong()});
    }
    return found;
}

Expected<TicketRef> PostgresStore::insertTicket(const NewTicket &ticket)
{
    if (Expected<void> text = storable(ticket.subject, "ticket's subject"); !text)
        return text.error();
    if (!m_holding)
        return SqlStore::insertTicket(ticket);
    Expected<qint64> id = nextId(m_ticketIds, "tickets");
    if (!id)
        return id.error();
    m_held.addTicket(*id, ticket);
    return TicketRef{*id, ticket.fingerprint,
                     TicketFacts{{QStringLiteral("ticket_id"), ticket.extId},
                                 {QStringLiteral("order_id"), ticket.order.id},
                                 {QStringLiteral("seller_id"), ticket.seller.id}},
                     0};
}

Expected<bool> PostgresStore::insertMessage(const NewMessage &message)
{
    if (Expected<void> text = storable(message.text, "message's text"); !text)
        return text.error();
    if (m_holding && m_held.isNewTicket(message.ticketId))
        return m_held.addMessage(message);
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready.error();
    return SqlStore::insertMessage(message);
}

Expected<bool> PostgresStore::insertTraceEvent(const NewTraceEvent &event)
{
    if (m_holding && m_held.isNewTicket(event.ticketId))
        return m_held.addTraceEvent(event);
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready.error();
    return SqlStore::insertTraceEvent(event);
}

Expected<qint64> PostgresStore::insertToolCall(const NewToolCall &call)
{
    if (Expected<void> text = storable(call.argumentsJson, "call's arguments"); !text)
        return text.error();
    if (m_holding && m_held.isNewTicket(call.ticketId)) {
        Expected<qint64> id = nextId(m_callIds, "tool_calls");
        if (id)
            m_held.addCall(*id, call, std::nullopt);
        return id;
    }
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready.error();
    return SqlStore::insertToolCall(call);
}

Expected<qint64> PostgresStore::insertAnsweredToolCall(const NewToolCall &call,
                                                       const ToolResultUpdate &result)
{
    if (Expected<void> text = storable(call.argumentsJson, "call's arguments"); !text)
        return text.error();
    if (Expected<void> text = storable(result.rawResult, "tool's result"); !text)
        return text.error();
    if (m_holding && m_held.isNewTicket(call.ticketId)) {
        Expected<qint64> id = nextId(m_callIds, "tool_calls");
        if (id)
            m_held.addCall(*id, call, result);
        return id;
    }
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready.error();
    return SqlStore::insertAnsweredToolCall(call, result);
}

Expected<void> PostgresStore::setToolResult(const ToolResultUpdate &result)
{
    if (Expected<void> text = storable(result.rawResult, "tool's result"); !text)
        return text;
    // A held call takes its result where it is held, unless a savepoint holds it from before:
    // undoing the savepoint must not undo what came before it.
    const qsizetype index = m_holding ? m_held.callIndex(result.callId) : -1;
    if (index >= 0 && (m_heldSavepoint == HeldSavepoint::None || index >= m_savepointMark.calls)) {
        m_held.heldCall(result.callId)->result = result;
        return {};
    }
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready;
    if (m_holding && m_held.callIndex(result.callId) >= 0) {
        if (Expected<void> written = writeAllHeld(); !written)
            return written;
    }
    return SqlStore::setToolResult(result);
}

Expected<std::optional<ToolCallRef>> PostgresStore::findToolCall(qint64 ticketId, const QString &callExtId)
{
    if (m_holding && m_held.isNewTicket(ticketId)) {
        if (Expected<void> written = writeAllHeld(); !written)
            return written.error();
    }
    return SqlStore::findToolCall(ticketId, callExtId);
}

Expected<QList<CallFacts>> PostgresStore::callFacts(qint64 ticketId)
{
    if (m_holding && m_held.isNewTicket(ticketId)) {
        if (Expected<void> written = writeAllHeld(); !written)
            return written.error();
    }
    return SqlStore::callFacts(ticketId);
}

Expected<qint64> PostgresStore::lastSeq(qint64 ticketId)
{
    if (m_holding && m_held.isNewTicket(ticketId)) {
        if (Expected<void> written = writeAllHeld(); !written)
            return written.error();
    }
    return SqlStore::lastSeq(ticketId);
}

Expected<RepeatCounts> PostgresStore::applyAssessment(qint64 ticketId, qint64 lastSeq,
                                                      const TicketAssessment &assessment)
{
    if (m_holding) {
        Expected<void> ready = m_held.isNewTicket(ticketId) ? writeAllHeld() : beforeWrite();
        if (!ready)
            return ready.error();
    }
    return SqlStore::applyAssessment(ticketId, lastSeq, assessment);
}

Expected<void> PostgresStore::applyFirstAssessment(qint64 ticketId, qint64 lastSeq,
                                                   const TicketAssessment &assessment)
{
    HeldRows::Ticket *ticket =
            m_holding && m_heldSavepoint == HeldSavepoint::None ? m_held.heldTicket(ticketId) : nullptr;
    // A held ticket's calls are all held with it: its summary and marks go into its rows.
    const auto held = [this](qint64 callId) { return m_held.callIndex(callId) >= 0; };
    const bool allHeld = ticket
            && std::all_of(assessment.repeatedCalls.cbegin(), assessment.repeatedCalls.cend(), held)
            && std::all_of(assessment.repeatOf.keyBegin(), assessment.repeatOf.keyEnd(), held);
    if (!allHeld) {
        if (m_holding) {
            if (Expected<void> written = writeAllHeld(); !written)
                return written;
        }
        return SqlStore::applyFirstAssessment(ticketId, lastSeq, assessment);
    }
    ticket->lastSeq = lastSeq;
    ticket->assessment = assessment;
    for (qint64 callId : assessment.repeatedCalls)
        m_held.heldCall(callId)->repeated = true;
    for (auto link = assessment.repeatOf.cbegin(); link != assessment.repeatOf.cend(); ++link)
        m_held.heldCall(link.key())->repeat = link.value();
    if (assessment.hasUnknown)
        m_held.escalateAfterWriting(ticketId);
    return {};
}

Expected<void> PostgresStore::recordImport(const ImportRecord &record)
{
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready;
    return SqlStore::recordImport(record);
}

// Stored tickets only (the receiver's trace tickets), but inside the unit's savepoint.
Expected<void> PostgresStore::renameTicket(qint64 ticketId, const NewTicket &named)
{
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready;
    return SqlStore::renameTicket(ticketId, named);
}

Expected<void> PostgresStore::completeTicket(qint64 ticketId, const NewTicket &named)
{
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready;
    return SqlStore::completeTicket(ticketId, named);
}

Expected<void> PostgresStore::mergeTicket(qint64 fromId, qint64 intoId)
{
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready;
    return SqlStore::mergeTicket(fromId, intoId);
}

} // namespace verity

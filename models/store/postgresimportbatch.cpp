// The import path on PostgreSQL: while an import writes through its batch, each call below
// answers from what is held, and the rows reach the server a table at a time, by COPY, when the
// transaction commits. A call that needs them in the database first (a read of a held ticket, a
// write inside a savepoint) has them written then.

#include "postgresimportbatch.h"

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

PostgresImportBatch::PostgresImportBatch(PostgresStore &store)
    : m_store(store)
{}

PostgresImportBatch::~PostgresImportBatch()
{
    Q_ASSERT(m_held.isEmpty()); // its importer commits or rolls back before it lets go
}

QString PostgresImportBatch::location() const
{
    return m_store.location();
}

QString PostgresImportBatch::sessionUser() const
{
    return m_store.sessionUser();
}

Expected<OperatorRoles> PostgresImportBatch::sessionRoles()
{
    return m_store.sessionRoles();
}

void PostgresImportBatch::forgetSavepoint()
{
    m_heldSavepoint = HeldSavepoint::None;
    m_writtenInSavepoint.clear();
}

Expected<void> PostgresImportBatch::beforeWrite()
{
    if (m_heldSavepoint != HeldSavepoint::Marked)
        return {};
    // What was held before the savepoint belongs before it.
    if (Expected<void> written = writeHeld(m_held.take(m_savepointMark)); !written)
        return written;
    if (Expected<void> begun = m_store.savepoint(); !begun)
        return begun;
    m_heldSavepoint = HeldSavepoint::Real;
    m_savepointMark = HeldRows::Mark{}; // all that is held now came after it
    return {};
}

Expected<void> PostgresImportBatch::writeAllHeld()
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

Expected<void> PostgresImportBatch::writeIfHeld(qint64 ticketId)
{
    return m_held.isNewTicket(ticketId) ? writeAllHeld() : Expected<void>{};
}

Expected<void> PostgresImportBatch::writeHeldTicket(qint64 ticketId)
{
    return m_held.isNewTicket(ticketId) ? writeAllHeld() : beforeWrite();
}

Expected<void> PostgresImportBatch::writeOwnersOf(const QList<HeldRows::Ticket> &tickets)
{
    PGconn *connection = libpqConnection(m_store.m_db);
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
        const PgResult result = runWithArrays(connection, statement.sql, statement.arrays);
        if (PQresultStatus(result.get()) != PGRES_COMMAND_OK)
            return m_store.failure(serverError(connection, result.get()),
                                   QStringLiteral("%1: cannot record the %2 of the tickets")
                                           .arg(m_store.m_path, QLatin1String(statement.what)));
    }
    return {};
}

Expected<void> PostgresImportBatch::writeHeld(const HeldRows::Batch &batch)
{
    m_store.finishStatements(); // libpq takes one command at a time
    PGconn *connection = libpqConnection(m_store.m_db);
    if (!connection || PQstatus(connection) != CONNECTION_OK)
        return m_store.failure(QSqlError(),
                               QStringLiteral("%1: cannot record the imported tickets").arg(m_store.m_path));
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
        PgResult started(PQexec(connection, copy.constData()));
        bool stored = false;
        QSqlError error;
        if (PQresultStatus(started.get()) != PGRES_COPY_IN) {
            error = serverError(connection, started.get());
        } else {
            started.reset();
            const bool sent = PQputCopyData(connection, table.rows.constData(), int(table.rows.size())) == 1;
            const bool ended = PQputCopyEnd(connection, sent ? nullptr : "the rows could not be sent") == 1;
            PgResult finished(ended ? PQgetResult(connection) : nullptr);
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
            return m_store.failure(error,
                                   QStringLiteral("%1: cannot record the batch's %2%3")
                                           .arg(m_store.m_path,
                                                QString::fromLatin1(table.table).replace(u'_', u' '), which));
    }
    for (qint64 ticketId : batch.escalate) {
        if (Expected<void> opened = m_store.openEscalations(ticketId); !opened)
            return opened;
    }
    return {};
}

Expected<void> PostgresImportBatch::begin()
{
    return m_store.begin();
}

Expected<void> PostgresImportBatch::commit()
{
    m_heldSavepoint = HeldSavepoint::None; // a savepoint never made is let go with the rest
    if (Expected<void> written = writeAllHeld(); !written)
        return written;
    m_held.clear();
    m_writtenInSavepoint.clear();
    return m_store.commit();
}

void PostgresImportBatch::rollback()
{
    m_held.clear();
    forgetSavepoint();
    m_store.rollback();
}

Expected<void> PostgresImportBatch::savepoint()
{
    Q_ASSERT(m_heldSavepoint == HeldSavepoint::None); // one at a time, as SqlStore names it
    m_heldSavepoint = HeldSavepoint::Marked;
    m_savepointMark = m_held.mark();
    return {};
}

Expected<void> PostgresImportBatch::releaseSavepoint()
{
    const HeldSavepoint was = m_heldSavepoint;
    forgetSavepoint();
    if (was == HeldSavepoint::Real)
        return m_store.releaseSavepoint();
    return {};
}

Expected<void> PostgresImportBatch::rollbackToSavepoint()
{
    const HeldSavepoint was = m_heldSavepoint;
    m_held.rollBackTo(m_savepointMark);
    for (const HeldRows::Batch &batch : std::as_const(m_writtenInSavepoint))
        m_held.forgetWritten(batch);
    forgetSavepoint();
    if (was == HeldSavepoint::Real)
        return m_store.rollbackToSavepoint();
    return {};
}

TicketRef PostgresImportBatch::heldTicketRef(const HeldRows::Ticket &ticket) const
{
    const NewTicket &t = ticket.ticket;
    return TicketRef{ticket.id, t.fingerprint,
                     TicketFacts{{QStringLiteral("ticket_id"), t.extId},
                                 {QStringLiteral("order_id"), t.order.id},
                                 {QStringLiteral("seller_id"), t.seller.id}},
                     m_held.lastSeqOf(ticket.id), t.registry};
}

Expected<std::optional<TicketRef>> PostgresImportBatch::findTicket(const QString &extId)
{
    if (const HeldRows::Ticket *held = m_held.findTicket(extId))
        return std::optional<TicketRef>(heldTicketRef(*held));
    return m_store.findTicket(extId);
}

Expected<std::optional<TicketRef>> PostgresImportBatch::readTicket(const QString &extId)
{
    if (const HeldRows::Ticket *held = m_held.findTicket(extId))
        return std::optional<TicketRef>(heldTicketRef(*held));
    return m_store.readTicket(extId);
}

Expected<QList<TicketRef>> PostgresImportBatch::findTickets(const QStringList &extIds)
{
    QList<TicketRef> found;
    QStringList stored;
    for (const QString &extId : extIds) {
        if (const HeldRows::Ticket *held = m_held.findTicket(extId))
            found.append(heldTicketRef(*held));
        else
            stored.append(extId);
    }
    if (stored.isEmpty())
        return found;
    Expected<QList<TicketRef>> fromStore = m_store.findTickets(stored);
    if (!fromStore)
        return fromStore;
    return found + *fromStore;
}

Expected<TicketRef> PostgresImportBatch::insertTicket(const NewTicket &ticket)
{
    if (Expected<void> text = storable(ticket.subject, "ticket's subject"); !text)
        return text.error();
    Expected<qint64> id = m_store.drawId(PostgresStore::DrawnId::Ticket);
    if (!id)
        return id.error();
    m_held.addTicket(*id, ticket);
    return TicketRef{*id, ticket.fingerprint,
                     TicketFacts{{QStringLiteral("ticket_id"), ticket.extId},
                                 {QStringLiteral("order_id"), ticket.order.id},
                                 {QStringLiteral("seller_id"), ticket.seller.id}},
                     0, ticket.registry};
}

Expected<bool> PostgresImportBatch::insertMessage(const NewMessage &message)
{
    if (Expected<void> text = storable(message.text, "message's text"); !text)
        return text.error();
    if (m_held.isNewTicket(message.ticketId))
        return m_held.addMessage(message);
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready.error();
    return m_store.insertMessage(message);
}

Expected<bool> PostgresImportBatch::insertTraceEvent(const NewTraceEvent &event)
{
    if (m_held.isNewTicket(event.ticketId))
        return m_held.addTraceEvent(event);
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready.error();
    return m_store.insertTraceEvent(event);
}

Expected<qint64> PostgresImportBatch::insertToolCall(const NewToolCall &call)
{
    if (Expected<void> text = storable(call.argumentsJson, "call's arguments"); !text)
        return text.error();
    if (m_held.isNewTicket(call.ticketId)) {
        Expected<qint64> id = m_store.drawId(PostgresStore::DrawnId::ToolCall);
        if (id)
            m_held.addCall(*id, call, std::nullopt);
        return id;
    }
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready.error();
    return m_store.insertToolCall(call);
}

Expected<qint64> PostgresImportBatch::insertAnsweredToolCall(const NewToolCall &call,
                                                             const ToolResultUpdate &result)
{
    if (Expected<void> text = storable(call.argumentsJson, "call's arguments"); !text)
        return text.error();
    if (Expected<void> text = storable(result.rawResult, "tool's result"); !text)
        return text.error();
    if (m_held.isNewTicket(call.ticketId)) {
        Expected<qint64> id = m_store.drawId(PostgresStore::DrawnId::ToolCall);
        if (id)
            m_held.addCall(*id, call, result);
        return id;
    }
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready.error();
    return m_store.insertAnsweredToolCall(call, result);
}

Expected<void> PostgresImportBatch::setToolResult(const ToolResultUpdate &result)
{
    if (Expected<void> text = storable(result.rawResult, "tool's result"); !text)
        return text;
    // A held call takes its result where it is held, unless a savepoint holds it from before:
    // undoing the savepoint must not undo what came before it.
    const qsizetype index = m_held.callIndex(result.callId);
    if (index >= 0 && (m_heldSavepoint == HeldSavepoint::None || index >= m_savepointMark.calls)) {
        m_held.heldCall(result.callId)->result = result;
        return {};
    }
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready;
    if (m_held.callIndex(result.callId) >= 0) {
        if (Expected<void> written = writeAllHeld(); !written)
            return written;
    }
    return m_store.setToolResult(result);
}

Expected<std::optional<ToolCallRef>> PostgresImportBatch::findToolCall(qint64 ticketId,
                                                                       const QString &callExtId)
{
    if (Expected<void> written = writeIfHeld(ticketId); !written)
        return written.error();
    return m_store.findToolCall(ticketId, callExtId);
}

Expected<std::optional<QString>> PostgresImportBatch::findToolCallByPrint(qint64 ticketId,
                                                                          const QString &fingerprint)
{
    if (Expected<void> written = writeIfHeld(ticketId); !written)
        return written.error();
    return m_store.findToolCallByPrint(ticketId, fingerprint);
}

Expected<QList<CallFacts>> PostgresImportBatch::callFacts(qint64 ticketId)
{
    if (Expected<void> written = writeIfHeld(ticketId); !written)
        return written.error();
    return m_store.callFacts(ticketId);
}

Expected<qint64> PostgresImportBatch::lastSeq(qint64 ticketId)
{
    if (Expected<void> written = writeIfHeld(ticketId); !written)
        return written.error();
    return m_store.lastSeq(ticketId);
}

Expected<QList<StoredCall>> PostgresImportBatch::writeCalls(qint64 ticketId)
{
    if (Expected<void> written = writeIfHeld(ticketId); !written)
        return written.error();
    return m_store.writeCalls(ticketId);
}

Expected<RepeatCounts> PostgresImportBatch::applyAssessment(qint64 ticketId, qint64 lastSeq,
                                                            const TicketAssessment &assessment)
{
    if (Expected<void> ready = writeHeldTicket(ticketId); !ready)
        return ready.error();
    return m_store.applyAssessment(ticketId, lastSeq, assessment);
}

Expected<void> PostgresImportBatch::applyFirstAssessment(qint64 ticketId, qint64 lastSeq,
                                                         const TicketAssessment &assessment)
{
    HeldRows::Ticket *ticket = m_heldSavepoint == HeldSavepoint::None ? m_held.heldTicket(ticketId) : nullptr;
    // A held ticket's calls are all held with it: its summary and marks go into its rows.
    const auto held = [this](qint64 callId) { return m_held.callIndex(callId) >= 0; };
    const bool allHeld = ticket
            && std::all_of(assessment.repeatedCalls.cbegin(), assessment.repeatedCalls.cend(), held)
            && std::all_of(assessment.repeatOf.keyBegin(), assessment.repeatOf.keyEnd(), held);
    if (!allHeld) {
        if (Expected<void> written = writeAllHeld(); !written)
            return written;
        return m_store.applyFirstAssessment(ticketId, lastSeq, assessment);
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

// What reads or changes rows across tickets sees the held ones written first.
Expected<QList<qint64>> PostgresImportBatch::ticketsAwaitingReassessment(int limit)
{
    if (Expected<void> written = writeAllHeld(); !written)
        return written.error();
    return m_store.ticketsAwaitingReassessment(limit);
}

Expected<void> PostgresImportBatch::markReassessed(qint64 ticketId)
{
    if (Expected<void> ready = writeHeldTicket(ticketId); !ready)
        return ready;
    return m_store.markReassessed(ticketId);
}

Expected<int> PostgresImportBatch::escalateOverdueCalls(qint64 now)
{
    if (Expected<void> written = writeAllHeld(); !written)
        return written.error();
    return m_store.escalateOverdueCalls(now);
}

Expected<bool> PostgresImportBatch::endWaitForResult(qint64 callId, qint64 now)
{
    if (Expected<void> written = writeAllHeld(); !written)
        return written.error();
    return m_store.endWaitForResult(callId, now);
}

Expected<QList<IntentCall>> PostgresImportBatch::callsOfIntent(const QString &intentKey, int limit)
{
    if (Expected<void> written = writeAllHeld(); !written)
        return written.error();
    return m_store.callsOfIntent(intentKey, limit);
}

Expected<void> PostgresImportBatch::lockIntent(const QString &intentKey)
{
    return m_store.lockIntent(intentKey);
}

Expected<void> PostgresImportBatch::setIntentKey(qint64 callId, const QString &key, const QString &error)
{
    if (m_held.callIndex(callId) >= 0) {
        if (Expected<void> written = writeAllHeld(); !written)
            return written;
    } else if (Expected<void> ready = beforeWrite(); !ready) {
        return ready;
    }
    return m_store.setIntentKey(callId, key, error);
}

// Writes into the unit's savepoint, to stored tickets only (the receiver's trace tickets).
Expected<void> PostgresImportBatch::recordImport(const ImportRecord &record)
{
    if (Expected<void> ready = beforeWrite(); !ready)
        return ready;
    return m_store.recordImport(record);
}

Expected<void> PostgresImportBatch::renameTicket(qint64 ticketId, const NewTicket &named)
{
    if (Expected<void> ready = writeHeldTicket(ticketId); !ready)
        return ready;
    return m_store.renameTicket(ticketId, named);
}

Expected<void> PostgresImportBatch::completeTicket(qint64 ticketId, const NewTicket &named)
{
    if (Expected<void> ready = writeHeldTicket(ticketId); !ready)
        return ready;
    return m_store.completeTicket(ticketId, named);
}

Expected<void> PostgresImportBatch::mergeTicket(qint64 fromId, qint64 intoId)
{
    if (Expected<void> ready =
                m_held.isNewTicket(fromId) || m_held.isNewTicket(intoId) ? writeAllHeld() : beforeWrite();
        !ready)
        return ready;
    return m_store.mergeTicket(fromId, intoId);
}

} // namespace verity

// A ticket the receiver opened under its trace, before the span naming its conversation came:
// renamed to the conversation, or joined to the conversation's ticket when that is stored; and
// a span's call found by its print, whatever id it is stored under.

#include "sqlstore.h"

#include <QVariant>

namespace verity {

Expected<void> SqlStore::renameTicket(qint64 ticketId, const NewTicket &named)
{
    // The subject the trace's ticket had ("Trace 4bf92f35") gives way to the conversation's.
    auto rename = prepared("UPDATE tickets SET ext_id = ?, fingerprint = ?, "
                           "subject = CASE WHEN ? = '' THEN subject ELSE ? END, "
                           "opened_at = CASE WHEN ? < opened_at THEN ? ELSE opened_at END WHERE id = ?");
    if (!rename)
        return rename.error();
    QSqlQuery &q = **rename;
    const QString subject = named.subject.isNull() ? QStringLiteral("") : named.subject;
    q.addBindValue(named.extId);
    q.addBindValue(named.fingerprint);
    q.addBindValue(subject);
    q.addBindValue(subject);
    q.addBindValue(named.openedAt);
    q.addBindValue(named.openedAt);
    q.addBindValue(ticketId);
    return run(q, "naming a ticket by its conversation");
}

Expected<void> SqlStore::completeTicket(qint64 ticketId, const NewTicket &named)
{
    if (!named.order.id.isEmpty()) {
        if (Expected<void> done = insertSellerAndOrder(named); !done)
            return done;
        // An order first named without its record (a refund's arguments) takes its seller and
        // payment from the record when it comes; a named one keeps its own.
        auto fill = prepared("UPDATE orders SET seller_id = COALESCE(seller_id, ?), "
                             "payment_intent = COALESCE(payment_intent, ?) WHERE id = ? AND "
                             "((seller_id IS NULL AND CAST(? AS TEXT) IS NOT NULL) OR "
                             "(payment_intent IS NULL AND CAST(? AS TEXT) IS NOT NULL))");
        if (!fill)
            return fill.error();
        const QVariant seller = nullableText(named.seller.id);
        const QVariant payment = nullableText(named.order.paymentIntent);
        for (const QVariant &value : {seller, payment, QVariant(named.order.id), seller, payment})
            (*fill)->addBindValue(value);
        if (Expected<void> done = run(**fill, "completing an order's seller and payment"); !done)
            return done;
        auto name = prepared(
                "UPDATE tickets SET order_id = COALESCE(order_id, ?), seller_id = COALESCE(seller_id, ?), "
                "seller_name = COALESCE(seller_name, ?) WHERE id = ? AND (order_id IS NULL OR "
                "(order_id = ? AND seller_id IS NULL AND CAST(? AS TEXT) IS NOT NULL))");
        if (!name)
            return name.error();
        QSqlQuery &q = **name;
        q.addBindValue(named.order.id);
        q.addBindValue(seller);
        q.addBindValue(named.seller.id.isEmpty() ? QVariant(QMetaType::fromType<QString>())
                                                 : QVariant(named.seller.name));
        q.addBindValue(ticketId);
        q.addBindValue(named.order.id);
        q.addBindValue(seller);
        if (Expected<void> done = run(q, "naming a ticket's order"); !done)
            return done;
    }
    // A subject that is only the ticket's id or its trace gives way to the customer's words.
    if (named.subject.isEmpty() || named.subject == named.extId
        || named.subject.startsWith(QLatin1String("Trace ")))
        return {};
    auto subject = prepared("UPDATE tickets SET subject = ? WHERE id = ? AND "
                            "(subject = '' OR subject = ext_id OR subject LIKE 'Trace %')");
    if (!subject)
        return subject.error();
    (*subject)->addBindValue(named.subject);
    (*subject)->addBindValue(ticketId);
    return run(**subject, "naming a ticket's subject");
}

Expected<std::optional<QString>> SqlStore::findToolCallByPrint(qint64 ticketId, const QString &fingerprint)
{
    // Through the ticket's calls (an index on the ticket): a ticket has few.
    auto query = prepared("SELECT call_ext_id FROM tool_calls WHERE ticket_id = ? AND fingerprint = ?");
    if (!query)
        return query.error();
    (*query)->addBindValue(ticketId);
    (*query)->addBindValue(fingerprint);
    if (auto done = run(**query, "finding a span's tool call"); !done)
        return done.error();
    std::optional<QString> id;
    if ((*query)->next())
        id = (*query)->value(0).toString();
    (*query)->finish();
    return id;
}

Expected<QList<StoredCall>> SqlStore::writeCalls(qint64 ticketId)
{
    auto query = prepared("SELECT id, tool, arguments FROM tool_calls WHERE ticket_id = ? "
                          "AND tool_class LIKE 'write%' ORDER BY seq");
    if (!query)
        return query.error();
    (*query)->addBindValue(ticketId);
    if (auto done = run(**query, "reading a ticket's writes"); !done)
        return done.error();
    QList<StoredCall> calls;
    while ((*query)->next()) {
        StoredCall call;
        call.id = (*query)->value(0).toLongLong();
        call.ticketId = ticketId;
        call.tool = (*query)->value(1).toString();
        call.argumentsJson = (*query)->value(2).toString();
        calls.append(call);
    }
    (*query)->finish();
    return calls;
}

Expected<void> SqlStore::setIntentKey(qint64 callId, const QString &key, const QString &error)
{
    auto update = prepared("UPDATE tool_calls SET intent_key = ?, intent_error = ? WHERE id = ?");
    if (!update)
        return update.error();
    (*update)->addBindValue(key.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(key));
    (*update)->addBindValue(error.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(error));
    (*update)->addBindValue(callId);
    return run(**update, "keying a call again");
}

Expected<void> SqlStore::mergeTicket(qint64 fromId, qint64 intoId)
{
    // Both locked, in id order, as each session locks them.
    auto seqs = prepared(
            "mergeTicket seqs",
            QStringLiteral("SELECT id, last_seq, opened_at FROM tickets WHERE id IN (?, ?) ORDER BY id")
                    + lockedToWrite());
    if (!seqs)
        return seqs.error();
    (*seqs)->addBindValue(fromId);
    (*seqs)->addBindValue(intoId);
    if (auto done = run(**seqs, "reading the tickets to join"); !done)
        return done;
    qint64 intoLastSeq = -1;
    qint64 fromLastSeq = -1;
    qint64 fromOpenedAt = 0;
    while ((*seqs)->next()) {
        const qint64 id = (*seqs)->value(0).toLongLong();
        (id == intoId ? intoLastSeq : fromLastSeq) = (*seqs)->value(1).toLongLong();
        if (id == fromId)
            fromOpenedAt = (*seqs)->value(2).toLongLong();
    }
    (*seqs)->finish();
    if (intoLastSeq < 0 || fromLastSeq < 0 || fromId == intoId)
        return makeError(QStringLiteral("cannot join ticket %1 to ticket %2: one of them is not stored")
                                 .arg(fromId)
                                 .arg(intoId));

    // What each statement binds, by position.
    enum class Binds { FromInto, IntoFrom, IntoOffsetFrom };
    struct Step
    {
        const char *sql;
        const char *what;
        Binds binds;
    };
    // A call id both tickets use (each trace numbering its own calls) keeps the joined one's
    // apart; the HTTP and provider records of that call follow it.
    const Step steps[] = {
            {"UPDATE trace_events SET call_ext_id = call_ext_id || '#t' || CAST(ticket_id AS TEXT) "
             "WHERE ticket_id = ? AND call_ext_id IN (SELECT call_ext_id FROM tool_calls WHERE ticket_id = "
             "?)",
             "keeping the joined ticket's call records apart", Binds::FromInto},
            {"UPDATE tool_calls SET call_ext_id = call_ext_id || '#t' || CAST(ticket_id AS TEXT) "
             "WHERE ticket_id = ? AND call_ext_id IN (SELECT c.call_ext_id FROM tool_calls c WHERE "
             "c.ticket_id = ?)",
             "keeping the joined ticket's call ids apart", Binds::FromInto},
            {"UPDATE messages SET ticket_id = ?, seq = seq + ? WHERE ticket_id = ?", "moving messages",
             Binds::IntoOffsetFrom},
            {"UPDATE tool_calls SET ticket_id = ?, seq = seq + ? WHERE ticket_id = ?", "moving tool calls",
             Binds::IntoOffsetFrom},
            {"UPDATE trace_events SET ticket_id = ?, seq = seq + ? WHERE ticket_id = ?",
             "moving call records", Binds::IntoOffsetFrom},
            {"UPDATE escalations SET ticket_id = ? WHERE ticket_id = ?", "moving escalations",
             Binds::IntoFrom},
            {"UPDATE trainer_notes SET ticket_id = ? WHERE ticket_id = ?", "moving trainers' notes",
             Binds::IntoFrom},
    };
    for (const Step &step : steps) {
        auto query = prepared(step.sql);
        if (!query)
            return query.error();
        QSqlQuery &q = **query;
        if (step.binds == Binds::FromInto) {
            q.addBindValue(fromId);
            q.addBindValue(intoId);
        } else {
            q.addBindValue(intoId);
            if (step.binds == Binds::IntoOffsetFrom)
                q.addBindValue(intoLastSeq);
            q.addBindValue(fromId);
        }
        if (auto done = run(q, step.what); !done)
            return done;
    }

    auto grow = prepared("UPDATE tickets SET last_seq = last_seq + ?, "
                         "opened_at = CASE WHEN ? < opened_at THEN ? ELSE opened_at END WHERE id = ?");
    if (!grow)
        return grow.error();
    (*grow)->addBindValue(fromLastSeq);
    (*grow)->addBindValue(fromOpenedAt);
    (*grow)->addBindValue(fromOpenedAt);
    (*grow)->addBindValue(intoId);
    if (auto done = run(**grow, "growing the joined ticket"); !done)
        return done;
    auto pending = prepared("DELETE FROM pending_reassessment WHERE ticket_id = ?");
    if (!pending)
        return pending.error();
    (*pending)->addBindValue(fromId);
    if (auto done = run(**pending, "dropping the joined ticket's pending work"); !done)
        return done;
    auto drop = prepared("DELETE FROM tickets WHERE id = ?");
    if (!drop)
        return drop.error();
    (*drop)->addBindValue(fromId);
    if (auto done = run(**drop, "removing the joined ticket"); !done)
        return done;
    return retireTicketId(fromId);
}

} // namespace verity

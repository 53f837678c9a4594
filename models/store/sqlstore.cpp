#include "sqlstore.h"

#include "reassessment.h"
#include "sqlerror.h"
#include "sqlwords.h"
#include "ticketsummary.h"

#include <QAtomicInteger>
#include <QSqlError>
#include <QVariant>

namespace verity {

QString SqlStore::connectionName(const char *backend)
{
    static QAtomicInteger<int> counter;
    return QStringLiteral("verity-%1-%2").arg(QLatin1String(backend)).arg(counter.fetchAndAddRelaxed(1));
}

SqlStore::SqlStore(QString location, QString connection)
    : m_path(std::move(location))
    , m_connection(std::move(connection))
{}

SqlStore::~SqlStore()
{
    m_statements.clear();
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connection);
}

void SqlStore::forgetStatements()
{
    m_statements.clear();
    m_knownSellers.clear();
    m_searchMatches.reset();
}

void SqlStore::finishStatements()
{
    for (auto &statement : m_statements)
        statement.second->finish();
}

Expected<QSqlQuery *> SqlStore::prepared(const char *sql)
{
    return prepared(sql, QString());
}

Expected<QSqlQuery *> SqlStore::prepared(const char *key, const QString &sql)
{
    auto it = m_statements.find(key);
    if (it == m_statements.end()) {
        auto query = std::make_unique<QSqlQuery>(m_db);
        query->setForwardOnly(true);
        if (!query->prepare(withStoredWords(sql.isNull() ? QString::fromUtf8(key) : sql)))
            return failure(query->lastError(), QStringLiteral("cannot prepare a statement"));
        it = m_statements.emplace(key, std::move(query)).first;
    }
    return it->second.get();
}

std::error_code SqlStore::failureCode(const QSqlError &error)
{
    // SQLite's primary result codes, as its driver reports them (an extended code keeps the
    // primary one in its low byte).
    bool number = false;
    const int code = error.nativeErrorCode().toInt(&number) & 0xff;
    if (!number)
        return Errc::Failed;
    switch (code) {
    case 5: // SQLITE_BUSY
    case 6: // SQLITE_LOCKED
        return StoreErrc::Conflict;
    case 8: // SQLITE_READONLY
        return StoreErrc::Unwritable;
    case 26: // SQLITE_NOTADB
        return StoreErrc::NotADatabase;
    default:
        return Errc::Failed;
    }
}

Error SqlStore::failure(const QSqlError &error, const QString &what)
{
    const QString text = failureText(error);
    return makeError(failureCode(error), QStringLiteral("%1: %2").arg(what, text));
}

Expected<void> SqlStore::run(QSqlQuery &query, const char *what)
{
    if (!query.exec())
        return failure(query.lastError(),
                       QStringLiteral("%1: %2 failed").arg(m_path, QString::fromLatin1(what)));
    return {};
}

Expected<void> SqlStore::execute(const char *sql, const char *what)
{
    QSqlQuery query(m_db);
    if (!query.exec(QString::fromLatin1(sql)))
        return failure(query.lastError(), QStringLiteral("%1: %2").arg(m_path, QString::fromLatin1(what)));
    return {};
}

Expected<void> SqlStore::commit()
{
    return execute("COMMIT", "cannot commit");
}

void SqlStore::rollback()
{
    m_knownSellers.clear();
    QSqlQuery query(m_db);
    query.exec(QStringLiteral("ROLLBACK"));
}

Expected<void> SqlStore::savepoint()
{
    return execute("SAVEPOINT unit", "cannot begin a conversation");
}

Expected<void> SqlStore::releaseSavepoint()
{
    return execute("RELEASE unit", "cannot keep a conversation");
}

Expected<void> SqlStore::rollbackToSavepoint()
{
    // ROLLBACK TO keeps the savepoint open; RELEASE then drops it, leaving the transaction.
    m_knownSellers.clear();
    if (Expected<void> undone = execute("ROLLBACK TO unit", "cannot undo a conversation"); !undone)
        return undone;
    return execute("RELEASE unit", "cannot undo a conversation");
}

namespace {

// The id an INSERT ... RETURNING id gave: read with the insert, where lastInsertId() would ask
// PostgreSQL again (SELECT lastval()), a round trip per row on the import path.
qint64 insertedId(QSqlQuery &q)
{
    const qint64 id = q.next() ? q.value(0).toLongLong() : 0;
    q.finish();
    return id;
}

} // namespace

// The import path binds by name: QtSql binds a value by position only after building that
// position's name as text, which costs more than storing most of the values.

Expected<std::optional<TicketRef>> SqlStore::findTicket(const QString &extId)
{
    return ticketNamed(extId, true);
}

Expected<std::optional<TicketRef>> SqlStore::readTicket(const QString &extId)
{
    return ticketNamed(extId, false);
}

Expected<std::optional<TicketRef>> SqlStore::ticketNamed(const QString &extId, bool toWrite)
{
    const QString sql =
            QStringLiteral("SELECT id, fingerprint, ext_id, order_id, seller_id, last_seq, registry FROM "
                           "tickets WHERE ext_id = :ext_id");
    auto query = toWrite ? prepared("findTicket", sql + lockedToWrite()) : prepared("readTicket", sql);
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.bindValue(QStringLiteral(":ext_id"), extId);
    if (auto done = run(q, "finding a ticket"); !done)
        return done.error();
    std::optional<TicketRef> ref;
    if (q.next()) {
        ref = TicketRef{q.value(0).toLongLong(), q.value(1).toString(),
                        TicketFacts{{QStringLiteral("ticket_id"), q.value(2).toString()},
                                    {QStringLiteral("order_id"), q.value(3).toString()},
                                    {QStringLiteral("seller_id"), q.value(4).toString()}},
                        q.value(5).toLongLong(), q.value(6).toString()};
    }
    q.finish();
    return ref;
}

Expected<TicketRef> SqlStore::insertTicket(const NewTicket &ticket)
{
    // Sellers and orders are shared by tickets: the first ticket that names them records them.
    // The seller's balance is the newest the data states; each ticket keeps the one it knew.
    // Transcripts from model providers name neither: the ticket then stands alone.
    if (Expected<void> done = insertSellerAndOrder(ticket); !done)
        return done.error();

    const QString id = newTicketId();
    auto insert = prepared(
            "insert-ticket",
            QStringLiteral(
                    "INSERT INTO tickets (%1ext_id, order_id, seller_id, seller_name, subject, opened_at, "
                    "fingerprint, seller_balance_cents, seller_balance_as_of, source_format, registry, task, "
                    "origin, dated_by) "
                    "VALUES (%2:ext_id, :order_id, :seller_id, :seller_name, :subject, :opened_at, "
                    ":fingerprint, :seller_balance_cents, :seller_balance_as_of, :source_format, :registry, "
                    ":task, :origin, :dated_by) RETURNING id")
                    .arg(id.isEmpty() ? QString() : QStringLiteral("id, "),
                         id.isEmpty() ? QString() : id + QStringLiteral(", ")));
    if (!insert)
        return insert.error();
    QSqlQuery &q = **insert;
    q.bindValue(QStringLiteral(":ext_id"), ticket.extId);
    q.bindValue(QStringLiteral(":order_id"), nullableText(ticket.order.id));
    q.bindValue(QStringLiteral(":seller_id"), nullableText(ticket.seller.id));
    q.bindValue(QStringLiteral(":seller_name"),
                ticket.seller.id.isEmpty() ? QVariant(QMetaType::fromType<QString>())
                                           : QVariant(ticket.seller.name));
    // A null QString binds as NULL.
    q.bindValue(QStringLiteral(":subject"), ticket.subject.isNull() ? QStringLiteral("") : ticket.subject);
    q.bindValue(QStringLiteral(":opened_at"), ticket.openedAt);
    q.bindValue(QStringLiteral(":fingerprint"), ticket.fingerprint);
    q.bindValue(QStringLiteral(":seller_balance_cents"), nullableInt(ticket.seller.balanceCents));
    q.bindValue(QStringLiteral(":seller_balance_as_of"),
                ticket.seller.id.isEmpty() ? QVariant(QMetaType::fromType<qint64>())
                                           : QVariant(ticket.seller.balanceAsOf));
    q.bindValue(QStringLiteral(":source_format"), ticket.sourceFormat);
    q.bindValue(QStringLiteral(":registry"), ticket.registry);
    q.bindValue(QStringLiteral(":task"), nullableText(ticket.task));
    q.bindValue(QStringLiteral(":origin"), nullableText(ticket.origin));
    q.bindValue(QStringLiteral(":dated_by"), nullableText(ticketDatingId(ticket.dating)));
    if (auto done = run(q, "recording a ticket"); !done)
        return done.error();
    return TicketRef{insertedId(q), ticket.fingerprint,
                     TicketFacts{{QStringLiteral("ticket_id"), ticket.extId},
                                 {QStringLiteral("order_id"), ticket.order.id},
                                 {QStringLiteral("seller_id"), ticket.seller.id}},
                     0, ticket.registry};
}

Expected<void> SqlStore::insertSellerAndOrder(const NewTicket &ticket)
{
    if (ticket.order.id.isEmpty())
        return {}; // a native ticket names both or neither (the parser sees to it)
    if (ticket.seller.id.isEmpty())
        return insertOrder(ticket); // an order only a conversation's calls named: no seller yet
    // Without a balance the statement below only inserts a seller that is missing.
    if (!ticket.seller.balanceCents && m_knownSellers.contains(ticket.seller.id))
        return insertOrder(ticket);
    auto seller = prepared(
            "INSERT INTO sellers (id, name, balance_cents, balance_as_of) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET balance_cents = excluded.balance_cents, "
            "balance_as_of = excluded.balance_as_of "
            "WHERE excluded.balance_cents IS NOT NULL AND excluded.balance_as_of > sellers.balance_as_of");
    if (!seller)
        return seller.error();
    (*seller)->addBindValue(ticket.seller.id);
    (*seller)->addBindValue(ticket.seller.name);
    (*seller)->addBindValue(nullableInt(ticket.seller.balanceCents));
    (*seller)->addBindValue(ticket.seller.balanceAsOf);
    if (auto done = run(**seller, "recording a seller"); !done)
        return done.error();
    if (m_knownSellers.size() >= 10000)
        m_knownSellers.clear(); // a bound on memory, whatever the file
    m_knownSellers.insert(ticket.seller.id);
    return insertOrder(ticket);
}

Expected<void> SqlStore::insertOrder(const NewTicket &ticket)
{
    auto order = prepared(
            "INSERT INTO orders (id, seller_id, currency, customer_name, customer_email, payment_intent) "
            "VALUES (:id, :seller_id, :currency, :customer_name, :customer_email, :payment_intent) "
            "ON CONFLICT (id) DO NOTHING");
    if (!order)
        return order.error();
    (*order)->bindValue(QStringLiteral(":id"), ticket.order.id);
    (*order)->bindValue(QStringLiteral(":seller_id"), nullableText(ticket.seller.id));
    (*order)->bindValue(QStringLiteral(":currency"), ticket.order.currency);
    (*order)->bindValue(QStringLiteral(":customer_name"), nullableText(ticket.order.customerName));
    (*order)->bindValue(QStringLiteral(":customer_email"), nullableText(ticket.order.customerEmail));
    // Only what the data named: a guessed payment would be looked up and find nothing.
    (*order)->bindValue(QStringLiteral(":payment_intent"), nullableText(ticket.order.paymentIntent));
    if (auto done = run(**order, "recording an order"); !done)
        return done.error();

    for (const OrderItemRecord &item : ticket.order.items) {
        auto row = prepared(
                "INSERT INTO order_items (order_id, item_id, title, quantity, amount_cents) "
                "VALUES (:order_id, :item_id, :title, :quantity, :amount_cents) ON CONFLICT DO NOTHING");
        if (!row)
            return row.error();
        (*row)->bindValue(QStringLiteral(":order_id"), ticket.order.id);
        (*row)->bindValue(QStringLiteral(":item_id"), item.id);
        (*row)->bindValue(QStringLiteral(":title"), item.title);
        (*row)->bindValue(QStringLiteral(":quantity"), item.quantity);
        (*row)->bindValue(QStringLiteral(":amount_cents"), item.amountCents);
        if (auto done = run(**row, "recording an order item"); !done)
            return done.error();
    }

    return {};
}

Expected<bool> SqlStore::insertMessage(const NewMessage &message)
{
    auto insert = prepared("INSERT INTO messages (ticket_id, seq, at, kind, text, fingerprint) "
                           "VALUES (:ticket_id, :seq, :at, :kind, :text, :fingerprint) "
                           "ON CONFLICT (ticket_id, fingerprint) DO NOTHING");
    if (!insert)
        return insert.error();
    QSqlQuery &q = **insert;
    q.bindValue(QStringLiteral(":ticket_id"), message.ticketId);
    q.bindValue(QStringLiteral(":seq"), message.seq);
    q.bindValue(QStringLiteral(":at"), message.at);
    q.bindValue(QStringLiteral(":kind"), messageKindId(message.kind));
    q.bindValue(QStringLiteral(":text"), message.text);
    q.bindValue(QStringLiteral(":fingerprint"), message.fingerprint);
    if (auto done = run(q, "recording a message"); !done)
        return done.error();
    return q.numRowsAffected() > 0;
}

Expected<std::optional<ToolCallRef>> SqlStore::findToolCall(qint64 ticketId, const QString &callExtId)
{
    auto query = prepared("SELECT id, tool, tool_class, fingerprint, result_fingerprint FROM tool_calls "
                          "WHERE ticket_id = ? AND call_ext_id = ?");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(ticketId);
    q.addBindValue(callExtId);
    if (auto done = run(q, "finding a tool call"); !done)
        return done.error();
    std::optional<ToolCallRef> ref;
    if (q.next()) {
        ref = ToolCallRef{q.value(0).toLongLong(), q.value(1).toString(),
                          toolClassFromId(q.value(2).toString()).value_or(ToolClass::Unclassified),
                          q.value(3).toString(), q.value(4).toString()};
    }
    q.finish();
    return ref;
}

namespace {

// The columns a call is made with; its outcome is the result's once there is one.
void bindCall(QSqlQuery &q, const NewToolCall &call, const std::optional<Outcome> &outcome,
              const QString &reason)
{
    q.bindValue(QStringLiteral(":ticket_id"), call.ticketId);
    q.bindValue(QStringLiteral(":seq"), call.seq);
    q.bindValue(QStringLiteral(":call_ext_id"), call.callExtId);
    q.bindValue(QStringLiteral(":tool"), call.tool);
    q.bindValue(QStringLiteral(":tool_class"), toolClassId(call.toolClass));
    q.bindValue(QStringLiteral(":arguments"), call.argumentsJson);
    q.bindValue(QStringLiteral(":called_at"), call.calledAt);
    q.bindValue(QStringLiteral(":intent_key"), nullableText(call.intentKey));
    q.bindValue(QStringLiteral(":intent_error"), nullableText(call.intentError));
    q.bindValue(QStringLiteral(":amount_cents"), nullableInt(call.amountCents));
    q.bindValue(QStringLiteral(":amount_error"), nullableText(call.amountError));
    q.bindValue(QStringLiteral(":class_inferred"), nullableText(call.classInferred));
    q.bindValue(QStringLiteral(":outcome"),
                outcome ? QVariant(outcomeId(*outcome)) : QVariant(QMetaType::fromType<QString>()));
    q.bindValue(QStringLiteral(":outcome_reason"), nullableText(reason));
    q.bindValue(QStringLiteral(":fingerprint"), call.fingerprint);
}

// The columns a result sets, but for the outcome (bound with the call's, above).
void bindResult(QSqlQuery &q, const ToolResultUpdate &result)
{
    q.bindValue(QStringLiteral(":raw_result"), result.rawResult);
    q.bindValue(QStringLiteral(":result_at"), result.at);
    q.bindValue(QStringLiteral(":duration_ms"), nullableInt(result.durationMs));
    q.bindValue(QStringLiteral(":read_failed"), result.readFailed ? 1 : 0);
    q.bindValue(QStringLiteral(":result_fingerprint"), result.fingerprint);
    q.bindValue(QStringLiteral(":result_error"), result.errorFlag ? 1 : 0);
    q.bindValue(QStringLiteral(":result_error_type"), nullableText(result.errorType));
}

} // namespace

Expected<qint64> SqlStore::insertToolCall(const NewToolCall &call)
{
    auto insert =
            prepared("INSERT INTO tool_calls (ticket_id, seq, call_ext_id, tool, tool_class, arguments, "
                     "called_at, intent_key, intent_error, amount_cents, amount_error, outcome, "
                     "outcome_reason, fingerprint, in_flight_until, class_inferred) "
                     "VALUES (:ticket_id, :seq, :call_ext_id, :tool, :tool_class, :arguments, :called_at, "
                     ":intent_key, :intent_error, :amount_cents, :amount_error, :outcome, :outcome_reason, "
                     ":fingerprint, :in_flight_until, :class_inferred) RETURNING id");
    if (!insert)
        return insert.error();
    QSqlQuery &q = **insert;
    bindCall(q, call, call.outcome, call.outcomeReason);
    q.bindValue(QStringLiteral(":in_flight_until"), nullableInt(call.inFlightUntil));
    if (auto done = run(q, "recording a tool call"); !done)
        return done.error();
    return insertedId(q);
}

Expected<qint64> SqlStore::insertAnsweredToolCall(const NewToolCall &call, const ToolResultUpdate &result)
{
    auto insert = prepared(
            "INSERT INTO tool_calls (ticket_id, seq, call_ext_id, tool, tool_class, arguments, "
            "called_at, intent_key, intent_error, amount_cents, amount_error, outcome, outcome_reason, "
            "fingerprint, "
            "raw_result, result_at, duration_ms, read_failed, result_fingerprint, result_error, "
            "result_error_type, class_inferred) "
            "VALUES (:ticket_id, :seq, :call_ext_id, :tool, :tool_class, :arguments, :called_at, "
            ":intent_key, :intent_error, :amount_cents, :amount_error, :outcome, :outcome_reason, "
            ":fingerprint, "
            ":raw_result, :result_at, :duration_ms, :read_failed, :result_fingerprint, :result_error, "
            ":result_error_type, :class_inferred) RETURNING id");
    if (!insert)
        return insert.error();
    QSqlQuery &q = **insert;
    // The result's outcome replaces the call's, as setToolResult() does.
    bindCall(q, call, result.outcome, result.outcomeReason);
    bindResult(q, result);
    if (auto done = run(q, "recording a tool call"); !done)
        return done.error();
    return insertedId(q);
}

Expected<void> SqlStore::setToolResult(const ToolResultUpdate &result)
{
    auto update =
            prepared("UPDATE tool_calls SET raw_result = :raw_result, result_at = :result_at, "
                     "duration_ms = :duration_ms, outcome = :outcome, outcome_reason = :outcome_reason, "
                     "read_failed = :read_failed, result_fingerprint = :result_fingerprint, "
                     "result_error = :result_error, result_error_type = :result_error_type, "
                     "in_flight_until = NULL WHERE id = :id");
    if (!update)
        return update.error();
    QSqlQuery &q = **update;
    bindResult(q, result);
    q.bindValue(QStringLiteral(":outcome"),
                result.outcome ? QVariant(outcomeId(*result.outcome))
                               : QVariant(QMetaType::fromType<QString>()));
    q.bindValue(QStringLiteral(":outcome_reason"), nullableText(result.outcomeReason));
    q.bindValue(QStringLiteral(":id"), result.callId);
    return run(q, "recording a tool result");
}

Expected<QList<CallFacts>> SqlStore::callFacts(qint64 ticketId)
{
    // The settlement's rules are settledOutcome and settledAbsent; the query reads their facts.
    auto query =
            prepared("SELECT c.id, c.tool_class, c.outcome, c.intent_key, c.intent_error, c.amount_cents, "
                     "e.resolution, "
                     "CASE WHEN c.tool_class NOT IN ({class:read}, {class:unclassified}) AND "
                     "length(c.raw_result) < 262144 "
                     "THEN c.raw_result END, c.amount_error IS NOT NULL, c.in_flight_until IS NOT NULL "
                     "FROM tool_calls c "
                     "LEFT JOIN escalations e ON e.tool_call_id = c.id "
                     "WHERE c.ticket_id = ? ORDER BY c.seq");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(ticketId);
    if (auto done = run(q, "reading a ticket's tool calls"); !done)
        return done.error();
    QList<CallFacts> facts;
    while (q.next()) {
        CallFacts call;
        call.id = q.value(0).toLongLong();
        call.toolClass = toolClassFromId(q.value(1).toString()).value_or(ToolClass::Unclassified);
        const std::optional<Outcome> reported =
                q.value(2).isNull() ? std::nullopt : outcomeFromId(q.value(2).toString());
        const std::optional<Resolution> resolution = resolutionFromId(q.value(6).toString());
        call.outcome = settledOutcome(reported, resolution);
        call.settledAbsent = settledAbsent(reported, resolution);
        call.intentKey = q.value(3).toString();
        // A key from all arguments keeps why the profile's fields could not make one.
        call.intentError = q.value(3).toString().isEmpty();
        call.amountCents = optionalInt(q.value(5));
        noteResult(call, q.value(7).toString());
        call.amountError = q.value(8).toBool();
        call.inFlight = q.value(9).toBool();
        facts.append(call);
    }
    q.finish();
    return facts;
}

Expected<RepeatCounts> SqlStore::repeatCounts(qint64 ticketId)
{
    auto query = prepared(
            "SELECT retry_count, duplicate_effects, harmless_repeats, unsettled_repeats, duplicate_cents "
            "FROM tickets WHERE id = ?");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(ticketId);
    if (auto done = run(q, "reading a ticket's repeats"); !done)
        return done.error();
    RepeatCounts counts;
    if (q.next())
        counts = {q.value(0).toInt(), q.value(1).toInt(), q.value(2).toInt(), q.value(3).toInt(),
                  q.value(4).toLongLong()};
    q.finish();
    return counts;
}

Expected<RepeatCounts> SqlStore::applyAssessment(qint64 ticketId, qint64 lastSeq,
                                                 const TicketAssessment &assessment)
{
    Expected<RepeatCounts> before = repeatCounts(ticketId);
    if (!before)
        return before;
    auto clear = prepared("UPDATE tool_calls SET repeated = 0, repeat_kind = NULL, repeat_of = NULL "
                          "WHERE ticket_id = ? AND (repeated <> 0 OR repeat_kind IS NOT NULL)");
    if (!clear)
        return clear.error();
    (*clear)->addBindValue(ticketId);
    if (auto done = run(**clear, "clearing repeat marks"); !done)
        return done.error();
    if (auto done = markRepeats(assessment); !done)
        return done.error();
    if (auto done = storeSummary(ticketId, lastSeq, assessment, false); !done)
        return done.error();
    if (auto done = openEscalations(ticketId); !done)
        return done.error();
    // An escalation whose write a later result settled goes only while nobody has acted on it: one
    // claimed, noted or with evidence stays open, its record whole, for a person to settle.
    auto drop = prepared(
            "DELETE FROM escalations WHERE ticket_id = ? AND state = {state:open} AND tool_call_id IN "
            "(SELECT id FROM tool_calls WHERE ticket_id = ? AND outcome IS DISTINCT FROM {outcome:unknown}) "
            "AND claimed_by IS NULL AND last_note IS NULL AND payment_reference IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM evidence v WHERE v.escalation_id = escalations.id) "
            "AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.escalation_id = escalations.id)");
    if (!drop)
        return drop.error();
    (*drop)->addBindValue(ticketId);
    (*drop)->addBindValue(ticketId);
    if (auto done = run(**drop, "closing escalations that no longer apply"); !done)
        return done.error();
    return *before;
}

Expected<void> SqlStore::applyFirstAssessment(qint64 ticketId, qint64 lastSeq,
                                              const TicketAssessment &assessment)
{
    if (auto done = markRepeats(assessment); !done)
        return done;
    if (auto done = storeSummary(ticketId, lastSeq, assessment, true); !done)
        return done;
    // Only a write has an outcome, so a ticket with no unknown write has no call to escalate.
    if (!assessment.hasUnknown)
        return {};
    return openEscalations(ticketId);
}

Expected<void> SqlStore::markRepeats(const TicketAssessment &assessment)
{
    for (qint64 callId : assessment.repeatedCalls) {
        auto mark = prepared("UPDATE tool_calls SET repeated = 1 WHERE id = ?");
        if (!mark)
            return mark.error();
        (*mark)->addBindValue(callId);
        if (auto done = run(**mark, "marking a repeated intent"); !done)
            return done.error();
    }
    for (auto link = assessment.repeatOf.cbegin(); link != assessment.repeatOf.cend(); ++link) {
        auto mark = prepared("UPDATE tool_calls SET repeat_kind = ?, repeat_of = ? WHERE id = ?");
        if (!mark)
            return mark.error();
        (*mark)->addBindValue(repeatKindId(link->kind));
        (*mark)->addBindValue(link->repeatOf);
        (*mark)->addBindValue(link.key());
        if (auto done = run(**mark, "classifying a repeated intent"); !done)
            return done.error();
    }
    return {};
}

Expected<void> SqlStore::storeSummary(qint64 ticketId, qint64 lastSeq, const TicketAssessment &assessment,
                                      bool onlyChanged)
{
    // Each column is also its placeholder's name; a new ticket has 0 in every one.
    const SummaryColumns values = ticketSummaryColumns(lastSeq, assessment);
    const char *sql =
            "UPDATE tickets SET last_seq = :last_seq, write_count = :write_count, "
            "worst_outcome = :worst_outcome, needs_attention = :needs_attention, has_unknown = :has_unknown, "
            "has_repeat = :has_repeat, duplicate_effects = :duplicate_effects, retry_count = :retry_count, "
            "harmless_repeats = :harmless_repeats, unsettled_repeats = :unsettled_repeats, "
            "duplicate_cents = :duplicate_cents, attention_rank = :attention_rank, in_flight = :in_flight "
            "WHERE id = :id";
    unsigned columns = (1u << std::size(values)) - 1;
    if (onlyChanged) {
        columns = 0;
        for (std::size_t i = 0; i < std::size(values); ++i) {
            if (values[i].value != 0)
                columns |= 1u << i;
        }
        if (columns == 0)
            return {};
        auto text = m_summaryTexts.find(columns);
        if (text == m_summaryTexts.end()) {
            QByteArray made = "UPDATE tickets SET ";
            for (std::size_t i = 0; i < std::size(values); ++i) {
                if (columns & (1u << i))
                    made += QByteArray(values[i].column) + " = :" + values[i].column + ", ";
            }
            made.chop(2);
            made += " WHERE id = :id";
            text = m_summaryTexts.emplace(columns, std::move(made)).first;
        }
        sql = text->second.constData();
    }
    auto summary = prepared(sql);
    if (!summary)
        return summary.error();
    QSqlQuery &q = **summary;
    for (std::size_t i = 0; i < std::size(values); ++i) {
        if (columns & (1u << i))
            q.bindValue(QLatin1Char(':') + QLatin1String(values[i].column), values[i].value);
    }
    q.bindValue(QStringLiteral(":id"), ticketId);
    return run(q, "updating a ticket's summary");
}

Expected<void> SqlStore::openEscalations(qint64 ticketId)
{
    // One open escalation per unknown write, dated from when the write became unknown (its
    // result, or the call when no result came), whichever batch brought what. One whose call is
    // no longer unknown (its result arrived in a later batch) was never a real escalation.
    auto open = prepared(
            "INSERT INTO escalations (tool_call_id, ticket_id, opened_at, amount_cents) "
            "SELECT id, ticket_id, COALESCE(result_at, called_at), amount_cents FROM tool_calls "
            "WHERE ticket_id = :ticket_id AND outcome = {outcome:unknown} AND in_flight_until IS NULL "
            "ON CONFLICT (tool_call_id) DO UPDATE SET "
            "opened_at = excluded.opened_at, amount_cents = excluded.amount_cents WHERE escalations.state = "
            "{state:open}");
    if (!open)
        return open.error();
    (*open)->bindValue(QStringLiteral(":ticket_id"), ticketId);
    return run(**open, "opening escalations");
}

Expected<int> SqlStore::escalateOverdueCalls(qint64 now)
{
    // The tickets first, locked in id order as every session locks them, and only then their
    // calls: a session storing an answer locks the ticket before the call, and the other order
    // would make the two wait for each other.
    auto overdueTickets =
            prepared("overdueTickets",
                     QStringLiteral("SELECT id FROM tickets WHERE id IN (SELECT ticket_id FROM tool_calls "
                                    "WHERE in_flight_until IS NOT NULL AND in_flight_until <= ?) ORDER BY id")
                             + lockedToWrite());
    if (!overdueTickets)
        return overdueTickets.error();
    (*overdueTickets)->addBindValue(now);
    if (auto done = run(**overdueTickets, "finding the tickets of results that did not come"); !done)
        return done.error();
    QList<qint64> tickets;
    while ((*overdueTickets)->next())
        tickets.append((*overdueTickets)->value(0).toLongLong());
    (*overdueTickets)->finish();
    // A call's in-flight mark goes with its result (setToolResult), so every mark still here
    // is a call whose result has not come.
    auto overdue = prepared("UPDATE tool_calls SET in_flight_until = NULL "
                            "WHERE ticket_id = ? AND in_flight_until IS NOT NULL AND in_flight_until <= ?");
    if (!overdue)
        return overdue.error();
    int calls = 0;
    for (qint64 ticket : std::as_const(tickets)) {
        (*overdue)->addBindValue(ticket);
        (*overdue)->addBindValue(now);
        if (auto done = run(**overdue, "ending the wait for results that did not come"); !done)
            return done.error();
        calls += (*overdue)->numRowsAffected();
        (*overdue)->finish();
        // Its wait is over: it has an unknown write now, not only writes in flight, and an
        // escalation. Assessed whole, since its state (and so its place in the queue) changes
        // with it, not its in-flight mark alone.
        if (auto assessed = reassessTicket(*this, ticket); !assessed)
            return assessed.error();
    }
    return calls;
}

Expected<bool> SqlStore::endWaitForResult(qint64 callId, qint64 now)
{
    auto ended = prepared(
            "UPDATE tool_calls SET in_flight_until = ? WHERE id = ? AND in_flight_until IS NOT NULL");
    if (!ended)
        return ended.error();
    (*ended)->addBindValue(now);
    (*ended)->addBindValue(callId);
    if (auto done = run(**ended, "ending the wait for a call's result"); !done)
        return done.error();
    const bool waited = (*ended)->numRowsAffected() > 0;
    (*ended)->finish();
    return waited;
}

Expected<void> SqlStore::recordImport(const ImportRecord &record)
{
    auto insert = prepared("INSERT INTO imports (path, sha256, started_at, lines_read, lines_rejected) "
                           "VALUES (?, ?, ?, ?, ?)");
    if (!insert)
        return insert.error();
    QSqlQuery &q = **insert;
    q.addBindValue(record.path);
    q.addBindValue(record.sha256);
    q.addBindValue(record.startedAt);
    q.addBindValue(record.linesRead);
    q.addBindValue(record.linesRejected);
    return run(q, "recording the import");
}

} // namespace verity

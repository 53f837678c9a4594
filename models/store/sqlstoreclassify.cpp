// Tools the registry did not know at import, and the reading of their calls again once a
// person has classified them.

#include "sqlerror.h"
#include "sqlstore.h"

#include <QVariant>

namespace verity {

Expected<QList<UnclassifiedTool>> SqlStore::unclassifiedTools()
{
    // A tool whose class was inferred stays here until a person confirms one. Calls of one tool
    // may have been inferred as different classes: the most cautious is offered, so that one
    // click never turns a money write into a lesser one.
    auto query = prepared(
            "SELECT tool, count(*), count(DISTINCT ticket_id), min(arguments), "
            "max(CASE WHEN class_inferred IS NULL THEN 0 WHEN tool_class = {class:write_money} THEN 5 "
            "WHEN tool_class = {class:write_irreversible} THEN 4 WHEN tool_class = {class:write_costly} THEN "
            "3 "
            "WHEN tool_class = {class:write_wasteful} THEN 2 ELSE 1 END), "
            "count(DISTINCT CASE WHEN class_inferred IS NOT NULL THEN tool_class END) "
            "FROM tool_calls WHERE tool_class = {class:unclassified} OR class_inferred IS NOT NULL "
            "GROUP BY tool ORDER BY count(*) DESC, tool");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    if (auto done = run(q, "listing unclassified tools"); !done)
        return done.error();
    static const ToolClass byCaution[] = {ToolClass::Unclassified,      ToolClass::Read,
                                          ToolClass::WriteWasteful,     ToolClass::WriteCostly,
                                          ToolClass::WriteIrreversible, ToolClass::WriteMoney};
    QList<UnclassifiedTool> tools;
    QList<qint64> inferredClasses;
    while (q.next()) {
        UnclassifiedTool tool;
        tool.tool = q.value(0).toString();
        tool.calls = q.value(1).toLongLong();
        tool.tickets = q.value(2).toLongLong();
        tool.sampleArguments = q.value(3).toString();
        tool.inferredClass = byCaution[qBound(0, q.value(4).toInt(), 5)];
        tools.append(tool);
        inferredClasses.append(q.value(5).toLongLong());
    }
    q.finish();

    // The sample is the first call that answered without an error (flagged, or one that reads as
    // one: read_failed), arguments and result together: the result's ids are told apart from the
    // arguments' by their values. In id order along the class index, so the first such call ends
    // the read. Without one, the arguments stay the group's and there is no result.
    auto sample =
            prepared("SELECT arguments, raw_result FROM tool_calls "
                     "WHERE (tool_class = {class:unclassified} OR class_inferred IS NOT NULL) AND tool = ? "
                     "AND raw_result IS NOT NULL "
                     "AND result_error = 0 AND read_failed = 0 AND length(raw_result) < 65536 "
                     "ORDER BY id LIMIT 1");
    if (!sample)
        return sample.error();
    QSqlQuery &s = **sample;
    for (UnclassifiedTool &tool : tools) {
        s.bindValue(0, tool.tool);
        if (auto done = run(s, "reading a sample call of an unclassified tool"); !done)
            return done.error();
        if (s.next()) {
            tool.sampleArguments = s.value(0).toString();
            tool.sampleResult = s.value(1).toString();
        }
        s.finish();
    }
    // Why, in the words of the first call inferred as the class offered.
    auto why = prepared("SELECT class_inferred FROM tool_calls WHERE tool = ? AND tool_class = ? "
                        "AND class_inferred IS NOT NULL ORDER BY id LIMIT 1");
    if (!why)
        return why.error();
    QSqlQuery &w = **why;
    for (qsizetype i = 0; i < tools.size(); ++i) {
        UnclassifiedTool &tool = tools[i];
        if (tool.inferredClass == ToolClass::Unclassified)
            continue;
        w.bindValue(0, tool.tool);
        w.bindValue(1, toolClassId(tool.inferredClass));
        if (auto done = run(w, "reading why a tool's class was inferred"); !done)
            return done.error();
        if (w.next())
            tool.inferredBecause = w.value(0).toString();
        w.finish();
        if (inferredClasses.at(i) > 1)
            tool.inferredBecause +=
                    QStringLiteral(" (other calls of it were inferred as lesser classes; the most "
                                   "cautious is offered)");
    }
    return tools;
}

Expected<QList<StoredCall>> SqlStore::unclassifiedCalls(const QString &tool)
{
    auto query = prepared(
            "SELECT c.id, c.ticket_id, c.tool, c.arguments, c.result_fingerprint IS NOT NULL, "
            "c.raw_result, c.result_error, t.ext_id, t.order_id, t.seller_id, t.registry FROM tool_calls c "
            "JOIN tickets t ON t.id = c.ticket_id "
            "WHERE (c.tool_class = {class:unclassified} OR c.class_inferred IS NOT NULL) AND c.tool = ? "
            "ORDER BY c.id");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(tool);
    if (auto done = run(q, "reading unclassified calls"); !done)
        return done.error();
    QList<StoredCall> calls;
    while (q.next()) {
        StoredCall call;
        call.id = q.value(0).toLongLong();
        call.ticketId = q.value(1).toLongLong();
        call.tool = q.value(2).toString();
        call.argumentsJson = q.value(3).toString();
        call.hasResult = q.value(4).toBool();
        call.rawResult = q.value(5).toString();
        call.resultError = q.value(6).toBool();
        call.facts = TicketFacts{{QStringLiteral("ticket_id"), q.value(7).toString()},
                                 {QStringLiteral("order_id"), q.value(8).toString()},
                                 {QStringLiteral("seller_id"), q.value(9).toString()}};
        call.registry = q.value(10).toString();
        calls.append(call);
    }
    q.finish();
    return calls;
}

Expected<void> SqlStore::reclassifyCall(const CallClassification &c)
{
    auto update = prepared(
            "UPDATE tool_calls SET tool_class = ?, intent_key = ?, intent_error = ?, amount_cents = ?, "
            "amount_error = ?, outcome = ?, outcome_reason = ?, read_failed = ?, class_inferred = NULL "
            "WHERE id = ?");
    if (!update)
        return update.error();
    QSqlQuery &q = **update;
    q.addBindValue(toolClassId(c.toolClass));
    q.addBindValue(nullableText(c.intentKey));
    q.addBindValue(nullableText(c.intentError));
    q.addBindValue(nullableInt(c.amountCents));
    q.addBindValue(nullableText(c.amountError));
    q.addBindValue(c.outcome ? QVariant(outcomeId(*c.outcome)) : QVariant(QMetaType::fromType<QString>()));
    q.addBindValue(nullableText(c.outcomeReason));
    q.addBindValue(c.readFailed ? 1 : 0);
    q.addBindValue(c.callId);
    return run(q, "reclassifying a call");
}

} // namespace verity

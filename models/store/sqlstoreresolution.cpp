// Settling unknown writes: escalation details, lookup evidence, resolution claims that hold
// across consoles, the ledger of money moved, and the rows of the audit chain.

#include "domain/resultrecord.h"
#include "sqlerror.h"
#include "sqlstore.h"
#include "sqlwords.h"

#include <QDateTime>
#include <QVariant>

namespace verity {

namespace {

AuditEntry auditEntry(const QSqlQuery &q)
{
    AuditEntry entry;
    entry.seq = q.value(0).toLongLong();
    entry.at = q.value(1).toLongLong();
    entry.operatorName = q.value(2).toString();
    entry.action = q.value(3).toString();
    entry.escalationId = optionalInt(q.value(4));
    entry.detail = q.value(5).toString();
    entry.evidenceSha256 = q.value(6).toString();
    entry.prevHash = q.value(7).toString();
    entry.hash = q.value(8).toString();
    return entry;
}

constexpr auto auditColumns =
        "seq, at, operator, action, escalation_id, detail, evidence_sha256, prev_hash, hash";

} // namespace

Expected<std::optional<EscalationDetail>> SqlStore::escalation(qint64 escalationId)
{
    auto query = prepared("SELECT e.id, e.ticket_id, t.ext_id, e.tool_call_id, c.call_ext_id, c.tool, "
                          "c.tool_class, c.arguments, "
                          "c.intent_key, e.amount_cents, COALESCE(o.currency, 'USD'), o.id, "
                          "o.payment_intent, t.seller_id, t.seller_name, "
                          "o.customer_name, c.called_at, e.opened_at, e.state, e.resolution, e.resolved_by, "
                          "e.resolved_at, e.last_note, "
                          "e.basis, e.reference, t.registry, e.payment_reference, e.payment_entered_by, "
                          "e.claimed_by, e.claimed_until, c.outcome "
                          "FROM escalations e JOIN tickets t ON t.id = e.ticket_id JOIN tool_calls c ON c.id "
                          "= e.tool_call_id "
                          "LEFT JOIN orders o ON o.id = t.order_id WHERE e.id = ?");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(escalationId);
    if (auto done = run(q, "reading an escalation"); !done)
        return done.error();
    if (!q.next())
        return std::optional<EscalationDetail>();
    EscalationDetail d;
    d.id = q.value(0).toLongLong();
    d.ticketId = q.value(1).toLongLong();
    d.ticketExtId = q.value(2).toString();
    d.callId = q.value(3).toLongLong();
    d.callExtId = q.value(4).toString();
    d.tool = q.value(5).toString();
    d.toolClass = toolClassFromId(q.value(6).toString()).value_or(ToolClass::Unclassified);
    d.argumentsJson = q.value(7).toString();
    d.intentKey = q.value(8).toString();
    d.amountCents = optionalInt(q.value(9));
    d.currency = q.value(10).toString();
    d.orderId = q.value(11).toString();
    d.paymentIntent = q.value(12).toString();
    d.sellerId = q.value(13).toString();
    d.sellerName = q.value(14).toString();
    d.customerName = q.value(15).toString();
    d.calledAt = q.value(16).toLongLong();
    d.openedAt = q.value(17).toLongLong();
    d.state = escalationStateFromId(q.value(18).toString());
    if (!q.value(19).isNull())
        d.resolution = resolutionFromId(q.value(19).toString());
    d.resolvedBy = q.value(20).toString();
    d.resolvedAt = q.value(21).toLongLong();
    d.lastNote = q.value(22).toString();
    d.basis = settlementBasisFromId(q.value(23).toString()).value_or(SettlementBasis::Lookup);
    d.reference = q.value(24).toString();
    d.ticketRegistry = q.value(25).toString();
    d.enteredPayment = q.value(26).toString();
    d.enteredPaymentBy = q.value(27).toString();
    d.claimedBy = q.value(28).toString();
    d.claimedUntil = q.value(29).toLongLong();
    if (!q.value(30).isNull())
        d.reported = outcomeFromId(q.value(30).toString());
    q.finish();
    return std::optional<EscalationDetail>(d);
}

namespace {

// The columns intentCallRow() reads, of tool_calls c, tickets t, escalations e and ledger l.
constexpr auto intentCallColumns =
        "c.id, c.call_ext_id, c.called_at, c.outcome, e.id, e.resolution, l.refund_id, e.reference, "
        "CASE WHEN length(c.raw_result) < 65536 THEN c.raw_result END, e.basis, t.ext_id, c.in_flight_until";
constexpr auto intentCallTables = "tool_calls c JOIN tickets t ON t.id = c.ticket_id "
                                  "LEFT JOIN escalations e ON e.tool_call_id = c.id "
                                  "LEFT JOIN ledger l ON l.tool_call_id = c.id";

IntentCall intentCallRow(const QSqlQuery &q)
{
    IntentCall call;
    call.id = q.value(0).toLongLong();
    call.callExtId = q.value(1).toString();
    call.calledAt = q.value(2).toLongLong();
    if (!q.value(3).isNull())
        call.outcome = outcomeFromId(q.value(3).toString());
    call.escalationId = optionalInt(q.value(4));
    if (!q.value(5).isNull())
        call.resolution = resolutionFromId(q.value(5).toString());
    call.attested = q.value(9).toString() == settlementBasisId(SettlementBasis::Attestation);
    // What a system confirmed outranks what the tool said it made; a person's reference may
    // name where they looked rather than a record, so it names none.
    call.recordId = q.value(6).toString();
    if (call.recordId.isEmpty() && call.resolution != Resolution::NotPerformed && !call.attested)
        call.recordId = q.value(7).toString();
    if (call.recordId.isEmpty() && call.outcome == Outcome::Performed)
        call.recordId = recordIdInResult(q.value(8).toString());
    call.reference = q.value(7).toString();
    call.ticketExtId = q.value(10).toString();
    call.inFlightUntil = optionalInt(q.value(11));
    return call;
}

} // namespace

Expected<QList<IntentCall>> SqlStore::intentCalls(qint64 ticketId, const QString &intentKey)
{
    auto query = prepared("intent calls of a ticket",
                          QStringLiteral("SELECT %1 FROM %2 WHERE c.ticket_id = ? AND c.intent_key = ? "
                                         "ORDER BY c.seq")
                                  .arg(QLatin1String(intentCallColumns), QLatin1String(intentCallTables)));
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(ticketId);
    q.addBindValue(intentKey);
    if (auto done = run(q, "reading the calls of an intent"); !done)
        return done.error();
    QList<IntentCall> calls;
    while (q.next())
        calls.append(intentCallRow(q));
    q.finish();
    return calls;
}

Expected<QList<IntentCall>> SqlStore::callsOfIntent(const QString &intentKey, int limit)
{
    auto query =
            prepared("intent calls anywhere",
                     QStringLiteral("SELECT %1 FROM %2 WHERE c.intent_key = ? ORDER BY c.id DESC LIMIT ?")
                             .arg(QLatin1String(intentCallColumns), QLatin1String(intentCallTables)));
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(intentKey);
    q.addBindValue(limit);
    if (auto done = run(q, "reading where an intent was made before"); !done)
        return done.error();
    QList<IntentCall> calls;
    while (q.next())
        calls.prepend(intentCallRow(q));
    q.finish();
    return calls;
}

namespace {

constexpr auto evidenceColumns =
        "id, escalation_id, kind, operator, started_at, finished_at, verdict, request, "
        "response, record_id, reason, evidence_sha256";

Evidence evidenceRow(const QSqlQuery &q)
{
    Evidence e;
    e.id = q.value(0).toLongLong();
    e.escalationId = q.value(1).toLongLong();
    e.kind = evidenceKindFromId(q.value(2).toString()).value_or(EvidenceKind::Lookup);
    e.operatorName = q.value(3).toString();
    e.startedAt = q.value(4).toLongLong();
    e.finishedAt = q.value(5).toLongLong();
    e.verdict = lookupVerdictFromId(q.value(6).toString()).value_or(LookupVerdict::CouldNotTell);
    e.request = q.value(7).toString();
    e.response = q.value(8).toString();
    e.recordId = q.value(9).toString();
    e.reason = q.value(10).toString();
    e.evidenceSha256 = q.value(11).toString();
    return e;
}

LedgerEntry ledgerRow(const QSqlQuery &q)
{
    return LedgerEntry{q.value(0).toString(),   optionalInt(q.value(1)), q.value(2).toString(),
                       q.value(3).toLongLong(), q.value(4).toString(),   q.value(5).toString(),
                       q.value(6).toLongLong(), q.value(7).toString()};
}

constexpr auto ledgerColumns =
        "intent_key, tool_call_id, refund_id, amount_cents, currency, seller_id, recorded_at, source";

} // namespace

template<typename Row, typename Read>
Expected<QList<Row>> SqlStore::rowsOf(const QString &sql, const QVariantList &binds, const char *what,
                                      Read read)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    q.prepare(withStoredWords(sql));
    for (const QVariant &bind : binds)
        q.addBindValue(bind);
    if (auto done = run(q, what); !done)
        return done.error();
    QList<Row> rows;
    while (q.next())
        rows.append(read(q));
    return rows;
}

Expected<qint64> SqlStore::recordEvidence(const Evidence &evidence)
{
    auto insert =
            prepared("INSERT INTO evidence (escalation_id, kind, operator, started_at, finished_at, verdict, "
                     "request, response, record_id, reason, evidence_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                     "?, ?, ?)");
    if (!insert)
        return insert.error();
    QSqlQuery &q = **insert;
    q.addBindValue(evidence.escalationId);
    q.addBindValue(evidenceKindId(evidence.kind));
    q.addBindValue(evidence.operatorName);
    q.addBindValue(evidence.startedAt);
    q.addBindValue(evidence.finishedAt);
    q.addBindValue(lookupVerdictId(evidence.verdict));
    q.addBindValue(evidence.request.isNull() ? QStringLiteral("") : evidence.request);
    q.addBindValue(evidence.response.isNull() ? QStringLiteral("") : evidence.response);
    q.addBindValue(nullableText(evidence.recordId));
    q.addBindValue(nullableText(evidence.reason));
    q.addBindValue(evidence.evidenceSha256);
    if (auto done = run(q, "recording evidence"); !done)
        return done.error();
    return q.lastInsertId().toLongLong();
}

Expected<QList<Evidence>> SqlStore::evidence(qint64 escalationId)
{
    return rowsOf<Evidence>(QStringLiteral("SELECT %1 FROM evidence WHERE escalation_id = ? ORDER BY id")
                                    .arg(QLatin1String(evidenceColumns)),
                            {escalationId}, "reading evidence", evidenceRow);
}

Expected<QList<Evidence>> SqlStore::evidenceRows(qint64 offset, int limit)
{
    return rowsOf<Evidence>(QStringLiteral("SELECT %1 FROM evidence ORDER BY id LIMIT ? OFFSET ?")
                                    .arg(QLatin1String(evidenceColumns)),
                            {limit, offset}, "reading evidence", evidenceRow);
}

Expected<ResolutionClaim> SqlStore::resolveEscalation(const Settlement &settlement)
{
    // Only an open escalation can be settled, only a verified "not performed" can become
    // "performed again", a system's answer (a lookup, a reconciliation) outranks a person's
    // attested check, and a check that a write owed was since performed replaces one that found
    // it absent, when it says so: the WHERE clause is the lock between two consoles. A note on
    // why it was open goes with it.
    auto update = prepared(
            "UPDATE escalations SET state = {state:resolved}, resolution = ?, basis = ?, reference = ?, "
            "resolved_by = ?, resolved_at = ?, last_note = NULL, claimed_by = NULL, claimed_until = NULL "
            "WHERE id = ? AND (state = {state:open} OR "
            "(? = {resolution:performed_again} AND resolution = {resolution:not_performed} AND "
            "basis = {basis:lookup}) OR "
            "(basis = {basis:attestation} AND ? IN ({basis:lookup}, {basis:reconciliation})) OR "
            "(? = 1 AND ? = {resolution:performed} AND ? = {basis:attestation} AND "
            "resolution = {resolution:not_performed} AND basis = {basis:attestation})) "
            "AND (claimed_by IS NULL OR claimed_by = ? OR claimed_until <= ?)");
    if (!update)
        return update.error();
    QSqlQuery &q = **update;
    q.addBindValue(resolutionId(settlement.resolution));
    q.addBindValue(settlementBasisId(settlement.basis));
    q.addBindValue(nullableText(settlement.reference));
    q.addBindValue(settlement.operatorName);
    q.addBindValue(settlement.at);
    q.addBindValue(settlement.escalationId);
    q.addBindValue(resolutionId(settlement.resolution));
    q.addBindValue(settlementBasisId(settlement.basis));
    q.addBindValue(settlement.replacesAttestedAbsence ? 1 : 0);
    q.addBindValue(resolutionId(settlement.resolution));
    q.addBindValue(settlementBasisId(settlement.basis));
    q.addBindValue(settlement.operatorName);
    q.addBindValue(settlement.at);
    if (auto done = run(q, "resolving an escalation"); !done)
        return done.error();
    if (q.numRowsAffected() > 0)
        return ResolutionClaim{true,
                               settlement.operatorName,
                               settlement.at,
                               settlement.resolution,
                               settlement.basis,
                               settlement.reference};

    Expected<std::optional<EscalationDetail>> current = escalation(settlement.escalationId);
    if (!current)
        return current.error();
    if (!*current)
        return makeError(InputErrc::Missing,
                         QStringLiteral("escalation %1 does not exist").arg(settlement.escalationId));
    const EscalationDetail &now = **current;
    if (claimHeld(now.claimedBy, now.claimedUntil, settlement.at) && now.claimedBy != settlement.operatorName)
        return makeError(
                StoreErrc::ClaimedByOther,
                QStringLiteral("escalation %1 is claimed by %2 until %3; only they can settle it now")
                        .arg(settlement.escalationId)
                        .arg(now.claimedBy,
                             QDateTime::fromMSecsSinceEpoch(now.claimedUntil)
                                     .toString(QStringLiteral("yyyy-MM-dd HH:mm"))));
    return ResolutionClaim{false, now.resolvedBy, now.resolvedAt, now.resolution, now.basis, now.reference};
}

Expected<EscalationClaim> SqlStore::claimEscalation(qint64 escalationId, const QString &operatorName,
                                                    qint64 now, qint64 until, qint64 renewsEvery)
{
    // The WHERE clause is the lock between consoles: a claim another holds is left as it is. Only
    // what can still be acted on is claimed: an open escalation, or one that stands on a person's
    // check, which a lookup may still replace.
    auto update = prepared(
            "UPDATE escalations SET claimed_by = ?, claimed_until = ?, claim_renewed_at = ?, "
            "claim_renews_every = ? WHERE id = ? AND (state = {state:open} OR basis = {basis:attestation}) "
            "AND (claimed_by IS NULL OR claimed_by = ? OR claimed_until <= ?)");
    if (!update)
        return update.error();
    QSqlQuery &q = **update;
    q.addBindValue(operatorName);
    q.addBindValue(until);
    q.addBindValue(now);
    q.addBindValue(renewsEvery > 0 ? QVariant(renewsEvery) : QVariant(QMetaType::fromType<qint64>()));
    q.addBindValue(escalationId);
    q.addBindValue(operatorName);
    q.addBindValue(now);
    if (auto done = run(q, "claiming an escalation"); !done)
        return done.error();
    const bool taken = q.numRowsAffected() > 0;
    Expected<std::optional<EscalationDetail>> current = escalation(escalationId);
    if (!current)
        return current.error();
    if (!*current)
        return makeError(InputErrc::Missing,
                         QStringLiteral("escalation %1 does not exist").arg(escalationId));
    const EscalationDetail &held = **current;
    if (!claimHeld(held.claimedBy, held.claimedUntil, now))
        return EscalationClaim{escalationId, QString(), 0, false};
    return EscalationClaim{escalationId, held.claimedBy, held.claimedUntil, taken};
}

Expected<std::optional<EscalationClaim>>
SqlStore::claimNextEscalation(const QString &operatorName, qint64 now, qint64 until, qint64 renewsEvery)
{
    // The oldest one nobody holds, locked as it is picked where the engine can skip rows another
    // console has locked; the outer condition is checked again on the row as it is then, so a
    // claim committed in between is never overwritten. A pick lost that way is tried again.
    static const char next[] = "claim the next escalation";
    auto update = prepared(
            next,
            QStringLiteral("UPDATE escalations SET claimed_by = ?, claimed_until = ?, claim_renewed_at = "
                           "?, claim_renews_every = ? WHERE id = "
                           "(SELECT id FROM escalations WHERE state = {state:open} AND (claimed_by IS "
                           "NULL OR claimed_until <= ?) ORDER BY opened_at, id LIMIT 1%1) "
                           "AND (claimed_by IS NULL OR claimed_until <= ?) RETURNING id")
                    .arg(skipLockedRows()));
    if (!update)
        return update.error();
    QSqlQuery &q = **update;
    for (int attempt = 0; attempt < 8; ++attempt) {
        q.addBindValue(operatorName);
        q.addBindValue(until);
        q.addBindValue(now);
        q.addBindValue(renewsEvery > 0 ? QVariant(renewsEvery) : QVariant(QMetaType::fromType<qint64>()));
        q.addBindValue(now);
        q.addBindValue(now);
        if (auto done = run(q, "claiming the next escalation"); !done)
            return done.error();
        if (q.next()) {
            const qint64 id = q.value(0).toLongLong();
            q.finish();
            return std::optional<EscalationClaim>(EscalationClaim{id, operatorName, until, true});
        }
        q.finish();
        Expected<qint64> left = countOpenEscalations();
        if (!left)
            return left.error();
        if (*left == 0)
            break;
    }
    return std::optional<EscalationClaim>();
}

Expected<bool> SqlStore::releaseEscalationClaim(qint64 escalationId, const QString &operatorName)
{
    auto update =
            prepared("UPDATE escalations SET claimed_by = NULL, claimed_until = NULL, claim_renewed_at = "
                     "NULL, claim_renews_every = NULL WHERE id = ? AND "
                     "claimed_by IS NOT NULL AND (? = 1 OR claimed_by = ?)");
    if (!update)
        return update.error();
    QSqlQuery &q = **update;
    q.addBindValue(escalationId);
    q.addBindValue(operatorName.isEmpty() ? 1 : 0);
    q.addBindValue(operatorName);
    if (auto done = run(q, "giving a claim back"); !done)
        return done.error();
    return q.numRowsAffected() > 0;
}

Expected<void> SqlStore::noteEscalation(qint64 escalationId, const QString &note)
{
    auto update = prepared("UPDATE escalations SET last_note = ? WHERE id = ?");
    if (!update)
        return update.error();
    (*update)->addBindValue(note);
    (*update)->addBindValue(escalationId);
    return run(**update, "noting an escalation");
}

Expected<void> SqlStore::setEscalationPayment(qint64 escalationId, const QString &reference,
                                              const QString &enteredBy)
{
    auto update =
            prepared("UPDATE escalations SET payment_reference = ?, payment_entered_by = ? WHERE id = ?");
    if (!update)
        return update.error();
    (*update)->addBindValue(reference);
    (*update)->addBindValue(enteredBy);
    (*update)->addBindValue(escalationId);
    if (auto done = run(**update, "recording an escalation's payment"); !done)
        return done;
    if ((*update)->numRowsAffected() != 1)
        return makeError(InputErrc::Missing,
                         QStringLiteral("escalation %1 does not exist").arg(escalationId));
    return {};
}

Expected<void> SqlStore::reopenEscalation(qint64 escalationId, const QString &note)
{
    auto update = prepared(
            "UPDATE escalations SET state = {state:open}, resolution = NULL, basis = NULL, reference = NULL, "
            "resolved_by = NULL, resolved_at = NULL, last_note = ? WHERE id = ?");
    if (!update)
        return update.error();
    (*update)->addBindValue(note);
    (*update)->addBindValue(escalationId);
    return run(**update, "reopening an escalation");
}

Expected<qint64> SqlStore::lastSeq(qint64 ticketId)
{
    auto seq = prepared("lastSeq",
                        QStringLiteral("SELECT last_seq FROM tickets WHERE id = ?") + lockedToWrite());
    if (!seq)
        return seq.error();
    (*seq)->addBindValue(ticketId);
    if (auto done = run(**seq, "reading a ticket"); !done)
        return done.error();
    const qint64 last = (*seq)->next() ? (*seq)->value(0).toLongLong() : 0;
    (*seq)->finish();
    return last;
}

Expected<QList<qint64>> SqlStore::ticketsAwaitingReassessment(int limit)
{
    return rowsOf<qint64>(QStringLiteral("SELECT ticket_id FROM pending_reassessment LIMIT ?"), {limit},
                          "reading the tickets to assess again",
                          [](const QSqlQuery &q) { return q.value(0).toLongLong(); });
}

Expected<void> SqlStore::markReassessed(qint64 ticketId)
{
    auto taken = prepared("DELETE FROM pending_reassessment WHERE ticket_id = ?");
    if (!taken)
        return taken.error();
    (*taken)->addBindValue(ticketId);
    return run(**taken, "taking a ticket off the list to assess again");
}

Expected<std::optional<LedgerEntry>> SqlStore::ledgerEntry(const QString &intentKey)
{
    Expected<QList<LedgerEntry>> rows = rowsOf<LedgerEntry>(
            QStringLiteral("SELECT %1 FROM ledger WHERE intent_key = ? ORDER BY id LIMIT 1")
                    .arg(QLatin1String(ledgerColumns)),
            {intentKey}, "reading the ledger", ledgerRow);
    if (!rows)
        return rows.error();
    return rows->isEmpty() ? std::nullopt : std::optional<LedgerEntry>(rows->first());
}

Expected<std::optional<LedgerEntry>> SqlStore::ledgerEntryOfCall(qint64 toolCallId)
{
    Expected<QList<LedgerEntry>> rows = rowsOf<LedgerEntry>(
            QStringLiteral("SELECT %1 FROM ledger WHERE tool_call_id = ?").arg(QLatin1String(ledgerColumns)),
            {toolCallId}, "reading the ledger", ledgerRow);
    if (!rows)
        return rows.error();
    return rows->isEmpty() ? std::nullopt : std::optional<LedgerEntry>(rows->first());
}

Expected<bool> SqlStore::recordLedgerEntry(const LedgerEntry &entry)
{
    auto insert = prepared(
            "INSERT INTO ledger (intent_key, tool_call_id, refund_id, amount_cents, currency, seller_id, "
            "recorded_at, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
    if (!insert)
        return insert.error();
    QSqlQuery &q = **insert;
    q.addBindValue(entry.intentKey);
    q.addBindValue(nullableInt(entry.toolCallId));
    q.addBindValue(entry.refundId);
    q.addBindValue(entry.amountCents);
    q.addBindValue(entry.currency);
    q.addBindValue(nullableText(entry.sellerId));
    q.addBindValue(entry.recordedAt);
    q.addBindValue(entry.source);
    if (auto done = run(q, "recording in the ledger"); !done)
        return done.error();
    return q.numRowsAffected() > 0;
}

Expected<QList<LedgerEntry>> SqlStore::ledgerEntries(qint64 offset, int limit)
{
    return rowsOf<LedgerEntry>(QStringLiteral("SELECT %1 FROM ledger ORDER BY id LIMIT ? OFFSET ?")
                                       .arg(QLatin1String(ledgerColumns)),
                               {limit, offset}, "reading the ledger", ledgerRow);
}

Expected<QList<EscalationSettlement>> SqlStore::escalationSettlements(qint64 offset, int limit)
{
    return rowsOf<EscalationSettlement>(
            QStringLiteral(
                    "SELECT id, tool_call_id, state, resolution, basis, reference, resolved_by, resolved_at "
                    "FROM escalations ORDER BY id LIMIT ? OFFSET ?"),
            {limit, offset}, "reading escalations", [](const QSqlQuery &q) {
                EscalationSettlement row;
                row.escalationId = q.value(0).toLongLong();
                row.callId = q.value(1).toLongLong();
                row.state = escalationStateFromId(q.value(2).toString());
                if (!q.value(3).isNull())
                    row.resolution = resolutionFromId(q.value(3).toString());
                row.basis = settlementBasisFromId(q.value(4).toString()).value_or(SettlementBasis::Lookup);
                row.reference = q.value(5).toString();
                row.resolvedBy = q.value(6).toString();
                row.resolvedAt = q.value(7).toLongLong();
                return row;
            });
}

Expected<QList<StoredWriteOutcome>> SqlStore::writeOutcomes(qint64 afterCallId, int limit)
{
    return rowsOf<StoredWriteOutcome>(
            QStringLiteral(
                    "SELECT c.id, c.call_ext_id, t.ext_id, t.registry, c.result_fingerprint IS NOT NULL, "
                    "c.raw_result, c.result_error, c.outcome, EXISTS (SELECT 1 FROM escalations e WHERE "
                    "e.tool_call_id = c.id), c.in_flight_until IS NOT NULL FROM tool_calls c JOIN tickets t "
                    "ON "
                    "t.id = c.ticket_id WHERE c.id > ? AND c.tool_class LIKE 'write%' ORDER BY c.id LIMIT ?"),
            {afterCallId, limit}, "reading the outcomes of write calls", [](const QSqlQuery &q) {
                StoredWriteOutcome row;
                row.callId = q.value(0).toLongLong();
                row.callExtId = q.value(1).toString();
                row.ticketExtId = q.value(2).toString();
                row.registry = q.value(3).toString();
                row.hasResult = q.value(4).toBool();
                row.rawResult = q.value(5).toString();
                row.resultError = q.value(6).toLongLong() != 0;
                if (!q.value(7).isNull())
                    row.outcome = outcomeFromId(q.value(7).toString());
                row.escalated = q.value(8).toBool();
                row.inFlight = q.value(9).toBool();
                return row;
            });
}

Expected<std::optional<AuditEntry>> SqlStore::lastAuditEntry()
{
    if (Expected<void> locked = lockAuditChain(); !locked)
        return locked.error();
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT %1 FROM audit_log ORDER BY seq DESC LIMIT 1")
                      .arg(QLatin1String(auditColumns)));
    if (auto done = run(q, "reading the audit log"); !done)
        return done.error();
    return q.next() ? std::optional<AuditEntry>(auditEntry(q)) : std::nullopt;
}

Expected<void> SqlStore::insertAuditEntry(const AuditEntry &entry)
{
    auto insert = prepared(
            "INSERT INTO audit_log (seq, at, operator, action, escalation_id, detail, evidence_sha256, "
            "prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!insert)
        return insert.error();
    QSqlQuery &q = **insert;
    q.addBindValue(entry.seq);
    q.addBindValue(entry.at);
    q.addBindValue(entry.operatorName);
    q.addBindValue(entry.action);
    q.addBindValue(nullableInt(entry.escalationId));
    q.addBindValue(entry.detail);
    q.addBindValue(nullableText(entry.evidenceSha256));
    q.addBindValue(entry.prevHash);
    q.addBindValue(entry.hash);
    return run(q, "appending to the audit log");
}

Expected<qint64> SqlStore::countAuditEntries()
{
    QSqlQuery q(m_db);
    if (!q.exec(QStringLiteral("SELECT count(*) FROM audit_log")) || !q.next())
        return failure(q.lastError(), QStringLiteral("%1: counting audit entries failed").arg(m_path));
    return q.value(0).toLongLong();
}

Expected<QList<AuditEntry>> SqlStore::auditEntries(qint64 offset, int limit)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT %1 FROM audit_log ORDER BY seq LIMIT ? OFFSET ?")
                      .arg(QLatin1String(auditColumns)));
    q.addBindValue(limit);
    q.addBindValue(offset);
    if (auto done = run(q, "reading the audit log"); !done)
        return done.error();
    QList<AuditEntry> rows;
    while (q.next())
        rows.append(auditEntry(q));
    return rows;
}

} // namespace verity

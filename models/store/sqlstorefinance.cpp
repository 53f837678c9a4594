// Finance reads: the money writes that moved money or may have, seller balances as the
// transcripts reported them, and finance's recovery marks.

#include "domain/resultrecord.h"
#include "domain/toolclass.h"
#include "sqlerror.h"
#include "sqlstore.h"
#include "sqlwords.h"

#include <QVariant>

#include <algorithm>

namespace verity {

QString recoveryStateId(RecoveryState state)
{
    switch (state) {
    case RecoveryState::RecoveryRequested:
        return QStringLiteral("recovery_requested");
    case RecoveryState::Recovered:
        return QStringLiteral("recovered");
    }
    Q_UNREACHABLE();
}

std::optional<RecoveryState> recoveryStateFromId(QStringView id)
{
    for (RecoveryState state : {RecoveryState::RecoveryRequested, RecoveryState::Recovered}) {
        if (id == recoveryStateId(state))
            return state;
    }
    return std::nullopt;
}

namespace {

// Every money write with an amount, with what settled it: the escalation's resolution, the
// ledger's refund for the call, the record the settlement cites. A refund performed again from
// the console is dated when the ledger recorded it, not when the agent first asked for it.
// `%1` is the condition.
constexpr auto payoutSelect =
        "SELECT c.id, c.ticket_id, t.ext_id, c.call_ext_id, c.tool, COALESCE(t.seller_id, ''), "
        "COALESCE(s.name, t.seller_name, ''), COALESCE(t.order_id, ''), o.payment_intent, "
        "COALESCE(c.intent_key, ''), "
        "c.amount_cents, COALESCE(o.currency, 'USD'), "
        "CASE WHEN e.resolution = {resolution:performed_again} AND l.recorded_at IS NOT NULL THEN "
        "l.recorded_at ELSE "
        "c.called_at END, "
        "c.outcome, e.resolution, l.refund_id, CASE WHEN e.basis = {basis:attestation} THEN NULL ELSE "
        "e.reference "
        "END, "
        "CASE WHEN length(c.raw_result) < 65536 THEN c.raw_result END, e.basis "
        "FROM tool_calls c JOIN tickets t ON t.id = c.ticket_id "
        "LEFT JOIN sellers s ON s.id = t.seller_id LEFT JOIN orders o ON o.id = t.order_id "
        "LEFT JOIN escalations e ON e.tool_call_id = c.id LEFT JOIN ledger l ON l.tool_call_id = c.id "
        "WHERE c.tool_class = {class:write_money} AND c.amount_cents IS NOT NULL "
        "AND c.outcome IN ({outcome:performed}, {outcome:unknown}) ";

// nullopt: the write moved nothing (a lookup proved it absent).
std::optional<LedgerPayout> payoutFrom(const QSqlQuery &q)
{
    LedgerPayout p;
    p.callId = q.value(0).toLongLong();
    p.ticketId = q.value(1).toLongLong();
    p.ticketExtId = q.value(2).toString();
    p.callExtId = q.value(3).toString();
    p.tool = q.value(4).toString();
    p.sellerId = q.value(5).toString();
    p.sellerName = q.value(6).toString();
    p.orderId = q.value(7).toString();
    p.paymentIntent = q.value(8).toString(); // empty when the data named none: never guessed
    p.intentKey = q.value(9).toString();
    p.amountCents = q.value(10).toLongLong();
    p.currency = q.value(11).toString();
    p.at = q.value(12).toLongLong();
    // Not performed and already performed are no payouts (nothing moved, or it moved earlier
    // under the same key): the query reads only the others.
    const PayoutStanding standing = payoutStanding(
            outcomeFromId(q.value(13).toString()).value_or(Outcome::Unknown),
            resolutionFromId(q.value(14).toString()), settlementBasisFromId(q.value(18).toString()));
    if (!standing.effect)
        return std::nullopt;
    p.effect = *standing.effect;
    p.attestedAbsent = standing.attestedAbsent;
    if (p.attestedAbsent) {
        p.refundId = recordIdInResult(q.value(17).toString());
        return p;
    }
    // The ledger's id is the one a person confirmed; then the settlement's; then the result's.
    for (int column : {15, 16}) {
        if (p.refundId.isEmpty())
            p.refundId = q.value(column).toString();
    }
    if (p.refundId.isEmpty())
        p.refundId = recordIdInResult(q.value(17).toString());
    return p;
}

} // namespace

Expected<QList<LedgerPayout>> SqlStore::payouts(qint64 fromMs, qint64 toMs)
{
    // Two reads, each by its own index: the calls made in the period, less those performed
    // again from the console; and the refunds the console made in the period, by the ledger's
    // time. A refund made in December for a call of April belongs to December.
    static const QByteArray byCall = QByteArray(payoutSelect)
            + "AND c.called_at >= ? AND c.called_at < ? "
              "AND (e.resolution IS NULL OR e.resolution <> {resolution:performed_again} OR l.recorded_at IS "
              "NULL) "
              "ORDER BY c.called_at, c.id";
    static const QByteArray byLedger = QByteArray(payoutSelect)
            + "AND e.resolution = {resolution:performed_again} AND l.recorded_at >= ? AND l.recorded_at < ? "
              "ORDER BY "
              "l.recorded_at, c.id";
    QList<LedgerPayout> result;
    for (const QByteArray *sql : {&byCall, &byLedger}) {
        auto query = prepared(sql->constData());
        if (!query)
            return query.error();
        QSqlQuery &q = **query;
        q.addBindValue(fromMs);
        q.addBindValue(toMs);
        if (auto done = run(q, "reading payouts"); !done)
            return done.error();
        while (q.next()) {
            if (std::optional<LedgerPayout> payout = payoutFrom(q))
                result.append(std::move(*payout));
        }
        q.finish();
    }
    std::stable_sort(result.begin(), result.end(), [](const LedgerPayout &a, const LedgerPayout &b) {
        return a.at != b.at ? a.at < b.at : a.callId < b.callId;
    });
    return result;
}

namespace {

// The newest payout by call, as payouts() dates it: by when the call was made; `only` one effect.
QString newestByCall(std::optional<PayoutEffect> only)
{
    return QStringLiteral(
                   "SELECT c.called_at FROM tool_calls c LEFT JOIN escalations e ON e.tool_call_id = c.id "
                   "WHERE c.tool_class = {class:write_money} AND c.amount_cents IS NOT NULL "
                   "AND c.outcome IN ({outcome:performed}, {outcome:unknown}) AND %1 "
                   "ORDER BY c.called_at DESC LIMIT 1")
            .arg(countedPayoutCondition(QStringLiteral("c.outcome"), QStringLiteral("e.resolution"),
                                        QStringLiteral("e.basis"), only));
}

// A refund the console performed again, by when the ledger recorded it: performed, always.
const QString newestPerformedAgain =
        QStringLiteral("SELECT max(l.recorded_at) FROM escalations e JOIN ledger l ON l.tool_call_id = "
                       "e.tool_call_id WHERE e.resolution = {resolution:performed_again}");

} // namespace

// The payouts' conditions (payoutSelect and payoutFrom: a verified "not performed" moved
// nothing), newest first: the money index read backwards, so the cost does not grow with the
// ledger.
Expected<std::optional<qint64>> SqlStore::newestPayoutAt()
{
    static const char *const keys[] = {"newest payout by call", "newest payout performed again"};
    static const QString reads[] = {newestByCall(std::nullopt), newestPerformedAgain};
    return newestPayout(keys, reads);
}

Expected<std::optional<qint64>> SqlStore::newestPerformedPayoutAt()
{
    static const char *const keys[] = {"newest performed payout by call", "newest payout performed again"};
    static const QString reads[] = {newestByCall(PayoutEffect::Performed), newestPerformedAgain};
    return newestPayout(keys, reads);
}

// The later of the two reads; each walks an index from its end.
Expected<std::optional<qint64>> SqlStore::newestPayout(const char *const keys[2], const QString reads[2])
{
    std::optional<qint64> newest;
    for (int read = 0; read < 2; ++read) {
        auto query = prepared(keys[read], reads[read]);
        if (!query)
            return query.error();
        QSqlQuery &q = **query;
        if (auto done = run(q, "reading the newest payout"); !done)
            return done.error();
        if (q.next() && !q.value(0).isNull())
            newest = qMax(newest.value_or(q.value(0).toLongLong()), q.value(0).toLongLong());
        q.finish();
    }
    return newest;
}

Expected<QList<SellerBalance>> SqlStore::sellerBalances()
{
    // A seller's currency is that of its orders (the first by name, for the rare seller with
    // several). One pass over the orders' (seller, currency) index, rather than a search per seller.
    auto sellers = prepared("SELECT s.id, s.name, s.balance_cents, s.balance_as_of, COALESCE(o.currency, "
                            "'USD') FROM sellers s "
                            "LEFT JOIN (SELECT seller_id, MIN(currency) AS currency FROM orders GROUP BY "
                            "seller_id) o ON o.seller_id = s.id "
                            "ORDER BY lower(s.name), s.id");
    if (!sellers)
        return sellers.error();
    QSqlQuery &q = **sellers;
    if (auto done = run(q, "reading sellers"); !done)
        return done.error();
    QList<SellerBalance> result;
    QHash<QString, qsizetype> index;
    while (q.next()) {
        SellerBalance seller;
        seller.id = q.value(0).toString();
        seller.name = q.value(1).toString();
        seller.balanceCents = optionalInt(q.value(2));
        seller.balanceAsOf = q.value(3).toLongLong();
        seller.currency = q.value(4).toString();
        index.insert(seller.id, result.size());
        result.append(seller);
    }
    q.finish();

    // What the money writes add up to, per seller and effect (payoutStanding holds the rules):
    // first as their outcomes say, then corrected by the escalations people resolved. Joining
    // every money write to its escalation cost more than the rest of the sum, and only the
    // few resolved ones change anything.
    const auto add = [&](const QString &sellerId, bool performed, qint64 cents, int count) {
        const auto it = index.constFind(sellerId);
        if (it == index.cend())
            return;
        SellerBalance &seller = result[*it];
        (performed ? seller.performedCents : seller.unknownCents) += cents;
        seller.payouts += count;
    };
    auto sums = prepared("SELECT t.seller_id, c.outcome, SUM(c.amount_cents), COUNT(*) "
                         "FROM tool_calls c JOIN tickets t ON t.id = c.ticket_id "
                         "WHERE c.tool_class = {class:write_money} AND c.amount_cents IS NOT NULL "
                         "AND c.outcome IN ({outcome:performed}, {outcome:unknown}) "
                         "AND t.seller_id IS NOT NULL GROUP BY t.seller_id, c.outcome");
    if (!sums)
        return sums.error();
    QSqlQuery &s = **sums;
    if (auto done = run(s, "adding up payouts per seller"); !done)
        return done.error();
    while (s.next())
        add(s.value(0).toString(), s.value(1).toString() == u"performed", s.value(2).toLongLong(),
            s.value(3).toInt());
    s.finish();

    // The escalations outermost: a few rows, each finding its call by id.
    static const char resolvedPayouts[] = "resolved payouts by seller";
    auto resolved = prepared(
            resolvedPayouts,
            QStringLiteral(
                    "SELECT t.seller_id, c.outcome, e.resolution, e.basis, SUM(c.amount_cents), COUNT(*) "
                    "FROM escalations e %1 tool_calls c ON c.id = e.tool_call_id JOIN "
                    "tickets t ON t.id = c.ticket_id "
                    "WHERE e.resolution IN ({resolution:performed}, {resolution:performed_again}, "
                    "{resolution:not_performed}) AND c.tool_class = {class:write_money} "
                    "AND c.amount_cents IS NOT NULL AND c.outcome IN ({outcome:performed}, "
                    "{outcome:unknown}) "
                    "AND t.seller_id IS NOT NULL GROUP BY 1, 2, 3, 4")
                    .arg(joinInThisOrder()));
    if (!resolved)
        return resolved.error();
    QSqlQuery &r = **resolved;
    if (auto done = run(r, "correcting payouts per seller by their resolutions"); !done)
        return done.error();
    // Each group moves its sum from where its outcome alone put it to where its settlement does.
    while (r.next()) {
        const QString sellerId = r.value(0).toString();
        const bool performed = r.value(1).toString() == outcomeId(Outcome::Performed);
        const qint64 cents = r.value(4).toLongLong();
        const int count = r.value(5).toInt();
        const PayoutStanding settled = payoutStanding(performed ? Outcome::Performed : Outcome::Unknown,
                                                      resolutionFromId(r.value(2).toString()),
                                                      settlementBasisFromId(r.value(3).toString()));
        const std::optional<PayoutEffect> was = performed ? PayoutEffect::Performed : PayoutEffect::Unknown;
        if (settled.effect == was)
            continue;
        add(sellerId, performed, -cents, settled.effect ? 0 : -count);
        if (settled.effect)
            add(sellerId, *settled.effect == PayoutEffect::Performed, cents, 0);
    }
    r.finish();
    return result;
}

Expected<SellerHistory> SqlStore::sellerHistory(const QString &sellerId)
{
    SellerHistory history;
    history.sellerId = sellerId;
    auto snapshots = prepared(
            "SELECT seller_balance_as_of, seller_balance_cents, id, ext_id FROM tickets "
            "WHERE seller_id = ? AND seller_balance_cents IS NOT NULL AND seller_balance_as_of IS NOT NULL "
            "ORDER BY seller_balance_as_of, id");
    if (!snapshots)
        return snapshots.error();
    QSqlQuery &q = **snapshots;
    q.addBindValue(sellerId);
    if (auto done = run(q, "reading a seller's balances"); !done)
        return done.error();
    while (q.next()) {
        BalanceSnapshot snapshot{q.value(0).toLongLong(), q.value(1).toLongLong(), q.value(2).toLongLong(),
                                 q.value(3).toString()};
        // Several tickets report the same balance as of the same moment: one point.
        if (!history.snapshots.isEmpty() && history.snapshots.constLast().at == snapshot.at
            && history.snapshots.constLast().balanceCents == snapshot.balanceCents)
            continue;
        history.snapshots.append(snapshot);
    }
    q.finish();

    static const QByteArray sql = QByteArray(payoutSelect) + "AND t.seller_id = ? ORDER BY 13, c.id";
    auto debits = prepared(sql.constData());
    if (!debits)
        return debits.error();
    QSqlQuery &d = **debits;
    d.addBindValue(sellerId);
    if (auto done = run(d, "reading a seller's payouts"); !done)
        return done.error();
    while (d.next()) {
        if (std::optional<LedgerPayout> payout = payoutFrom(d))
            history.debits.append(std::move(*payout));
    }
    d.finish();
    return history;
}

Expected<QList<PayoutMark>> SqlStore::payoutMarks()
{
    auto query =
            prepared("SELECT id, duplicate_key, state, note, operator, at FROM payout_marks ORDER BY id");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    if (auto done = run(q, "reading recovery marks"); !done)
        return done.error();
    QList<PayoutMark> marks;
    while (q.next()) {
        PayoutMark mark;
        mark.id = q.value(0).toLongLong();
        mark.duplicateKey = q.value(1).toString();
        mark.state = recoveryStateFromId(q.value(2).toString()).value_or(RecoveryState::RecoveryRequested);
        mark.note = q.value(3).toString();
        mark.operatorName = q.value(4).toString();
        mark.at = q.value(5).toLongLong();
        marks.append(mark);
    }
    q.finish();
    return marks;
}

Expected<qint64> SqlStore::insertPayoutMark(const PayoutMark &mark)
{
    auto query = prepared(
            "INSERT INTO payout_marks (duplicate_key, state, note, operator, at) VALUES (?, ?, ?, ?, ?)");
    if (!query)
        return query.error();
    QSqlQuery &q = **query;
    q.addBindValue(mark.duplicateKey);
    q.addBindValue(recoveryStateId(mark.state));
    q.addBindValue(mark.note.isNull() ? QStringLiteral("") : mark.note); // no note is an empty one, not NULL
    q.addBindValue(mark.operatorName);
    q.addBindValue(mark.at);
    if (auto done = run(q, "storing a recovery mark"); !done)
        return done.error();
    const qint64 id = q.lastInsertId().toLongLong();
    q.finish();
    return id;
}

} // namespace verity

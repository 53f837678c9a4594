#include "balancedifference.h"

#include "domain/displaytext.h"
#include "domain/money.h"
#include "finance/reconciliation.h"

#include <QDateTime>
#include <QSet>

#include <algorithm>

namespace verity {

qint64 BalanceDifference::explainedCents() const
{
    qint64 explained = 0;
    for (const BalanceDifferencePart &part : parts)
        explained += part.cents;
    return explained;
}

namespace {

// Pairs are tried among this many rows at most: the search stays quick on any ledger.
constexpr qsizetype pairedRowsAtMost = 400;

// A row made before Verity's balance and not matched, with what it would add to the
// difference were the stated balance to leave it out.
struct LeftOutCandidate
{
    qsizetype row = 0;
    qint64 cents = 0;
    qint64 at = 0;
};

// What the rows before Verity's balance tell of the rest: the set that accounts for it, or
// why none is named.
struct LeftOutSearch
{
    QList<LeftOutCandidate> found;
    bool ambiguous = false; // more than one set of as few rows accounts for it
};

// The refunds of the period that moved the seller's balance after Verity's was stated.
void addRefundParts(const Reconciliation &reconciliation, const QString &sellerId, qint64 asOf,
                    BalanceDifference &difference)
{
    for (qsizetype i = 0; i < reconciliation.rows.size(); ++i) {
        const ReconRow &row = reconciliation.rows.at(i);
        // A second payout naming a refund already in a row moved no money of its own.
        if (!row.provider || row.sameRefundAsAnotherRow || row.sellerId != sellerId
            || row.provider->createdMs <= asOf)
            continue;
        difference.parts.append({i, BalanceMovement(), -row.provider->amountCents, row.provider->createdMs,
                                 DifferenceCause::MovedAfter});
    }
}

// The account's other movements after that moment: adjustments, payments, and the like. A
// movement of a refund in the statement is that refund's row (or a refund that did not go
// through), never counted twice.
void addMovementParts(const SellerAccountStatement &account, const QSet<QString> &refundIds, qint64 asOf,
                      BalanceDifference &difference)
{
    for (const BalanceMovement &movement : account.movements) {
        if (refundIds.contains(movement.source) || movement.createdMs <= asOf)
            continue;
        difference.parts.append(
                {-1, movement, movement.amountCents, movement.createdMs, DifferenceCause::MovedAfter});
    }
}

// The seller's rows not matched, made up to Verity's balance: what the provider moved that
// the stated balance may not show, or what it shows that the provider never moved.
QList<LeftOutCandidate> leftOutCandidates(const Reconciliation &reconciliation, const QString &sellerId,
                                          qint64 asOf)
{
    QList<LeftOutCandidate> candidates;
    for (qsizetype i = 0; i < reconciliation.rows.size(); ++i) {
        const ReconRow &row = reconciliation.rows.at(i);
        if (row.category == ReconCategory::Matched || row.sameRefundAsAnotherRow || row.sellerId != sellerId)
            continue;
        const qint64 at = row.provider ? row.provider->createdMs : row.ledger->at;
        if (at > asOf)
            continue; // after Verity's balance: a part already, or (ledger only) nothing moved since
        candidates.append({i, row.ledgerCents() - row.providerCents(), at});
    }
    return candidates;
}

// The fewest candidates whose shares add up to `rest` exactly: one row, then two, then all of
// them; a size at which two sets would do names none.
LeftOutSearch searchLeftOut(const QList<LeftOutCandidate> &candidates, qint64 rest)
{
    LeftOutSearch search;
    const qsizetype n = candidates.size();
    for (qsizetype i = 0; i < n; ++i) {
        if (candidates.at(i).cents != rest)
            continue;
        search.ambiguous = !search.found.isEmpty();
        search.found = {candidates.at(i)};
    }
    if (!search.found.isEmpty() || n > pairedRowsAtMost)
        return search.ambiguous ? LeftOutSearch{{}, true} : search;
    for (qsizetype i = 0; i < n; ++i) {
        for (qsizetype j = i + 1; j < n; ++j) {
            if (candidates.at(i).cents + candidates.at(j).cents != rest)
                continue;
            search.ambiguous = !search.found.isEmpty();
            search.found = {candidates.at(i), candidates.at(j)};
        }
    }
    if (!search.found.isEmpty())
        return search.ambiguous ? LeftOutSearch{{}, true} : search;
    qint64 all = 0;
    for (const LeftOutCandidate &candidate : candidates)
        all += candidate.cents;
    if (n > 2 && all == rest)
        search.found = candidates;
    return search;
}

// The rows a reader opens to look: "T-1 c3", "T-1 c3 and T-2 c4", or their count past three.
QString candidateNames(const Reconciliation &reconciliation, const QList<LeftOutCandidate> &candidates)
{
    if (candidates.size() > 3)
        return QStringLiteral("%1 rows").arg(candidates.size());
    QStringList names;
    for (const LeftOutCandidate &candidate : candidates) {
        const ReconRow &row = reconciliation.rows.at(candidate.row);
        names << (row.ticketExtId.isEmpty() ? row.provider ? row.provider->id : QStringLiteral("a row")
                                            : QStringLiteral("%1 %2").arg(row.ticketExtId, row.callExtId));
    }
    return names.join(QStringLiteral(" and "));
}

// Why some of the difference is in no part: the rows that may yet account for some of it,
// then the moments of the two balances as they lie against the period.
QString unexplainedWhy(const Reconciliation &reconciliation, const SellerReconciliation &seller,
                       const QList<LeftOutCandidate> &candidates, const LeftOutSearch &search, qint64 rest)
{
    const Period &period = reconciliation.period;
    QStringList why;
    if (!candidates.isEmpty() && search.found.isEmpty()) {
        qint64 total = 0;
        for (const LeftOutCandidate &candidate : candidates)
            total += candidate.cents;
        const QString rows = candidates.size() == 1 ? QStringLiteral("the row") : QStringLiteral("the rows");
        // Smaller, and the same way: they may be part of it, and the rest is said apart.
        if (total != 0 && (total < 0) == (rest < 0) && qAbs(total) < qAbs(rest))
            why << QStringLiteral("%1 of it may come from %2 not matched before Verity's balance (%3); the "
                                  "other %4 is in no row of this period")
                            .arg(formatDifference(total, seller.currency), rows,
                                 candidateNames(reconciliation, candidates),
                                 formatDifference(rest - total, seller.currency));
        else
            why << QStringLiteral("%1 not matched before Verity's balance (%2, %3 in all) could be left out "
                                  "of it, but %4 of them adds up to %5")
                            .arg(rows, candidateNames(reconciliation, candidates),
                                 formatDifference(total, seller.currency),
                                 search.ambiguous ? QStringLiteral("more than one set")
                                                  : QStringLiteral("no set"),
                                 formatDifference(rest, seller.currency));
    }
    const qint64 asOf = seller.verityBalanceAsOf;
    if (asOf <= 0)
        why << QStringLiteral("Verity's balance carries no date, so what moved after it cannot be told");
    else if (asOf < period.fromMs)
        why << QStringLiteral("Verity's balance was stated for %1, before the period begins: anything that "
                              "moved between then and the period's start is in no row of it")
                        .arg(formatUtcTime(asOf));
    else if (asOf >= period.toMs)
        why << QStringLiteral("Verity's balance was stated for %1, after the period ends: every row of "
                              "the period came before it")
                        .arg(formatUtcTime(asOf));
    if (seller.providerBalanceAt >= period.toMs)
        why << QStringLiteral("the provider's balance was read %1, after the period ends: anything that "
                              "moved since the period's end is in no row of it")
                        .arg(formatUtcTime(seller.providerBalanceAt));
    if (why.isEmpty())
        why << QStringLiteral("both balances fall within the period, yet no row or movement of it "
                              "accounts for this");
    // What moved after the period is in no row of it, but in a longer period's: say which.
    const qint64 latest = qMax(asOf, seller.providerBalanceAt);
    if (latest >= period.toMs)
        why << QStringLiteral("reconcile from %1 to %2 to see what moved after the period as rows")
                        .arg(QDateTime::fromMSecsSinceEpoch(period.fromMs, Qt::UTC)
                                     .date()
                                     .toString(Qt::ISODate),
                             QDateTime::fromMSecsSinceEpoch(latest, Qt::UTC).date().toString(Qt::ISODate));
    return why.join(QStringLiteral("; "));
}

BalanceDifference differenceOf(const Reconciliation &reconciliation, const SellerReconciliation &seller,
                               const SellerAccountStatement *account, const QSet<QString> &refundIds)
{
    BalanceDifference difference;
    difference.cents = *seller.providerBalanceCents - *seller.verityBalanceCents;
    const qint64 asOf = seller.verityBalanceAsOf;
    addRefundParts(reconciliation, seller.sellerId, asOf, difference);
    if (account)
        addMovementParts(*account, refundIds, asOf, difference);
    if (difference.unexplainedCents() != 0) {
        const QList<LeftOutCandidate> candidates = leftOutCandidates(reconciliation, seller.sellerId, asOf);
        const LeftOutSearch search = searchLeftOut(candidates, difference.unexplainedCents());
        for (const LeftOutCandidate &candidate : search.found)
            difference.parts.append({candidate.row, BalanceMovement(), candidate.cents, candidate.at,
                                     DifferenceCause::LeftOut});
        if (difference.unexplainedCents() != 0)
            difference.unexplainedWhy =
                    unexplainedWhy(reconciliation, seller, candidates, search, difference.unexplainedCents());
    }
    std::stable_sort(
            difference.parts.begin(), difference.parts.end(),
            [](const BalanceDifferencePart &a, const BalanceDifferencePart &b) { return a.at < b.at; });
    return difference;
}

} // namespace

void explainBalanceDifferences(Reconciliation &reconciliation, const ProviderStatement &statement)
{
    QSet<QString> refundIds;
    for (const StatementRefund &refund : statement.refunds)
        refundIds.insert(refund.id);
    QHash<QString, const SellerAccountStatement *> accounts;
    for (const SellerAccountStatement &account : statement.accounts)
        accounts.insert(account.account, &account);
    for (SellerReconciliation &seller : reconciliation.sellers) {
        if (seller.verityBalanceCents && seller.providerBalanceCents)
            seller.balanceDifference =
                    differenceOf(reconciliation, seller, accounts.value(seller.sellerId), refundIds);
    }
}

QString formatDifference(qint64 cents, const QString &currency)
{
    return cents > 0 ? QStringLiteral("+") + formatMoney(cents, currency) : formatMoney(cents, currency);
}

QHash<qsizetype, qint64> differenceShareByRow(const Reconciliation &reconciliation)
{
    QHash<qsizetype, qint64> shares;
    for (const SellerReconciliation &seller : reconciliation.sellers) {
        if (!seller.balanceDifference)
            continue;
        for (const BalanceDifferencePart &part : seller.balanceDifference->parts) {
            if (part.isRow())
                shares.insert(part.row, part.cents);
        }
    }
    return shares;
}

QString differencePartKind(const Reconciliation &reconciliation, const BalanceDifferencePart &part)
{
    if (part.isRow())
        return reconRowCategoryText(reconciliation.rows.at(part.row));
    const QString type = part.movement.type.isEmpty() ? QStringLiteral("other") : part.movement.type;
    return QStringLiteral("Provider's movement: %1").arg(type);
}

QString differencePartReference(const Reconciliation &reconciliation, const BalanceDifferencePart &part)
{
    if (!part.isRow())
        return part.movement.id;
    const ReconRow &row = reconciliation.rows.at(part.row);
    QString call = row.ticketExtId;
    if (!row.callExtId.isEmpty())
        call += QStringLiteral(" / ") + row.callExtId;
    const QString refund = row.provider      ? QStringLiteral("refund ") + row.provider->id
            : row.ledger->refundId.isEmpty() ? QStringLiteral("no refund id")
                                             : QStringLiteral("refund ") + row.ledger->refundId;
    return call.isEmpty() ? refund : call + QStringLiteral(", ") + refund;
}

QString differenceCauseText(DifferenceCause cause)
{
    switch (cause) {
    case DifferenceCause::MovedAfter:
        return QStringLiteral("made after Verity's balance was stated");
    case DifferenceCause::LeftOut:
        return QStringLiteral("made before, left out of Verity's balance");
    }
    Q_UNREACHABLE();
}

namespace {

// "2 refunds and 1 other movement".
QString countText(qsizetype rows, qsizetype movements)
{
    QStringList made;
    if (rows > 0)
        made << (rows == 1 ? QStringLiteral("1 refund") : QStringLiteral("%1 refunds").arg(rows));
    if (movements > 0)
        made << (movements == 1 ? QStringLiteral("1 other movement")
                                : QStringLiteral("%1 other movements").arg(movements));
    return made.isEmpty() ? QStringLiteral("nothing") : made.join(QStringLiteral(" and "));
}

} // namespace

QString differenceSummary(const SellerReconciliation &seller)
{
    if (!seller.balanceDifference)
        return {};
    const BalanceDifference &difference = *seller.balanceDifference;
    const auto money = [&seller](qint64 cents) { return formatDifference(cents, seller.currency); };
    qint64 after = 0;
    qint64 leftOut = 0;
    qsizetype afterRows = 0;
    qsizetype afterMovements = 0;
    qsizetype leftOutRows = 0;
    for (const BalanceDifferencePart &part : difference.parts) {
        if (part.cause == DifferenceCause::LeftOut) {
            leftOut += part.cents;
            ++leftOutRows;
        } else {
            after += part.cents;
            (part.isRow() ? afterRows : afterMovements) += 1;
        }
    }
    QStringList pieces;
    if (afterRows + afterMovements > 0)
        pieces << QStringLiteral("%1 from %2 made after Verity's balance was stated")
                          .arg(money(after), countText(afterRows, afterMovements));
    if (leftOutRows > 0)
        pieces << QStringLiteral("%1 from %2 not matched, made before Verity's balance was stated, that it "
                                 "leaves out (their amounts account for it to the cent)")
                          .arg(money(leftOut),
                               leftOutRows == 1 ? QStringLiteral("1 row")
                                                : QStringLiteral("%1 rows").arg(leftOutRows));
    if (difference.unexplainedCents() != 0)
        pieces << QStringLiteral("%1 not explained by this period's rows: %2")
                          .arg(money(difference.unexplainedCents()), difference.unexplainedWhy);
    if (pieces.isEmpty())
        pieces << QStringLiteral("nothing moved after Verity's balance was stated");
    // None of it in a part: the sum would only repeat itself.
    if (difference.parts.isEmpty() && difference.unexplainedCents() != 0)
        return QStringLiteral("%1, none of it explained by this period's rows: %2")
                .arg(money(difference.cents), difference.unexplainedWhy);
    return money(difference.cents) + QStringLiteral(" = ") + pieces.join(QStringLiteral("; "));
}

} // namespace verity

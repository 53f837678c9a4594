#pragma once
// What makes up the difference between a seller's two balances in a reconciliation. Verity's
// balance is the latest a transcript stated, as of its own moment; the provider's is its
// balance when it was read. Their difference is made of, in this order:
//   1. what moved at the provider after Verity's balance was stated: each refund of the period
//      made after that moment, whatever its row's category (a matched one too: Verity's balance
//      was simply stated before it), and each other movement of the account in the period;
//   2. of the rows made before that moment and not matched (a refund only the provider has, as
//      from a call whose outcome is unknown; one only Verity's ledger has; an amount that
//      differs), the ones Verity's stated balance leaves out: taken only when their amounts
//      account for the rest of the difference to the cent, and no other such set of as few rows
//      does (an inference the reports name as one, never a guess among equals).
// What neither accounts for is the unexplained remainder, kept with why: the moments of the
// two balances as they lie against the period, and the rows that might still explain it.

#include "domain/providerstatement.h"

#include <QHash>
#include <QList>
#include <QString>

namespace verity {

struct Reconciliation;
struct SellerReconciliation;

enum class DifferenceCause {
    MovedAfter, // the provider moved it after Verity's balance was stated
    LeftOut, // made before, but Verity's stated balance leaves it out (the amounts say so)
};

struct BalanceDifferencePart
{
    qsizetype row = -1; // into Reconciliation::rows; -1 for a movement
    BalanceMovement movement; // another movement of the account, when it is no row
    qint64 cents = 0; // its share of the provider's balance less Verity's, signed
    qint64 at = 0; // ms since the epoch, UTC
    DifferenceCause cause = DifferenceCause::MovedAfter;

    bool isRow() const { return row >= 0; }
};

struct BalanceDifference
{
    qint64 cents = 0; // the provider's balance less Verity's
    QList<BalanceDifferencePart> parts; // oldest first
    QString unexplainedWhy; // why the remainder is in no part; empty when it is zero

    qint64 explainedCents() const;
    qint64 unexplainedCents() const { return cents - explainedCents(); }
    bool isNil() const { return cents == 0 && parts.isEmpty(); } // the balances agree, nothing moved
};

// Fills each seller's balanceDifference where both balances are known; `statement` gives the
// account movements that are not refunds and when the provider's balances were read.
void explainBalanceDifferences(Reconciliation &reconciliation, const ProviderStatement &statement);

// A difference signed as the console's Difference column signs it: "+$59.00", "-$12.00", "$0.00".
QString formatDifference(qint64 cents, const QString &currency);

// Each row that is a part of its seller's difference, by index into Reconciliation::rows, with
// its share.
QHash<qsizetype, qint64> differenceShareByRow(const Reconciliation &reconciliation);

// What a part is: its row's category ("Provider only · paid twice"), or the movement's kind
// ("Provider's movement: adjustment").
QString differencePartKind(const Reconciliation &reconciliation, const BalanceDifferencePart &part);
// Where to find it: "T-20260317-0412 / c3, refund re_2", or the movement's id.
QString differencePartReference(const Reconciliation &reconciliation, const BalanceDifferencePart &part);
// Why it is a part: "made after Verity's balance was stated", "made before, left out of
// Verity's balance".
QString differenceCauseText(DifferenceCause cause);
// "-$59.00 = -$59.00 from 1 refund made after Verity's balance was stated", then, when there
// are, what Verity's balance leaves out and the remainder with why, each after a "; ". Empty
// without a difference.
QString differenceSummary(const SellerReconciliation &seller);

} // namespace verity

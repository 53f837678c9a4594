#pragma once
// Records for finance: the money writes Verity knows of, seller balances as transcripts
// reported them, and the recovery marks finance puts on a duplicate payout. Plain data, as
// in records.h.

#include "domain/settlement.h"

#include <QList>
#include <QString>

#include <optional>

namespace verity {

// One money write (a refund) of a ticket, as the store knows it after every resolution.
struct LedgerPayout
{
    qint64 callId = 0;
    qint64 ticketId = 0;
    QString ticketExtId;
    QString callExtId;
    QString tool;
    QString sellerId; // empty: the transcript named no seller
    QString sellerName;
    QString orderId;
    QString paymentIntent; // the order's payment at the provider
    QString intentKey; // empty when the registry could not form one (legacy data)
    QString refundId; // from the ledger, a lookup or the result; empty when none is known
    qint64 amountCents = 0;
    QString currency = QStringLiteral("USD");
    qint64 at = 0; // ms since the epoch, UTC: when the call was made
    PayoutEffect effect = PayoutEffect::Unknown;
    bool attestedAbsent = false; // Unknown because only a person's check says it was not made

    bool operator==(const LedgerPayout &) const = default;
};

// A seller as the transcripts last reported them, with what Verity's payouts add up to.
struct SellerBalance
{
    QString id;
    QString name;
    QString currency = QStringLiteral("USD");
    std::optional<qint64> balanceCents; // the latest balance a transcript reported
    qint64 balanceAsOf = 0; // ms since the epoch, UTC
    qint64 performedCents = 0; // refunds known performed, in total
    qint64 unknownCents = 0; // refunds that may have moved (open escalations)
    int payouts = 0; // performed and unknown

    bool operator==(const SellerBalance &) const = default;
};

// A balance a transcript reported for the seller, at a moment.
struct BalanceSnapshot
{
    qint64 at = 0; // ms since the epoch, UTC
    qint64 balanceCents = 0;
    qint64 ticketId = 0; // the ticket that reported it
    QString ticketExtId;

    bool operator==(const BalanceSnapshot &) const = default;
};

struct SellerHistory
{
    QString sellerId;
    QList<BalanceSnapshot> snapshots; // oldest first, one per distinct (at, balance)
    QList<LedgerPayout> debits; // performed and unknown payouts, oldest first

    bool operator==(const SellerHistory &) const = default;
};

// Finance's mark on a duplicate payout, kept with who and when; the audit log records each.
enum class RecoveryState { RecoveryRequested, Recovered };
QString recoveryStateId(RecoveryState state); // "recovery_requested", "recovered"
std::optional<RecoveryState> recoveryStateFromId(QStringView id);

struct PayoutMark
{
    qint64 id = 0;
    QString duplicateKey; // DuplicatePayout::key
    RecoveryState state = RecoveryState::RecoveryRequested;
    QString note;
    QString operatorName;
    qint64 at = 0; // ms since the epoch, UTC

    bool operator==(const PayoutMark &) const = default;
};

} // namespace verity

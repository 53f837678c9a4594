#pragma once
// Duplicate payouts: two or more refunds for the same intent, or, where no intent key is
// known (legacy data), for the same seller, order and amount within a window of each other.
// The first refund of a group is the one that was owed; the rest are the amount at risk.

#include "domain/providerstatement.h"
#include "store/financerecords.h"

#include <QList>
#include <QString>

#include <optional>

namespace verity {

constexpr qint64 defaultDuplicateWindowMs = 60 * 1000;

// One refund in a group: as Verity recorded it, or as the provider has it (a refund no
// payout of Verity's accounts for).
struct PayoutEvent
{
    std::optional<LedgerPayout> payout; // Verity's side
    std::optional<StatementRefund> atProvider; // the provider's side, when it is known
    qint64 at() const;
    qint64 amountCents() const;
    QString intentKey() const;
};

enum class DuplicateBasis { IntentKey, SameOrderAmount };
QString duplicateBasisText(DuplicateBasis basis); // "same intent key", "same seller, order and amount"

struct DuplicatePayout
{
    QString key; // stable: "intent:<key>" or "order:<seller>|<order>|<cents>|<first ms>"
    DuplicateBasis basis = DuplicateBasis::IntentKey;
    QList<PayoutEvent> events; // oldest first, two or more
    QString sellerId;
    QString sellerName;
    QString orderId;
    QString currency = QStringLiteral("USD");
    qint64 amountAtRiskCents = 0; // every refund after the first
    qint64 spanMs = 0; // from the first refund to the last
    bool confirmedAtProvider = false; // two or more of its refunds exist at the provider
    // Refunds known to have moved money: performed by the best evidence Verity stores (the
    // result, a lookup, a reconciliation settled), or at the provider with no call of Verity's.
    int tookEffect = 0;
    // A duplicate payout, as the queue's "duplicate effect" counts it: two or more took effect.
    // Otherwise a possible one: an unknown write of the group awaits a lookup.
    bool isConfirmed() const { return tookEffect >= 2; }
    int unknownCount() const;
    QStringList ticketExtIds() const;
};

// "7.4 s", "3 min 2 s", "2 h 05 min", "3 d 4 h": the time between a duplicate's refunds, with
// tenths under a minute because a retry storm is a matter of seconds.
QString spanText(qint64 milliseconds);

// Groups the payouts (performed and unknown) and, when a statement is given, adds the
// provider's refunds that no payout accounts for (matched by refund id, else by intent key
// and order of creation). Groups are ordered by their first refund.
QList<DuplicatePayout> findDuplicatePayouts(const QList<LedgerPayout> &payouts,
                                            const ProviderStatement *statement = nullptr,
                                            qint64 windowMs = defaultDuplicateWindowMs);

// Those with a refund in the period: what a report of the period lists.
QList<DuplicatePayout> duplicatesInPeriod(const QList<DuplicatePayout> &duplicates, const Period &period);

} // namespace verity

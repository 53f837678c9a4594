#pragma once
// The period a reconciliation opens on: the latest calendar month with refunds in Verity's
// ledger (performed), so a reviewer sees a month that has something to compare rather than
// today's month, or the month of one new ticket whose refund nobody knows the fate of. A refund
// whose outcome is unknown only links the provider's refunds to their calls: a month of those
// alone reconciles to nothing unless the provider made them, which only a fetch can tell. So
// they decide the month only when the ledger has no refund at all, and any later than the
// month chosen are named, never passed over in silence.

#include "domain/expected.h"
#include "domain/providerstatement.h"

#include <QDate>

namespace verity {

class FinanceStore;

// The calendar month holding `day`, UTC: [its first day, the next month's first day).
Period calendarMonth(const QDate &day);

struct OpeningPeriod
{
    Period period;
    QString note; // what lies after it that a person may want instead; empty when nothing does
};

// The calendar month of the store's newest performed payout (FinanceStore::newestPerformedPayoutAt);
// without one, that of its newest unknown one; without any, the month of `todayUtc`.
Expected<OpeningPeriod> latestReconciliationMonth(FinanceStore &store, const QDate &todayUtc);

} // namespace verity

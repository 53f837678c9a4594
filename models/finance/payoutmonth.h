#pragma once
// The period a reconciliation opens on: the latest calendar month in which the store has
// payouts, so a reviewer opening last quarter's data sees it rather than an empty month.

#include "domain/expected.h"
#include "domain/providerstatement.h"

#include <QDate>

namespace verity {

class FinanceStore;

// The calendar month holding `day`, UTC: [its first day, the next month's first day).
Period calendarMonth(const QDate &day);
// The calendar month of the store's newest payout (FinanceStore::newestPayoutAt); the month of
// `todayUtc` when there is none.
Expected<Period> latestPayoutMonth(FinanceStore &store, const QDate &todayUtc);

} // namespace verity

#include "finance/payoutmonth.h"

#include "store/store.h"

#include <QDateTime>

namespace verity {

Period calendarMonth(const QDate &day)
{
    const QDate first(day.year(), day.month(), 1);
    return Period{QDateTime(first, QTime(0, 0), Qt::UTC).toMSecsSinceEpoch(),
                  QDateTime(first.addMonths(1), QTime(0, 0), Qt::UTC).toMSecsSinceEpoch()};
}

Expected<Period> latestPayoutMonth(FinanceStore &store, const QDate &todayUtc)
{
    Expected<std::optional<qint64>> newest = store.newestPayoutAt();
    if (!newest)
        return newest.error();
    if (!*newest)
        return calendarMonth(todayUtc);
    return calendarMonth(QDateTime::fromMSecsSinceEpoch(**newest, Qt::UTC).date());
}

} // namespace verity

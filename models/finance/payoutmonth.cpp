#include "finance/payoutmonth.h"

#include "domain/displaytext.h"
#include "store/store.h"

#include <QDateTime>

namespace verity {

Period calendarMonth(const QDate &day)
{
    const QDate first(day.year(), day.month(), 1);
    return Period{QDateTime(first, QTime(0, 0), Qt::UTC).toMSecsSinceEpoch(),
                  QDateTime(first.addMonths(1), QTime(0, 0), Qt::UTC).toMSecsSinceEpoch()};
}

namespace {

Period monthOf(qint64 ms)
{
    return calendarMonth(QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).date());
}

} // namespace

Expected<OpeningPeriod> latestReconciliationMonth(FinanceStore &store, const QDate &todayUtc)
{
    const Expected<std::optional<qint64>> performed = store.newestPerformedPayoutAt();
    if (!performed)
        return performed.error();
    const Expected<std::optional<qint64>> any = store.newestPayoutAt();
    if (!any)
        return any.error();
    if (!*any)
        return OpeningPeriod{calendarMonth(todayUtc), QString()};
    if (!*performed)
        return OpeningPeriod{monthOf(**any),
                             QStringLiteral("Verity's ledger has no refund yet: this is the month of the "
                                            "newest refund whose outcome is unknown.")};
    OpeningPeriod opening{monthOf(**performed), QString()};
    if (**any >= opening.period.toMs)
        opening.note = QStringLiteral("A later refund's outcome is unknown (the newest %1): take the period "
                                      "up to it to ask the provider whether it was made.")
                               .arg(formatUtcTime(**any));
    return opening;
}

} // namespace verity

#pragma once
// The result of `verity reconcile --json`: period, source, totals per category, sellers (with
// both balances and what makes up their difference), the rows that are not matched, the rows
// of intents paid twice (`paid_twice`, whatever their category), duplicate payouts with their
// recovery marks, and the reports written (`reports`: {"csv": path, ...}).

#include "finance/duplicatepayouts.h"
#include "finance/reconciliation.h"

#include <QJsonObject>

namespace verity {

QJsonObject reconciliationJson(const QString &from, const QString &to, const Reconciliation &reconciliation,
                               const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks,
                               const QJsonObject &reports);

} // namespace verity

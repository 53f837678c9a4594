#pragma once
// The result of `verity reconcile --json`: period, source, totals per category, sellers, the
// rows that are not matched, duplicate payouts with their recovery marks, and the reports
// written (`reports`: {"csv": path, ...}).

#include "finance/duplicatepayouts.h"
#include "finance/reconciliation.h"

#include <QJsonObject>

namespace verity {

QJsonObject reconciliationJson(const QString &from, const QString &to, const Reconciliation &reconciliation,
                               const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks,
                               const QJsonObject &reports);

} // namespace verity

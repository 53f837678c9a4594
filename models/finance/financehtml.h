#pragma once
// The printed report of a reconciliation and of the duplicate payouts: the period, the totals
// per category, one line per seller with both balances, what makes up each balance difference,
// the rows not matched or paid twice, the duplicates, and when it was generated.

#include "finance/duplicatepayouts.h"
#include "finance/reconciliation.h"

#include <QList>
#include <QString>

namespace verity {

// As HTML for QTextDocument (the painting needs fonts, so it lives with the widgets): the title
// and period are left to the page header the painter draws on every page. Every value is
// escaped: transcript and provider text is data, never markup.
QString financeHtml(const Reconciliation &reconciliation, const QList<DuplicatePayout> &duplicates,
                    const QList<PayoutMark> &marks);

} // namespace verity

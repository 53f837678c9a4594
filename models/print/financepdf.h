#pragma once
// The finance report as a PDF (Qt's own PDF writer), painted from the document the finance
// library writes. Painting text needs fonts, so a QGuiApplication must exist.

#include "domain/expected.h"
#include "finance/duplicatepayouts.h"
#include "finance/reconciliation.h"

#include <QList>
#include <QString>

namespace verity {

Expected<void> writeFinancePdf(const QString &path, const Reconciliation &reconciliation,
                               const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks);

} // namespace verity

#pragma once
// Reports of a reconciliation and of the duplicate payouts: CSV for spreadsheets, and a PDF
// (Qt's own PDF writer) with the period, the totals per category, one line per seller, the
// duplicates and when it was generated. Written through QSaveFile: a failed write leaves no
// half file behind.

#include "domain/expected.h"
#include "finance/duplicatepayouts.h"
#include "finance/reconciliation.h"

#include <QByteArray>
#include <QList>

namespace verity {

// One row per reconciliation row: category, seller, ticket, call, intent key, refund ids,
// ledger and provider amounts in cents and as text, times in ISO 8601 UTC, the note.
QByteArray reconciliationCsv(const Reconciliation &reconciliation);
// One row per refund of each duplicate: the duplicate's key, basis, amount at risk and span,
// then the refund's ticket, call, time, amount and status, and the duplicate's recovery mark.
QByteArray duplicatesCsv(const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks);

Expected<void> writeReconciliationCsv(const QString &path, const Reconciliation &reconciliation);
Expected<void> writeDuplicatesCsv(const QString &path, const QList<DuplicatePayout> &duplicates,
                                  const QList<PayoutMark> &marks);
Expected<void> writeFinancePdf(const QString &path, const Reconciliation &reconciliation,
                               const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks);

} // namespace verity

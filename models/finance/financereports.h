#pragma once
// Reports of a reconciliation and of the duplicate payouts as CSV for spreadsheets, written
// through QSaveFile: a failed write leaves no half file behind. The document a PDF is painted
// from is financehtml.h's.

#include "domain/expected.h"
#include "finance/duplicatepayouts.h"
#include "finance/reconciliation.h"

#include <QByteArray>
#include <QList>

namespace verity {

// Three tables, each with its own header line, separated by one empty line: a spreadsheet
// shows the report's period, totals and time above its rows, and a program reads each table
// whole (the rows are the records after the second empty line):
//   1. `field,value`: report, period ("2026-03-01 to 2026-03-31 (UTC)"), period_from and
//      period_to (ISO dates, both days included), source, currency, generated_at (ISO 8601 UTC).
//   2. `total,rows,ledger_cents,ledger_amount,provider_cents,provider_amount`: one line per
//      category (matched, provider_only, ledger_only, amount_differs), then `all`.
//   3. `category,seller_id,…`: one line per reconciliation row: category, seller, ticket, call,
//      intent key, refund ids, ledger and provider amounts in cents and as text, times in ISO
//      8601 UTC, the note, paid_twice ("yes" for a refund of an intent the provider paid twice)
//      and balance_difference_cents (the row's share of its seller's balance difference, see
//      balancedifference.h; empty when it has none). It runs to the end of the file.
QByteArray reconciliationCsv(const Reconciliation &reconciliation);
// One row per refund of each duplicate: the duplicate's key, basis, amount at risk and span,
// then the refund's ticket, call, time, amount and status, and the duplicate's recovery mark.
QByteArray duplicatesCsv(const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks);

Expected<void> writeReconciliationCsv(const QString &path, const Reconciliation &reconciliation);
Expected<void> writeDuplicatesCsv(const QString &path, const QList<DuplicatePayout> &duplicates,
                                  const QList<PayoutMark> &marks);
} // namespace verity

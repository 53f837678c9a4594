#pragma once
// What the provider says money did in a period: its refunds and, per seller account, its
// balance and balance transactions. Filled from the provider's API (StatementFetch) or from
// its CSV export (readProviderExport); reconciliation reads nothing else.

#include "domain/expected.h"
#include "domain/recordstatus.h"

#include <QList>
#include <QString>

#include <optional>

namespace verity {

// A period of whole days, UTC: [fromMs, toMs).
struct Period
{
    qint64 fromMs = 0;
    qint64 toMs = 0;
    bool contains(qint64 ms) const { return ms >= fromMs && ms < toMs; }
};
// "2026-03-01" and "2026-03-31" → [2026-03-01 00:00, 2026-04-01 00:00) UTC. nullopt with
// `error` set when a date is not YYYY-MM-DD or the period ends before it starts.
Expected<Period> periodFromDates(const QString &from, const QString &to); // InputErrc::Invalid
QString periodText(const Period &period); // "2026-03-01 to 2026-03-31 (UTC)"

struct StatementRefund
{
    QString id; // "re_…"
    QString paymentIntent; // "pi_…"
    qint64 amountCents = 0;
    QString currency; // upper case: "USD"
    RecordStatus status;
    qint64 createdMs = 0;
    QString intentKey; // metadata[intent_key]; empty on a refund made without one
    QString ticketExtId; // metadata[ticket_id], when the provider has it
    QString account; // the seller account the refund debited, when known
    QString origin; // where it was read: "GET /v1/refunds" or "export.csv:12"
    QString record; // the provider's record as read: JSON, or the CSV line
};

struct BalanceMovement
{
    QString id; // "txn_…"
    qint64 amountCents = 0; // negative: money leaving the seller
    QString currency;
    QString type; // "refund", "adjustment", ...
    QString source; // the refund id for a refund
    qint64 createdMs = 0;
};

struct SellerAccountStatement
{
    QString account;
    std::optional<qint64> balanceCents; // now; empty when the provider did not say
    QString currency;
    QList<BalanceMovement> movements; // in the period, oldest first
    QString problem; // why the account could not be read, if it could not
};

struct ProviderStatement
{
    Period period;
    QString source; // the provider's URL, or the export file's path
    qint64 fetchedAt = 0;
    QList<StatementRefund> refunds; // created in the period, oldest first
    QList<SellerAccountStatement> accounts; // empty when read from an export
};

} // namespace verity

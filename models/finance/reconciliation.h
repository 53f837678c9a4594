#pragma once
// Reconciliation of Verity's ledger against the provider, for a period. Verity's ledger is
// every payout known performed; the provider's side is its refunds in the period. Matching
// is by intent key (metadata[intent_key]) first, preferring the refund whose id the ledger
// knows, then by refund id. Every row lands in exactly one category.

#include "domain/expected.h"
#include "domain/providerstatement.h"
#include "finance/balancedifference.h"
#include "store/financerecords.h"

#include <QList>
#include <QString>

#include <array>
#include <optional>

namespace verity {

enum class ReconCategory { Matched, ProviderOnly, LedgerOnly, AmountDiffers };
constexpr int reconCategoryCount = 4;
QString
reconCategoryId(ReconCategory category); // "matched", "provider_only", "ledger_only", "amount_differs"
QString
reconCategoryText(ReconCategory category); // "Matched", "Provider only", "Ledger only", "Amount differs"

struct ReconRow
{
    ReconCategory category = ReconCategory::Matched;
    std::optional<LedgerPayout> ledger; // absent for provider only
    std::optional<StatementRefund> provider; // absent for ledger only
    QString matchedBy; // "intent key", "refund id", or empty
    QString sellerId;
    QString sellerName;
    QString currency = QStringLiteral("USD");
    // The ticket and call the row opens: the ledger's, or for a provider-only refund the call
    // whose intent key it carries (an unknown one first). Empty when nothing links it.
    std::optional<qint64> ticketId;
    std::optional<qint64> callId;
    QString ticketExtId;
    QString callExtId;
    QString note; // why it landed here, in words
    // A second payout naming a refund already matched to another: one refund, recorded twice
    // in Verity. Counted, but its money is left out of the totals.
    bool sameRefundAsAnotherRow = false;
    // One of two or more refunds the provider made for one intent: the money went out twice (a
    // duplicate payout), each refund matched to the call that caused it.
    bool paidTwice = false;
    qint64 ledgerCents() const;
    qint64 providerCents() const;
};

// The row's category as every report names it: "Matched", or "Matched · paid twice" for a
// refund of an intent the provider paid twice.
QString reconRowCategoryText(const ReconRow &row);

struct ReconTotals
{
    std::array<int, reconCategoryCount> count{};
    std::array<qint64, reconCategoryCount> ledgerCents{};
    std::array<qint64, reconCategoryCount> providerCents{};
    void add(const ReconRow &row);
};

struct SellerReconciliation
{
    QString sellerId;
    QString sellerName;
    QString currency = QStringLiteral("USD");
    ReconTotals totals;
    std::optional<qint64> verityBalanceCents; // the latest a transcript reported
    qint64 verityBalanceAsOf = 0; // ms since the epoch, UTC: the moment it was stated for
    std::optional<qint64> providerBalanceCents; // the provider's, when fetched from its API
    qint64 providerBalanceAt = 0; // ms since the epoch, UTC: when the provider's was read
    std::optional<BalanceDifference> balanceDifference; // when both balances are known
};

struct Reconciliation
{
    Period period;
    QString source;
    qint64 generatedAt = 0;
    QString currency = QStringLiteral("USD"); // of every amount: one currency at a time (singleCurrency)
    QList<ReconRow> rows; // ordered by time
    ReconTotals totals;
    QList<SellerReconciliation> sellers; // by name
    bool allMatched() const; // no row outside Matched
};

// A reconciliation adds amounts, so it takes one currency at a time: the payouts' one currency
// (`fallback` when there are none), or an error naming two that differ, in the payouts or
// between them and the provider's refunds.
Expected<QString> singleCurrency(const QList<LedgerPayout> &payouts,
                                 const ProviderStatement *statement = nullptr,
                                 const QString &fallback = QStringLiteral("USD"));

// `payouts`: performed and unknown, as Store::payouts gives them for the period; only the
// performed ones are the ledger, the unknown ones link provider-only refunds to their calls.
// `sellers`: for names and the balances transcripts reported.
Reconciliation reconcile(const QList<LedgerPayout> &payouts, const ProviderStatement &statement,
                         const QList<SellerBalance> &sellers, qint64 generatedAt);

} // namespace verity

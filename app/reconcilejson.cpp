// The JSON that `verity reconcile --json` prints: a stable shape for scheduled jobs.

#include "reconcilejson.h"

#include "domain/displaytext.h"
#include "finance/payoutrecovery.h"

#include <QJsonArray>

namespace verity {

namespace {

QJsonValue orNull(const std::optional<qint64> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

QJsonValue orNull(const QString &value)
{
    return value.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(value);
}

QJsonObject totalsJson(const ReconTotals &totals)
{
    QJsonObject object;
    for (int i = 0; i < reconCategoryCount; ++i) {
        const auto index = std::size_t(i);
        object.insert(reconCategoryId(ReconCategory(i)),
                      QJsonObject{{QStringLiteral("count"), totals.count[index]},
                                  {QStringLiteral("ledger_cents"), totals.ledgerCents[index]},
                                  {QStringLiteral("provider_cents"), totals.providerCents[index]}});
    }
    return object;
}

// `share`: the row's part of its seller's balance difference, when it is one.
QJsonObject rowJson(const ReconRow &row, const std::optional<qint64> &share)
{
    const QString intentKey = row.ledger && !row.ledger->intentKey.isEmpty() ? row.ledger->intentKey
            : row.provider                                                   ? row.provider->intentKey
                                                                             : QString();
    return QJsonObject{
            {QStringLiteral("category"), reconCategoryId(row.category)},
            {QStringLiteral("seller_id"), row.sellerId},
            {QStringLiteral("seller_name"), row.sellerName},
            {QStringLiteral("ticket"), orNull(row.ticketExtId)},
            {QStringLiteral("call"), orNull(row.callExtId)},
            {QStringLiteral("intent_key"), orNull(intentKey)},
            {QStringLiteral("ledger_refund_id"),
             row.ledger ? orNull(row.ledger->refundId) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("provider_refund_id"),
             row.provider ? QJsonValue(row.provider->id) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("currency"), row.currency},
            {QStringLiteral("ledger_cents"),
             row.ledger ? QJsonValue(row.ledger->amountCents) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("provider_cents"),
             row.provider ? QJsonValue(row.provider->amountCents) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("ledger_at"),
             row.ledger ? QJsonValue(isoUtcTime(row.ledger->at)) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("provider_created_at"),
             row.provider ? QJsonValue(isoUtcTime(row.provider->createdMs)) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("provider_status"),
             row.provider ? QJsonValue(row.provider->status.text()) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("matched_by"), orNull(row.matchedBy)},
            {QStringLiteral("note"), row.note},
            {QStringLiteral("paid_twice"), row.paidTwice},
            {QStringLiteral("balance_difference_cents"), orNull(share)},
    };
}

QJsonObject differenceJson(const Reconciliation &reconciliation, const BalanceDifference &difference)
{
    QJsonArray parts;
    for (const BalanceDifferencePart &part : difference.parts) {
        QJsonObject object{{QStringLiteral("kind"), differencePartKind(reconciliation, part)},
                           {QStringLiteral("cause"),
                            part.cause == DifferenceCause::LeftOut
                                    ? QStringLiteral("left_out_of_verity_balance")
                                    : QStringLiteral("moved_after_verity_balance")},
                           {QStringLiteral("at"), isoUtcTime(part.at)},
                           {QStringLiteral("cents"), part.cents}};
        if (part.isRow()) {
            const ReconRow &row = reconciliation.rows.at(part.row);
            object.insert(QStringLiteral("category"), reconCategoryId(row.category));
            object.insert(QStringLiteral("paid_twice"), row.paidTwice);
            object.insert(QStringLiteral("ticket"), orNull(row.ticketExtId));
            object.insert(QStringLiteral("call"), orNull(row.callExtId));
            object.insert(QStringLiteral("provider_refund_id"),
                          row.provider ? QJsonValue(row.provider->id) : QJsonValue());
            object.insert(QStringLiteral("ledger_refund_id"),
                          row.ledger ? orNull(row.ledger->refundId) : QJsonValue());
        } else {
            object.insert(QStringLiteral("movement_id"), part.movement.id);
            object.insert(QStringLiteral("movement_type"), part.movement.type);
        }
        parts.append(object);
    }
    return QJsonObject{{QStringLiteral("cents"), difference.cents},
                       {QStringLiteral("explained_cents"), difference.explainedCents()},
                       {QStringLiteral("unexplained_cents"), difference.unexplainedCents()},
                       {QStringLiteral("unexplained_why"), orNull(difference.unexplainedWhy)},
                       {QStringLiteral("parts"), parts}};
}

QJsonObject sellerJson(const Reconciliation &reconciliation, const SellerReconciliation &seller)
{
    const auto momentOrNull = [](qint64 ms) { return ms > 0 ? QJsonValue(isoUtcTime(ms)) : QJsonValue(); };
    return QJsonObject{
            {QStringLiteral("id"), seller.sellerId},
            {QStringLiteral("name"), seller.sellerName},
            {QStringLiteral("currency"), seller.currency},
            {QStringLiteral("totals"), totalsJson(seller.totals)},
            {QStringLiteral("verity_balance_cents"), orNull(seller.verityBalanceCents)},
            {QStringLiteral("verity_balance_as_of"),
             seller.verityBalanceCents ? momentOrNull(seller.verityBalanceAsOf) : QJsonValue()},
            {QStringLiteral("provider_balance_cents"), orNull(seller.providerBalanceCents)},
            {QStringLiteral("provider_balance_read_at"),
             seller.providerBalanceCents ? momentOrNull(seller.providerBalanceAt) : QJsonValue()},
            {QStringLiteral("balance_difference"),
             seller.balanceDifference ? QJsonValue(differenceJson(reconciliation, *seller.balanceDifference))
                                      : QJsonValue()},
    };
}

QJsonObject duplicateJson(const DuplicatePayout &duplicate, const QHash<QString, PayoutMark> &marks)
{
    QJsonArray refunds;
    for (const PayoutEvent &event : duplicate.events) {
        refunds.append(QJsonObject{
                {QStringLiteral("ticket"),
                 orNull(event.payout               ? event.payout->ticketExtId
                                : event.atProvider ? event.atProvider->ticketExtId
                                                   : QString())},
                {QStringLiteral("call"),
                 event.payout ? orNull(event.payout->callExtId) : QJsonValue(QJsonValue::Null)},
                {QStringLiteral("refund_id"),
                 event.atProvider       ? QJsonValue(event.atProvider->id)
                         : event.payout ? orNull(event.payout->refundId)
                                        : QJsonValue(QJsonValue::Null)},
                {QStringLiteral("at"), isoUtcTime(event.at())},
                {QStringLiteral("amount_cents"), event.amountCents()},
                {QStringLiteral("verity_effect"),
                 event.payout ? QJsonValue(payoutEffectId(event.payout->effect))
                              : QJsonValue(QJsonValue::Null)},
                {QStringLiteral("provider_status"),
                 event.atProvider ? QJsonValue(event.atProvider->status.text())
                                  : QJsonValue(QJsonValue::Null)},
        });
    }
    const auto mark = marks.constFind(duplicate.key);
    return QJsonObject{
            {QStringLiteral("key"), duplicate.key},
            {QStringLiteral("basis"), duplicateBasisText(duplicate.basis)},
            {QStringLiteral("seller_id"), duplicate.sellerId},
            {QStringLiteral("seller_name"), duplicate.sellerName},
            {QStringLiteral("order_id"), duplicate.orderId},
            {QStringLiteral("currency"), duplicate.currency},
            {QStringLiteral("tickets"), QJsonArray::fromStringList(duplicate.ticketExtIds())},
            {QStringLiteral("amount_at_risk_cents"), duplicate.amountAtRiskCents},
            {QStringLiteral("span_ms"), duplicate.spanMs},
            {QStringLiteral("confirmed_at_provider"), duplicate.confirmedAtProvider},
            {QStringLiteral("recovery"),
             mark == marks.constEnd() ? QJsonValue(QJsonValue::Null)
                                      : QJsonValue(recoveryStateId(mark->state))},
            {QStringLiteral("refunds"), refunds},
    };
}

} // namespace

QJsonObject reconciliationJson(const QString &from, const QString &to, const Reconciliation &reconciliation,
                               const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks,
                               const QJsonObject &reports)
{
    QJsonArray sellers;
    for (const SellerReconciliation &seller : reconciliation.sellers)
        sellers.append(sellerJson(reconciliation, seller));
    const QHash<qsizetype, qint64> shares = differenceShareByRow(reconciliation);
    QJsonArray unmatched;
    QJsonArray paidTwice;
    for (qsizetype i = 0; i < reconciliation.rows.size(); ++i) {
        const ReconRow &row = reconciliation.rows.at(i);
        const std::optional<qint64> share =
                shares.contains(i) ? std::optional(shares.value(i)) : std::nullopt;
        if (row.category != ReconCategory::Matched)
            unmatched.append(rowJson(row, share));
        if (row.paidTwice)
            paidTwice.append(rowJson(row, share));
    }
    const QHash<QString, PayoutMark> current = currentMarks(marks);
    QJsonArray duplicateArray;
    for (const DuplicatePayout &duplicate : duplicates)
        duplicateArray.append(duplicateJson(duplicate, current));
    return QJsonObject{
            {QStringLiteral("period"),
             QJsonObject{{QStringLiteral("from"), from},
                         {QStringLiteral("to"), to},
                         {QStringLiteral("from_ms"), reconciliation.period.fromMs},
                         {QStringLiteral("to_ms"), reconciliation.period.toMs},
                         {QStringLiteral("text"), periodText(reconciliation.period)}}},
            {QStringLiteral("source"), reconciliation.source},
            {QStringLiteral("generated_at"), isoUtcTime(reconciliation.generatedAt)},
            {QStringLiteral("all_matched"), reconciliation.allMatched()},
            {QStringLiteral("rows"), reconciliation.rows.size()},
            {QStringLiteral("totals"), totalsJson(reconciliation.totals)},
            {QStringLiteral("sellers"), sellers},
            {QStringLiteral("unmatched"), unmatched},
            {QStringLiteral("paid_twice"), paidTwice},
            {QStringLiteral("duplicates"), duplicateArray},
            {QStringLiteral("reports"), reports},
    };
}

} // namespace verity

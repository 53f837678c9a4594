#include "reconciliation.h"

#include "domain/money.h"

#include <QHash>
#include <QMap>
#include <QSet>

#include <algorithm>

namespace verity {

QString reconCategoryId(ReconCategory category)
{
    switch (category) {
    case ReconCategory::Matched: return QStringLiteral("matched");
    case ReconCategory::ProviderOnly: return QStringLiteral("provider_only");
    case ReconCategory::LedgerOnly: return QStringLiteral("ledger_only");
    case ReconCategory::AmountDiffers: return QStringLiteral("amount_differs");
    }
    Q_UNREACHABLE();
}

QString reconCategoryText(ReconCategory category)
{
    switch (category) {
    case ReconCategory::Matched: return QStringLiteral("Matched");
    case ReconCategory::ProviderOnly: return QStringLiteral("Provider only");
    case ReconCategory::LedgerOnly: return QStringLiteral("Ledger only");
    case ReconCategory::AmountDiffers: return QStringLiteral("Amount differs");
    }
    Q_UNREACHABLE();
}

qint64 ReconRow::ledgerCents() const
{
    return ledger ? ledger->amountCents : 0;
}

qint64 ReconRow::providerCents() const
{
    return provider ? provider->amountCents : 0;
}

void ReconTotals::add(const ReconRow &row)
{
    const auto i = static_cast<std::size_t>(row.category);
    ++count[i];
    if (row.sameRefundAsAnotherRow)
        return; // its money is in the other row's totals
    ledgerCents[i] += row.ledgerCents();
    providerCents[i] += row.providerCents();
}

bool Reconciliation::allMatched() const
{
    const auto matched = static_cast<std::size_t>(ReconCategory::Matched);
    for (std::size_t i = 0; i < totals.count.size(); ++i) {
        if (i != matched && totals.count[i] > 0)
            return false;
    }
    return true;
}

namespace {

QString callName(const LedgerPayout &payout)
{
    return payout.ticketExtId + u' ' + payout.callExtId;
}

ReconRow rowOf(const LedgerPayout &payout, const StatementRefund &refund, const QString &matchedBy)
{
    ReconRow row;
    row.ledger = payout;
    row.provider = refund;
    row.matchedBy = matchedBy;
    if (payout.amountCents == refund.amountCents && payout.currency.compare(refund.currency, Qt::CaseInsensitive) == 0) {
        row.category = ReconCategory::Matched;
        row.note = QStringLiteral("matched by %1").arg(matchedBy);
    } else {
        row.category = ReconCategory::AmountDiffers;
        row.note = QStringLiteral("matched by %1, but the provider refunded %2 where the ledger records %3")
                       .arg(matchedBy, formatMoney(refund.amountCents, refund.currency),
                            formatMoney(payout.amountCents, payout.currency));
    }
    return row;
}

void linkTo(ReconRow &row, const LedgerPayout &payout)
{
    row.ticketId = payout.ticketId;
    row.callId = payout.callId;
    row.ticketExtId = payout.ticketExtId;
    row.callExtId = payout.callExtId;
    row.sellerId = payout.sellerId;
    row.sellerName = payout.sellerName;
    row.currency = payout.currency;
}

bool moved(const StatementRefund &refund)
{
    return refund.status != u"failed" && refund.status != u"canceled";
}

QString unknownSeller()
{
    return QStringLiteral("(seller unknown)");
}

} // namespace

Expected<QString> singleCurrency(const QList<LedgerPayout> &payouts, const ProviderStatement *statement,
                                 const QString &fallback)
{
    const LedgerPayout *first = nullptr;
    for (const LedgerPayout &payout : payouts) {
        if (!first) {
            first = &payout;
        } else if (payout.currency.compare(first->currency, Qt::CaseInsensitive) != 0) {
            return makeError(QStringLiteral("the ledger holds refunds in %1 (%2) and in %3 (%4) in this period; a "
                                            "reconciliation adds amounts, so it takes one currency at a time")
                                 .arg(first->currency, callName(*first), payout.currency, callName(payout)));
        }
    }
    const QString currency = first ? first->currency.toUpper() : fallback.toUpper();
    if (statement) {
        for (const StatementRefund &refund : statement->refunds) {
            if (refund.currency.compare(currency, Qt::CaseInsensitive) != 0) {
                return makeError(QStringLiteral("the provider's refund %1 is in %2 and the ledger is in %3; a "
                                                "reconciliation adds amounts, so it takes one currency at a time")
                                     .arg(refund.id, refund.currency.toUpper(), currency));
            }
        }
    }
    return currency;
}

Reconciliation reconcile(const QList<LedgerPayout> &payouts, const ProviderStatement &statement,
                         const QList<SellerBalance> &sellers, qint64 generatedAt)
{
    Reconciliation result;
    result.period = statement.period;
    result.source = statement.source;
    result.generatedAt = generatedAt;
    if (!payouts.isEmpty())
        result.currency = payouts.constFirst().currency.toUpper();
    else if (!statement.refunds.isEmpty())
        result.currency = statement.refunds.constFirst().currency.toUpper();

    QList<const StatementRefund *> refunds;
    for (const StatementRefund &refund : statement.refunds) {
        if (moved(refund))
            refunds.append(&refund);
    }
    std::stable_sort(refunds.begin(), refunds.end(),
                     [](const StatementRefund *a, const StatementRefund *b) { return a->createdMs < b->createdMs; });
    QList<bool> taken(refunds.size(), false);
    QHash<QString, QList<qsizetype>> refundsByKey;
    QHash<QString, qsizetype> refundsById;
    for (qsizetype i = 0; i < refunds.size(); ++i) {
        if (!refunds.at(i)->intentKey.isEmpty())
            refundsByKey[refunds.at(i)->intentKey].append(i);
        refundsById.insert(refunds.at(i)->id, i);
    }

    QList<const LedgerPayout *> ledger;
    QHash<QString, QList<const LedgerPayout *>> payoutsByKey; // every effect: to link provider-only refunds
    for (const LedgerPayout &payout : payouts) {
        if (payout.effect == PayoutEffect::Performed)
            ledger.append(&payout);
        if (!payout.intentKey.isEmpty())
            payoutsByKey[payout.intentKey].append(&payout);
    }
    QHash<qint64, QString> matchedRefundOfCall;
    QHash<qsizetype, const LedgerPayout *> takenBy; // refund → the payout it was matched to
    QList<const LedgerPayout *> unmatched = ledger;
    const auto match = [&](const LedgerPayout *payout, qsizetype refund, const QString &by) {
        taken[refund] = true;
        takenBy.insert(refund, payout);
        ReconRow row = rowOf(*payout, *refunds.at(refund), by);
        linkTo(row, *payout);
        matchedRefundOfCall.insert(payout->callId, refunds.at(refund)->id);
        result.rows.append(std::move(row));
    };
    const auto providerRefundOf = [&](const LedgerPayout *payout) -> qsizetype {
        return payout->refundId.isEmpty() ? -1 : refundsById.value(payout->refundId, -1);
    };

    // 1. By intent key, where the ledger also knows the refund's id: the surest match.
    unmatched.removeIf([&](const LedgerPayout *payout) {
        const qsizetype i = providerRefundOf(payout);
        if (i < 0 || taken.at(i) || payout->intentKey.isEmpty() || refunds.at(i)->intentKey != payout->intentKey)
            return false;
        match(payout, i, QStringLiteral("intent key"));
        return true;
    });
    // 2. By intent key alone: the first refund of the key that no other payout names by id.
    QSet<QString> namedIds;
    for (const LedgerPayout *payout : std::as_const(unmatched)) {
        if (!payout->refundId.isEmpty())
            namedIds.insert(payout->refundId);
    }
    unmatched.removeIf([&](const LedgerPayout *payout) {
        if (payout->intentKey.isEmpty())
            return false;
        for (qsizetype i : refundsByKey.value(payout->intentKey)) {
            if (!taken.at(i) && (!namedIds.contains(refunds.at(i)->id) || refunds.at(i)->id == payout->refundId)) {
                match(payout, i, QStringLiteral("intent key"));
                return true;
            }
        }
        return false;
    });
    // 3. By refund id.
    unmatched.removeIf([&](const LedgerPayout *payout) {
        const qsizetype i = providerRefundOf(payout);
        if (i < 0 || taken.at(i))
            return false;
        match(payout, i, QStringLiteral("refund id"));
        return true;
    });
    // 4. What is left: a payout naming a refund another payout was matched to is that same
    // refund recorded twice (a replayed answer); the rest the provider does not have.
    for (const LedgerPayout *payout : std::as_const(unmatched)) {
        ReconRow row;
        const qsizetype i = providerRefundOf(payout);
        if (i >= 0) {
            const LedgerPayout *first = takenBy.value(i);
            row = rowOf(*payout, *refunds.at(i), QStringLiteral("refund id"));
            row.sameRefundAsAnotherRow = true;
            row.note = QStringLiteral("the same refund %1 as %2: recorded twice in Verity, paid once")
                           .arg(refunds.at(i)->id, first ? callName(*first) : QString());
        } else {
            row.category = ReconCategory::LedgerOnly;
            row.ledger = *payout;
            row.note = payout->refundId.isEmpty()
                ? QStringLiteral("no refund at the provider in the period carries this intent key")
                : QStringLiteral("no refund at the provider in the period carries this intent key or the id %1")
                      .arg(payout->refundId);
        }
        linkTo(row, *payout);
        result.rows.append(std::move(row));
    }
    // 3. What is left at the provider moved money the ledger does not know.
    QHash<QString, QString> sellerNames;
    for (const SellerBalance &seller : sellers)
        sellerNames.insert(seller.id, seller.name);
    // An export may not name the account: the payment's order tells the seller.
    QHash<QString, const LedgerPayout *> byPayment;
    for (const LedgerPayout &payout : payouts) {
        if (!payout.paymentIntent.isEmpty())
            byPayment.insert(payout.paymentIntent, &payout);
    }
    QSet<qint64> tracedCalls;
    for (qsizetype i = 0; i < refunds.size(); ++i) {
        if (taken.at(i))
            continue;
        const StatementRefund &refund = *refunds.at(i);
        ReconRow row;
        row.category = ReconCategory::ProviderOnly;
        row.provider = refund;
        row.currency = refund.currency;
        row.sellerId = refund.account;
        if (row.sellerId.isEmpty()) {
            if (const LedgerPayout *sameOrder = byPayment.value(refund.paymentIntent))
                row.sellerId = sameOrder->sellerId;
        }
        row.sellerName = sellerNames.value(row.sellerId, row.sellerId);
        const QList<const LedgerPayout *> calls = payoutsByKey.value(refund.intentKey);
        // The call it most likely came from: an unknown one no other refund was traced to yet
        // (in time order, as both sides made them), else any with the key.
        const LedgerPayout *origin = nullptr;
        for (const LedgerPayout *call : calls) {
            if (call->effect == PayoutEffect::Unknown && !tracedCalls.contains(call->callId)) {
                origin = call;
                break;
            }
        }
        if (!origin && !calls.isEmpty())
            origin = calls.constFirst();
        if (origin)
            tracedCalls.insert(origin->callId);
        if (refund.intentKey.isEmpty()) {
            row.note = QStringLiteral("made without an intent key; no payout in the ledger has its refund id");
        } else if (!origin) {
            row.note = QStringLiteral("no call in Verity carries its intent key in the period");
        } else {
            const QString sellerId = row.sellerId;
            linkTo(row, *origin);
            if (!sellerId.isEmpty())
                row.sellerId = sellerId;
            QStringList alsoPaid;
            for (const LedgerPayout *call : calls) {
                if (matchedRefundOfCall.contains(call->callId))
                    alsoPaid.append(QStringLiteral("%1 (%2)").arg(matchedRefundOfCall.value(call->callId), callName(*call)));
            }
            row.note = origin->effect == PayoutEffect::Unknown
                ? (origin->attestedAbsent
                           ? QStringLiteral("the refund of %1, which a person's check recorded as not performed")
                           : QStringLiteral("the refund of %1, whose outcome Verity records as unknown"))
                          .arg(callName(*origin))
                : QStringLiteral("a refund for the intent of %1 that the ledger does not record").arg(callName(*origin));
            if (!alsoPaid.isEmpty())
                row.note += QStringLiteral("; the same intent was also refunded as %1: a duplicate payout")
                                .arg(alsoPaid.join(QStringLiteral(", ")));
        }
        if (row.sellerId.isEmpty() && row.sellerName.isEmpty())
            row.sellerName = unknownSeller();
        result.rows.append(std::move(row));
    }

    // By time, ties in the order found. An order of (time, position) pairs is sorted rather
    // than the rows: a row holds both sides' records, and moving it costs dozens of strings.
    // The rows then move into place one cycle of the order at a time, each once, without a
    // second list of them.
    QList<std::pair<qint64, qsizetype>> order;
    order.reserve(result.rows.size());
    for (qsizetype i = 0; i < result.rows.size(); ++i) {
        const ReconRow &row = result.rows.at(i);
        order.append({row.ledger ? row.ledger->at : row.provider->createdMs, i});
    }
    std::sort(order.begin(), order.end()); // the position breaks ties: stable
    for (qsizetype start = 0; start < order.size(); ++start) {
        if (order.at(start).second == start)
            continue; // in place, or placed by an earlier cycle
        ReconRow held = std::move(result.rows[start]);
        qsizetype at = start;
        while (order.at(at).second != start) {
            const qsizetype from = order.at(at).second;
            result.rows[at] = std::move(result.rows[from]);
            order[at].second = at;
            at = from;
        }
        result.rows[at] = std::move(held);
        order[at].second = at;
    }

    // Totals, overall and per seller.
    QMap<QString, SellerReconciliation> perSeller; // by name
    QHash<QString, const SellerBalance *> sellerById;
    for (const SellerBalance &seller : sellers)
        sellerById.insert(seller.id, &seller);
    // Each seller's entry is found once and remembered: its sort key is a lower-cased copy of
    // the name, too dear to make again for every row. (QMap's entries stay where they are.)
    QHash<std::pair<QString, QString>, SellerReconciliation *> entryOf;
    const auto sellerEntry = [&](const QString &id, const QString &name) -> SellerReconciliation & {
        SellerReconciliation *&found = entryOf[std::pair(id, name)];
        if (found)
            return *found;
        // A refund nobody can place (no account, no known payment) is listed last, and says so.
        const bool unknown = id.isEmpty() && (name.isEmpty() || name == unknownSeller());
        const QString sortKey = unknown ? QStringLiteral("\uffff") : (name.isEmpty() ? id : name).toLower() + u'\x1f' + id;
        auto it = perSeller.find(sortKey);
        if (it == perSeller.end()) {
            SellerReconciliation seller;
            seller.sellerId = id;
            seller.sellerName = unknown ? unknownSeller() : (name.isEmpty() ? id : name);
            if (const SellerBalance *known = sellerById.value(id)) {
                seller.verityBalanceCents = known->balanceCents;
                seller.currency = known->currency;
            }
            it = perSeller.insert(sortKey, seller);
        }
        found = &*it;
        return *found;
    };
    for (const ReconRow &row : std::as_const(result.rows)) {
        result.totals.add(row);
        sellerEntry(row.sellerId, row.sellerName).totals.add(row);
    }
    for (const SellerAccountStatement &account : statement.accounts) {
        if (!account.balanceCents)
            continue;
        SellerReconciliation &seller = sellerEntry(account.account, sellerNames.value(account.account));
        seller.providerBalanceCents = account.balanceCents;
    }
    result.sellers = perSeller.values();
    return result;
}

} // namespace verity

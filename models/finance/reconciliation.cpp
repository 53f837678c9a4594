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
    case ReconCategory::Matched:
        return QStringLiteral("matched");
    case ReconCategory::ProviderOnly:
        return QStringLiteral("provider_only");
    case ReconCategory::LedgerOnly:
        return QStringLiteral("ledger_only");
    case ReconCategory::AmountDiffers:
        return QStringLiteral("amount_differs");
    }
    Q_UNREACHABLE();
}

QString reconCategoryText(ReconCategory category)
{
    switch (category) {
    case ReconCategory::Matched:
        return QStringLiteral("Matched");
    case ReconCategory::ProviderOnly:
        return QStringLiteral("Provider only");
    case ReconCategory::LedgerOnly:
        return QStringLiteral("Ledger only");
    case ReconCategory::AmountDiffers:
        return QStringLiteral("Amount differs");
    }
    Q_UNREACHABLE();
}

QString reconRowCategoryText(const ReconRow &row)
{
    return row.paidTwice ? reconCategoryText(row.category) + QStringLiteral(" · paid twice")
                         : reconCategoryText(row.category);
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
    if (payout.amountCents == refund.amountCents
        && payout.currency.compare(refund.currency, Qt::CaseInsensitive) == 0) {
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
    return !refund.status.didNotGoThrough();
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
            return makeError(
                    QStringLiteral("the ledger holds refunds in %1 (%2) and in %3 (%4) in this period; a "
                                   "reconciliation adds amounts, so it takes one currency at a time")
                            .arg(first->currency, callName(*first), payout.currency, callName(payout)));
        }
    }
    const QString currency = first ? first->currency.toUpper() : fallback.toUpper();
    if (statement) {
        for (const StatementRefund &refund : statement->refunds) {
            if (refund.currency.compare(currency, Qt::CaseInsensitive) != 0) {
                return makeError(
                        QStringLiteral("the provider's refund %1 is in %2 and the ledger is in %3; a "
                                       "reconciliation adds amounts, so it takes one currency at a time")
                                .arg(refund.id, refund.currency.toUpper(), currency));
            }
        }
    }
    return currency;
}
namespace {

// What the reconciliation covers and in which currency, before any row.
Reconciliation emptyReconciliation(const QList<LedgerPayout> &payouts, const ProviderStatement &statement,
                                   qint64 generatedAt)
{
    Reconciliation result;
    result.period = statement.period;
    result.source = statement.source;
    result.generatedAt = generatedAt;
    if (!payouts.isEmpty())
        result.currency = payouts.constFirst().currency.toUpper();
    else if (!statement.refunds.isEmpty())
        result.currency = statement.refunds.constFirst().currency.toUpper();
    return result;
}

// The provider's side is the refunds that moved money, in the order it made them, so that of
// several refunds with one intent key the earliest is matched first.
QList<const StatementRefund *> movedRefunds(const ProviderStatement &statement)
{
    QList<const StatementRefund *> refunds;
    for (const StatementRefund &refund : statement.refunds) {
        if (moved(refund))
            refunds.append(&refund);
    }
    std::stable_sort(refunds.begin(), refunds.end(), [](const StatementRefund *a, const StatementRefund *b) {
        return a->createdMs < b->createdMs;
    });
    return refunds;
}

// Pairs the ledger's payouts with the provider's refunds, surest pairing first, and makes a
// row of every payout and every refund. Each step takes what the steps before it left.
class Matcher
{
public:
    Matcher(const QList<LedgerPayout> &payouts, QList<const StatementRefund *> refunds);

    void matchByKeyAndNamedId();
    void matchByKeyAlone();
    void matchByRefundId();
    void addUnmatchedPayouts();
    void addUnmatchedRefunds(const QList<LedgerPayout> &payouts, const QHash<QString, QString> &sellerNames);
    QList<ReconRow> takeRows() { return std::move(m_rows); }

private:
    void match(const LedgerPayout *payout, qsizetype refund, const QString &by);
    qsizetype refundNamedBy(const LedgerPayout *payout) const;
    ReconRow providerOnlyRow(const StatementRefund &refund,
                             const QHash<QString, const LedgerPayout *> &byPayment,
                             const QHash<QString, QString> &sellerNames);
    const LedgerPayout *originOf(const QList<const LedgerPayout *> &calls);
    QString providerOnlyNote(const LedgerPayout &origin, const QList<const LedgerPayout *> &calls) const;

    QList<const StatementRefund *> m_refunds;
    QList<bool> m_taken; // by refund: matched to a payout
    QHash<QString, QList<qsizetype>> m_refundsByKey; // in time order
    QHash<QString, qsizetype> m_refundsById;
    QHash<QString, QList<const LedgerPayout *>> m_payoutsByKey; // every effect: to link provider-only refunds
    QList<const LedgerPayout *> m_unmatched; // performed payouts not matched yet
    QHash<qint64, QString> m_matchedRefundOfCall; // call → the refund id matched to it
    QHash<qsizetype, const LedgerPayout *> m_takenBy; // refund → the payout it was matched to
    QSet<qint64> m_tracedCalls; // calls a provider-only refund came from
    QList<ReconRow> m_rows; // in the order found
};

// Indexes the refunds by intent key and by id; only performed payouts are the ledger, but
// payouts of every effect can tell where a provider-only refund came from.
Matcher::Matcher(const QList<LedgerPayout> &payouts, QList<const StatementRefund *> refunds)
    : m_refunds(std::move(refunds))
    , m_taken(m_refunds.size(), false)
{
    for (qsizetype i = 0; i < m_refunds.size(); ++i) {
        if (!m_refunds.at(i)->intentKey.isEmpty())
            m_refundsByKey[m_refunds.at(i)->intentKey].append(i);
        m_refundsById.insert(m_refunds.at(i)->id, i);
    }
    for (const LedgerPayout &payout : payouts) {
        if (payout.effect == PayoutEffect::Performed)
            m_unmatched.append(&payout);
        if (!payout.intentKey.isEmpty())
            m_payoutsByKey[payout.intentKey].append(&payout);
    }
}

// One pairing: the refund is taken, and the row says whether the amounts agree.
void Matcher::match(const LedgerPayout *payout, qsizetype refund, const QString &by)
{
    m_taken[refund] = true;
    m_takenBy.insert(refund, payout);
    ReconRow row = rowOf(*payout, *m_refunds.at(refund), by);
    linkTo(row, *payout);
    m_matchedRefundOfCall.insert(payout->callId, m_refunds.at(refund)->id);
    m_rows.append(std::move(row));
}

// The provider's refund whose id the payout records, or -1.
qsizetype Matcher::refundNamedBy(const LedgerPayout *payout) const
{
    return payout->refundId.isEmpty() ? -1 : m_refundsById.value(payout->refundId, -1);
}

// By intent key, where the ledger also knows the refund's id: the surest match.
void Matcher::matchByKeyAndNamedId()
{
    m_unmatched.removeIf([&](const LedgerPayout *payout) {
        const qsizetype i = refundNamedBy(payout);
        if (i < 0 || m_taken.at(i) || payout->intentKey.isEmpty()
            || m_refunds.at(i)->intentKey != payout->intentKey)
            return false;
        match(payout, i, QStringLiteral("intent key"));
        return true;
    });
}

// By intent key alone: the first refund of the key that no other payout names by id, so a
// payout that knows its refund's id still finds it in the next step.
void Matcher::matchByKeyAlone()
{
    QSet<QString> namedIds;
    for (const LedgerPayout *payout : std::as_const(m_unmatched)) {
        if (!payout->refundId.isEmpty())
            namedIds.insert(payout->refundId);
    }
    m_unmatched.removeIf([&](const LedgerPayout *payout) {
        if (payout->intentKey.isEmpty())
            return false;
        for (qsizetype i : m_refundsByKey.value(payout->intentKey)) {
            if (!m_taken.at(i)
                && (!namedIds.contains(m_refunds.at(i)->id) || m_refunds.at(i)->id == payout->refundId)) {
                match(payout, i, QStringLiteral("intent key"));
                return true;
            }
        }
        return false;
    });
}

// By refund id: for payouts whose intent key the provider's refund does not carry.
void Matcher::matchByRefundId()
{
    m_unmatched.removeIf([&](const LedgerPayout *payout) {
        const qsizetype i = refundNamedBy(payout);
        if (i < 0 || m_taken.at(i))
            return false;
        match(payout, i, QStringLiteral("refund id"));
        return true;
    });
}

// What is left of the ledger: a payout naming a refund another payout was matched to is that
// same refund recorded twice (a replayed answer); the rest the provider does not have.
void Matcher::addUnmatchedPayouts()
{
    for (const LedgerPayout *payout : std::as_const(m_unmatched)) {
        ReconRow row;
        const qsizetype i = refundNamedBy(payout);
        if (i >= 0) {
            const LedgerPayout *first = m_takenBy.value(i);
            row = rowOf(*payout, *m_refunds.at(i), QStringLiteral("refund id"));
            row.sameRefundAsAnotherRow = true;
            row.note = QStringLiteral("the same refund %1 as %2: recorded twice in Verity, paid once")
                               .arg(m_refunds.at(i)->id, first ? callName(*first) : QString());
        } else {
            row.category = ReconCategory::LedgerOnly;
            row.ledger = *payout;
            row.note = payout->refundId.isEmpty()
                    ? QStringLiteral("no refund at the provider in the period carries this intent key")
                    : QStringLiteral(
                              "no refund at the provider in the period carries this intent key or the id %1")
                              .arg(payout->refundId);
        }
        linkTo(row, *payout);
        m_rows.append(std::move(row));
    }
}

// What is left at the provider moved money the ledger does not know.
void Matcher::addUnmatchedRefunds(const QList<LedgerPayout> &payouts,
                                  const QHash<QString, QString> &sellerNames)
{
    // An export may not name the account: the payment's order tells the seller.
    QHash<QString, const LedgerPayout *> byPayment;
    for (const LedgerPayout &payout : payouts) {
        if (!payout.paymentIntent.isEmpty())
            byPayment.insert(payout.paymentIntent, &payout);
    }
    for (qsizetype i = 0; i < m_refunds.size(); ++i) {
        if (!m_taken.at(i))
            m_rows.append(providerOnlyRow(*m_refunds.at(i), byPayment, sellerNames));
    }
}

// A refund only the provider has, linked to the call it most likely came from, so the row
// opens that call and says what Verity knew of it.
ReconRow Matcher::providerOnlyRow(const StatementRefund &refund,
                                  const QHash<QString, const LedgerPayout *> &byPayment,
                                  const QHash<QString, QString> &sellerNames)
{
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
    const QList<const LedgerPayout *> calls = m_payoutsByKey.value(refund.intentKey);
    const LedgerPayout *origin = originOf(calls);
    if (refund.intentKey.isEmpty()) {
        row.note = QStringLiteral("made without an intent key; no payout in the ledger has its refund id");
    } else if (!origin) {
        row.note = QStringLiteral("no call in Verity carries its intent key in the period");
    } else {
        const QString sellerId = row.sellerId;
        linkTo(row, *origin);
        if (!sellerId.isEmpty())
            row.sellerId = sellerId;
        row.note = providerOnlyNote(*origin, calls);
    }
    if (row.sellerId.isEmpty() && row.sellerName.isEmpty())
        row.sellerName = unknownSeller();
    return row;
}

// The call a provider-only refund most likely came from: an unknown one no other refund was
// traced to yet (in time order, as both sides made them), else any with the key.
const LedgerPayout *Matcher::originOf(const QList<const LedgerPayout *> &calls)
{
    const LedgerPayout *origin = nullptr;
    for (const LedgerPayout *call : calls) {
        if (call->effect == PayoutEffect::Unknown && !m_tracedCalls.contains(call->callId)) {
            origin = call;
            break;
        }
    }
    if (!origin && !calls.isEmpty())
        origin = calls.constFirst();
    if (origin)
        m_tracedCalls.insert(origin->callId);
    return origin;
}

// Why a refund traced to a call is provider-only, and which refunds of the same intent the
// ledger matched: together they are a duplicate payout.
QString Matcher::providerOnlyNote(const LedgerPayout &origin, const QList<const LedgerPayout *> &calls) const
{
    QStringList alsoPaid;
    for (const LedgerPayout *call : calls) {
        if (m_matchedRefundOfCall.contains(call->callId))
            alsoPaid.append(QStringLiteral("%1 (%2)").arg(m_matchedRefundOfCall.value(call->callId),
                                                          callName(*call)));
    }
    QString note = origin.effect == PayoutEffect::Unknown
            ? (origin.attestedAbsent
                       ? QStringLiteral("the refund of %1, which a person's check recorded as not performed")
                       : QStringLiteral("the refund of %1, whose outcome Verity records as unknown"))
                      .arg(callName(origin))
            : QStringLiteral("a refund for the intent of %1 that the ledger does not record")
                      .arg(callName(origin));
    if (!alsoPaid.isEmpty())
        note += QStringLiteral("; the same intent was also refunded as %1: a duplicate payout")
                        .arg(alsoPaid.join(QStringLiteral(", ")));
    return note;
}

// Rows by time, ties in the order found. An order of (time, position) pairs is sorted rather
// than the rows: a row holds both sides' records, and moving it costs dozens of strings. The
// rows then move into place one cycle of the order at a time, each once, without a second
// list of them.
void sortByTime(QList<ReconRow> &rows)
{
    QList<std::pair<qint64, qsizetype>> order;
    order.reserve(rows.size());
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const ReconRow &row = rows.at(i);
        order.append({row.ledger ? row.ledger->at : row.provider->createdMs, i});
    }
    std::sort(order.begin(), order.end()); // the position breaks ties: stable
    for (qsizetype start = 0; start < order.size(); ++start) {
        if (order.at(start).second == start)
            continue; // in place, or placed by an earlier cycle
        ReconRow held = std::move(rows[start]);
        qsizetype at = start;
        while (order.at(at).second != start) {
            const qsizetype from = order.at(at).second;
            rows[at] = std::move(rows[from]);
            order[at].second = at;
            at = from;
        }
        rows[at] = std::move(held);
        order[at].second = at;
    }
}

// Each seller's totals, listed by name, with the balance a transcript reported for it.
class SellerEntries
{
public:
    explicit SellerEntries(const QList<SellerBalance> &sellers);
    SellerReconciliation &entry(const QString &id, const QString &name);
    QList<SellerReconciliation> byName() const { return m_perSeller.values(); }

private:
    QMap<QString, SellerReconciliation> m_perSeller; // by name
    QHash<QString, const SellerBalance *> m_sellerById;
    // Each seller's entry is found once and remembered: its sort key is a lower-cased copy of
    // the name, too dear to make again for every row. (QMap's entries stay where they are.)
    QHash<std::pair<QString, QString>, SellerReconciliation *> m_entryOf;
};

SellerEntries::SellerEntries(const QList<SellerBalance> &sellers)
{
    for (const SellerBalance &seller : sellers)
        m_sellerById.insert(seller.id, &seller);
}

SellerReconciliation &SellerEntries::entry(const QString &id, const QString &name)
{
    SellerReconciliation *&found = m_entryOf[std::pair(id, name)];
    if (found)
        return *found;
    // A refund nobody can place (no account, no known payment) is listed last, and says so.
    const bool unknown = id.isEmpty() && (name.isEmpty() || name == unknownSeller());
    const QString sortKey =
            unknown ? QStringLiteral("\uffff") : (name.isEmpty() ? id : name).toLower() + u'\x1f' + id;
    auto it = m_perSeller.find(sortKey);
    if (it == m_perSeller.end()) {
        SellerReconciliation seller;
        seller.sellerId = id;
        seller.sellerName = unknown ? unknownSeller() : (name.isEmpty() ? id : name);
        if (const SellerBalance *known = m_sellerById.value(id)) {
            seller.verityBalanceCents = known->balanceCents;
            seller.verityBalanceAsOf = known->balanceAsOf;
            seller.currency = known->currency;
        }
        it = m_perSeller.insert(sortKey, seller);
    }
    found = &*it;
    return *found;
}

// Totals, overall and per seller, and the balances the provider reported for its accounts.
void addTotals(Reconciliation &result, const ProviderStatement &statement,
               const QList<SellerBalance> &sellers, const QHash<QString, QString> &sellerNames)
{
    SellerEntries perSeller(sellers);
    for (const ReconRow &row : std::as_const(result.rows)) {
        result.totals.add(row);
        perSeller.entry(row.sellerId, row.sellerName).totals.add(row);
    }
    for (const SellerAccountStatement &account : statement.accounts) {
        if (!account.balanceCents)
            continue;
        SellerReconciliation &seller = perSeller.entry(account.account, sellerNames.value(account.account));
        seller.providerBalanceCents = account.balanceCents;
        seller.providerBalanceAt = statement.fetchedAt;
    }
    result.sellers = perSeller.byName();
}

// Rows whose provider refunds share one intent key, two or more: that intent was paid twice.
void markPaidTwice(QList<ReconRow> &rows)
{
    QHash<QString, int> refundsOfIntent;
    for (const ReconRow &row : std::as_const(rows)) {
        if (row.provider && !row.provider->intentKey.isEmpty() && !row.sameRefundAsAnotherRow)
            ++refundsOfIntent[row.provider->intentKey];
    }
    for (ReconRow &row : rows) {
        if (row.provider && refundsOfIntent.value(row.provider->intentKey) > 1)
            row.paidTwice = true;
    }
}

} // namespace

Reconciliation reconcile(const QList<LedgerPayout> &payouts, const ProviderStatement &statement,
                         const QList<SellerBalance> &sellers, qint64 generatedAt)
{
    Reconciliation result = emptyReconciliation(payouts, statement, generatedAt);
    QHash<QString, QString> sellerNames;
    for (const SellerBalance &seller : sellers)
        sellerNames.insert(seller.id, seller.name);

    Matcher matcher(payouts, movedRefunds(statement));
    matcher.matchByKeyAndNamedId();
    matcher.matchByKeyAlone();
    matcher.matchByRefundId();
    matcher.addUnmatchedPayouts();
    matcher.addUnmatchedRefunds(payouts, sellerNames);
    result.rows = matcher.takeRows();
    markPaidTwice(result.rows);

    sortByTime(result.rows);
    addTotals(result, statement, sellers, sellerNames);
    explainBalanceDifferences(result, statement);
    return result;
}

} // namespace verity

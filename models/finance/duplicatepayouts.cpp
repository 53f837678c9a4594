#include "duplicatepayouts.h"

#include <QHash>
#include <QSet>

#include <algorithm>

namespace verity {

qint64 PayoutEvent::at() const
{
    return payout ? payout->at : (atProvider ? atProvider->createdMs : 0);
}

qint64 PayoutEvent::amountCents() const
{
    return payout ? payout->amountCents : (atProvider ? atProvider->amountCents : 0);
}

QString PayoutEvent::intentKey() const
{
    if (payout && !payout->intentKey.isEmpty())
        return payout->intentKey;
    return atProvider ? atProvider->intentKey : QString();
}

QString duplicateBasisText(DuplicateBasis basis)
{
    switch (basis) {
    case DuplicateBasis::IntentKey:
        return QStringLiteral("same intent key");
    case DuplicateBasis::SameOrderAmount:
        return QStringLiteral("same seller, order and amount");
    }
    Q_UNREACHABLE();
}

QString spanText(qint64 milliseconds)
{
    const qint64 ms = qMax<qint64>(0, milliseconds);
    if (ms < 60 * 1000)
        return QStringLiteral("%1.%2 s").arg(ms / 1000).arg(ms % 1000 / 100); // truncated: never "60.0 s"
    const qint64 seconds = ms / 1000;
    const qint64 minutes = seconds / 60;
    if (minutes < 60)
        return QStringLiteral("%1 min %2 s").arg(minutes).arg(seconds % 60);
    const qint64 hours = minutes / 60;
    if (hours < 24)
        return QStringLiteral("%1 h %2 min").arg(hours).arg(minutes % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1 d %2 h").arg(hours / 24).arg(hours % 24);
}

int DuplicatePayout::unknownCount() const
{
    int count = 0;
    for (const PayoutEvent &event : events)
        count += event.payout && event.payout->effect == PayoutEffect::Unknown ? 1 : 0;
    return count;
}

QStringList DuplicatePayout::ticketExtIds() const
{
    QStringList ids;
    for (const PayoutEvent &event : events) {
        const QString id = event.payout ? event.payout->ticketExtId
                                        : (event.atProvider ? event.atProvider->ticketExtId : QString());
        if (!id.isEmpty() && !ids.contains(id))
            ids.append(id);
    }
    return ids;
}

namespace {

bool moved(const StatementRefund &refund)
{
    // A failed or cancelled refund gave no money back.
    return !refund.status.didNotGoThrough();
}

// Verity's payouts, each with the provider's refund that is the same payout when a statement
// says so: the refund of the same id, else one carrying the payout's intent key, taken in
// the order both sides made them. What no payout accounts for becomes an event of its own.
QList<PayoutEvent> eventsOf(const QList<LedgerPayout> &payouts, const ProviderStatement *statement)
{
    QList<PayoutEvent> events;
    events.reserve(payouts.size());
    QSet<QString> refundIds;
    for (const LedgerPayout &payout : payouts) {
        // Two payouts naming one refund are that refund recorded twice (a replayed answer), not two.
        if (!payout.refundId.isEmpty() && refundIds.contains(payout.refundId))
            continue;
        refundIds.insert(payout.refundId);
        events.append(PayoutEvent{payout, std::nullopt});
    }
    if (!statement)
        return events;

    QHash<QString, qsizetype> byRefundId;
    for (qsizetype i = 0; i < events.size(); ++i) {
        if (!events.at(i).payout->refundId.isEmpty())
            byRefundId.insert(events.at(i).payout->refundId, i);
    }
    QList<const StatementRefund *> unmatched;
    for (const StatementRefund &refund : statement->refunds) {
        if (!moved(refund))
            continue;
        const auto it = byRefundId.constFind(refund.id);
        if (it != byRefundId.cend() && !events.at(*it).atProvider)
            events[*it].atProvider = refund;
        else
            unmatched.append(&refund);
    }
    QList<const StatementRefund *> leftOver;
    for (const StatementRefund *refund : std::as_const(unmatched)) {
        bool attached = false;
        if (!refund->intentKey.isEmpty()) {
            for (PayoutEvent &event : events) {
                if (event.payout && !event.atProvider && event.payout->refundId.isEmpty()
                    && event.payout->intentKey == refund->intentKey) {
                    event.atProvider = *refund;
                    attached = true;
                    break;
                }
            }
        }
        if (!attached)
            leftOver.append(refund);
    }
    for (const StatementRefund *refund : std::as_const(leftOver))
        events.append(PayoutEvent{std::nullopt, *refund});
    return events;
}

QString orderIdentity(const PayoutEvent &event)
{
    if (event.payout)
        return event.payout->paymentIntent.isEmpty() ? event.payout->orderId : event.payout->paymentIntent;
    return event.atProvider->paymentIntent;
}

DuplicatePayout groupOf(QList<PayoutEvent> events, DuplicateBasis basis)
{
    std::stable_sort(events.begin(), events.end(),
                     [](const PayoutEvent &a, const PayoutEvent &b) { return a.at() < b.at(); });
    DuplicatePayout duplicate;
    duplicate.basis = basis;
    qint64 total = 0;
    int atProvider = 0;
    for (const PayoutEvent &event : events) {
        total += event.amountCents();
        atProvider += event.atProvider ? 1 : 0;
        duplicate.tookEffect += event.payout ? (event.payout->effect == PayoutEffect::Performed ? 1 : 0) : 1;
        if (event.payout && duplicate.sellerId.isEmpty()) {
            duplicate.sellerId = event.payout->sellerId;
            duplicate.sellerName = event.payout->sellerName;
            duplicate.orderId = event.payout->orderId;
            duplicate.currency = event.payout->currency;
        }
    }
    // No payout names a seller (a transcript without one): the provider's record does, when
    // there is one. Without either the duplicate stays without a seller; it is still shown.
    if (duplicate.sellerId.isEmpty()) {
        for (const PayoutEvent &event : std::as_const(events)) {
            if (!event.atProvider)
                continue;
            const StatementRefund &refund = *event.atProvider;
            duplicate.sellerId = refund.account;
            duplicate.sellerName = refund.account;
            if (duplicate.orderId.isEmpty())
                duplicate.orderId = refund.paymentIntent;
            if (duplicate.currency.isEmpty())
                duplicate.currency = refund.currency;
            break;
        }
    }
    duplicate.amountAtRiskCents = total - events.constFirst().amountCents();
    duplicate.spanMs = events.constLast().at() - events.constFirst().at();
    duplicate.confirmedAtProvider = atProvider >= 2;
    duplicate.key = basis == DuplicateBasis::IntentKey
            ? QStringLiteral("intent:") + events.constFirst().intentKey()
            : QStringLiteral("order:%1|%2|%3|%4")
                      .arg(duplicate.sellerId, orderIdentity(events.constFirst()))
                      .arg(events.constFirst().amountCents())
                      .arg(events.constFirst().at());
    duplicate.events = std::move(events);
    return duplicate;
}

} // namespace

QList<DuplicatePayout> findDuplicatePayouts(const QList<LedgerPayout> &payouts,
                                            const ProviderStatement *statement, qint64 windowMs)
{
    const QList<PayoutEvent> events = eventsOf(payouts, statement);
    QList<DuplicatePayout> result;

    // By intent: every refund carrying the same key is the same intent, however far apart.
    QHash<QString, QList<PayoutEvent>> byKey;
    QList<QString> keyOrder;
    QList<PayoutEvent> keyless;
    for (const PayoutEvent &event : events) {
        const QString key = event.intentKey();
        if (key.isEmpty()) {
            keyless.append(event);
            continue;
        }
        auto it = byKey.find(key);
        if (it == byKey.end()) {
            keyOrder.append(key);
            it = byKey.insert(key, {});
        }
        it->append(event);
    }
    for (const QString &key : std::as_const(keyOrder)) {
        if (byKey.value(key).size() >= 2)
            result.append(groupOf(byKey.value(key), DuplicateBasis::IntentKey));
    }

    // Without a key: the same order and amount, each refund within the window of the one
    // before it (a run of retries is one duplicate, not several).
    std::stable_sort(keyless.begin(), keyless.end(), [](const PayoutEvent &a, const PayoutEvent &b) {
        const QString orderA = orderIdentity(a);
        const QString orderB = orderIdentity(b);
        if (orderA != orderB)
            return orderA < orderB;
        if (a.amountCents() != b.amountCents())
            return a.amountCents() < b.amountCents();
        return a.at() < b.at();
    });
    QList<PayoutEvent> run;
    const auto flush = [&] {
        if (run.size() >= 2)
            result.append(groupOf(run, DuplicateBasis::SameOrderAmount));
        run.clear();
    };
    for (const PayoutEvent &event : std::as_const(keyless)) {
        if (!run.isEmpty()) {
            const PayoutEvent &last = run.constLast();
            const bool sameRun = orderIdentity(last) == orderIdentity(event)
                    && !orderIdentity(event).isEmpty() && last.amountCents() == event.amountCents()
                    && event.at() - last.at() <= windowMs;
            if (!sameRun)
                flush();
        }
        run.append(event);
    }
    flush();

    std::stable_sort(result.begin(), result.end(), [](const DuplicatePayout &a, const DuplicatePayout &b) {
        return a.events.constFirst().at() < b.events.constFirst().at();
    });
    return result;
}

QList<DuplicatePayout> duplicatesInPeriod(const QList<DuplicatePayout> &duplicates, const Period &period)
{
    QList<DuplicatePayout> inPeriod;
    for (const DuplicatePayout &duplicate : duplicates) {
        if (std::any_of(duplicate.events.cbegin(), duplicate.events.cend(),
                        [&](const PayoutEvent &event) { return period.contains(event.at()); }))
            inPeriod.append(duplicate);
    }
    return inPeriod;
}

} // namespace verity

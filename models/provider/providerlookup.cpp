// The lookup: list every refund of the payment and find the one that carries the intent key.
// A read may be repeated at will, so transport errors, 5xx and 429 are retried with capped
// exponential backoff and full jitter (ProviderRead); everything else it cannot read is "could
// not tell", never "not found". Only the base URL's origin is asked, and only its answers
// count: a list from anywhere else could settle a refund as "not performed".

#include "domain/money.h"
#include "providerclient.h"
#include "providerhttp.h"
#include "providerreply.h"
#include "providerurl.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace verity {

namespace {

constexpr int pageSize = 100;
constexpr int maxPages = 100; // 10,000 refunds of one payment is no payment Verity knows

} // namespace

LookupOperation::LookupOperation(QNetworkAccessManager *network, ProviderSettings settings,
                                 RefundIntent intent, QObject *parent)
    : ProviderRead(std::move(settings), ReadTerms{}, network, parent)
    , m_intent(std::move(intent))
{}

void LookupOperation::start()
{
    if (m_intent.intentKey.isEmpty() || m_intent.paymentIntent.isEmpty()) {
        finish(LookupVerdict::CouldNotTell,
               QStringLiteral("nothing to look up: the call has no %1")
                       .arg(m_intent.intentKey.isEmpty() ? QStringLiteral("intent key")
                                                         : QStringLiteral("payment")));
        return;
    }
    if (const Expected<QUrl> baseUrl = checkProviderUrl(settings().baseUrl); !baseUrl) {
        finish(LookupVerdict::CouldNotTell,
               QStringLiteral("nothing was asked: the provider URL %1").arg(baseUrl.message()));
        return;
    }
    askPage();
}

void LookupOperation::askPage()
{
    QUrlQuery query;
    query.addQueryItem(m_intent.paymentParameter(), m_intent.paymentIntent);
    query.addQueryItem(QStringLiteral("limit"), QString::number(pageSize));
    if (!m_startingAfter.isEmpty())
        query.addQueryItem(QStringLiteral("starting_after"), m_startingAfter);
    ask(providerhttp::endpoint(settings().baseUrl, QStringLiteral("/v1/refunds"), query), m_intent.account);
}

void LookupOperation::askPayment()
{
    ask(providerhttp::endpoint(
                settings().baseUrl,
                QStringLiteral("/v1/payment_intents/%1")
                        .arg(QString::fromLatin1(QUrl::toPercentEncoding(m_intent.paymentIntent)))),
        m_intent.account);
}

QString LookupOperation::step(int attempt) const
{
    if (m_confirming) {
        return QStringLiteral("Checking that %1 is the payment of order %2 (attempt %3 of %4)")
                .arg(m_intent.paymentIntent, m_intent.metadata.value(QStringLiteral("order_id")))
                .arg(attempt)
                .arg(settings().maxLookupAttempts);
    }
    return QStringLiteral("Listing the refunds of %1 (page %2, attempt %3 of %4)")
            .arg(m_intent.paymentIntent)
            .arg(m_page)
            .arg(attempt)
            .arg(settings().maxLookupAttempts);
}

void LookupOperation::notFound(const QString &reason)
{
    if (!m_intent.confirmPayment) {
        finish(LookupVerdict::NotFound, reason);
        return;
    }
    const QString order = m_intent.metadata.value(QStringLiteral("order_id"));
    const QString notEvidence =
            QStringLiteral("%1, but %2 was entered by hand").arg(reason, m_intent.paymentIntent);
    if (order.isEmpty()) {
        finish(LookupVerdict::CouldNotTell,
               QStringLiteral(
                       "%1 and the ticket names no order to tie it to, so this is not evidence that the "
                       "refund was not made")
                       .arg(notEvidence));
        return;
    }
    if (m_intent.paymentParameter() != u"payment_intent") {
        finish(LookupVerdict::CouldNotTell,
               QStringLiteral(
                       "%1 and a charge cannot be tied to order %2 here, so this is not evidence that the "
                       "refund was not made; enter the order's payment intent (pi_…) instead")
                       .arg(notEvidence, order));
        return;
    }
    m_notFound = reason;
    m_confirming = true;
    askPayment();
}

void LookupOperation::readPayment(int status, const QByteArray &body)
{
    const QString order = m_intent.metadata.value(QStringLiteral("order_id"));
    if (status < 200 || status >= 300) {
        finish(LookupVerdict::CouldNotTell,
               QStringLiteral("%1, but the provider would not show %2 (%3), entered by hand, so it cannot be "
                              "tied to order %4: this is not evidence that the refund was not made")
                       .arg(m_notFound, m_intent.paymentIntent, providerhttp::providerMessage(status, body),
                            order));
        return;
    }
    const QJsonObject payment = QJsonDocument::fromJson(body).object();
    const QString paidFor =
            payment.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("order_id")).toString();
    if (paidFor == order) {
        finish(LookupVerdict::NotFound,
               QStringLiteral("%1; the provider confirms %2 paid for order %3")
                       .arg(m_notFound, m_intent.paymentIntent, order));
        return;
    }
    finish(LookupVerdict::CouldNotTell,
           paidFor.isEmpty()
                   ? QStringLiteral(
                             "%1, but the provider does not say which order %2 paid for, and it was entered "
                             "by hand: this is not evidence that the refund was not made; check the payment, "
                             "or record a check")
                             .arg(m_notFound, m_intent.paymentIntent)
                   : QStringLiteral(
                             "%1, but %2 is the payment of order %3, not of order %4: entered by hand, it "
                             "says nothing about this refund; enter order %4's own payment")
                             .arg(m_notFound, m_intent.paymentIntent, paidFor, order));
}

void LookupOperation::readAnswer(const ReplyRead &read)
{
    if (const std::optional<QString> refused = refusedKey(read)) {
        finish(LookupVerdict::CouldNotTell, *refused);
        return;
    }
    if (m_confirming) {
        readPayment(read.status, read.body);
        return;
    }
    const std::optional<bool> hasMore = readPage(read.status, read.body);
    if (!hasMore)
        return;
    if (!*hasMore) {
        decide();
        return;
    }
    if (m_page >= maxPages) {
        finish(LookupVerdict::CouldNotTell,
               QStringLiteral("%1 has more than %2 refunds; stopped reading")
                       .arg(m_intent.paymentIntent)
                       .arg(m_refunds.size()));
        return;
    }
    ++m_page;
    askPage();
}

std::optional<bool> LookupOperation::readPage(int status, const QByteArray &body)
{
    const auto cannotTell = [this](const QString &reason) {
        finish(LookupVerdict::CouldNotTell, reason);
        return std::optional<bool>();
    };
    if (status < 200 || status >= 300) {
        // A wrong base URL or an unknown payment must never read as "not performed".
        return cannotTell(cannotList(providerhttp::providerMessage(status, body)));
    }
    const QJsonObject list = QJsonDocument::fromJson(body).object();
    if (list.value(QStringLiteral("object")).toString() != u"list"
        || !list.value(QStringLiteral("data")).isArray()) {
        return cannotTell(QStringLiteral("the provider's answer (HTTP %1) is not a list of refunds; "
                                         "check the provider URL")
                                  .arg(status));
    }
    const QJsonArray data = list.value(QStringLiteral("data")).toArray();
    for (const QJsonValue &value : data) {
        std::optional<ProviderRefund> refund = providerhttp::refundFrom(value.toObject());
        if (!refund)
            return cannotTell(QStringLiteral("the provider's list holds something that is not a refund"));
        // A provider that ignored the filter must not lend another payment's refund.
        const QString &filedUnder =
                m_intent.paymentParameter() == u"charge" ? refund->charge : refund->paymentIntent;
        if (filedUnder.isEmpty() || filedUnder == m_intent.paymentIntent)
            m_refunds.append(*refund);
    }
    const bool hasMore = list.value(QStringLiteral("has_more")).toBool();
    if (hasMore && data.isEmpty()) {
        // "More" with nothing to page from: the list cannot be read to its end.
        return cannotTell(QStringLiteral("the provider says more refunds follow but sent none; the list "
                                         "cannot be read to its end"));
    }
    if (hasMore) // the cursor is the page's last refund, whichever payment it is filed under
        m_startingAfter = data.last().toObject().value(QStringLiteral("id")).toString();
    return hasMore;
}

QString LookupOperation::cannotList(const QString &providerMessage) const
{
    if (m_intent.account.isEmpty()) {
        return QStringLiteral(
                       "the provider could not list the refunds of %1 (%2); check the provider URL and "
                       "the payment")
                .arg(m_intent.paymentIntent, providerMessage);
    }
    return QStringLiteral("the provider could not list the refunds of %1 on the seller's account %2 (%3); "
                          "check the payment, and whether it is a direct charge on that account (Provider "
                          "settings: sellers as connected accounts)")
            .arg(m_intent.paymentIntent, m_intent.account, providerMessage);
}

void LookupOperation::stop(const QString &reason)
{
    finish(LookupVerdict::CouldNotTell, reason);
}

void LookupOperation::decide()
{
    const QString currency = m_intent.currency.isEmpty() ? QStringLiteral("USD") : m_intent.currency;
    QList<ProviderRefund> matches;
    for (const ProviderRefund &refund : std::as_const(m_refunds)) {
        if (refund.intentKey == m_intent.intentKey)
            matches.append(refund);
    }
    if (!matches.isEmpty()) {
        std::stable_sort(
                matches.begin(), matches.end(),
                [](const ProviderRefund &a, const ProviderRefund &b) { return a.createdMs < b.createdMs; });
        const ProviderRefund &first = matches.first();
        // A refund that failed or was cancelled moved no money: a person must look at it.
        if (first.status.didNotGoThrough()) {
            finish(LookupVerdict::CouldNotTell,
                   QStringLiteral(
                           "refund %1 carries the intent key but did not go through; a person must judge")
                           .arg(providerhttp::describeRefund(first)));
            return;
        }
        QString reason = QStringLiteral("found refund %1 with this intent key")
                                 .arg(providerhttp::describeRefund(first));
        if (matches.size() > 1) {
            QStringList ids;
            for (const ProviderRefund &refund : std::as_const(matches))
                ids.append(refund.id);
            reason += QStringLiteral("; %1 refunds carry this key (%2), the first is given")
                              .arg(matches.size())
                              .arg(ids.join(QStringLiteral(", ")));
        }
        m_answer.withKey = matches;
        finish(LookupVerdict::Found, reason, first);
        return;
    }
    for (const ProviderRefund &refund : std::as_const(m_refunds)) {
        if (refund.intentKey.isEmpty() && refund.amountCents == m_intent.amountCents) {
            finish(LookupVerdict::CouldNotTell,
                   QStringLiteral(
                           "no refund carries the intent key, but refund %1 of %2 has the same amount and no "
                           "intent key (made before keys were sent?); a person must judge whether it is this "
                           "one")
                           .arg(providerhttp::describeRefund(refund), m_intent.paymentIntent));
            return;
        }
    }
    if (m_refunds.isEmpty()) {
        notFound(QStringLiteral("the provider holds no refund of %1").arg(m_intent.paymentIntent));
        return;
    }
    notFound(QStringLiteral(
                     "none of the %1 %2 of %3 carries the intent key, and none of them is a refund of %4 "
                     "without a key")
                     .arg(m_refunds.size())
                     .arg(m_refunds.size() == 1 ? QStringLiteral("refund") : QStringLiteral("refunds"),
                          m_intent.paymentIntent, formatMoney(m_intent.amountCents, currency)));
}

void LookupOperation::finish(LookupVerdict verdict, const QString &reason,
                             std::optional<ProviderRefund> refund)
{
    if (!markFinished())
        return;
    m_answer.verdict = verdict;
    m_answer.reason = reason;
    m_answer.refund = std::move(refund);
    m_answer.exchanges = exchanges();
    emit finished(m_answer);
}

} // namespace verity

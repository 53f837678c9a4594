// The statement: every refund created in the period and, for each seller account, its
// balance and its balance transactions in the period. The refunds' pages follow one cursor,
// so they are read in turn; the accounts are read by several readers at once, from the
// moment the provider has answered the first page of refunds (a provider that cannot be
// reached, or refuses the key, is then reported once, at /v1/refunds). When sellers are
// connected accounts whose payments are direct charges (ProviderSettings::connectedAccounts),
// their refunds live on their accounts: each account's refunds are listed too, with its
// Stripe-Account, and each refund is kept once. Reads only, so each
// page is retried like a lookup's; a list that does not end (a repeated cursor, "more" with
// nothing sent) is an error rather than a loop.

#include "statementfetch.h"

#include "providerhttp.h"
#include "providerurl.h"

#include <QDateTime>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSet>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <vector>

namespace verity {

namespace {

constexpr int pageSize = 100; // the most a Stripe list gives at once
constexpr int maxPages = 2000; // 200,000 items in one list: a provider that never ends
// Seller accounts read side by side, next to the refunds' list: each account is a couple of
// requests, and one after another they wait out a round trip each. Five, with the refunds'
// reader, stays within the six connections Qt opens to one host.
constexpr int accountReaders = 5;

qint64 floorSeconds(qint64 ms)
{
    return ms >= 0 ? ms / 1000 : -((999 - ms) / 1000);
}

qint64 ceilSeconds(qint64 ms)
{
    return -floorSeconds(-ms);
}

bool isRefundMovement(const QString &type)
{
    return type == u"refund" || type == u"payment_refund";
}

std::optional<BalanceMovement> movementFrom(const QJsonObject &object)
{
    const QString id = object.value(QStringLiteral("id")).toString();
    const QString kind = object.value(QStringLiteral("object")).toString();
    if (id.isEmpty() || (!kind.isEmpty() && kind != u"balance_transaction"))
        return std::nullopt;
    BalanceMovement movement;
    movement.id = id;
    movement.amountCents = object.value(QStringLiteral("amount")).toInteger();
    movement.currency = object.value(QStringLiteral("currency")).toString().toUpper();
    movement.type = object.value(QStringLiteral("type")).toString();
    // Stripe sends the source as an id, or as the object itself when asked to expand it.
    const QJsonValue source = object.value(QStringLiteral("source"));
    movement.source =
            source.isObject() ? source.toObject().value(QStringLiteral("id")).toString() : source.toString();
    movement.createdMs = object.value(QStringLiteral("created")).toInteger() * 1000;
    return movement;
}

template<typename T>
void oldestFirst(QList<T> &items)
{
    // Lists come newest first: reversed, then a stable sort keeps the provider's order
    // within one second.
    std::reverse(items.begin(), items.end());
    std::stable_sort(items.begin(), items.end(),
                     [](const T &a, const T &b) { return a.createdMs < b.createdMs; });
}

} // namespace

struct StatementFetch::Private
{
    // Refunds: the platform's; AccountRefunds: a connected account's own.
    enum class Step { Refunds, Balance, Movements, AccountRefunds };

    // Reads one list at a time: the refunds, or a seller account's balance and then its
    // movements, account after account. Several read side by side.
    struct Reader
    {
        Step step = Step::Refunds;
        qsizetype accountIndex = -1; // in `accounts`; -1: the refunds
        SellerAccountStatement account; // the one being read
        // The list being read: its cursor, every cursor it used and every id it gave.
        QString cursor;
        QSet<QString> cursors;
        QSet<QString> ids;
        int page = 1;
        int attempt = 0;
        QPointer<QNetworkReply> reply;
        QTimer backoff;
    };

    StatementFetch *q;
    ProviderSettings settings;
    Period period;
    QStringList accounts;
    QNetworkAccessManager network;
    Reader refunds;
    std::vector<std::unique_ptr<Reader>> sellers; // started once the provider answered a page
    QList<SellerAccountStatement> accountsRead; // by position in `accounts`
    qsizetype nextAccount = 0;
    qsizetype accountsLeft = 0;
    bool refundsRead = false;
    QSet<QString> refundIds; // each refund once, however many lists show it

    StatementAnswer answer;
    bool started = false;
    bool finished = false;

    Private(StatementFetch *owner, ProviderSettings s, Period p, QStringList a)
        : q(owner)
        , settings(std::move(s))
        , period(p)
        , accounts(std::move(a))
    {
        accountsRead.resize(accounts.size());
        accountsLeft = accounts.size();
        watch(refunds);
    }

    static QString path(const Reader &reader)
    {
        switch (reader.step) {
        case Step::Refunds:
        case Step::AccountRefunds:
            return QStringLiteral("/v1/refunds");
        case Step::Balance:
            return QStringLiteral("/v1/balance");
        case Step::Movements:
            break;
        }
        return QStringLiteral("/v1/balance_transactions");
    }
    // For messages: the endpoint without its query, and no user info.
    QString where(const Reader &reader) const
    {
        return providerhttp::endpoint(settings.baseUrl, path(reader)).toString(QUrl::RemoveUserInfo);
    }

    void watch(Reader &reader)
    {
        reader.backoff.setSingleShot(true);
        QObject::connect(&reader.backoff, &QTimer::timeout, q, [this, &reader] { request(reader); });
    }
    void request(Reader &reader);
    void onReply(Reader &reader, QNetworkReply *done);
    void readList(Reader &reader, const QJsonArray &data, bool hasMore);
    void readBalance(Reader &reader, const QJsonObject &balance);
    void startList(Reader &reader, Step next);
    void startSellers();
    void takeAccount(Reader &reader);
    void listRead(Reader &reader);
    void complete();
    void fail(ProviderErrc code, const QString &error);
    void stopAll();
};

void StatementFetch::Private::request(Reader &reader)
{
    if (finished)
        return;
    ++reader.attempt;
    QUrlQuery query;
    if (reader.step != Step::Balance) {
        query.addQueryItem(QStringLiteral("limit"), QString::number(pageSize));
        query.addQueryItem(QStringLiteral("created[gte]"), QString::number(floorSeconds(period.fromMs)));
        query.addQueryItem(QStringLiteral("created[lt]"), QString::number(ceilSeconds(period.toMs)));
        if (!reader.cursor.isEmpty())
            query.addQueryItem(QStringLiteral("starting_after"), reader.cursor);
    }
    QNetworkRequest request =
            providerhttp::request(settings, providerhttp::endpoint(settings.baseUrl, path(reader), query));
    QString text;
    if (reader.step == Step::Refunds) {
        text = QStringLiteral("refunds: page %1 (%2 read)")
                       .arg(reader.page)
                       .arg(answer.statement.refunds.size());
    } else {
        const QString &id = reader.account.account;
        request.setRawHeader("Stripe-Account", id.toUtf8());
        text = reader.step == Step::Balance ? QStringLiteral("%1: balance").arg(id)
                : reader.step == Step::AccountRefunds
                ? QStringLiteral("%1: refunds, page %2").arg(id).arg(reader.page)
                : QStringLiteral("%1: balance transactions, page %2 (%3 read)")
                          .arg(id)
                          .arg(reader.page)
                          .arg(reader.account.movements.size());
    }
    if (reader.attempt > 1)
        text += QStringLiteral(", attempt %1 of %2").arg(reader.attempt).arg(settings.maxLookupAttempts);
    emit q->progress(text);
    QNetworkReply *sent = network.get(request);
    reader.reply = sent;
    QObject::connect(sent, &QNetworkReply::finished, q, [this, &reader, sent] { onReply(reader, sent); });
}

void StatementFetch::Private::onReply(Reader &reader, QNetworkReply *done)
{
    done->deleteLater();
    if (done != reader.reply || finished) // a reply already given up on
        return;
    reader.reply = nullptr;
    // An aborted reply (a transfer timeout) is closed: there is nothing to read.
    const QByteArray body = done->isOpen() ? done->readAll() : QByteArray();
    const int status = providerhttp::httpStatus(done);

    // Only the base URL's origin is asked and believed; a redirect elsewhere is not retried.
    if (const std::optional<QString> refused = providerhttp::refusedRedirect(done, settings.baseUrl)) {
        fail(ProviderErrc::Refused, QStringLiteral("%1 (GET %2)").arg(*refused, where(reader)));
        return;
    }
    if (providerhttp::retryableRead(status)) {
        const QString why = status == 0
                ? QStringLiteral("cannot reach the provider at %1: %2")
                          .arg(where(reader), providerhttp::transportReason(done, settings.timeoutMs))
                : QStringLiteral("the provider failed at %1: %2")
                          .arg(where(reader), providerhttp::providerMessage(status, body));
        if (reader.attempt >= settings.maxLookupAttempts) {
            fail(ProviderErrc::Unreachable,
                 QStringLiteral("%1 (gave up after %2 attempts)").arg(why).arg(reader.attempt));
            return;
        }
        const int delay =
                providerhttp::retryDelayMs(settings, reader.attempt, providerhttp::retryAfterMs(done));
        emit q->progress(QStringLiteral("%1; trying again in %2 ms").arg(why).arg(delay));
        reader.backoff.start(delay);
        return;
    }
    if (status == 401) {
        const std::optional<providerhttp::ProviderError> error = providerhttp::providerError(body);
        fail(ProviderErrc::Refused,
             QStringLiteral("the provider refused the API key (401) at %1%2")
                     .arg(where(reader),
                          error && !error->message.isEmpty() ? QStringLiteral(": ") + error->message
                                                             : QString()));
        return;
    }
    if (reader.step != Step::Refunds && (status == 403 || status == 404)) {
        // An account this key may not read is a finding about that account, not a failed fetch.
        reader.account.problem =
                QStringLiteral("the provider does not know the account or will not show it to this key (%1)")
                        .arg(providerhttp::providerMessage(status, body));
        emit q->progress(QStringLiteral("%1: %2").arg(reader.account.account, reader.account.problem));
        listRead(reader);
        return;
    }
    if (status < 200 || status >= 300) {
        fail(ProviderErrc::Refused,
             QStringLiteral("the provider answered GET %1 with %2; check the provider URL")
                     .arg(where(reader), providerhttp::providerMessage(status, body)));
        return;
    }
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    if (reader.step == Step::Balance) {
        if (object.value(QStringLiteral("object")).toString() != u"balance") {
            fail(ProviderErrc::BadAnswer,
                 QStringLiteral(
                         "the provider's answer to GET %1 (HTTP %2) is not a balance; check the provider URL")
                         .arg(where(reader))
                         .arg(status));
            return;
        }
        readBalance(reader, object);
        return;
    }
    if (object.value(QStringLiteral("object")).toString() != u"list"
        || !object.value(QStringLiteral("data")).isArray()) {
        fail(ProviderErrc::BadAnswer,
             QStringLiteral("the provider's answer to GET %1 (HTTP %2) is not a list; check the provider URL")
                     .arg(where(reader))
                     .arg(status));
        return;
    }
    readList(reader, object.value(QStringLiteral("data")).toArray(),
             object.value(QStringLiteral("has_more")).toBool());
}

void StatementFetch::Private::readList(Reader &reader, const QJsonArray &data, bool hasMore)
{
    QString lastId;
    for (const QJsonValue &value : data) {
        const QJsonObject object = value.toObject();
        std::optional<ProviderRefund> refund;
        std::optional<BalanceMovement> movement;
        if (reader.step == Step::Refunds || reader.step == Step::AccountRefunds) {
            refund = providerhttp::refundFrom(object);
            if (!refund) {
                fail(ProviderErrc::BadAnswer,
                     QStringLiteral("the provider's list at %1 holds something that is not a refund")
                             .arg(where(reader)));
                return;
            }
            lastId = refund->id;
        } else {
            movement = movementFrom(object);
            if (!movement) {
                fail(ProviderErrc::BadAnswer,
                     QStringLiteral(
                             "the provider's list at %1 holds something that is not a balance transaction")
                             .arg(where(reader)));
                return;
            }
            lastId = movement->id;
        }
        const qsizetype known = reader.ids.size();
        reader.ids.insert(lastId);
        if (reader.ids.size() == known) {
            fail(ProviderErrc::BadAnswer,
                 QStringLiteral("the provider listed %1 twice at %2; the list cannot be read to its end")
                         .arg(lastId, where(reader)));
            return;
        }
        // A provider that ignored the filter must not lend an item of another period.
        if (refund && period.contains(refund->createdMs) && !refundIds.contains(refund->id)) {
            refundIds.insert(refund->id);
            const QJsonObject metadata = object.value(QStringLiteral("metadata")).toObject();
            const bool own = reader.step == Step::AccountRefunds;
            answer.statement.refunds.append(StatementRefund{
                    refund->id, refund->paymentIntent, refund->amountCents, refund->currency, refund->status,
                    refund->createdMs, refund->intentKey,
                    metadata.value(QStringLiteral("ticket_id")).toString(),
                    own ? reader.account.account : QString(),
                    own ? QStringLiteral("GET /v1/refunds (Stripe-Account: %1)").arg(reader.account.account)
                        : QStringLiteral("GET /v1/refunds"),
                    QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact))});
        } else if (movement && period.contains(movement->createdMs)) {
            reader.account.movements.append(*movement);
        }
    }
    // The provider answered a page of refunds: it is there and takes the key, so the accounts
    // can be read alongside the rest of the refunds.
    if (reader.step == Step::Refunds)
        startSellers();
    if (!hasMore) {
        listRead(reader);
        return;
    }
    // "More" that cannot be paged to is a list without an end: stop rather than go round.
    if (lastId.isEmpty()) {
        fail(ProviderErrc::BadAnswer,
             QStringLiteral(
                     "the provider says more follow at %1 but sent none; the list cannot be read to its end")
                     .arg(where(reader)));
        return;
    }
    if (reader.cursors.contains(lastId) || reader.page >= maxPages) {
        fail(ProviderErrc::BadAnswer,
             QStringLiteral("the provider's list at %1 does not end (page %2, after %3); stopped reading")
                     .arg(where(reader))
                     .arg(reader.page)
                     .arg(lastId));
        return;
    }
    reader.cursors.insert(lastId);
    reader.cursor = lastId;
    ++reader.page;
    reader.attempt = 0;
    request(reader);
}

void StatementFetch::Private::readBalance(Reader &reader, const QJsonObject &balance)
{
    const QJsonArray available = balance.value(QStringLiteral("available")).toArray();
    if (!available.isEmpty()) {
        const QJsonObject first = available.first().toObject();
        if (first.value(QStringLiteral("amount")).isDouble())
            reader.account.balanceCents = first.value(QStringLiteral("amount")).toInteger();
        reader.account.currency = first.value(QStringLiteral("currency")).toString().toUpper();
    }
    startList(reader, Step::Movements);
}

void StatementFetch::Private::startList(Reader &reader, Step next)
{
    reader.step = next;
    reader.cursor.clear();
    reader.cursors.clear();
    reader.ids.clear();
    reader.page = 1;
    reader.attempt = 0;
    request(reader);
}

void StatementFetch::Private::startSellers()
{
    if (!sellers.empty() || finished)
        return;
    const qsizetype count = std::min<qsizetype>(accountReaders, accounts.size());
    for (qsizetype i = 0; i < count; ++i) {
        Reader &reader = *sellers.emplace_back(std::make_unique<Reader>());
        watch(reader);
        takeAccount(reader);
    }
}

// The next account nobody reads yet, if any is left.
void StatementFetch::Private::takeAccount(Reader &reader)
{
    if (finished || nextAccount >= accounts.size())
        return;
    reader.accountIndex = nextAccount++;
    reader.account = SellerAccountStatement();
    reader.account.account = accounts.at(reader.accountIndex);
    startList(reader, Step::Balance);
}

// The refunds are read, or an account is: that reader takes the next account, or the
// statement is complete.
void StatementFetch::Private::listRead(Reader &reader)
{
    if (reader.step == Step::Refunds) {
        refundsRead = true;
        startSellers();
    } else if (reader.step == Step::Movements && settings.connectedAccounts
               && reader.account.problem.isEmpty()) {
        startList(reader, Step::AccountRefunds); // the account's own refunds, before the next account
        return;
    } else {
        oldestFirst(reader.account.movements);
        accountsRead[reader.accountIndex] = std::move(reader.account);
        reader.account = SellerAccountStatement();
        --accountsLeft;
        takeAccount(reader);
    }
    if (refundsRead && accountsLeft == 0 && !finished)
        complete();
}

void StatementFetch::Private::complete()
{
    ProviderStatement &statement = answer.statement;
    statement.accounts = std::move(accountsRead);
    accountsRead.clear();
    oldestFirst(statement.refunds);
    // A refund's movement names it as its source: that is how the debited seller is known.
    QHash<QString, qsizetype> refundAt;
    for (qsizetype i = 0; i < statement.refunds.size(); ++i)
        refundAt.insert(statement.refunds.at(i).id, i);
    for (const SellerAccountStatement &seller : std::as_const(statement.accounts)) {
        for (const BalanceMovement &movement : seller.movements) {
            const auto at = refundAt.constFind(movement.source);
            if (isRefundMovement(movement.type) && at != refundAt.cend()
                && statement.refunds.at(*at).account.isEmpty())
                statement.refunds[*at].account = seller.account;
        }
    }
    statement.fetchedAt = QDateTime::currentMSecsSinceEpoch();
    finished = true;
    answer.error.reset();
    emit q->progress(QStringLiteral("done: %1 refunds, %2 accounts")
                             .arg(statement.refunds.size())
                             .arg(statement.accounts.size()));
    emit q->finished(answer);
}

void StatementFetch::Private::fail(ProviderErrc code, const QString &error)
{
    if (finished)
        return;
    finished = true;
    stopAll();
    // Nothing partial is handed on: a statement is complete or absent.
    answer.error = makeError(code, error);
    answer.statement.refunds.clear();
    answer.statement.accounts.clear();
    accountsRead.clear();
    emit q->finished(answer);
}

// Every reader stops: no retry is pending and no reply reports any more.
void StatementFetch::Private::stopAll()
{
    const auto stop = [this](Reader &reader) {
        reader.backoff.stop();
        if (QNetworkReply *sent = reader.reply) {
            reader.reply = nullptr;
            QObject::disconnect(sent, nullptr, q, nullptr);
            sent->abort();
            sent->deleteLater();
        }
    };
    stop(refunds);
    for (const std::unique_ptr<Reader> &reader : sellers)
        stop(*reader);
}

StatementFetch::StatementFetch(ProviderSettings settings, Period period, QStringList accounts,
                               QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>(this, std::move(settings), period, std::move(accounts)))
{
    d->answer.statement.period = d->period;
    d->answer.statement.source = d->settings.baseUrl.toString(QUrl::RemoveUserInfo);
}

StatementFetch::~StatementFetch()
{
    // No reply may report to a fetch that is going away.
    d->stopAll();
}

void StatementFetch::start()
{
    if (d->started || d->finished)
        return;
    d->started = true;
    if (const Expected<QUrl> base = checkProviderUrl(d->settings.baseUrl); !base) {
        d->fail(ProviderErrc::Refused,
                QStringLiteral("nothing was read: the provider URL %1").arg(base.message()));
        return;
    }
    d->request(d->refunds);
}

void StatementFetch::cancel()
{
    if (d->finished)
        return;
    d->fail(ProviderErrc::Cancelled, QStringLiteral("cancelled")); // stops every reader
}

bool StatementFetch::isFinished() const
{
    return d->finished;
}

const StatementAnswer &StatementFetch::answer() const
{
    return d->answer;
}

StatementAnswer StatementFetch::run(const ProviderSettings &settings, const Period &period,
                                    const QStringList &accounts)
{
    StatementFetch fetch(settings, period, accounts);
    QEventLoop loop;
    connect(&fetch, &StatementFetch::finished, &loop, &QEventLoop::quit);
    fetch.start();
    if (!fetch.isFinished())
        loop.exec();
    return fetch.answer();
}

} // namespace verity

// The statement: every refund created in the period, then for each seller account its
// balance and its balance transactions in the period. Reads only, so each page is retried
// like a lookup's; a list that does not end (a repeated cursor, "more" with nothing sent)
// is an error rather than a loop.

#include "statementfetch.h"

#include "providerhttp.h"

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

namespace verity {

namespace {

constexpr int pageSize = 100;
constexpr int maxPages = 2000; // 200,000 items in one list: a provider that never ends

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
    movement.source = source.isObject() ? source.toObject().value(QStringLiteral("id")).toString() : source.toString();
    movement.createdMs = object.value(QStringLiteral("created")).toInteger() * 1000;
    return movement;
}

template<typename T>
void oldestFirst(QList<T> &items)
{
    // Lists come newest first: reversed, then a stable sort keeps the provider's order
    // within one second.
    std::reverse(items.begin(), items.end());
    std::stable_sort(items.begin(), items.end(), [](const T &a, const T &b) { return a.createdMs < b.createdMs; });
}

} // namespace

struct StatementFetch::Private
{
    enum class Step { Refunds, Balance, Movements };

    StatementFetch *q;
    ProviderSettings settings;
    Period period;
    QStringList accounts;
    QNetworkAccessManager network;
    QTimer backoff;
    QPointer<QNetworkReply> reply;

    Step step = Step::Refunds;
    qsizetype accountIndex = -1; // -1: reading the refunds
    SellerAccountStatement account; // the one being read
    // The list being read: its cursor, every cursor it used and every id it gave.
    QString cursor;
    QSet<QString> cursors;
    QSet<QString> ids;
    int page = 1;
    int attempt = 0;

    StatementAnswer answer;
    bool started = false;
    bool finished = false;

    Private(StatementFetch *owner, ProviderSettings s, Period p, QStringList a)
        : q(owner), settings(std::move(s)), period(p), accounts(std::move(a))
    {
        backoff.setSingleShot(true);
    }

    QString path() const
    {
        switch (step) {
        case Step::Refunds:
            return QStringLiteral("/v1/refunds");
        case Step::Balance:
            return QStringLiteral("/v1/balance");
        case Step::Movements:
            break;
        }
        return QStringLiteral("/v1/balance_transactions");
    }
    // For messages: the endpoint without its query, and no user info.
    QString where() const
    {
        return providerhttp::endpoint(settings.baseUrl, path()).toString(QUrl::RemoveUserInfo);
    }

    void request();
    void onReply(QNetworkReply *done);
    void readList(const QJsonArray &data, bool hasMore);
    void readBalance(const QJsonObject &balance);
    void startList(Step next);
    void nextAccount();
    void complete();
    void fail(const QString &error);
};

void StatementFetch::Private::request()
{
    if (finished)
        return;
    ++attempt;
    QUrlQuery query;
    if (step != Step::Balance) {
        query.addQueryItem(QStringLiteral("limit"), QString::number(pageSize));
        query.addQueryItem(QStringLiteral("created[gte]"), QString::number(floorSeconds(period.fromMs)));
        query.addQueryItem(QStringLiteral("created[lt]"), QString::number(ceilSeconds(period.toMs)));
        if (!cursor.isEmpty())
            query.addQueryItem(QStringLiteral("starting_after"), cursor);
    }
    QNetworkRequest request = providerhttp::request(settings, providerhttp::endpoint(settings.baseUrl, path(), query));
    QString text;
    if (step == Step::Refunds) {
        text = QStringLiteral("refunds: page %1 (%2 read)").arg(page).arg(answer.statement.refunds.size());
    } else {
        const QString &id = accounts.at(accountIndex);
        request.setRawHeader("Stripe-Account", id.toUtf8());
        text = step == Step::Balance ? QStringLiteral("%1: balance").arg(id)
                                     : QStringLiteral("%1: balance transactions, page %2 (%3 read)")
                                           .arg(id)
                                           .arg(page)
                                           .arg(account.movements.size());
    }
    if (attempt > 1)
        text += QStringLiteral(", attempt %1 of %2").arg(attempt).arg(settings.maxLookupAttempts);
    emit q->progress(text);
    QNetworkReply *sent = network.get(request);
    reply = sent;
    QObject::connect(sent, &QNetworkReply::finished, q, [this, sent] { onReply(sent); });
}

void StatementFetch::Private::onReply(QNetworkReply *done)
{
    done->deleteLater();
    if (done != reply || finished) // a reply already given up on
        return;
    reply = nullptr;
    // An aborted reply (a transfer timeout) is closed: there is nothing to read.
    const QByteArray body = done->isOpen() ? done->readAll() : QByteArray();
    const int status = providerhttp::httpStatus(done);

    if (providerhttp::retryableRead(status)) {
        const QString why = status == 0
                                ? QStringLiteral("cannot reach the provider at %1: %2")
                                      .arg(where(), providerhttp::transportReason(done, settings.timeoutMs))
                                : QStringLiteral("the provider failed at %1: %2")
                                      .arg(where(), providerhttp::providerMessage(status, body));
        if (attempt >= settings.maxLookupAttempts) {
            fail(QStringLiteral("%1 (gave up after %2 attempts)").arg(why).arg(attempt));
            return;
        }
        const int delay = providerhttp::retryDelayMs(settings, attempt, providerhttp::retryAfterMs(done));
        emit q->progress(QStringLiteral("%1; trying again in %2 ms").arg(why).arg(delay));
        backoff.start(delay);
        return;
    }
    if (status == 401) {
        const std::optional<providerhttp::ProviderError> error = providerhttp::providerError(body);
        fail(QStringLiteral("the provider refused the API key (401) at %1%2")
                 .arg(where(), error && !error->message.isEmpty() ? QStringLiteral(": ") + error->message : QString()));
        return;
    }
    if (step != Step::Refunds && (status == 403 || status == 404)) {
        // An account this key may not read is a finding about that account, not a failed fetch.
        account.problem = QStringLiteral("the provider does not know the account or will not show it to this key (%1)")
                              .arg(providerhttp::providerMessage(status, body));
        emit q->progress(QStringLiteral("%1: %2").arg(account.account, account.problem));
        nextAccount();
        return;
    }
    if (status < 200 || status >= 300) {
        fail(QStringLiteral("the provider answered GET %1 with %2; check the provider URL")
                 .arg(where(), providerhttp::providerMessage(status, body)));
        return;
    }
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    if (step == Step::Balance) {
        if (object.value(QStringLiteral("object")).toString() != u"balance") {
            fail(QStringLiteral("the provider's answer to GET %1 (HTTP %2) is not a balance; check the provider URL")
                     .arg(where())
                     .arg(status));
            return;
        }
        readBalance(object);
        return;
    }
    if (object.value(QStringLiteral("object")).toString() != u"list"
        || !object.value(QStringLiteral("data")).isArray()) {
        fail(QStringLiteral("the provider's answer to GET %1 (HTTP %2) is not a list; check the provider URL")
                 .arg(where())
                 .arg(status));
        return;
    }
    readList(object.value(QStringLiteral("data")).toArray(), object.value(QStringLiteral("has_more")).toBool());
}

void StatementFetch::Private::readList(const QJsonArray &data, bool hasMore)
{
    QString lastId;
    for (const QJsonValue &value : data) {
        const QJsonObject object = value.toObject();
        if (step == Step::Refunds) {
            const std::optional<ProviderRefund> read = providerhttp::refundFrom(object);
            if (!read) {
                fail(QStringLiteral("the provider's list at %1 holds something that is not a refund").arg(where()));
                return;
            }
            lastId = read->id;
            // A provider that ignored the filter must not lend a refund of another period.
            if (!ids.contains(lastId) && period.contains(read->createdMs)) {
                const QJsonObject metadata = object.value(QStringLiteral("metadata")).toObject();
                answer.statement.refunds.append(StatementRefund{
                    read->id, read->paymentIntent, read->amountCents, read->currency, read->status, read->createdMs,
                    read->intentKey, metadata.value(QStringLiteral("ticket_id")).toString(), QString(),
                    QStringLiteral("GET /v1/refunds"),
                    QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact))});
            }
        } else {
            const std::optional<BalanceMovement> movement = movementFrom(object);
            if (!movement) {
                fail(QStringLiteral("the provider's list at %1 holds something that is not a balance transaction")
                         .arg(where()));
                return;
            }
            lastId = movement->id;
            if (!ids.contains(lastId) && period.contains(movement->createdMs))
                account.movements.append(*movement);
        }
        if (ids.contains(lastId)) {
            fail(QStringLiteral("the provider listed %1 twice at %2; the list cannot be read to its end")
                     .arg(lastId, where()));
            return;
        }
        ids.insert(lastId);
    }
    if (!hasMore) {
        nextAccount();
        return;
    }
    // "More" that cannot be paged to is a list without an end: stop rather than go round.
    if (lastId.isEmpty()) {
        fail(QStringLiteral("the provider says more follow at %1 but sent none; the list cannot be read to its end")
                 .arg(where()));
        return;
    }
    if (cursors.contains(lastId) || page >= maxPages) {
        fail(QStringLiteral("the provider's list at %1 does not end (page %2, after %3); stopped reading")
                 .arg(where())
                 .arg(page)
                 .arg(lastId));
        return;
    }
    cursors.insert(lastId);
    cursor = lastId;
    ++page;
    attempt = 0;
    request();
}

void StatementFetch::Private::readBalance(const QJsonObject &balance)
{
    const QJsonArray available = balance.value(QStringLiteral("available")).toArray();
    if (!available.isEmpty()) {
        const QJsonObject first = available.first().toObject();
        if (first.value(QStringLiteral("amount")).isDouble())
            account.balanceCents = first.value(QStringLiteral("amount")).toInteger();
        account.currency = first.value(QStringLiteral("currency")).toString().toUpper();
    }
    startList(Step::Movements);
}

void StatementFetch::Private::startList(Step next)
{
    step = next;
    cursor.clear();
    cursors.clear();
    ids.clear();
    page = 1;
    attempt = 0;
    request();
}

// The refunds are read, or an account is: on to the next account, or the end.
void StatementFetch::Private::nextAccount()
{
    if (accountIndex >= 0 && accountIndex < accounts.size()) {
        oldestFirst(account.movements);
        answer.statement.accounts.append(account);
    }
    ++accountIndex;
    if (accountIndex >= accounts.size()) {
        complete();
        return;
    }
    account = SellerAccountStatement();
    account.account = accounts.at(accountIndex);
    startList(Step::Balance);
}

void StatementFetch::Private::complete()
{
    ProviderStatement &statement = answer.statement;
    oldestFirst(statement.refunds);
    // A refund's movement names it as its source: that is how the debited seller is known.
    QHash<QString, qsizetype> refundAt;
    for (qsizetype i = 0; i < statement.refunds.size(); ++i)
        refundAt.insert(statement.refunds.at(i).id, i);
    for (const SellerAccountStatement &seller : std::as_const(statement.accounts)) {
        for (const BalanceMovement &movement : seller.movements) {
            const auto at = refundAt.constFind(movement.source);
            if (isRefundMovement(movement.type) && at != refundAt.cend() && statement.refunds.at(*at).account.isEmpty())
                statement.refunds[*at].account = seller.account;
        }
    }
    statement.fetchedAt = QDateTime::currentMSecsSinceEpoch();
    finished = true;
    answer.ok = true;
    emit q->progress(
        QStringLiteral("done: %1 refunds, %2 accounts").arg(statement.refunds.size()).arg(statement.accounts.size()));
    emit q->finished(answer);
}

void StatementFetch::Private::fail(const QString &error)
{
    if (finished)
        return;
    finished = true;
    backoff.stop();
    // Nothing partial is handed on: a statement is complete or absent.
    answer.ok = false;
    answer.error = error;
    answer.statement.refunds.clear();
    answer.statement.accounts.clear();
    emit q->finished(answer);
}

StatementFetch::StatementFetch(ProviderSettings settings, Period period, QStringList accounts, QObject *parent)
    : QObject(parent), d(std::make_unique<Private>(this, std::move(settings), period, std::move(accounts)))
{
    d->answer.statement.period = d->period;
    d->answer.statement.source = d->settings.baseUrl.toString(QUrl::RemoveUserInfo);
    connect(&d->backoff, &QTimer::timeout, this, [this] { d->request(); });
}

StatementFetch::~StatementFetch()
{
    // The reply must not report to a fetch that is going away.
    if (d->reply) {
        disconnect(d->reply, nullptr, this, nullptr);
        d->reply->abort();
    }
}

void StatementFetch::start()
{
    if (d->started || d->finished)
        return;
    d->started = true;
    const QUrl &base = d->settings.baseUrl;
    if (!base.isValid() || base.isRelative() || base.host().isEmpty()) {
        d->fail(QStringLiteral("no provider URL to read from (got \"%1\")").arg(base.toString(QUrl::RemoveUserInfo)));
        return;
    }
    d->request();
}

void StatementFetch::cancel()
{
    if (d->finished)
        return;
    if (d->reply) {
        disconnect(d->reply, nullptr, this, nullptr);
        d->reply->abort();
        d->reply->deleteLater();
    }
    d->fail(QStringLiteral("cancelled"));
}

bool StatementFetch::isFinished() const
{
    return d->finished;
}

const StatementAnswer &StatementFetch::answer() const
{
    return d->answer;
}

StatementAnswer StatementFetch::run(const ProviderSettings &settings, const Period &period, const QStringList &accounts)
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

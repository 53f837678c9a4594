// The sandbox provider over real HTTP on loopback, in this process: authentication, refunds
// and balances, idempotency keys, faults, pagination and errors.

#include "support/inprocesssandbox.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QSignalSpy>

using namespace verity;
using namespace verity::test;

namespace {

const QString refunds = QStringLiteral("/v1/refunds");

Form refundForm(const QString &paymentIntent, qint64 amount,
                const QString &intentKey = QStringLiteral("key-1"))
{
    return {{QStringLiteral("payment_intent"), paymentIntent},
            {QStringLiteral("amount"), QString::number(amount)},
            {QStringLiteral("reason"), QStringLiteral("requested_by_customer")},
            {QStringLiteral("metadata[intent_key]"), intentKey}};
}

} // namespace

class TestSandboxServer : public QObject
{
    Q_OBJECT

private slots:
    void refusesRequestsWithoutTheKey();
    void refundDebitsTheSellerAndAddsAMovement();
    void sameKeySameParametersReplays();
    void sameKeyOtherParametersIsRefused();
    void sameKeyDuringAStallIsInProgress();
    void failBeforeAcceptCommitsNothing();
    void acceptThen500CommitsAndReplaysTheSuccess();
    void serverWideFaultsAreSeeded();
    void badRequestsNameTheParameter();
    void refundDefaultsToWhatRemains();
    void paginatesNewestFirst();
    void filtersByCreated();
    void refusesBadCreatedFilters_data();
    void refusesBadCreatedFilters();
    void keysExpireAfterTheRetention();
};

void TestSandboxServer::refusesRequestsWithoutTheKey()
{
    InProcessSandbox sandbox;
    SandboxHttp anonymous(sandbox.url());
    const HttpResult missing = anonymous.getAnonymous(refunds);
    QCOMPARE(missing.status, 401);
    QCOMPARE(missing.errorField("type"), QStringLiteral("invalid_request_error"));
    QVERIFY(missing.errorField("message").contains(QStringLiteral("Authorization: Bearer")));

    SandboxHttp wrong(sandbox.url(), QStringLiteral("sk_test_wrongkey1234"));
    const HttpResult refused = wrong.post(refunds, refundForm(QStringLiteral("pi_x"), 100));
    QCOMPARE(refused.status, 401);
    QVERIFY(refused.errorField("message").contains(QStringLiteral("1234")));
    QVERIFY(!refused.body.contains("wrongkey")); // the key is not echoed
    QCOMPARE(wrong.get(QStringLiteral("/v1/balance"), {{"Stripe-Account", "acct_x"}}).status, 401);
}

void TestSandboxServer::refundDebitsTheSellerAndAddsAMovement()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    const qint64 before = QDateTime::currentSecsSinceEpoch();
    const HttpResult result =
            http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(result.status, 200);
    const QJsonObject &refund = result.json;
    QVERIFY(refund.value(QStringLiteral("id")).toString().startsWith(QStringLiteral("re_")));
    QCOMPARE(refund.value(QStringLiteral("object")).toString(), QStringLiteral("refund"));
    QCOMPARE(refund.value(QStringLiteral("amount")).toInteger(), 1200);
    QCOMPARE(refund.value(QStringLiteral("currency")).toString(), QStringLiteral("usd"));
    QCOMPARE(refund.value(QStringLiteral("payment_intent")).toString(), QStringLiteral("pi_order1"));
    QCOMPARE(refund.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(refund.value(QStringLiteral("reason")).toString(), QStringLiteral("requested_by_customer"));
    QVERIFY(refund.value(QStringLiteral("created")).toInteger() >= before);
    QCOMPARE(refund.value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("intent_key"))
                     .toString(),
             QStringLiteral("key-1"));
    QVERIFY(!result.headers.contains("idempotent-replayed"));

    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 8800);
    const HttpResult movements =
            http.get(QStringLiteral("/v1/balance_transactions"), {{"Stripe-Account", "acct_shop"}});
    QCOMPARE(movements.status, 200);
    const QJsonArray data = movements.json.value(QStringLiteral("data")).toArray();
    QCOMPARE(data.size(), 2); // the refund, then the opening balance
    const QJsonObject movement = data.at(0).toObject();
    QCOMPARE(movement.value(QStringLiteral("type")).toString(), QStringLiteral("refund"));
    QCOMPARE(movement.value(QStringLiteral("amount")).toInteger(), -1200);
    QCOMPARE(movement.value(QStringLiteral("source")).toString(),
             refund.value(QStringLiteral("id")).toString());
    QCOMPARE(data.at(1).toObject().value(QStringLiteral("type")).toString(), QStringLiteral("adjustment"));

    const HttpResult fetched = http.get(refunds + u'/' + refund.value(QStringLiteral("id")).toString());
    QCOMPARE(fetched.status, 200);
    QCOMPARE(fetched.json, refund);
    const HttpResult missing = http.get(refunds + QStringLiteral("/re_nothing"));
    QCOMPARE(missing.status, 404);
    QCOMPARE(missing.errorField("code"), QStringLiteral("resource_missing"));
}

void TestSandboxServer::sameKeySameParametersReplays()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    const HttpResult first =
            http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200), {{"Idempotency-Key", "key-1"}});
    // The same parameters in another order are the same request.
    Form reordered = refundForm(QStringLiteral("pi_order1"), 1200);
    std::reverse(reordered.begin(), reordered.end());
    const HttpResult second = http.post(refunds, reordered, {{"Idempotency-Key", "key-1"}});
    QCOMPARE(first.status, 200);
    QCOMPARE(second.status, 200);
    QCOMPARE(second.body, first.body);
    QCOMPARE(second.headers.value("idempotent-replayed"), QByteArray("true"));
    QCOMPARE(sandbox.refundCount(), 1);
    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 8800);
}

void TestSandboxServer::sameKeyOtherParametersIsRefused()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    QCOMPARE(http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200), {{"Idempotency-Key", "key-1"}})
                     .status,
             200);
    const HttpResult other =
            http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1300), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(other.status, 400);
    QCOMPARE(other.errorField("type"), QStringLiteral("idempotency_error"));
    QCOMPARE(other.errorField("param"), QStringLiteral("Idempotency-Key"));
    QCOMPARE(sandbox.refundCount(), 1);
    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 8800);
}

void TestSandboxServer::sameKeyDuringAStallIsInProgress()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    QSignalSpy served(&sandbox.server(), &SandboxServer::served);
    QElapsedTimer clock;
    clock.start();
    QNetworkReply *stalled =
            http.start("POST", refunds, refundForm(QStringLiteral("pi_order1"), 1200),
                       {{"Idempotency-Key", "key-1"}, {"Sandbox-Fault", "accept-then-stall=1s"}});
    QVERIFY(QTest::qWaitFor([&] { return sandbox.refundCount() == 1; }, 5000));
    QVERIFY(!stalled->isFinished());

    // The server goes on serving while the answer is held...
    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 8800);
    // ...and the key is in progress.
    const HttpResult concurrent =
            http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200), {{"Idempotency-Key", "key-1"}});
    QVERIFY2(clock.elapsed() < 900, "the stall blocked the server");
    QCOMPARE(concurrent.status, 409);
    QCOMPARE(concurrent.errorField("code"), QStringLiteral("idempotency_key_in_use"));

    const HttpResult held = SandboxHttp::finish(stalled);
    QVERIFY(clock.elapsed() >= 1000);
    QCOMPARE(held.status, 200);
    const HttpResult replay =
            http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(replay.status, 200);
    QCOMPARE(replay.body, held.body);
    QCOMPARE(replay.headers.value("idempotent-replayed"), QByteArray("true"));
    QCOMPARE(sandbox.refundCount(), 1);
}

void TestSandboxServer::failBeforeAcceptCommitsNothing()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    const HttpResult failed =
            http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200),
                      {{"Idempotency-Key", "key-1"}, {"Sandbox-Fault", "fail-before-accept=503"}});
    QCOMPARE(failed.status, 503);
    QCOMPARE(failed.errorField("type"), QStringLiteral("api_error"));
    QCOMPARE(sandbox.refundCount(), 0);
    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 10000);
    // Nothing was stored for the key: the retry executes.
    const HttpResult retry =
            http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(retry.status, 200);
    QVERIFY(!retry.headers.contains("idempotent-replayed"));
    QCOMPARE(sandbox.refundCount(), 1);
}

void TestSandboxServer::acceptThen500CommitsAndReplaysTheSuccess()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    const HttpResult failed = http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200),
                                        {{"Idempotency-Key", "key-1"}, {"Sandbox-Fault", "accept-then-500"}});
    QCOMPARE(failed.status, 500);
    QCOMPARE(sandbox.refundCount(), 1);
    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 8800);
    const HttpResult retry =
            http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(retry.status, 200);
    QCOMPARE(retry.headers.value("idempotent-replayed"), QByteArray("true"));
    QCOMPARE(retry.json.value(QStringLiteral("amount")).toInteger(), 1200);
    QCOMPARE(sandbox.refundCount(), 1);
    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 8800);
}

void TestSandboxServer::serverWideFaultsAreSeeded()
{
    // The same seed draws the same schedule.
    const SandboxFault fault = *SandboxFault::parse(QStringLiteral("accept-then-500"));
    SandboxFaultPlan a(0.5, fault, 42);
    SandboxFaultPlan b(0.5, fault, 42);
    int struck = 0;
    for (int i = 0; i < 100; ++i) {
        const bool first = a.draw().has_value();
        QCOMPARE(b.draw().has_value(), first);
        struck += first ? 1 : 0;
    }
    QVERIFY(struck > 20 && struck < 80);

    SandboxOptions options;
    options.faults = SandboxFaultPlan(1.0, fault, 7);
    InProcessSandbox sandbox(options);
    SandboxHttp http(sandbox.url());
    setUpSeller(http); // setup requests are not refunds: no fault
    QCOMPARE(http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200)).status, 500);
    QCOMPARE(sandbox.refundCount(), 1);
}

void TestSandboxServer::badRequestsNameTheParameter()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    const auto expectError = [&](const Form &form, const QByteArray &fault, const QString &param,
                                 const QString &code) {
        Headers headers;
        if (!fault.isEmpty())
            headers.append({"Sandbox-Fault", fault});
        const HttpResult result = http.post(refunds, form, headers);
        QCOMPARE(result.status, 400);
        QCOMPARE(result.errorField("param"), param);
        if (!code.isEmpty())
            QCOMPARE(result.errorField("code"), code);
        QVERIFY(!result.errorField("message").isEmpty());
    };
    expectError(refundForm(QStringLiteral("pi_unknown"), 100), {}, QStringLiteral("payment_intent"),
                QStringLiteral("resource_missing"));
    expectError({{QStringLiteral("amount"), QStringLiteral("100")}}, {}, QStringLiteral("payment_intent"),
                QStringLiteral("parameter_missing"));
    expectError({{QStringLiteral("payment_intent"), QStringLiteral("pi_order1")},
                 {QStringLiteral("amount"), QStringLiteral("12.50")}},
                {}, QStringLiteral("amount"), QStringLiteral("parameter_invalid_integer"));
    expectError(refundForm(QStringLiteral("pi_order1"), 0), {}, QStringLiteral("amount"),
                QStringLiteral("amount_too_small"));
    expectError(refundForm(QStringLiteral("pi_order1"), -5), {}, QStringLiteral("amount"),
                QStringLiteral("parameter_invalid_integer"));
    expectError(refundForm(QStringLiteral("pi_order1"), 5001), {}, QStringLiteral("amount"),
                QStringLiteral("amount_too_large"));
    expectError({{QStringLiteral("payment_intent"), QStringLiteral("pi_order1")},
                 {QStringLiteral("colour"), QStringLiteral("red")}},
                {}, QStringLiteral("colour"), {});
    expectError({{QStringLiteral("payment_intent"), QStringLiteral("pi_order1")},
                 {QStringLiteral("reason"), QStringLiteral("because")}},
                {}, QStringLiteral("reason"), {});
    expectError(refundForm(QStringLiteral("pi_order1"), 100), "accept-then-stall=soon",
                QStringLiteral("Sandbox-Fault"), {});
    QCOMPARE(sandbox.refundCount(), 0);

    const HttpResult limit = http.get(QStringLiteral("/v1/refunds?limit=0"));
    QCOMPARE(limit.status, 400);
    QCOMPARE(limit.errorField("param"), QStringLiteral("limit"));
    const HttpResult cursor = http.get(QStringLiteral("/v1/refunds?starting_after=re_nothing"));
    QCOMPARE(cursor.status, 400);
    QCOMPARE(cursor.errorField("param"), QStringLiteral("starting_after"));
    const HttpResult account = http.get(QStringLiteral("/v1/balance"));
    QCOMPARE(account.status, 400);
    QCOMPARE(account.errorField("param"), QStringLiteral("Stripe-Account"));
    QCOMPARE(http.get(QStringLiteral("/v1/nowhere")).status, 404);
}

void TestSandboxServer::refundDefaultsToWhatRemains()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    QCOMPARE(http.post(refunds, refundForm(QStringLiteral("pi_order1"), 2000)).status, 200);
    const HttpResult rest =
            http.post(refunds, {{QStringLiteral("payment_intent"), QStringLiteral("pi_order1")}});
    QCOMPARE(rest.status, 200);
    QCOMPARE(rest.json.value(QStringLiteral("amount")).toInteger(), 3000);
    const HttpResult none =
            http.post(refunds, {{QStringLiteral("payment_intent"), QStringLiteral("pi_order1")}});
    QCOMPARE(none.status, 400);
    QCOMPARE(none.errorField("code"), QStringLiteral("charge_already_refunded"));
    QCOMPARE(http.balance(QStringLiteral("acct_shop")), 5000);
}

void TestSandboxServer::paginatesNewestFirst()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    QCOMPARE(http.createPayment(QStringLiteral("pi_other"), 5000, QStringLiteral("acct_shop")).status, 200);
    QStringList made; // oldest first
    for (int i = 0; i < 5; ++i) {
        const HttpResult result = http.post(
                refunds, refundForm(QStringLiteral("pi_order1"), 100 + i, QStringLiteral("k%1").arg(i)));
        QCOMPARE(result.status, 200);
        made.append(result.json.value(QStringLiteral("id")).toString());
    }
    QCOMPARE(http.post(refunds, refundForm(QStringLiteral("pi_other"), 100, QStringLiteral("other"))).status,
             200);

    QStringList seen;
    QString cursor;
    QList<bool> hasMore;
    do {
        const HttpResult page =
                http.get(QStringLiteral("/v1/refunds?payment_intent=pi_order1&limit=2")
                         + (cursor.isEmpty() ? QString() : QStringLiteral("&starting_after=") + cursor));
        QCOMPARE(page.status, 200);
        QCOMPARE(page.json.value(QStringLiteral("object")).toString(), QStringLiteral("list"));
        QCOMPARE(page.json.value(QStringLiteral("url")).toString(), QStringLiteral("/v1/refunds"));
        const QJsonArray data = page.json.value(QStringLiteral("data")).toArray();
        for (const QJsonValue &refund : data)
            seen.append(refund.toObject().value(QStringLiteral("id")).toString());
        hasMore.append(page.json.value(QStringLiteral("has_more")).toBool());
        cursor = seen.isEmpty() ? QString() : seen.last();
    } while (hasMore.last() && hasMore.size() < 10);
    QStringList newestFirst = made;
    std::reverse(newestFirst.begin(), newestFirst.end());
    QCOMPARE(seen, newestFirst);
    QCOMPARE(hasMore, (QList<bool>{true, true, false}));

    const HttpResult all = http.get(refunds);
    QCOMPARE(all.json.value(QStringLiteral("data")).toArray().size(), 6); // default limit 10, every payment
}

namespace {

// The ids of a list read to its end with `limit` per page, newest first.
QStringList readAllPages(SandboxHttp &http, const QString &path, int limit, const Headers &headers = {})
{
    QStringList ids;
    QString cursor;
    for (int page = 0; page < 50; ++page) {
        const HttpResult result = http.get(
                path + QStringLiteral("&limit=%1").arg(limit)
                        + (cursor.isEmpty() ? QString() : QStringLiteral("&starting_after=") + cursor),
                headers);
        if (result.status != 200)
            return {QStringLiteral("HTTP %1: %2").arg(result.status).arg(QString::fromUtf8(result.body))};
        const QJsonArray data = result.json.value(QStringLiteral("data")).toArray();
        for (const QJsonValue &item : data)
            ids.append(item.toObject().value(QStringLiteral("id")).toString());
        if (!result.json.value(QStringLiteral("has_more")).toBool() || data.isEmpty())
            break;
        cursor = ids.last();
    }
    return ids;
}

} // namespace

void TestSandboxServer::filtersByCreated()
{
    qint64 nowMs = 1000 * 1000LL;
    SandboxOptions options;
    options.clock = [&nowMs] { return nowMs; };
    InProcessSandbox sandbox(options);
    SandboxHttp http(sandbox.url());
    setUpSeller(http); // the opening balance is created at 1000 s
    QCOMPARE(http.createPayment(QStringLiteral("pi_other"), 5000, QStringLiteral("acct_shop")).status, 200);
    // Two refunds a second from 2000 s to 2004 s: 10 refunds, two in each second.
    QStringList made; // oldest first
    for (int i = 0; i < 10; ++i) {
        nowMs = (2000 + i / 2) * 1000LL;
        const QString payment = i % 2 ? QStringLiteral("pi_other") : QStringLiteral("pi_order1");
        const HttpResult result =
                http.post(refunds, refundForm(payment, 100 + i, QStringLiteral("k%1").arg(i)));
        QCOMPARE(result.status, 200);
        made.append(result.json.value(QStringLiteral("id")).toString());
    }
    const auto newestFirst = [&](qsizetype from, qsizetype to) {
        QStringList ids = made.mid(from, to - from);
        std::reverse(ids.begin(), ids.end());
        return ids;
    };

    // [2001, 2003): refunds 2 to 5, read one, two and three a page.
    for (int limit : {1, 2, 3}) {
        QCOMPARE(readAllPages(http, QStringLiteral("/v1/refunds?created[gte]=2001&created[lt]=2003"), limit),
                 newestFirst(2, 6));
    }
    QCOMPARE(readAllPages(http, QStringLiteral("/v1/refunds?created%5Bgt%5D=2001&created%5Blte%5D=2003"), 2),
             newestFirst(4, 8));
    QCOMPARE(readAllPages(http, QStringLiteral("/v1/refunds?created[gte]=2004"), 100), newestFirst(8, 10));
    QCOMPARE(readAllPages(http, QStringLiteral("/v1/refunds?created[lt]=2000"), 100), QStringList());
    // With a payment: only its refunds in the range.
    QCOMPARE(readAllPages(http,
                          QStringLiteral(
                                  "/v1/refunds?payment_intent=pi_order1&created[gte]=2001&created[lte]=2002"),
                          1),
             (QStringList{made.at(4), made.at(2)}));
    // An empty range is empty, not an error.
    QCOMPARE(readAllPages(http, QStringLiteral("/v1/refunds?created[gte]=2003&created[lt]=2003"), 10),
             QStringList());

    // Balance transactions: the opening balance at 1000 s stays out of [2000, 2002).
    const Headers shop{{"Stripe-Account", "acct_shop"}};
    const QStringList movements = readAllPages(
            http, QStringLiteral("/v1/balance_transactions?created[gte]=2000&created[lt]=2002"), 1, shop);
    QCOMPARE(movements.size(), 4);
    const HttpResult page = http.get(
            QStringLiteral("/v1/balance_transactions?created[gte]=2000&created[lt]=2002&limit=10"), shop);
    for (const QJsonValue &item : page.json.value(QStringLiteral("data")).toArray()) {
        QCOMPARE(item.toObject().value(QStringLiteral("type")).toString(), QStringLiteral("refund"));
        QVERIFY(made.mid(0, 4).contains(item.toObject().value(QStringLiteral("source")).toString()));
    }
    QCOMPARE(
            readAllPages(http, QStringLiteral("/v1/balance_transactions?created[lte]=1000"), 10, shop).size(),
            1);
    QCOMPARE(readAllPages(http, QStringLiteral("/v1/balance_transactions?created[gt]=1000"), 3, shop).size(),
             10);
}

void TestSandboxServer::refusesBadCreatedFilters_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("param");
    QTest::addColumn<QString>("message");
    QTest::newRow("letters") << QStringLiteral("/v1/refunds?created[gte]=abc")
                             << QStringLiteral("created[gte]")
                             << QStringLiteral(
                                        "created[gte] must be a whole number of unix seconds; got 'abc'.");
    QTest::newRow("decimal") << QStringLiteral("/v1/refunds?created[lt]=1.5") << QStringLiteral("created[lt]")
                             << QStringLiteral(
                                        "created[lt] must be a whole number of unix seconds; got '1.5'.");
    QTest::newRow("empty") << QStringLiteral("/v1/refunds?created[gt]=") << QStringLiteral("created[gt]")
                           << QStringLiteral("created[gt] must be a whole number of unix seconds; got ''.");
    QTest::newRow("date")
            << QStringLiteral("/v1/balance_transactions?created[lte]=2026-03-01")
            << QStringLiteral("created[lte]")
            << QStringLiteral("created[lte] must be a whole number of unix seconds; got '2026-03-01'.");
    QTest::newRow("huge") << QStringLiteral("/v1/balance_transactions?created[gte]=99999999999999999999")
                          << QStringLiteral("created[gte]")
                          << QStringLiteral("created[gte] must be a whole number of unix seconds; got "
                                            "'99999999999999999999'.");
    QTest::newRow("unknown operator")
            << QStringLiteral("/v1/refunds?created[after]=5") << QStringLiteral("created[after]")
            << QStringLiteral("Received unknown parameter: created[after]");
}

void TestSandboxServer::refusesBadCreatedFilters()
{
    QFETCH(QString, path);
    QFETCH(QString, param);
    QFETCH(QString, message);
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    const HttpResult result = http.get(path, {{"Stripe-Account", "acct_shop"}});
    QCOMPARE(result.status, 400);
    QCOMPARE(result.errorField("param"), param);
    QCOMPARE(result.errorField("message"), message);
}

void TestSandboxServer::keysExpireAfterTheRetention()
{
    qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    SandboxOptions options;
    options.keyRetentionHours = 24;
    options.clock = [&nowMs] { return nowMs; };
    InProcessSandbox sandbox(options);
    SandboxHttp http(sandbox.url());
    setUpSeller(http);
    QCOMPARE(http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1200), {{"Idempotency-Key", "key-1"}})
                     .status,
             200);
    nowMs += 23 * 3600 * 1000LL;
    QCOMPARE(http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1300), {{"Idempotency-Key", "key-1"}})
                     .status,
             400);
    nowMs += 2 * 3600 * 1000LL;
    // Past the retention the key is new again.
    const HttpResult reused =
            http.post(refunds, refundForm(QStringLiteral("pi_order1"), 1300), {{"Idempotency-Key", "key-1"}});
    QCOMPARE(reused.status, 200);
    QVERIFY(!reused.headers.contains("idempotent-replayed"));
    QCOMPARE(sandbox.refundCount(), 2);
}

QTEST_GUILESS_MAIN(TestSandboxServer)
#include "tst_sandboxserver.moc"

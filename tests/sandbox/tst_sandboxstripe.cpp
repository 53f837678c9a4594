// The sandbox behaves as Stripe documents, in what Verity relies on: a payment's charge, refunds
// made and listed by `payment_intent` or by `charge`, direct charges on a seller's connected
// account seen only through `Stripe-Account`, idempotency keys that are each account's own, and
// the search of payment intents by metadata, whose index lags behind new payments.

#include "support/inprocesssandbox.h"

#include <QJsonArray>

using namespace verity;
using namespace verity::test;

namespace {

const QString refunds = QStringLiteral("/v1/refunds");

Headers onAccount(const QString &account)
{
    return {{"Stripe-Account", account.toUtf8()}};
}

HttpResult pay(SandboxHttp &http, const QString &id, qint64 amount, const QString &order,
               const QString &directOn = {}, const QString &platformSeller = QStringLiteral("acct_seller"))
{
    Form form{{QStringLiteral("id"), id},
              {QStringLiteral("amount"), QString::number(amount)},
              {QStringLiteral("metadata[order_id]"), order}};
    if (directOn.isEmpty())
        form.append({QStringLiteral("account"), platformSeller});
    return http.post(QStringLiteral("/v1/payment_intents"), form,
                     directOn.isEmpty() ? Headers{} : onAccount(directOn));
}

QStringList idsOf(const HttpResult &result)
{
    QStringList ids;
    for (const QJsonValue &value : result.json.value(QStringLiteral("data")).toArray())
        ids << value.toObject().value(QStringLiteral("id")).toString();
    return ids;
}

QString search(const QString &query, const QString &more = {})
{
    return QStringLiteral("/v1/payment_intents/search?query=")
            + QString::fromLatin1(QUrl::toPercentEncoding(query)) + more;
}

} // namespace

class TestSandboxStripe : public QObject
{
    Q_OBJECT

private slots:
    void everyPaymentHasACharge();
    void refundsAreMadeAndListedByCharge();
    void directChargesAreSeenOnlyFromTheirAccount();
    void keysAreEachAccountsOwn();
    void searchFindsPaymentsByMetadata();
    void searchLagsBehindNewPayments();
    void searchPagesWithNextPage();
    void badSearchesNameTheParameter_data();
    void badSearchesNameTheParameter();
};

void TestSandboxStripe::everyPaymentHasACharge()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_seller"), 0).status, 200);
    const HttpResult made = pay(http, QStringLiteral("pi_A1"), 5000, QStringLiteral("SU-1"));
    QCOMPARE(made.status, 200);
    QCOMPARE(made.json.value(QStringLiteral("latest_charge")).toString(), QStringLiteral("ch_A1"));
    const HttpResult read = http.get(QStringLiteral("/v1/payment_intents/pi_A1"));
    QCOMPARE(read.status, 200);
    QCOMPARE(read.json.value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("order_id"))
                     .toString(),
             QStringLiteral("SU-1"));
    QCOMPARE(http.get(QStringLiteral("/v1/payment_intents/pi_nope")).status, 404);
}

void TestSandboxStripe::refundsAreMadeAndListedByCharge()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_seller"), 10000).status, 200);
    QCOMPARE(pay(http, QStringLiteral("pi_B1"), 5000, QStringLiteral("SU-2")).status, 200);
    const HttpResult byCharge = http.post(refunds,
                                          {{QStringLiteral("charge"), QStringLiteral("ch_B1")},
                                           {QStringLiteral("amount"), QStringLiteral("1200")},
                                           {QStringLiteral("metadata[intent_key]"), QStringLiteral("k1")}},
                                          {{"Idempotency-Key", "k1"}});
    QCOMPARE(byCharge.status, 200);
    QCOMPARE(byCharge.json.value(QStringLiteral("charge")).toString(), QStringLiteral("ch_B1"));
    QCOMPARE(byCharge.json.value(QStringLiteral("payment_intent")).toString(), QStringLiteral("pi_B1"));
    const QString id = byCharge.json.value(QStringLiteral("id")).toString();
    QCOMPARE(idsOf(http.get(refunds + QStringLiteral("?charge=ch_B1"))), QStringList{id});
    QCOMPARE(idsOf(http.get(refunds + QStringLiteral("?payment_intent=pi_B1"))), QStringList{id});
    QCOMPARE(http.balance(QStringLiteral("acct_seller")), 10000 - 1200);

    const HttpResult both = http.get(refunds + QStringLiteral("?charge=ch_B1&payment_intent=pi_B1"));
    QCOMPARE(both.status, 400);
    QCOMPARE(both.errorField("param"), QStringLiteral("charge"));
    const HttpResult unknown = http.get(refunds + QStringLiteral("?charge=ch_nope"));
    QCOMPARE(unknown.status, 400);
    QCOMPARE(unknown.errorField("code"), QStringLiteral("resource_missing"));
    QVERIFY(unknown.errorField("message").contains(QStringLiteral("ch_nope")));
}

void TestSandboxStripe::directChargesAreSeenOnlyFromTheirAccount()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_direct"), 10000).status, 200);
    QCOMPARE(http.createAccount(QStringLiteral("acct_other"), 0).status, 200);
    const HttpResult made =
            pay(http, QStringLiteral("pi_D1"), 4000, QStringLiteral("SU-3"), QStringLiteral("acct_direct"));
    QCOMPARE(made.status, 200);
    QVERIFY(made.json.value(QStringLiteral("transfer_data")).isNull());

    // From the platform, the payment is not there, and the answer says how to reach it.
    const HttpResult fromPlatform = http.get(refunds + QStringLiteral("?payment_intent=pi_D1"));
    QCOMPARE(fromPlatform.errorField("code"), QStringLiteral("resource_missing"));
    QVERIFY(fromPlatform.errorField("message").contains(QStringLiteral("Stripe-Account")));
    const Form refund{{QStringLiteral("payment_intent"), QStringLiteral("pi_D1")},
                      {QStringLiteral("amount"), QStringLiteral("500")}};
    QCOMPARE(http.post(refunds, refund).errorField("code"), QStringLiteral("resource_missing"));
    QCOMPARE(sandbox.refundCount(), 0);
    // Another seller's account does not see it either; an account that does not exist is refused.
    QCOMPARE(http.get(refunds + QStringLiteral("?payment_intent=pi_D1"),
                      onAccount(QStringLiteral("acct_other")))
                     .errorField("code"),
             QStringLiteral("resource_missing"));
    QCOMPARE(http.get(refunds + QStringLiteral("?payment_intent=pi_D1"),
                      onAccount(QStringLiteral("acct_ghost")))
                     .status,
             403);

    const HttpResult done = http.post(refunds, refund, onAccount(QStringLiteral("acct_direct")));
    QCOMPARE(done.status, 200);
    QCOMPARE(idsOf(http.get(refunds + QStringLiteral("?payment_intent=pi_D1"),
                            onAccount(QStringLiteral("acct_direct")))),
             QStringList{done.json.value(QStringLiteral("id")).toString()});
    QCOMPARE(http.balance(QStringLiteral("acct_direct")), 10000 - 500);
    // Each lists its own refunds: the account its direct charge's, the platform none of them.
    QCOMPARE(idsOf(http.get(refunds, onAccount(QStringLiteral("acct_direct")))),
             QStringList{done.json.value(QStringLiteral("id")).toString()});
    QCOMPARE(idsOf(http.get(refunds)), QStringList{});
}

void TestSandboxStripe::keysAreEachAccountsOwn()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_one"), 10000).status, 200);
    QCOMPARE(http.createAccount(QStringLiteral("acct_two"), 10000).status, 200);
    QCOMPARE(pay(http, QStringLiteral("pi_K1"), 4000, QStringLiteral("SU-4"), QStringLiteral("acct_one"))
                     .status,
             200);
    QCOMPARE(pay(http, QStringLiteral("pi_K2"), 4000, QStringLiteral("SU-5"), QStringLiteral("acct_two"))
                     .status,
             200);
    Headers one = onAccount(QStringLiteral("acct_one"));
    one.append({QByteArray("Idempotency-Key"), QByteArray("same-key")});
    Headers two = onAccount(QStringLiteral("acct_two"));
    two.append({QByteArray("Idempotency-Key"), QByteArray("same-key")});
    const HttpResult first = http.post(refunds,
                                       {{QStringLiteral("payment_intent"), QStringLiteral("pi_K1")},
                                        {QStringLiteral("amount"), QStringLiteral("100")}},
                                       one);
    const HttpResult second = http.post(refunds,
                                        {{QStringLiteral("payment_intent"), QStringLiteral("pi_K2")},
                                         {QStringLiteral("amount"), QStringLiteral("100")}},
                                        two);
    QCOMPARE(first.status, 200);
    QCOMPARE(second.status, 200); // another account's key, not a key reused with other parameters
    QVERIFY(!second.headers.contains("idempotent-replayed"));
    QCOMPARE(sandbox.refundCount(), 2);
}

void TestSandboxStripe::searchFindsPaymentsByMetadata()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_seller"), 0).status, 200);
    QCOMPARE(http.createAccount(QStringLiteral("acct_direct"), 0).status, 200);
    QCOMPARE(pay(http, QStringLiteral("pi_S1"), 1000, QStringLiteral("SU-10")).status, 200);
    QCOMPARE(pay(http, QStringLiteral("pi_S2"), 2000, QStringLiteral("SU-11")).status, 200);
    QCOMPARE(pay(http, QStringLiteral("pi_S3"), 3000, QStringLiteral("SU-10"), QStringLiteral("acct_direct"))
                     .status,
             200);
    QCOMPARE(pay(http, QStringLiteral("pi_S4"), 4000, QStringLiteral("O'Brien-1")).status, 200);

    const HttpResult found = http.get(search(QStringLiteral("metadata['order_id']:'SU-10'")));
    QCOMPARE(found.status, 200);
    QCOMPARE(found.json.value(QStringLiteral("object")).toString(), QStringLiteral("search_result"));
    QCOMPARE(idsOf(found), QStringList{QStringLiteral("pi_S1")}); // the direct charge is not the platform's
    QVERIFY(found.json.value(QStringLiteral("next_page")).isNull());
    QCOMPARE(idsOf(http.get(search(QStringLiteral("metadata['order_id']:'SU-10'")),
                            onAccount(QStringLiteral("acct_direct")))),
             QStringList{QStringLiteral("pi_S3")});
    QCOMPARE(idsOf(http.get(search(QStringLiteral("metadata[\"order_id\"]:\"SU-11\"")))),
             QStringList{QStringLiteral("pi_S2")});
    QCOMPARE(idsOf(http.get(search(QStringLiteral("metadata['order_id']:'O\\'Brien-1'")))),
             QStringList{QStringLiteral("pi_S4")});
    QCOMPARE(idsOf(http.get(search(QStringLiteral("metadata['order_id']:'SU-99'")))), QStringList{});
}

void TestSandboxStripe::searchLagsBehindNewPayments()
{
    auto now = std::make_shared<qint64>(1'760'000'000'000);
    SandboxOptions options;
    options.searchLagSeconds = 60;
    options.clock = [now] { return *now; };
    InProcessSandbox sandbox(options);
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_seller"), 0).status, 200);
    QCOMPARE(pay(http, QStringLiteral("pi_L1"), 1000, QStringLiteral("SU-20")).status, 200);
    // The payment exists and its refunds can be listed at once; only the search misses it.
    QCOMPARE(http.get(refunds + QStringLiteral("?payment_intent=pi_L1")).status, 200);
    QCOMPARE(idsOf(http.get(search(QStringLiteral("metadata['order_id']:'SU-20'")))), QStringList{});
    *now += 61'000;
    QCOMPARE(idsOf(http.get(search(QStringLiteral("metadata['order_id']:'SU-20'")))),
             QStringList{QStringLiteral("pi_L1")});
}

void TestSandboxStripe::searchPagesWithNextPage()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_seller"), 0).status, 200);
    for (int i = 1; i <= 3; ++i)
        QCOMPARE(pay(http, QStringLiteral("pi_P%1").arg(i), 100 * i, QStringLiteral("SU-30")).status, 200);
    const HttpResult first =
            http.get(search(QStringLiteral("metadata['order_id']:'SU-30'"), QStringLiteral("&limit=2")));
    QCOMPARE(idsOf(first).size(), 2);
    QVERIFY(first.json.value(QStringLiteral("has_more")).toBool());
    const QString next = first.json.value(QStringLiteral("next_page")).toString();
    QVERIFY(!next.isEmpty());
    const HttpResult second = http.get(
            search(QStringLiteral("metadata['order_id']:'SU-30'"), QStringLiteral("&limit=2&page=") + next));
    QCOMPARE(idsOf(second).size(), 1);
    QVERIFY(!second.json.value(QStringLiteral("has_more")).toBool());
    const QStringList firstIds = idsOf(first);
    QSet<QString> all(firstIds.cbegin(), firstIds.cend());
    all.insert(idsOf(second).first());
    QCOMPARE(all.size(), 3);
}

void TestSandboxStripe::badSearchesNameTheParameter_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("param");
    QTest::newRow("no query") << QStringLiteral("/v1/payment_intents/search") << QStringLiteral("query");
    QTest::newRow("other field") << search(QStringLiteral("status:'succeeded'")) << QStringLiteral("query");
    QTest::newRow("unquoted") << search(QStringLiteral("metadata['order_id']:SU-1"))
                              << QStringLiteral("query");
    QTest::newRow("bad page") << search(QStringLiteral("metadata['order_id']:'SU-1'"),
                                        QStringLiteral("&page=abc"))
                              << QStringLiteral("page");
    QTest::newRow("unknown parameter")
            << search(QStringLiteral("metadata['order_id']:'SU-1'"), QStringLiteral("&expand=data"))
            << QStringLiteral("expand");
}

void TestSandboxStripe::badSearchesNameTheParameter()
{
    QFETCH(QString, path);
    QFETCH(QString, param);
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    const HttpResult refused = http.get(path);
    QCOMPARE(refused.status, 400);
    QCOMPARE(refused.errorField("param"), param);
}

QTEST_GUILESS_MAIN(TestSandboxStripe)
#include "tst_sandboxstripe.moc"

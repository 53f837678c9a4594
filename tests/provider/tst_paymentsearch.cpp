// Finding an order's payment with the provider's search of payment intents, against the
// sandbox over loopback: one payment found, several, none (which is never evidence: the search
// index lags behind new payments), a seller's connected account, and a provider that cannot
// search. The query is written as Stripe's search language wants it, quotes escaped.

#include "provider/apikeykind.h"
#include "provider/paymentsearch.h"
#include "support/inprocesssandbox.h"
#include "support/provider.h"

using namespace verity;
using namespace verity::test;

namespace {

void pay(SandboxHttp &http, const QString &id, qint64 amount, const QString &order,
         const QString &directOn = {})
{
    Form form{{QStringLiteral("id"), id},
              {QStringLiteral("amount"), QString::number(amount)},
              {QStringLiteral("metadata[order_id]"), order}};
    if (directOn.isEmpty())
        form.append({QStringLiteral("account"), QStringLiteral("acct_seller")});
    const HttpResult made =
            http.post(QStringLiteral("/v1/payment_intents"), form,
                      directOn.isEmpty() ? Headers{} : Headers{{"Stripe-Account", directOn.toUtf8()}});
    QCOMPARE(made.status, 200);
}

PaymentSearchAnswer searchFor(const QUrl &url, const QString &order, const QString &account = {})
{
    PaymentSearchOperation search(settingsFor(url), order, account);
    return PaymentSearchOperation::waitFor(&search);
}

} // namespace

class TestPaymentSearch : public QObject
{
    Q_OBJECT

private slots:
    void queryIsStripesLanguage_data();
    void queryIsStripesLanguage();
    void findsTheOrdersPayment();
    void severalPaymentsAreAllNamed();
    void nothingFoundIsNotEvidence();
    void searchesTheSellersAccount();
    void aProviderThatCannotSearchSaysSo();
    void keyKinds_data();
    void keyKinds();
};

void TestPaymentSearch::queryIsStripesLanguage_data()
{
    QTest::addColumn<QString>("order");
    QTest::addColumn<QString>("query");
    QTest::newRow("plain") << QStringLiteral("SU-1") << QStringLiteral("metadata['order_id']:'SU-1'");
    QTest::newRow("quote") << QStringLiteral("O'Brien") << QStringLiteral("metadata['order_id']:'O\\'Brien'");
    QTest::newRow("backslash") << QStringLiteral("a\\b") << QStringLiteral("metadata['order_id']:'a\\\\b'");
}

void TestPaymentSearch::queryIsStripesLanguage()
{
    QFETCH(QString, order);
    QFETCH(QString, query);
    QCOMPARE(PaymentSearchOperation::queryFor(order), query);
}

void TestPaymentSearch::findsTheOrdersPayment()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_seller"), 0).status, 200);
    pay(http, QStringLiteral("pi_F1"), 11800, QStringLiteral("SU-88421"));
    pay(http, QStringLiteral("pi_F2"), 500, QStringLiteral("SU-1"));
    const PaymentSearchAnswer found = searchFor(sandbox.url(), QStringLiteral("SU-88421"));
    QVERIFY(found.answered);
    QCOMPARE(found.payments.size(), 1);
    QCOMPARE(found.payments.first().id, QStringLiteral("pi_F1"));
    QCOMPARE(found.payments.first().amountCents, 11800);
    QCOMPARE(found.payments.first().currency, QStringLiteral("USD"));
    QCOMPARE(found.payments.first().latestCharge, QStringLiteral("ch_F1"));
    QVERIFY2(found.reason.contains(QStringLiteral("found one payment of order SU-88421: pi_F1 of $118.00")),
             qPrintable(found.reason));
    QCOMPARE(found.exchanges.size(), 1);
    QVERIFY(found.exchanges.first().request.contains(QStringLiteral("/v1/payment_intents/search")));
}

void TestPaymentSearch::severalPaymentsAreAllNamed()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_seller"), 0).status, 200);
    pay(http, QStringLiteral("pi_M1"), 1000, QStringLiteral("SU-7"));
    pay(http, QStringLiteral("pi_M2"), 2000, QStringLiteral("SU-7"));
    const PaymentSearchAnswer found = searchFor(sandbox.url(), QStringLiteral("SU-7"));
    QCOMPARE(found.payments.size(), 2);
    QVERIFY2(found.reason.contains(QStringLiteral("found 2 payments of order SU-7")),
             qPrintable(found.reason));
    QVERIFY(found.reason.contains(QStringLiteral("pi_M1")) && found.reason.contains(QStringLiteral("pi_M2")));
    QVERIFY(found.reason.contains(QStringLiteral("check that it is the one")));
}

void TestPaymentSearch::nothingFoundIsNotEvidence()
{
    SandboxOptions options;
    options.searchLagSeconds = 3600; // a payment made now is not searchable yet
    InProcessSandbox sandbox(options);
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_seller"), 0).status, 200);
    pay(http, QStringLiteral("pi_N1"), 1000, QStringLiteral("SU-9"));
    const PaymentSearchAnswer found = searchFor(sandbox.url(), QStringLiteral("SU-9"));
    QVERIFY(found.answered);
    QVERIFY(found.payments.isEmpty());
    QVERIFY2(found.reason.contains(QStringLiteral("found no payment of order SU-9")),
             qPrintable(found.reason));
    QVERIFY(found.reason.contains(QStringLiteral("not evidence that there is none")));
}

void TestPaymentSearch::searchesTheSellersAccount()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_direct"), 0).status, 200);
    pay(http, QStringLiteral("pi_D9"), 1000, QStringLiteral("SU-3"), QStringLiteral("acct_direct"));
    QVERIFY(searchFor(sandbox.url(), QStringLiteral("SU-3")).payments.isEmpty());
    const PaymentSearchAnswer found =
            searchFor(sandbox.url(), QStringLiteral("SU-3"), QStringLiteral("acct_direct"));
    QCOMPARE(found.payments.size(), 1);
    QVERIFY(found.reason.contains(QStringLiteral("on the seller's account acct_direct")));
    QVERIFY(found.exchanges.first().request.contains(QStringLiteral("Stripe-Account: acct_direct")));
}

void TestPaymentSearch::aProviderThatCannotSearchSaysSo()
{
    InProcessSandbox sandbox;
    ProviderSettings settings = settingsFor(sandbox.url());
    settings.apiKey = QStringLiteral("sk_test_wrong_key_0000");
    PaymentSearchOperation search(settings, QStringLiteral("SU-1"), QString());
    const PaymentSearchAnswer answer = PaymentSearchOperation::waitFor(&search);
    QVERIFY(!answer.answered);
    QVERIFY2(answer.reason.contains(QStringLiteral("would not search")), qPrintable(answer.reason));
    PaymentSearchOperation noOrder(settingsFor(sandbox.url()), QString(), QString());
    QVERIFY(PaymentSearchOperation::waitFor(&noOrder).reason.contains(QStringLiteral("names no order")));
}

void TestPaymentSearch::keyKinds_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<bool>("live");
    QTest::addColumn<bool>("writes");
    QTest::addColumn<QString>("described");
    QTest::newRow("none") << QString() << false << true << QStringLiteral("no API key");
    QTest::newRow("test secret") << QStringLiteral("sk_test_51Habcdefgh1234") << false << true
                                 << QStringLiteral("a test secret key (sk_test_…1234)");
    QTest::newRow("live secret") << QStringLiteral("sk_live_51Habcdefgh9876") << true << true
                                 << QStringLiteral("a live secret key (sk_live_…9876)");
    QTest::newRow("live restricted") << QStringLiteral("rk_live_51Habcdefgh4321") << true << false
                                     << QStringLiteral("a live restricted key (rk_live_…4321)");
    QTest::newRow("test restricted") << QStringLiteral("rk_test_51Habcdefgh0000") << false << false
                                     << QStringLiteral("a test restricted key (rk_test_…0000)");
    QTest::newRow("sandbox's own") << QStringLiteral("sk_test_sandbox") << false << true
                                   << QStringLiteral("a test secret key (sk_test_…)");
    QTest::newRow("other") << QStringLiteral("whsec_abcdefghijkl") << false << true
                           << QStringLiteral("a key of no kind Stripe gives (…ijkl)");
}

void TestPaymentSearch::keyKinds()
{
    QFETCH(QString, key);
    QFETCH(bool, live);
    QFETCH(bool, writes);
    QFETCH(QString, described);
    const ApiKeyKind kind = apiKeyKind(key);
    QCOMPARE(kind.isLive(), live);
    QCOMPARE(kind.whyNoWrite().isEmpty(), writes);
    QCOMPARE(kind.describe(key), described);
}

QTEST_GUILESS_MAIN(TestPaymentSearch)
#include "tst_paymentsearch.moc"

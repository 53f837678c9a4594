// Built to the published contract: every request Verity's provider client can send (a refund by
// payment intent or by charge, on the platform or on a seller's connected account; a lookup,
// page by page; the search of payment intents; a reconciliation's statement) is captured as
// the sandbox received it and checked against the parameter lists of Stripe's published OpenAPI
// description for that operation (tests/data/stripe-openapi/excerpt.json, with its version and
// origin); each answer the sandbox gave is checked against the description's schemas; and each
// field the client reads must be one the description has. A parameter renamed in the client, or
// a field the sandbox stops sending, fails here.

#include "domain/providerstatement.h"
#include "provider/paymentsearch.h"
#include "provider/providerhttp.h"
#include "provider/statementfetch.h"
#include "stripecontract.h"
#include "support/inprocesssandbox.h"
#include "support/provider.h"

#include <QDateTime>

using namespace verity;
using namespace verity::test;

namespace {

struct Exchange
{
    SandboxRequest request;
    SandboxAnswer answer;
};

class Recorder
{
public:
    explicit Recorder(InProcessSandbox &sandbox)
    {
        QObject::connect(&sandbox.server(), &SandboxServer::exchanged, &sandbox.server(),
                         [this](const SandboxRequest &request, const SandboxAnswer &answer) {
                             exchanges.append({request, answer});
                         });
    }
    QList<Exchange> exchanges;
};

} // namespace

class TestStripeContract : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void theClientPinsTheDescribedVersion();
    void everyRequestKeepsToTheContract();
    void theFieldsReadAreDescribed_data();
    void theFieldsReadAreDescribed();
    void aRenamedParameterIsCaught_data();
    void aRenamedParameterIsCaught();
    void aMissingFieldIsCaught();

private:
    StripeContract m_contract;
};

void TestStripeContract::initTestCase()
{
    QString problem;
    m_contract =
            StripeContract::load(QStringLiteral(VERITY_TEST_DATA "/stripe-openapi/excerpt.json"), &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestStripeContract::theClientPinsTheDescribedVersion()
{
    QCOMPARE(QString::fromLatin1(providerhttp::stripeApiVersion), m_contract.version());
}

void TestStripeContract::everyRequestKeepsToTheContract()
{
    InProcessSandbox sandbox;
    Recorder recorder(sandbox);
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_platformseller"), 50000).status, 200);
    QCOMPARE(http.createAccount(QStringLiteral("acct_direct"), 50000).status, 200);
    QCOMPARE(http.post(QStringLiteral("/v1/payment_intents"),
                       {{QStringLiteral("id"), QStringLiteral("pi_C1")},
                        {QStringLiteral("amount"), QStringLiteral("20000")},
                        {QStringLiteral("account"), QStringLiteral("acct_platformseller")},
                        {QStringLiteral("metadata[order_id]"), QStringLiteral("SU-1")}})
                     .status,
             200);
    QCOMPARE(http.post(QStringLiteral("/v1/payment_intents"),
                       {{QStringLiteral("id"), QStringLiteral("pi_C2")},
                        {QStringLiteral("amount"), QStringLiteral("20000")},
                        {QStringLiteral("metadata[order_id]"), QStringLiteral("SU-2")}},
                       {{"Stripe-Account", "acct_direct"}})
                     .status,
             200);
    // More refunds than one page holds, so the lookup pages with starting_after.
    for (int i = 0; i < 101; ++i) {
        SandboxRefund refund;
        refund.id = QStringLiteral("re_page%1").arg(i, 3, 10, QLatin1Char('0'));
        refund.paymentIntent = QStringLiteral("pi_C1");
        refund.charge = QStringLiteral("ch_C1");
        refund.amount = 1;
        refund.currency = QStringLiteral("usd");
        refund.created = QDateTime::currentSecsSinceEpoch() - 1000 + i;
        QVERIFY(*sandbox.state().insertRefund(refund, QStringLiteral("acct_platformseller")));
    }
    recorder.exchanges.clear(); // what the test set up is not the client's

    ProviderSettings settings = settingsFor(sandbox.url());
    ProviderClient client(settings);
    RefundIntent platform = intentFor(QStringLiteral("contract-1"), 1200, QStringLiteral("pi_C1"));
    platform.metadata.insert(QStringLiteral("order_id"), QStringLiteral("SU-1"));
    QCOMPARE(refundNow(client, platform).kind, RefundAttempt::Kind::Accepted);
    QCOMPARE(lookupNow(client, platform).verdict, LookupVerdict::Found);
    RefundIntent byCharge = intentFor(QStringLiteral("contract-2"), 700, QStringLiteral("ch_C2"));
    byCharge.account = QStringLiteral("acct_direct");
    QCOMPARE(refundNow(client, byCharge).kind, RefundAttempt::Kind::Accepted);
    QCOMPARE(lookupNow(client, byCharge).verdict, LookupVerdict::Found);
    // A payment the provider does not know: its error answer is checked too.
    QCOMPARE(lookupNow(client, intentFor(QStringLiteral("contract-3"), 100, QStringLiteral("pi_nowhere")))
                     .verdict,
             LookupVerdict::CouldNotTell);
    for (const auto &[order, account] : {std::pair{QStringLiteral("SU-1"), QString()},
                                         std::pair{QStringLiteral("SU-2"), QStringLiteral("acct_direct")},
                                         std::pair{QStringLiteral("O'Brien \\ 7"), QString()}}) {
        auto *search = new PaymentSearchOperation(settings, order, account);
        const PaymentSearchAnswer found = PaymentSearchOperation::waitFor(search);
        QVERIFY2(found.answered, qPrintable(found.reason));
        delete search;
    }
    const Period period{(QDateTime::currentSecsSinceEpoch() - 86400) * 1000,
                        (QDateTime::currentSecsSinceEpoch() + 86400) * 1000};
    const QStringList sellers{QStringLiteral("acct_platformseller"), QStringLiteral("acct_direct")};
    const auto refundOfDirectCharge = [](const StatementAnswer &answer) {
        for (const StatementRefund &refund : answer.statement.refunds) {
            if (refund.paymentIntent == u"pi_C2")
                return std::optional<StatementRefund>(refund);
        }
        return std::optional<StatementRefund>();
    };
    const StatementAnswer statement = StatementFetch::run(settings, period, sellers);
    QVERIFY2(statement.ok(), statement.error ? qPrintable(statement.error->message) : "");
    // The platform's list does not hold a direct charge's refund; with sellers as connected
    // accounts each account's own list is read too, and the refund is there, once.
    QVERIFY(!refundOfDirectCharge(statement));
    ProviderSettings connected = settings;
    connected.connectedAccounts = true;
    const StatementAnswer withAccounts = StatementFetch::run(connected, period, sellers);
    QVERIFY2(withAccounts.ok(), withAccounts.error ? qPrintable(withAccounts.error->message) : "");
    const std::optional<StatementRefund> direct = refundOfDirectCharge(withAccounts);
    QVERIFY(direct);
    QCOMPARE(direct->account, QStringLiteral("acct_direct"));
    QCOMPARE(direct->origin, QStringLiteral("GET /v1/refunds (Stripe-Account: acct_direct)"));
    QCOMPARE(withAccounts.statement.refunds.size(), statement.statement.refunds.size() + 1);

    QSet<QString> operations;
    QStringList problems;
    for (const Exchange &exchange : std::as_const(recorder.exchanges)) {
        operations.insert(m_contract.operationOf(exchange.request.method, exchange.request.path));
        problems += m_contract.checkRequest(exchange.request);
        problems += m_contract.checkAnswer(exchange.request, exchange.answer.status, exchange.answer.body);
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    // Every kind of request was made (and so checked), the paged lookup included.
    const QSet<QString> expected{QStringLiteral("POST /v1/refunds"), QStringLiteral("GET /v1/refunds"),
                                 QStringLiteral("GET /v1/payment_intents/search"),
                                 QStringLiteral("GET /v1/balance"),
                                 QStringLiteral("GET /v1/balance_transactions")};
    QCOMPARE(operations, expected);
    bool paged = false;
    bool onAccount = false;
    for (const Exchange &exchange : std::as_const(recorder.exchanges)) {
        paged = paged || exchange.request.query.contains("starting_after=");
        onAccount = onAccount
                || (exchange.request.path == u"/v1/refunds"
                    && exchange.request.stripeAccount == "acct_direct");
    }
    QVERIFY(paged);
    QVERIFY(onAccount);
}

void TestStripeContract::theFieldsReadAreDescribed_data()
{
    // What the client reads of each answer (providerhttp::refundFrom, the lookup's list, the
    // payment search, the statement readers).
    QTest::addColumn<QString>("schema");
    QTest::addColumn<QStringList>("fields");
    QTest::newRow("refund") << QStringLiteral("refund")
                            << QStringList{QStringLiteral("id"),
                                           QStringLiteral("amount"),
                                           QStringLiteral("currency"),
                                           QStringLiteral("status"),
                                           QStringLiteral("created"),
                                           QStringLiteral("metadata"),
                                           QStringLiteral("payment_intent"),
                                           QStringLiteral("charge"),
                                           QStringLiteral("object")};
    QTest::newRow("refund list") << QStringLiteral("refund_list")
                                 << QStringList{QStringLiteral("object"), QStringLiteral("data"),
                                                QStringLiteral("has_more")};
    QTest::newRow("search result") << QStringLiteral("payment_intent_search_result")
                                   << QStringList{QStringLiteral("object"), QStringLiteral("data"),
                                                  QStringLiteral("has_more")};
    QTest::newRow("payment intent") << QStringLiteral("payment_intent")
                                    << QStringList{QStringLiteral("object"),       QStringLiteral("id"),
                                                   QStringLiteral("amount"),       QStringLiteral("currency"),
                                                   QStringLiteral("created"),      QStringLiteral("metadata"),
                                                   QStringLiteral("latest_charge")};
    QTest::newRow("balance") << QStringLiteral("balance")
                             << QStringList{QStringLiteral("object"), QStringLiteral("available"),
                                            QStringLiteral("pending")};
    QTest::newRow("balance amount") << QStringLiteral("balance_amount")
                                    << QStringList{QStringLiteral("amount"), QStringLiteral("currency")};
    QTest::newRow("balance transaction")
            << QStringLiteral("balance_transaction")
            << QStringList{QStringLiteral("id"),         QStringLiteral("amount"), QStringLiteral("currency"),
                           QStringLiteral("type"),       QStringLiteral("source"), QStringLiteral("created"),
                           QStringLiteral("description")};
    QTest::newRow("error") << QStringLiteral("api_errors")
                           << QStringList{QStringLiteral("type"), QStringLiteral("code"),
                                          QStringLiteral("message"), QStringLiteral("param")};
}

void TestStripeContract::theFieldsReadAreDescribed()
{
    QFETCH(QString, schema);
    QFETCH(QStringList, fields);
    const QStringList problems = m_contract.checkReads(schema, fields);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
}

void TestStripeContract::aRenamedParameterIsCaught_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("parameters");
    QTest::addColumn<QString>("named");
    QTest::newRow("as sent") << QStringLiteral("GET") << QStringLiteral("/v1/refunds")
                             << QByteArray("payment_intent=pi_1&limit=100") << QString();
    QTest::newRow("payment_intents") << QStringLiteral("GET") << QStringLiteral("/v1/refunds")
                                     << QByteArray("payment_intents=pi_1&limit=100")
                                     << QStringLiteral("payment_intents");
    QTest::newRow("page_size") << QStringLiteral("GET") << QStringLiteral("/v1/refunds")
                               << QByteArray("charge=ch_1&page_size=100") << QStringLiteral("page_size");
    QTest::newRow("limit not a number") << QStringLiteral("GET") << QStringLiteral("/v1/refunds")
                                        << QByteArray("charge=ch_1&limit=all") << QStringLiteral("limit");
    QTest::newRow("created key") << QStringLiteral("GET") << QStringLiteral("/v1/refunds")
                                 << QByteArray("created%5Bafter%5D=1") << QStringLiteral("after");
    QTest::newRow("meta") << QStringLiteral("POST") << QStringLiteral("/v1/refunds")
                          << QByteArray("payment_intent=pi_1&amount=100&meta%5Bintent_key%5D=k")
                          << QStringLiteral("meta");
    QTest::newRow("reason") << QStringLiteral("POST") << QStringLiteral("/v1/refunds")
                            << QByteArray("payment_intent=pi_1&amount=100&reason=changed_mind")
                            << QStringLiteral("reason");
    QTest::newRow("search q") << QStringLiteral("GET") << QStringLiteral("/v1/payment_intents/search")
                              << QByteArray("q=x&limit=10") << QStringLiteral("q");
}

void TestStripeContract::aRenamedParameterIsCaught()
{
    QFETCH(QString, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, parameters);
    QFETCH(QString, named);
    SandboxRequest request;
    request.method = method;
    request.path = path;
    (method == u"POST" ? request.body : request.query) = parameters;
    request.contentType = method == u"POST" ? QByteArray("application/x-www-form-urlencoded") : QByteArray();
    request.authorization = "Bearer sk_test_x";
    request.stripeVersion = providerhttp::stripeApiVersion;
    request.idempotencyKey = method == u"POST" ? QByteArray("k") : QByteArray();
    const QStringList problems = m_contract.checkRequest(request);
    if (named.isEmpty()) {
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
        return;
    }
    QVERIFY2(!problems.isEmpty(), "a departure from the contract went unnoticed");
    QVERIFY2(problems.join(u'\n').contains(named), qPrintable(problems.join(u'\n')));
}

void TestStripeContract::aMissingFieldIsCaught()
{
    const QJsonObject list{{QStringLiteral("object"), QStringLiteral("list")},
                           {QStringLiteral("data"), QJsonArray{}},
                           {QStringLiteral("hasMore"), false},
                           {QStringLiteral("url"), QStringLiteral("/v1/refunds")}};
    const QStringList problems =
            m_contract.checkValue(QStringLiteral("refund_list"), list, QStringLiteral("answer"));
    QVERIFY(problems.join(u'\n').contains(QStringLiteral("has_more")));
    QVERIFY(!m_contract.checkReads(QStringLiteral("refund"), {QStringLiteral("payment_intent_id")})
                     .isEmpty());
}

QTEST_GUILESS_MAIN(TestStripeContract)
#include "tst_stripecontract.moc"

// The statement over the provider's API: a real sandbox on loopback holding refunds before,
// in and after a period (more than a page of them), and providers that cannot be read: a
// closed port, a wrong key, an unknown account, a list that never ends, an answer that is
// not JSON. Nothing leaves 127.0.0.1.

#include "domain/providerstatement.h"
#include "provider/statementfetch.h"
#include "support/inprocesssandbox.h"
#include "support/loopbackprovider.h"
#include "support/provider.h"
#include "support/time.h"

#include <QSignalSpy>

#include <algorithm>

using namespace verity;
using namespace verity::test;

namespace {

qint64 utcSeconds(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODate).toSecsSinceEpoch();
}

// A refund the sandbox made at `created` (unix seconds), as the test expects to read it.
struct Made
{
    QString id;
    QString paymentIntent;
    qint64 amount = 0;
    qint64 created = 0;
    QString intentKey;
    QString ticket;
    QString account;
};

QByteArray refundList(const QStringList &ids, bool hasMore)
{
    QJsonArray data;
    for (const QString &id : ids) {
        data.append(QJsonObject{{QStringLiteral("id"), id},
                                {QStringLiteral("object"), QStringLiteral("refund")},
                                {QStringLiteral("amount"), 100},
                                {QStringLiteral("currency"), QStringLiteral("usd")},
                                {QStringLiteral("created"), utcSeconds("2026-03-10T12:00:00Z")},
                                {QStringLiteral("status"), QStringLiteral("succeeded")},
                                {QStringLiteral("payment_intent"), QStringLiteral("pi_x")},
                                {QStringLiteral("metadata"), QJsonObject()}});
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("object"), QStringLiteral("list")},
                                     {QStringLiteral("data"), data},
                                     {QStringLiteral("has_more"), hasMore}})
            .toJson(QJsonDocument::Compact);
}

} // namespace

class StatementFetchTest : public QObject
{
    Q_OBJECT

private slots:
    void readsThePeriodFromTheSandbox();
    void anUnreachableProviderIsAnError();
    void aWrongKeyIsAnError();
    void retriesAFailingPage();
    void aListThatNeverEndsIsAnError_data();
    void aListThatNeverEndsIsAnError();
    void anAnswerThatIsNotJsonIsAnError();
    void cancelFinishesAtOnce();
};

void StatementFetchTest::readsThePeriodFromTheSandbox()
{
    qint64 nowMs = utcSeconds("2026-02-20T09:00:00Z") * 1000;
    SandboxOptions options;
    options.clock = [&nowMs] { return nowMs; };
    InProcessSandbox sandbox(options);
    SandboxHttp http(sandbox.url());
    // Opening balances on February 20th: outside the period.
    QCOMPARE(http.createAccount(QStringLiteral("acct_north"), 5000000).status, 200);
    QCOMPARE(http.createAccount(QStringLiteral("acct_south"), 3000000).status, 200);
    QCOMPARE(http.createPayment(QStringLiteral("pi_north"), 90000000, QStringLiteral("acct_north")).status,
             200);
    QCOMPARE(http.createPayment(QStringLiteral("pi_south"), 90000000, QStringLiteral("acct_south")).status,
             200);
    // An account opened in March: its opening balance is a movement of the period.
    nowMs = utcSeconds("2026-03-10T12:00:00Z") * 1000;
    QCOMPARE(http.createAccount(QStringLiteral("acct_east"), 2500).status, 200);
    // One refund through the API, mid-March.
    nowMs = utcSeconds("2026-03-15T10:30:00Z") * 1000;
    const HttpResult posted = http.post(QStringLiteral("/v1/refunds"),
                                        {{QStringLiteral("payment_intent"), QStringLiteral("pi_south")},
                                         {QStringLiteral("amount"), QStringLiteral("11800")},
                                         {QStringLiteral("metadata[intent_key]"), QStringLiteral("key-api")},
                                         {QStringLiteral("metadata[ticket_id]"), QStringLiteral("T-API")}});
    QCOMPARE(posted.status, 200);
    QList<Made> made{{posted.json.value(QStringLiteral("id")).toString(), QStringLiteral("pi_south"), 11800,
                      utcSeconds("2026-03-15T10:30:00Z"), QStringLiteral("key-api"), QStringLiteral("T-API"),
                      QStringLiteral("acct_south")}};

    // The rest straight into the state: 230 in March (more than two pages, and more than a
    // page per account), the period's edges, and some before and after it.
    QList<qint64> times;
    for (int i = 0; i < 230; ++i)
        times.append(utcSeconds("2026-03-01T01:00:00Z") + qint64(i) * 3 * 3600);
    times << utcSeconds("2026-03-01T00:00:00Z") << utcSeconds("2026-03-31T23:59:59Z") // in
          << utcSeconds("2026-02-28T23:59:59Z") << utcSeconds("2026-04-01T00:00:00Z") // out
          << utcSeconds("2026-01-05T00:00:00Z") << utcSeconds("2026-04-20T00:00:00Z");
    QVERIFY(sandbox.state().begin());
    for (qsizetype i = 0; i < times.size(); ++i) {
        const bool north = i % 2 == 0;
        SandboxRefund refund;
        refund.id = QStringLiteral("re_%1").arg(i, 4, 10, QLatin1Char('0'));
        refund.paymentIntent = north ? QStringLiteral("pi_north") : QStringLiteral("pi_south");
        refund.amount = 100 + i;
        refund.currency = QStringLiteral("usd");
        refund.created = times.at(i);
        if (i % 3 != 0)
            refund.metadata.insert(QStringLiteral("intent_key"), QStringLiteral("key-%1").arg(i));
        if (i % 5 == 0)
            refund.metadata.insert(QStringLiteral("ticket_id"), QStringLiteral("T-%1").arg(i));
        const QString account = north ? QStringLiteral("acct_north") : QStringLiteral("acct_south");
        QVERIFY(sandbox.state().insertRefund(refund, account));
        made.append({refund.id, refund.paymentIntent, refund.amount, refund.created,
                     refund.metadata.value(QStringLiteral("intent_key")),
                     refund.metadata.value(QStringLiteral("ticket_id")), account});
    }
    QVERIFY(sandbox.state().commit());

    const Period period = march2026();
    QList<Made> expected;
    for (const Made &refund : std::as_const(made)) {
        if (period.contains(refund.created * 1000))
            expected.append(refund);
    }
    std::stable_sort(expected.begin(), expected.end(),
                     [](const Made &a, const Made &b) { return a.created < b.created; });
    QCOMPARE(expected.size(), 233);

    StatementFetch fetch(settingsFor(sandbox.url()), period,
                         {QStringLiteral("acct_north"), QStringLiteral("acct_south"),
                          QStringLiteral("acct_east"), QStringLiteral("acct_ghost")});
    QSignalSpy progress(&fetch, &StatementFetch::progress);
    QSignalSpy finished(&fetch, &StatementFetch::finished);
    fetch.start();
    QVERIFY(finished.wait(60000) || fetch.isFinished());
    const StatementAnswer &answer = fetch.answer();
    QVERIFY2(answer.ok(), qPrintable(answer.error.value_or(Error{}).message));
    QCOMPARE(finished.size(), 1);

    const ProviderStatement &statement = answer.statement;
    QCOMPARE(statement.period.fromMs, period.fromMs);
    QCOMPARE(statement.source, sandbox.url().toString());
    QVERIFY(statement.fetchedAt > 0);
    QCOMPARE(statement.refunds.size(), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i) {
        const StatementRefund &read = statement.refunds.at(i);
        const Made &want = expected.at(i);
        QCOMPARE(read.id, want.id);
        QCOMPARE(read.paymentIntent, want.paymentIntent);
        QCOMPARE(read.amountCents, want.amount);
        QCOMPARE(read.currency, QStringLiteral("USD"));
        QCOMPARE(read.status, QStringLiteral("succeeded"));
        QCOMPARE(read.createdMs, want.created * 1000);
        QCOMPARE(read.intentKey, want.intentKey);
        QCOMPARE(read.ticketExtId, want.ticket);
        QCOMPARE(read.account, want.account);
        QCOMPARE(read.origin, QStringLiteral("GET /v1/refunds"));
        const QJsonObject record = QJsonDocument::fromJson(read.record.toUtf8()).object();
        QCOMPARE(record.value(QStringLiteral("id")).toString(), want.id);
        QVERIFY(!read.record.contains(u'\n'));
    }

    QCOMPARE(statement.accounts.size(), 4);
    qint64 refundedNorth = 0;
    qint64 refundedSouth = 0;
    qsizetype inMarchNorth = 0;
    qsizetype inMarchSouth = 0;
    for (const Made &refund : std::as_const(made)) {
        const bool north = refund.account == u"acct_north";
        (north ? refundedNorth : refundedSouth) += refund.amount;
        if (period.contains(refund.created * 1000))
            ++(north ? inMarchNorth : inMarchSouth);
    }
    const SellerAccountStatement &north = statement.accounts.at(0);
    QCOMPARE(north.account, QStringLiteral("acct_north"));
    QVERIFY(north.problem.isEmpty());
    QCOMPARE(north.balanceCents, std::optional<qint64>(5000000 - refundedNorth));
    QCOMPARE(north.currency, QStringLiteral("USD"));
    QCOMPARE(north.movements.size(), inMarchNorth); // the February opening balance is left out
    QVERIFY(north.movements.size() > 100);
    for (qsizetype i = 0; i < north.movements.size(); ++i) {
        const BalanceMovement &movement = north.movements.at(i);
        QCOMPARE(movement.type, QStringLiteral("refund"));
        QVERIFY(movement.amountCents < 0);
        QCOMPARE(movement.currency, QStringLiteral("USD"));
        QVERIFY(movement.id.startsWith(QStringLiteral("txn_")));
        QVERIFY(period.contains(movement.createdMs));
        if (i > 0)
            QVERIFY(movement.createdMs >= north.movements.at(i - 1).createdMs);
    }
    const SellerAccountStatement &south = statement.accounts.at(1);
    QCOMPARE(south.balanceCents, std::optional<qint64>(3000000 - refundedSouth));
    QCOMPARE(south.movements.size(), inMarchSouth);
    const auto firstOfSouth = std::find_if(expected.cbegin(), expected.cend(), [](const Made &refund) {
        return refund.account == u"acct_south";
    });
    QCOMPARE(south.movements.at(0).source, firstOfSouth->id);
    const SellerAccountStatement &east = statement.accounts.at(2);
    QCOMPARE(east.balanceCents, std::optional<qint64>(2500));
    QCOMPARE(east.movements.size(), 1);
    QCOMPARE(east.movements.at(0).type, QStringLiteral("adjustment"));
    QCOMPARE(east.movements.at(0).amountCents, 2500);
    QCOMPARE(east.movements.at(0).createdMs, utcSeconds("2026-03-10T12:00:00Z") * 1000);
    const SellerAccountStatement &ghost = statement.accounts.at(3);
    QCOMPARE(ghost.account, QStringLiteral("acct_ghost"));
    QVERIFY(ghost.problem.contains(QStringLiteral("403")));
    QVERIFY(ghost.problem.contains(QStringLiteral("acct_ghost")));
    QVERIFY(!ghost.balanceCents);
    QVERIFY(ghost.movements.isEmpty());

    QStringList steps;
    for (const QList<QVariant> &signal : std::as_const(progress))
        steps.append(signal.at(0).toString());
    QVERIFY2(steps.contains(QStringLiteral("refunds: page 3 (200 read)")), qPrintable(steps.join(u'\n')));
    QVERIFY2(steps.contains(QStringLiteral("acct_north: balance transactions, page 2 (100 read)")),
             qPrintable(steps.join(u'\n')));
}

void StatementFetchTest::anUnreachableProviderIsAnError()
{
    QTcpServer closed;
    QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
    const quint16 port = closed.serverPort();
    closed.close();
    const QUrl url(QStringLiteral("http://127.0.0.1:%1").arg(port));
    const StatementAnswer answer =
            StatementFetch::run(settingsFor(url), march2026(), {QStringLiteral("acct_north")});
    QVERIFY(!answer.ok());
    QVERIFY2(answer.error->message.startsWith(
                     QStringLiteral("cannot reach the provider at http://127.0.0.1:%1/v1/refunds: "
                                    "connection refused")
                             .arg(port)),
             qPrintable(answer.error.value_or(Error{}).message));
    QVERIFY2(answer.error->message.endsWith(QStringLiteral("(gave up after 3 attempts)")),
             qPrintable(answer.error.value_or(Error{}).message));
    QVERIFY(answer.statement.refunds.isEmpty());
    QVERIFY(answer.statement.accounts.isEmpty());
}

void StatementFetchTest::aWrongKeyIsAnError()
{
    InProcessSandbox sandbox;
    ProviderSettings wrongKey = settingsFor(sandbox.url());
    wrongKey.apiKey = QStringLiteral("sk_test_wrongkey9876");
    const StatementAnswer answer = StatementFetch::run(wrongKey, march2026(), {});
    QVERIFY(!answer.ok());
    QVERIFY2(answer.error->message.startsWith(
                     QStringLiteral("the provider refused the API key (401) at %1/v1/refunds: Invalid "
                                    "API Key provided")
                             .arg(sandbox.url().toString())),
             qPrintable(answer.error.value_or(Error{}).message));
    QVERIFY(!answer.error->message.contains(QStringLiteral("wrongkey")));
}

void StatementFetchTest::retriesAFailingPage()
{
    LoopbackProvider provider(LoopbackProvider::script({{503, R"({"error":{"message":"try later"}})"},
                                                        {200, refundList({QStringLiteral("re_a")}, false)}}),
                              0, QStringLiteral("/prefix"));
    StatementFetch fetch(settingsFor(provider.url()), march2026(), {});
    QSignalSpy progress(&fetch, &StatementFetch::progress);
    QSignalSpy finished(&fetch, &StatementFetch::finished);
    fetch.start();
    QVERIFY(finished.wait(10000));
    QVERIFY2(fetch.answer().ok(), qPrintable(fetch.answer().error.value_or(Error{}).message));
    QCOMPARE(fetch.answer().statement.refunds.size(), 1);
    QCOMPARE(provider.requestLines().size(), 2);
    // The base URL's path prefix is kept, and the filters name the period in unix seconds.
    QCOMPARE(provider.requestLines().at(0),
             QStringLiteral("GET /prefix/v1/refunds?limit=100&created[gte]=1772323200&created[lt]=1775001600 "
                            "HTTP/1.1"));
    bool retried = false;
    for (const QList<QVariant> &signal : std::as_const(progress))
        retried = retried
                || signal.at(0).toString().contains(QStringLiteral("HTTP 503: try later; trying again in"));
    QVERIFY(retried);
}

void StatementFetchTest::aListThatNeverEndsIsAnError_data()
{
    QTest::addColumn<QByteArray>("page");
    QTest::addColumn<QString>("error");
    QTest::newRow("the same page again")
            << refundList({QStringLiteral("re_a"), QStringLiteral("re_b")}, true)
            << QStringLiteral("the provider listed re_a twice at %1/v1/refunds; the list "
                              "cannot be read to its end");
    QTest::newRow("more but nothing")
            << refundList({}, true)
            << QStringLiteral("the provider says more follow at %1/v1/refunds but sent none; "
                              "the list cannot be read to its end");
}

void StatementFetchTest::aListThatNeverEndsIsAnError()
{
    QFETCH(QByteArray, page);
    QFETCH(QString, error);
    LoopbackProvider provider(LoopbackProvider::script({{200, page}}), 0, QStringLiteral("/prefix"));
    const StatementAnswer answer = StatementFetch::run(settingsFor(provider.url()), march2026(), {});
    QVERIFY(!answer.ok());
    QCOMPARE(answer.error->message, error.arg(provider.url().toString()));
    QVERIFY(answer.statement.refunds.isEmpty());
    QVERIFY(provider.requestLines().size() <= 2);
}

void StatementFetchTest::anAnswerThatIsNotJsonIsAnError()
{
    LoopbackProvider provider(LoopbackProvider::script({{200, "<html>hello</html>"}}), 0,
                              QStringLiteral("/prefix"));
    const StatementAnswer answer = StatementFetch::run(settingsFor(provider.url()), march2026(), {});
    QVERIFY(!answer.ok());
    QCOMPARE(answer.error->message,
             QStringLiteral("the provider's answer to GET %1/v1/refunds (HTTP 200) is not a list; check "
                            "the provider URL")
                     .arg(provider.url().toString()));
}

void StatementFetchTest::cancelFinishesAtOnce()
{
    InProcessSandbox sandbox;
    StatementFetch fetch(settingsFor(sandbox.url()), march2026(), {});
    QSignalSpy finished(&fetch, &StatementFetch::finished);
    fetch.start();
    fetch.cancel();
    QVERIFY(fetch.isFinished());
    QCOMPARE(finished.size(), 1);
    QVERIFY(!fetch.answer().ok());
    QCOMPARE(fetch.answer().error->code, std::error_code(ProviderErrc::Cancelled));
    QTest::qWait(50); // nothing more arrives
    QCOMPARE(finished.size(), 1);
}

QTEST_GUILESS_MAIN(StatementFetchTest)
#include "tst_statementfetch.moc"

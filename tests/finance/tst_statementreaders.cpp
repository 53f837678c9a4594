// The statement's seller accounts are read several at a time. Whatever order their answers
// come in, the statement lists the accounts as it was asked and gives each its own balance
// and movements; the accounts are only read once the provider answered a page of refunds;
// several are really in flight at once; and one account the provider keeps failing ends the
// whole fetch once, with every other reader stopped. Nothing leaves 127.0.0.1.

#include "domain/providerstatement.h"
#include "provider/statementfetch.h"
#include "support/inprocesssandbox.h"
#include "support/loopbackprovider.h"
#include "support/provider.h"
#include "support/time.h"

#include <QSignalSpy>

using namespace verity;
using namespace verity::test;

namespace {

constexpr qint64 marchFirst = 1772323200; // 2026-03-01T00:00:00Z

QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QByteArray listOf(const QJsonArray &data, bool hasMore)
{
    return json({{QStringLiteral("object"), QStringLiteral("list")},
                 {QStringLiteral("data"), data},
                 {QStringLiteral("has_more"), hasMore}});
}

QJsonObject refundJson(const QString &id)
{
    return {{QStringLiteral("id"), id},
            {QStringLiteral("object"), QStringLiteral("refund")},
            {QStringLiteral("amount"), 100},
            {QStringLiteral("currency"), QStringLiteral("usd")},
            {QStringLiteral("created"), marchFirst + 3600},
            {QStringLiteral("status"), QStringLiteral("succeeded")},
            {QStringLiteral("payment_intent"), QStringLiteral("pi_x")},
            {QStringLiteral("metadata"), QJsonObject()}};
}

LoopbackProvider::Answer balanceOrMovements(const QString &path)
{
    if (path == u"/v1/balance") {
        return {200,
                json({{QStringLiteral("object"), QStringLiteral("balance")},
                      {QStringLiteral("available"),
                       QJsonArray{QJsonObject{{QStringLiteral("amount"), 500},
                                              {QStringLiteral("currency"), QStringLiteral("usd")}}}}})};
    }
    return {200, listOf({}, false)};
}

} // namespace

class StatementReadersTest : public QObject
{
    Q_OBJECT

private slots:
    void readsManyAccountsInTheOrderAsked()
    {
        InProcessSandbox sandbox;
        SandboxState &state = sandbox.state();
        // Twelve sellers with 0 to 150 refunds in March (150: two pages of movements), and
        // two accounts the provider does not know, among them.
        QStringList accounts;
        QHash<QString, int> refundsOf;
        QVERIFY(state.begin());
        for (int s = 0; s < 12; ++s) {
            const QString account = QStringLiteral("acct_%1").arg(s, 2, 10, QLatin1Char('0'));
            QVERIFY(state.insertAccount({account, account, QStringLiteral("usd"), marchFirst - 86400},
                                        1000000, marchFirst - 86400));
            const QString payment = QStringLiteral("pi_") + account;
            QVERIFY(state.insertPayment(
                    {payment, 90000000, QStringLiteral("usd"), account, marchFirst - 86400, {}}));
            const int count = s == 3 ? 150 : (s * 7) % 11;
            refundsOf.insert(account, count);
            for (int i = 0; i < count; ++i) {
                SandboxRefund refund;
                refund.id = QStringLiteral("re_%1_%2").arg(account).arg(i);
                refund.paymentIntent = payment;
                refund.amount = 100 + s;
                refund.currency = QStringLiteral("usd");
                refund.created = marchFirst + 3600 + qint64(i) * 600 + s;
                QVERIFY(state.insertRefund(refund, account));
            }
            accounts.append(account);
            if (s == 4 || s == 9)
                accounts.append(QStringLiteral("acct_ghost%1").arg(s));
        }
        QVERIFY(state.commit());

        StatementFetch fetch(settingsFor(sandbox.url()), march2026(), accounts);
        QSignalSpy progress(&fetch, &StatementFetch::progress);
        QSignalSpy finished(&fetch, &StatementFetch::finished);
        fetch.start();
        QVERIFY(finished.wait(60000) || fetch.isFinished());
        const StatementAnswer &answer = fetch.answer();
        QVERIFY2(answer.ok(), qPrintable(answer.error.value_or(Error{}).message));
        QCOMPARE(finished.size(), 1);

        const ProviderStatement &statement = answer.statement;
        QCOMPARE(statement.accounts.size(), accounts.size());
        int total = 0;
        for (qsizetype i = 0; i < accounts.size(); ++i) {
            const SellerAccountStatement &read = statement.accounts.at(i);
            QCOMPARE(read.account, accounts.at(i));
            if (read.account.startsWith(QStringLiteral("acct_ghost"))) {
                QVERIFY(read.problem.contains(QStringLiteral("403")));
                QVERIFY(!read.balanceCents);
                continue;
            }
            const int count = refundsOf.value(read.account);
            total += count;
            const qint64 amount = 100 + read.account.right(2).toInt();
            QVERIFY2(read.problem.isEmpty(), qPrintable(read.problem));
            QCOMPARE(read.balanceCents, std::optional<qint64>(1000000 - count * amount));
            QCOMPARE(read.movements.size(), count); // the opening balance is February's
            for (qsizetype m = 0; m < read.movements.size(); ++m) {
                QCOMPARE(read.movements.at(m).source,
                         QStringLiteral("re_%1_%2").arg(read.account).arg(m)); // oldest first
                QCOMPARE(read.movements.at(m).amountCents, -amount);
            }
        }
        QCOMPARE(statement.refunds.size(), total);
        for (const StatementRefund &refund : statement.refunds)
            QCOMPARE(refund.account, refund.paymentIntent.mid(3)); // each debited its own seller
        QStringList steps;
        for (const QList<QVariant> &signal : std::as_const(progress))
            steps.append(signal.at(0).toString());
        QVERIFY2(steps.contains(QStringLiteral("acct_03: balance transactions, page 2 (100 read)")),
                 qPrintable(steps.join(u'\n')));
    }

    void readsSeveralAccountsAtOnce()
    {
        QStringList accounts;
        for (int i = 0; i < 12; ++i)
            accounts.append(QStringLiteral("acct_%1").arg(i));
        // Each answer waits 100 ms: read one after another, no two would ever be pending.
        LoopbackProvider provider(
                [](const QString &path, const QByteArray &, int) {
                    return path == u"/v1/refunds"
                            ? LoopbackProvider::Answer{200,
                                                       listOf({refundJson(QStringLiteral("re_a"))}, false)}
                            : balanceOrMovements(path);
                },
                100);
        const StatementAnswer answer =
                StatementFetch::run(settingsFor(provider.url()), march2026(), accounts);
        QVERIFY2(answer.ok(), qPrintable(answer.error.value_or(Error{}).message));
        QCOMPARE(answer.statement.accounts.size(), 12);
        for (qsizetype i = 0; i < accounts.size(); ++i) {
            QCOMPARE(answer.statement.accounts.at(i).account, accounts.at(i));
            QCOMPARE(answer.statement.accounts.at(i).balanceCents, std::optional<qint64>(500));
        }
        QCOMPARE(provider.requests().size(), 1 + 2 * 12);
        QVERIFY2(provider.mostPending() >= 2, qPrintable(QString::number(provider.mostPending())));
    }

    void accountsWaitForAnsweredRefunds()
    {
        // The first two tries at the refunds fail; no account is asked before a page came.
        LoopbackProvider provider([](const QString &path, const QByteArray &, int count) {
            if (path != u"/v1/refunds")
                return balanceOrMovements(path);
            if (count <= 2)
                return LoopbackProvider::Answer{503, R"({"error":{"message":"try later"}})"};
            return LoopbackProvider::Answer{200, listOf({refundJson(QStringLiteral("re_a"))}, false)};
        });
        const StatementAnswer answer =
                StatementFetch::run(settingsFor(provider.url()), march2026(),
                                    {QStringLiteral("acct_a"), QStringLiteral("acct_b")});
        QVERIFY2(answer.ok(), qPrintable(answer.error.value_or(Error{}).message));
        const QStringList &requests = provider.requests();
        QCOMPARE(requests.size(), 3 + 4);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(requests.at(i), QStringLiteral("GET /v1/refunds"));
        QVERIFY(requests.contains(QStringLiteral("GET /v1/balance acct_a")));
        QVERIFY(requests.contains(QStringLiteral("GET /v1/balance_transactions acct_b")));
    }

    void aFailingAccountEndsTheFetchOnce()
    {
        QStringList accounts;
        for (int i = 0; i < 10; ++i)
            accounts.append(i == 3 ? QStringLiteral("acct_bad") : QStringLiteral("acct_%1").arg(i));
        LoopbackProvider provider(
                [](const QString &path, const QByteArray &account, int) {
                    if (path == u"/v1/refunds")
                        return LoopbackProvider::Answer{200,
                                                        listOf({refundJson(QStringLiteral("re_a"))}, false)};
                    if (account == "acct_bad")
                        return LoopbackProvider::Answer{500, R"({"error":{"message":"down"}})"};
                    return balanceOrMovements(path);
                },
                20);
        StatementFetch fetch(settingsFor(provider.url()), march2026(), accounts);
        QSignalSpy finished(&fetch, &StatementFetch::finished);
        fetch.start();
        QVERIFY(finished.wait(20000));
        const StatementAnswer &answer = fetch.answer();
        QVERIFY(!answer.ok());
        QCOMPARE(answer.error->message,
                 QStringLiteral(
                         "the provider failed at %1/v1/balance: HTTP 500: down (gave up after 3 attempts)")
                         .arg(provider.url().toString()));
        QVERIFY(answer.statement.refunds.isEmpty());
        QVERIFY(answer.statement.accounts.isEmpty());
        QTest::qWait(300); // the other readers' answers arrive to nobody
        QCOMPARE(finished.size(), 1);
        QVERIFY(fetch.isFinished());
    }
};

QTEST_GUILESS_MAIN(StatementReadersTest)
#include "tst_statementreaders.moc"

// The duplicate payout detector as a table of rules: with intent keys, without them (the
// window on seller, order and amount, and its edge), and with the provider's refunds added.

#include "finance/duplicatepayouts.h"
#include "financetestsupport.h"

#include <QTest>

using namespace verity;

namespace {

using namespace financetest;

// "c3+c4 118.00 7400" per group: the calls (or refund ids) in time order, the amount at risk
// in cents, the span in ms.
QStringList describe(const QList<DuplicatePayout> &duplicates)
{
    QStringList lines;
    for (const DuplicatePayout &duplicate : duplicates) {
        QStringList names;
        for (const PayoutEvent &event : duplicate.events)
            names.append(event.payout ? event.payout->callExtId : event.atProvider->id);
        lines.append(QStringLiteral("%1 %2 %3%4")
                             .arg(names.join(u'+'))
                             .arg(duplicate.amountAtRiskCents)
                             .arg(duplicate.spanMs)
                             .arg(duplicate.confirmedAtProvider ? QStringLiteral(" confirmed") : QString()));
    }
    return lines;
}

} // namespace

class DuplicatePayoutsTest : public QObject
{
    Q_OBJECT

private slots:
    void groups_data()
    {
        QTest::addColumn<QStringList>("payouts");
        QTest::addColumn<QStringList>("refunds");
        QTest::addColumn<qint64>("windowMs");
        QTest::addColumn<QStringList>("expected");

        const QStringList none;
        QTest::newRow("the incident: unknown then performed, one key")
                << strings({"c3:K:11800:u:at=0", "c4:K:11800:p:at=7400"}) << none << qint64(60000)
                << strings({"c3+c4 11800 7400"});
        QTest::newRow("one refund is no duplicate")
                << strings({"c3:K:11800:p:at=0"}) << none << qint64(60000) << none;
        QTest::newRow("two intents, no duplicate")
                << strings({"c3:K:11800:p:at=0", "c4:L:11800:p:at=1000"}) << none << qint64(60000) << none;
        QTest::newRow("same key days apart is still one intent")
                << strings({"c3:K:11800:p:at=0", "c9:K:11800:p:at=172800000"}) << none << qint64(60000)
                << strings({"c3+c9 11800 172800000"});
        QTest::newRow("three refunds of one intent: two at risk")
                << strings({"c3:K:9650:u:at=0", "c4:K:9650:u:at=10000", "c5:K:9650:p:at=21000"}) << none
                << qint64(60000) << strings({"c3+c4+c5 19300 21000"});
        QTest::newRow("no key: same order and amount inside the window")
                << strings({"c3:-:11800:p:at=0", "c4:-:11800:p:at=59999"}) << none << qint64(60000)
                << strings({"c3+c4 11800 59999"});
        QTest::newRow("no key: exactly at the window's edge counts")
                << strings({"c3:-:11800:p:at=0", "c4:-:11800:p:at=60000"}) << none << qint64(60000)
                << strings({"c3+c4 11800 60000"});
        QTest::newRow("no key: one millisecond past the window does not")
                << strings({"c3:-:11800:p:at=0", "c4:-:11800:p:at=60001"}) << none << qint64(60000) << none;
        QTest::newRow("no key: a wider window takes it")
                << strings({"c3:-:11800:p:at=0", "c4:-:11800:p:at=60001"}) << none << qint64(120000)
                << strings({"c3+c4 11800 60001"});
        QTest::newRow("no key: another amount is another refund")
                << strings({"c3:-:11800:p:at=0", "c4:-:4800:p:at=1000"}) << none << qint64(60000) << none;
        QTest::newRow("no key: another order is another refund")
                << strings({"c3:-:11800:p:at=0", "c4:-:11800:p:at=1000:order=SU-2"}) << none << qint64(60000)
                << none;
        QTest::newRow("no key: a run of retries, each within the window of the last, is one duplicate")
                << strings({"c3:-:500:p:at=0", "c4:-:500:p:at=50000", "c5:-:500:p:at=100000"}) << none
                << qint64(60000) << strings({"c3+c4+c5 1000 100000"});
        QTest::newRow("keyed and keyless never mix")
                << strings({"c3:K:11800:p:at=0", "c4:-:11800:p:at=1000"}) << none << qint64(60000) << none;
        QTest::newRow("provider: a second refund of a performed intent")
                << strings({"c4:K:11800:p:at=7400:refund=re_B"})
                << strings({"re_A:K:11800", "re_B:K:11800:at=7000"}) << qint64(60000)
                << strings({"re_A+c4 11800 7400 confirmed"});
        QTest::newRow("provider: the unknown call's refund is the call, not a third payout")
                << strings({"c3:K:11800:u:at=0", "c4:K:11800:p:at=7400:refund=re_B"})
                << strings({"re_A:K:11800:at=500", "re_B:K:11800:at=7000"}) << qint64(60000)
                << strings({"c3+c4 11800 7400 confirmed"});
        QTest::newRow("provider: keyless refunds inside the window")
                << QStringList{} << strings({"re_A:-:2000", "re_B:-:2000:at=30000"}) << qint64(60000)
                << strings({"re_A+re_B 2000 30000 confirmed"});
        QTest::newRow("two payouts naming one refund are one refund")
                << strings({"c1:K:11800:p:at=0:refund=re_1", "c2:K:11800:p:at=3000:refund=re_1"})
                << QStringList{} << qint64(60000) << QStringList{};
        QTest::newRow("provider: the refund a payout names is the payout")
                << strings({"c4:K:11800:p:at=0:refund=re_B"}) << strings({"re_B:K:11800"}) << qint64(60000)
                << none;
    }

    void groups()
    {
        QFETCH(QStringList, payouts);
        QFETCH(QStringList, refunds);
        QFETCH(qint64, windowMs);
        QFETCH(QStringList, expected);
        QList<LedgerPayout> ledger;
        for (const QString &spec : std::as_const(payouts))
            ledger.append(payout(spec));
        ProviderStatement statement;
        for (const QString &spec : std::as_const(refunds))
            statement.refunds.append(refund(spec));
        const QList<DuplicatePayout> found =
                findDuplicatePayouts(ledger, refunds.isEmpty() ? nullptr : &statement, windowMs);
        QCOMPARE(describe(found), expected);
    }

    void keysAreStableAndNamed()
    {
        const QList<LedgerPayout> keyed{payout(QStringLiteral("c3:K:11800:u:at=0")),
                                        payout(QStringLiteral("c4:K:11800:p:at=7400"))};
        const QList<DuplicatePayout> a = findDuplicatePayouts(keyed);
        QCOMPARE(a.size(), 1);
        QCOMPARE(a.first().key, QStringLiteral("intent:K"));
        QCOMPARE(a.first().basis, DuplicateBasis::IntentKey);
        QCOMPARE(a.first().sellerName, QStringLiteral("Ashcombe Furniture"));
        QCOMPARE(a.first().ticketExtIds(), QStringList{QStringLiteral("T-7")});

        const QList<LedgerPayout> keyless{payout(QStringLiteral("c3:-:11800:p:at=0")),
                                          payout(QStringLiteral("c4:-:11800:p:at=12000"))};
        const QList<DuplicatePayout> b = findDuplicatePayouts(keyless);
        QCOMPARE(b.size(), 1);
        QCOMPARE(b.first().basis, DuplicateBasis::SameOrderAmount);
        QCOMPARE(b.first().key, QStringLiteral("order:ashcombe-furniture|pi_SU-1|11800|%1").arg(t0));
        // The same data gives the same key: a recovery mark finds its duplicate again.
        QCOMPARE(findDuplicatePayouts(keyless).first().key, b.first().key);
    }

    // A transcript that names no seller (an OpenAI log of two refunds) and no statement: the
    // duplicate is found and shown without a seller, never read from a record that is not there.
    void withoutSellerOrStatement()
    {
        QList<LedgerPayout> ledger{payout(QStringLiteral("c1:K:2500:p:at=0")),
                                   payout(QStringLiteral("c2:K:2500:p:at=1000"))};
        for (LedgerPayout &one : ledger) {
            one.sellerId.clear();
            one.sellerName.clear();
        }
        const QList<DuplicatePayout> found = findDuplicatePayouts(ledger);
        QCOMPARE(describe(found), strings({"c1+c2 2500 1000"}));
        QVERIFY(found.first().sellerId.isEmpty());
        QCOMPARE(found.first().currency, ledger.first().currency);
    }

    void periodKeepsThoseWithARefundInIt()
    {
        const QList<LedgerPayout> ledger{
                payout(QStringLiteral("c3:K:200:p:at=0")), payout(QStringLiteral("c4:K:200:p:at=1000")),
                payout(QStringLiteral("c7:L:100:p:at=90000")), payout(QStringLiteral("c8:L:100:p:at=91000"))};
        const QList<DuplicatePayout> all = findDuplicatePayouts(ledger);
        QCOMPARE(describe(duplicatesInPeriod(all, Period{t0 + 500, t0 + 90000})),
                 (strings({"c3+c4 200 1000"})));
        QCOMPARE(describe(duplicatesInPeriod(all, Period{t0 + 500, t0 + 90001})).size(), 2);
        QVERIFY(duplicatesInPeriod(all, Period{t0 + 2000, t0 + 90000}).isEmpty());
    }

    void groupsInTimeOrder()
    {
        const QList<LedgerPayout> ledger{
                payout(QStringLiteral("c7:L:100:p:at=90000")), payout(QStringLiteral("c8:L:100:p:at=91000")),
                payout(QStringLiteral("c3:K:200:p:at=0")), payout(QStringLiteral("c4:K:200:p:at=1000"))};
        QCOMPARE(describe(findDuplicatePayouts(ledger)), (strings({"c3+c4 200 1000", "c7+c8 100 1000"})));
    }
};

QTEST_GUILESS_MAIN(DuplicatePayoutsTest)
#include "tst_duplicatepayouts.moc"

// Reconciliation as a table of rules: every ledger payout and every provider refund lands in
// exactly one category, matched by intent key first, then by refund id.

#include "finance/reconciliation.h"
#include "financetestsupport.h"

#include <QTest>

using namespace verity;

namespace {

using namespace financetest;

// "matched c4 re_B by intent key" / "provider_only c3 re_A, paid twice" / "ledger_only c5 -"
QStringList describe(const Reconciliation &reconciliation)
{
    QStringList lines;
    for (const ReconRow &row : reconciliation.rows) {
        lines.append(
                QStringLiteral("%1 %2 %3%4%5")
                        .arg(reconCategoryId(row.category),
                             row.callExtId.isEmpty() ? QStringLiteral("-") : row.callExtId,
                             row.provider ? row.provider->id : QStringLiteral("-"),
                             row.matchedBy.isEmpty() ? QString() : QStringLiteral(" by ") + row.matchedBy,
                             row.paidTwice ? QStringLiteral(", paid twice") : QString()));
    }
    lines.sort();
    return lines;
}

} // namespace

class ReconciliationTest : public QObject
{
    Q_OBJECT

private slots:
    void categories_data()
    {
        QTest::addColumn<QStringList>("payouts");
        QTest::addColumn<QStringList>("refunds");
        QTest::addColumn<QStringList>("expected");

        QTest::newRow("one refund each side, same key")
                << strings({"c4:K:11800:p:refund=re_B"}) << strings({"re_B:K:11800"})
                << strings({"matched c4 re_B by intent key"});
        QTest::newRow(
                "the incident: a second refund of the intent is provider only, linked to the unknown call")
                << strings({"c3:K:11800:u", "c4:K:11800:p:refund=re_B"})
                << strings({"re_A:K:11800", "re_B:K:11800"})
                << strings({"matched c4 re_B by intent key, paid twice",
                            "provider_only c3 re_A, paid twice"});
        QTest::newRow("the key's refund the ledger names is matched, not the first")
                << strings({"c4:K:11800:p:refund=re_B"}) << strings({"re_A:K:11800", "re_B:K:11800"})
                << strings({"matched c4 re_B by intent key, paid twice",
                            "provider_only c4 re_A, paid twice"});
        QTest::newRow("amount differs") << strings({"c4:K:11800:p:refund=re_B"}) << strings({"re_B:K:11000"})
                                        << strings({"amount_differs c4 re_B by intent key"});
        QTest::newRow("ledger only: the provider has nothing")
                << strings({"c4:K:11800:p:refund=re_B"}) << QStringList{} << strings({"ledger_only c4 -"});
        QTest::newRow("by refund id when the provider's refund has no key")
                << strings({"c4:-:11800:p:refund=re_B"}) << strings({"re_B:-:11800"})
                << strings({"matched c4 re_B by refund id"});
        QTest::newRow("by refund id when the key differs")
                << strings({"c4:K:11800:p:refund=re_B"}) << strings({"re_B:L:11800"})
                << strings({"matched c4 re_B by refund id"});
        QTest::newRow("a refund with no key and no ledger entry")
                << QStringList{} << strings({"re_Z:-:500"}) << strings({"provider_only - re_Z"});
        QTest::newRow("a refund whose key no call carries")
                << strings({"c4:K:11800:p:refund=re_B"}) << strings({"re_B:K:11800", "re_Z:Q:500"})
                << strings({"matched c4 re_B by intent key", "provider_only - re_Z"});
        QTest::newRow("unknown payouts are not the ledger")
                << strings({"c3:K:11800:u"}) << QStringList{} << QStringList{};
        QTest::newRow("a failed refund at the provider moved nothing")
                << strings({"c4:K:11800:p:refund=re_B"}) << strings({"re_B:K:11800:status=failed"})
                << strings({"ledger_only c4 -"});
        QTest::newRow("a canceled refund at the provider moved nothing")
                << strings({"c4:K:11800:p:refund=re_B"}) << strings({"re_B:K:11800:status=canceled"})
                << strings({"ledger_only c4 -"});
        // A refund another payout names by id is that payout's, even when its key is another's:
        // the payout of that key without an id is then missing at the provider.
        QTest::newRow("a refund named by id is not taken by another payout's key")
                << strings({"c1:K:100:p", "c2:L:100:p:refund=re_1"}) << strings({"re_1:K:100"})
                << strings({"ledger_only c1 -", "matched c2 re_1 by refund id"});
        QTest::newRow("two timed-out calls and a retry: each leftover refund traced to its own call")
                << strings({"c3:K:9650:u", "c4:K:9650:u", "c5:K:9650:p:refund=re_C"})
                << strings({"re_A:K:9650", "re_B:K:9650", "re_C:K:9650"})
                << strings({"matched c5 re_C by intent key, paid twice", "provider_only c3 re_A, paid twice",
                            "provider_only c4 re_B, paid twice"});
        QTest::newRow("a payout without a refund id leaves the refund another payout names")
                << strings({"c1:K:11800:p", "c2:K:11800:p:refund=re_1"})
                << strings({"re_1:K:11800", "re_2:K:11800"})
                << strings({"matched c1 re_2 by intent key, paid twice",
                            "matched c2 re_1 by intent key, paid twice"});
        QTest::newRow("two payouts naming one refund: one refund recorded twice")
                << strings({"c1:K:11800:p:refund=re_1", "c2:K:11800:p:refund=re_1"})
                << strings({"re_1:K:11800"})
                << strings({"matched c1 re_1 by intent key", "matched c2 re_1 by refund id"});
        QTest::newRow("two performed of one key meet two refunds")
                << strings({"c3:K:100:p", "c4:K:100:p"}) << strings({"re_A:K:100", "re_B:K:100"})
                << strings({"matched c3 re_A by intent key, paid twice",
                            "matched c4 re_B by intent key, paid twice"});
    }

    void categories()
    {
        QFETCH(QStringList, payouts);
        QFETCH(QStringList, refunds);
        QFETCH(QStringList, expected);
        QList<LedgerPayout> ledger;
        for (const QString &spec : std::as_const(payouts))
            ledger.append(payout(spec));
        ProviderStatement statement;
        for (const QString &spec : std::as_const(refunds))
            statement.refunds.append(refund(spec));
        const Reconciliation result = reconcile(ledger, statement, {}, t0);
        expected.sort();
        QCOMPARE(describe(result), expected);

        // Every refund that moved money and every performed payout is in exactly one row.
        int providerRows = 0;
        int ledgerRows = 0;
        for (const ReconRow &row : result.rows) {
            providerRows += row.provider && !row.sameRefundAsAnotherRow ? 1 : 0;
            ledgerRows += row.ledger ? 1 : 0;
        }
        int moved = 0;
        for (const StatementRefund &r : std::as_const(statement.refunds))
            moved += r.status.state() == RecordStatus::State::Succeeded ? 1 : 0;
        int performed = 0;
        for (const LedgerPayout &p : std::as_const(ledger))
            performed += p.effect == PayoutEffect::Performed ? 1 : 0;
        QCOMPARE(providerRows, moved);
        QCOMPARE(ledgerRows, performed);
        QCOMPARE(result.allMatched(), expected.filter(QStringLiteral("matched ")).size() == expected.size());
        // Money is counted once: the totals hold each refund that moved and each distinct payout.
        qint64 providerTotal = 0;
        for (std::size_t i = 0; i < result.totals.providerCents.size(); ++i)
            providerTotal += result.totals.providerCents[i];
        qint64 movedTotal = 0;
        for (const StatementRefund &r : std::as_const(statement.refunds))
            movedTotal += r.status.state() == RecordStatus::State::Succeeded ? r.amountCents : 0;
        QCOMPARE(providerTotal, movedTotal);
    }

    void oneCurrencyAtATime()
    {
        LedgerPayout euro = payout(QStringLiteral("c9:E:5000:p:refund=re_E"));
        euro.currency = QStringLiteral("EUR");
        const QList<LedgerPayout> usd{payout(QStringLiteral("c4:K:11800:p:refund=re_B"))};
        QCOMPARE(*singleCurrency(usd), QStringLiteral("USD"));
        QCOMPARE(*singleCurrency({}, nullptr, QStringLiteral("eur")), QStringLiteral("EUR"));
        const Expected<QString> mixed = singleCurrency(usd + QList<LedgerPayout>{euro});
        QVERIFY(!mixed);
        QVERIFY2(mixed.message().contains(QStringLiteral("USD (T-7 c4) and in EUR (T-7 c9)")),
                 qPrintable(mixed.message()));
        ProviderStatement statement;
        statement.refunds = {refund(QStringLiteral("re_B:K:11800"))};
        QVERIFY(singleCurrency(usd, &statement));
        statement.refunds[0].currency = QStringLiteral("EUR");
        const Expected<QString> apart = singleCurrency(usd, &statement);
        QVERIFY(!apart);
        QVERIFY2(apart.message().contains(QStringLiteral("re_B is in EUR and the ledger is in USD")),
                 qPrintable(apart.message()));
    }

    void totalsPerCategoryAndSeller()
    {
        const QList<LedgerPayout> ledger{payout(QStringLiteral("c3:K:11800:u")),
                                         payout(QStringLiteral("c4:K:11800:p:refund=re_B")),
                                         payout(QStringLiteral("c5:M:4800:p:refund=re_C:seller=saltmarsh")),
                                         payout(QStringLiteral("c6:N:2000:p:refund=re_D:seller=saltmarsh"))};
        ProviderStatement statement;
        statement.refunds = {refund(QStringLiteral("re_A:K:11800")), refund(QStringLiteral("re_B:K:11800")),
                             refund(QStringLiteral("re_C:M:4500"))};
        statement.refunds[2].account = QStringLiteral("saltmarsh");
        SellerAccountStatement account;
        account.account = QStringLiteral("ashcombe-furniture");
        account.balanceCents = -4700;
        statement.accounts.append(account);
        SellerBalance ashcombe;
        ashcombe.id = QStringLiteral("ashcombe-furniture");
        ashcombe.name = QStringLiteral("Ashcombe Furniture");
        ashcombe.balanceCents = -4700;

        const Reconciliation result = reconcile(ledger, statement, {ashcombe}, t0);
        const auto at = [](ReconCategory c) { return static_cast<std::size_t>(c); };
        QCOMPARE(result.totals.count[at(ReconCategory::Matched)], 1);
        QCOMPARE(result.totals.count[at(ReconCategory::ProviderOnly)], 1);
        QCOMPARE(result.totals.providerCents[at(ReconCategory::ProviderOnly)], 11800);
        QCOMPARE(result.totals.count[at(ReconCategory::AmountDiffers)], 1);
        QCOMPARE(result.totals.ledgerCents[at(ReconCategory::AmountDiffers)], 4800);
        QCOMPARE(result.totals.providerCents[at(ReconCategory::AmountDiffers)], 4500);
        QCOMPARE(result.totals.count[at(ReconCategory::LedgerOnly)], 1);
        QCOMPARE(result.totals.ledgerCents[at(ReconCategory::LedgerOnly)], 2000);
        QVERIFY(!result.allMatched());

        QCOMPARE(result.sellers.size(), 2);
        const SellerReconciliation &first = result.sellers.at(0);
        QCOMPARE(first.sellerName, QStringLiteral("Ashcombe Furniture"));
        QCOMPARE(first.totals.count[at(ReconCategory::ProviderOnly)], 1);
        QCOMPARE(first.verityBalanceCents, std::optional<qint64>(-4700));
        QCOMPARE(first.providerBalanceCents, std::optional<qint64>(-4700));
        QCOMPARE(result.sellers.at(1).sellerId, QStringLiteral("saltmarsh"));

        // A refund nobody can place is said to be so, and listed last.
        StatementRefund stray = refund(QStringLiteral("re_Z:-:500"));
        stray.account.clear();
        stray.paymentIntent = QStringLiteral("pi_unknown");
        statement.refunds.append(stray);
        const Reconciliation withStray = reconcile(ledger, statement, {ashcombe}, t0);
        QCOMPARE(withStray.sellers.size(), 3);
        QCOMPARE(withStray.sellers.last().sellerName, QStringLiteral("(seller unknown)"));
        QCOMPARE(withStray.sellers.last().totals.count[at(ReconCategory::ProviderOnly)], 1);

        // The provider-only refund opens the unknown call, and says what it is.
        for (const ReconRow &row : result.rows) {
            if (row.category != ReconCategory::ProviderOnly)
                continue;
            QCOMPARE(row.callExtId, QStringLiteral("c3"));
            QCOMPARE(row.ticketExtId, QStringLiteral("T-7"));
            QVERIFY2(row.note.contains(QStringLiteral("unknown")), qPrintable(row.note));
            QVERIFY2(row.note.contains(QStringLiteral("re_B")), qPrintable(row.note));
            QVERIFY2(row.note.contains(QStringLiteral("duplicate payout")), qPrintable(row.note));
        }
    }

    // What a seller's two balances differ by is made of the provider's refunds (and other
    // movements) after Verity's balance was stated; the rest is named, with why.
    void balanceDifferenceIsMadeOfRows()
    {
        const qint64 day = 24 * 3600 * 1000;
        const QList<LedgerPayout> ledger{payout(QStringLiteral("c1:J:2000:p:refund=re_0:at=-60000")),
                                         payout(QStringLiteral("c3:K:11800:u")),
                                         payout(QStringLiteral("c4:K:11800:p:refund=re_B")),
                                         payout(QStringLiteral("c5:L:900:p")),
                                         payout(QStringLiteral("c6:M:300:p:refund=re_S:seller=saltmarsh")),
                                         payout(QStringLiteral("c7:N:100:p:seller=linden"))};
        ProviderStatement statement;
        statement.period = Period{t0 - day, t0 + day};
        statement.fetchedAt = t0 + 2 * day; // after the period: what moved since is in no row
        statement.refunds = {refund(QStringLiteral("re_0:J:2000:at=-60000")),
                             refund(QStringLiteral("re_A:K:11800:at=1000")),
                             refund(QStringLiteral("re_B:K:11800:at=2000")),
                             refund(QStringLiteral("re_S:M:300:at=5000:account=saltmarsh"))};
        SellerAccountStatement ashcombeAccount;
        ashcombeAccount.account = QStringLiteral("ashcombe-furniture");
        // 10000 at t0, less two refunds, an adjustment, and 700 that left after the period.
        ashcombeAccount.balanceCents = 10000 - 11800 - 11800 - 500 - 700;
        BalanceMovement refundMovement;
        refundMovement.id = QStringLiteral("txn_B");
        refundMovement.type = QStringLiteral("refund");
        refundMovement.source = QStringLiteral("re_B");
        refundMovement.amountCents = -11800;
        refundMovement.createdMs = t0 + 2000;
        BalanceMovement adjustment;
        adjustment.id = QStringLiteral("txn_adj");
        adjustment.type = QStringLiteral("adjustment");
        adjustment.amountCents = -500;
        adjustment.createdMs = t0 + 4000;
        ashcombeAccount.movements = {refundMovement, adjustment};
        SellerAccountStatement saltmarshAccount;
        saltmarshAccount.account = QStringLiteral("saltmarsh");
        saltmarshAccount.balanceCents = 4700;
        statement.accounts = {ashcombeAccount, saltmarshAccount};

        SellerBalance ashcombe;
        ashcombe.id = QStringLiteral("ashcombe-furniture");
        ashcombe.name = QStringLiteral("Ashcombe Furniture");
        ashcombe.balanceCents = 10000;
        ashcombe.balanceAsOf = t0;
        SellerBalance saltmarsh;
        saltmarsh.id = QStringLiteral("saltmarsh");
        saltmarsh.name = QStringLiteral("Saltmarsh");
        saltmarsh.balanceCents = 4700; // stated after its refund: the balances agree
        saltmarsh.balanceAsOf = t0 + 6000;
        SellerBalance unfetched;
        unfetched.id = QStringLiteral("linden");
        unfetched.name = QStringLiteral("Linden");
        unfetched.balanceCents = 100;

        const Reconciliation result = reconcile(ledger, statement, {ashcombe, saltmarsh, unfetched}, t0);
        const SellerReconciliation &first = result.sellers.at(0);
        QCOMPARE(first.sellerId, QStringLiteral("ashcombe-furniture"));
        QCOMPARE(first.verityBalanceAsOf, t0);
        QCOMPARE(first.providerBalanceAt, t0 + 2 * day);
        QVERIFY(first.balanceDifference);
        const BalanceDifference &difference = *first.balanceDifference;
        QCOMPARE(difference.cents, -(11800 + 11800 + 500 + 700));
        // re_0 came before Verity's balance, c5 is in the ledger only (nothing moved at the
        // provider), txn_B is re_B's own movement: none of them is a part.
        QStringList parts;
        for (const BalanceDifferencePart &part : difference.parts)
            parts << QStringLiteral("%1 %2 %3")
                             .arg(differencePartKind(result, part), differencePartReference(result, part))
                             .arg(part.cents);
        QCOMPARE(parts,
                 strings({"Provider only · paid twice T-7 / c3, refund re_A -11800",
                          "Matched · paid twice T-7 / c4, refund re_B -11800",
                          "Provider's movement: adjustment txn_adj -500"}));
        QCOMPARE(difference.explainedCents(), -24100);
        QCOMPARE(difference.unexplainedCents(), -700);
        QVERIFY2(difference.unexplainedWhy.contains(
                         QStringLiteral("read 2026-03-19 14:32 UTC, after the period ends")),
                 qPrintable(difference.unexplainedWhy));
        const QString summary = differenceSummary(first);
        QVERIFY2(
                summary.startsWith(QStringLiteral("-$248.00 = -$241.00 from 2 refunds and 1 other movement")),
                qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("-$7.00 not explained by this period's rows")),
                 qPrintable(summary));
        // Each row's share, as the reports give it beside the row.
        const QHash<qsizetype, qint64> shares = differenceShareByRow(result);
        QCOMPARE(shares.size(), 2);
        for (auto it = shares.cbegin(); it != shares.cend(); ++it)
            QCOMPARE(result.rows.at(it.key()).sellerId, QStringLiteral("ashcombe-furniture"));

        const SellerReconciliation &agreeing = result.sellers.at(2);
        QCOMPARE(agreeing.sellerId, QStringLiteral("saltmarsh"));
        QVERIFY(agreeing.balanceDifference && agreeing.balanceDifference->isNil());
        const SellerReconciliation &notFetched = result.sellers.at(1);
        QCOMPARE(notFetched.sellerId, QStringLiteral("linden"));
        QVERIFY(!notFetched.balanceDifference);

        // Verity's balance stated before the period: the rows cannot reach back to it.
        statement.period = Period{t0 + 500, t0 + day};
        statement.fetchedAt = t0 + 9000;
        const Reconciliation later = reconcile(ledger, statement, {ashcombe}, t0);
        QVERIFY2(later.sellers.at(0).balanceDifference->unexplainedWhy.contains(
                         QStringLiteral("before the period begins")),
                 qPrintable(later.sellers.at(0).balanceDifference->unexplainedWhy));
    }
};

QTEST_GUILESS_MAIN(ReconciliationTest)
#include "tst_reconciliation.moc"

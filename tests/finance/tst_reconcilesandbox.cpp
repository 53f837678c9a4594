// Reconciliation end to end: a ledger imported from transcripts into a real SQLite file, a
// sandbox provider on 127.0.0.1 whose state is built for the purpose, the statement fetched
// over HTTP, and every category met once: matched, a provider-only duplicate, an amount that
// differs and a refund the provider never made.

#include "../store/storetestsupport.h"
#include "finance/duplicatepayouts.h"
#include "finance/reconciliation.h"
#include "provider/statementfetch.h"
#include "support/inprocesssandbox.h"
#include "support/provider.h"
#include "support/testmacros.h"
#include "support/teststore.h"

#include <QTest>

#include <limits>

using namespace verity;

namespace {

const QString seller = QStringLiteral("test-seller");

QByteArray performed(const QString &refundId, qint64 cents)
{
    return QStringLiteral(R"({"refund_id":"%1","status":"succeeded","amount_cents":%2})")
            .arg(refundId)
            .arg(cents)
            .toUtf8();
}

} // namespace

class ReconcileSandboxTest : public QObject
{
    Q_OBJECT

private slots:
    void everyCategoryAgainstTheSandbox()
    {
        using namespace storetest;
        QTemporaryDir dir;
        std::unique_ptr<Store> store = test::openTestStore(dir.filePath(QStringLiteral("ledger.sqlite")));
        QVERIFY(store);
        // A: matched. B: a timeout the provider had accepted, then a retry: two refunds of one
        // intent. C: the provider refunded less than the ledger says. D: never reached it.
        const QString transcript = dir.filePath(QStringLiteral("finance.jsonl"));
        QVERIFY(writeLines(
                transcript,
                {ticketOpened(QStringLiteral("T-A")),
                 refundCall(QStringLiteral("T-A"), QStringLiteral("2026-03-17T10:01:00Z"),
                            QStringLiteral("c1"), 4200),
                 toolResult(QStringLiteral("T-A"), QStringLiteral("2026-03-17T10:01:01Z"),
                            QStringLiteral("c1"), performed(QStringLiteral("re_A1"), 4200)),
                 ticketOpened(QStringLiteral("T-B")),
                 refundCall(QStringLiteral("T-B"), QStringLiteral("2026-03-17T11:00:00Z"),
                            QStringLiteral("c1"), 11800),
                 toolResult(QStringLiteral("T-B"), QStringLiteral("2026-03-17T11:00:05Z"),
                            QStringLiteral("c1"), R"({"error":"refund failed: upstream timeout"})"),
                 refundCall(QStringLiteral("T-B"), QStringLiteral("2026-03-17T11:00:12Z"),
                            QStringLiteral("c2"), 11800),
                 toolResult(QStringLiteral("T-B"), QStringLiteral("2026-03-17T11:00:13Z"),
                            QStringLiteral("c2"), performed(QStringLiteral("re_B2"), 11800)),
                 ticketOpened(QStringLiteral("T-C")),
                 refundCall(QStringLiteral("T-C"), QStringLiteral("2026-03-18T09:00:00Z"),
                            QStringLiteral("c1"), 4800),
                 toolResult(QStringLiteral("T-C"), QStringLiteral("2026-03-18T09:00:01Z"),
                            QStringLiteral("c1"), performed(QStringLiteral("re_C1"), 4800)),
                 ticketOpened(QStringLiteral("T-D")),
                 refundCall(QStringLiteral("T-D"), QStringLiteral("2026-03-19T09:00:00Z"),
                            QStringLiteral("c1"), 3000),
                 toolResult(QStringLiteral("T-D"), QStringLiteral("2026-03-19T09:00:01Z"),
                            QStringLiteral("c1"), performed(QStringLiteral("re_D1"), 3000))}));
        const ImportReport report = importFile(*store, transcript);
        QVERIFY2(report.clean(), qPrintable(storetest::describe(report)));
        Expected<QList<LedgerPayout>> payouts = store->payouts(0, std::numeric_limits<qint64>::max());
        QVERIFY_OK(payouts);
        QCOMPARE(payouts->size(), 5);
        QHash<QString, QString> keyOf; // ticket → intent key
        for (const LedgerPayout &payout : *payouts)
            keyOf.insert(payout.ticketExtId, payout.intentKey);

        // The provider's side, written straight into its state.
        test::InProcessSandbox sandbox;
        SandboxState &state = sandbox.state();
        QVERIFY_OK(state.begin());
        QVERIFY(*state.insertAccount(
                {seller, QStringLiteral("Test Seller"), QStringLiteral("usd"), 1773700000}, 100000,
                1773700000));
        const auto refund = [&](const QString &id, const QString &ticket, qint64 cents, qint64 created) {
            SandboxPayment payment{
                    QStringLiteral("pi_O-") + ticket, 20000, QStringLiteral("usd"), seller, 1773700000, {}};
            QVERIFY(state.insertPayment(payment));
            SandboxRefund made;
            made.id = id;
            made.paymentIntent = payment.id;
            made.amount = cents;
            made.currency = QStringLiteral("usd");
            made.created = created;
            made.metadata.insert(QStringLiteral("intent_key"), keyOf.value(ticket));
            made.metadata.insert(QStringLiteral("ticket_id"), ticket);
            QVERIFY(*state.insertRefund(made, seller));
        };
        refund(QStringLiteral("re_A1"), QStringLiteral("T-A"), 4200, 1773741660);
        refund(QStringLiteral("re_B1"), QStringLiteral("T-B"), 11800, 1773745201); // the timeout's, accepted
        refund(QStringLiteral("re_B2"), QStringLiteral("T-B"), 11800, 1773745212);
        refund(QStringLiteral("re_C1"), QStringLiteral("T-C"), 4500, 1773824400);
        QVERIFY_OK(state.commit());

        const Expected<Period> march =
                periodFromDates(QStringLiteral("2026-03-01"), QStringLiteral("2026-03-31"));
        QVERIFY2(march, qPrintable(march ? QString() : march.message()));
        const StatementAnswer answer =
                StatementFetch::run(test::settingsFor(sandbox.url()), *march, {seller});
        QVERIFY2(answer.ok(), qPrintable(answer.error.value_or(Error{}).message));
        QCOMPARE(answer.statement.refunds.size(), 4);

        Expected<QList<SellerBalance>> sellers = store->sellerBalances();
        const Reconciliation result = reconcile(*payouts, answer.statement, *sellers, 1775000000000);
        QStringList rows;
        for (const ReconRow &row : result.rows) {
            rows.append(QStringLiteral("%1 %2/%3 %4")
                                .arg(reconCategoryId(row.category), row.ticketExtId, row.callExtId,
                                     row.provider ? row.provider->id : QStringLiteral("-")));
        }
        QCOMPARE(rows,
                 (QStringList{QStringLiteral("matched T-A/c1 re_A1"),
                              QStringLiteral("provider_only T-B/c1 re_B1"),
                              QStringLiteral("matched T-B/c2 re_B2"),
                              QStringLiteral("amount_differs T-C/c1 re_C1"),
                              QStringLiteral("ledger_only T-D/c1 -")}));
        QVERIFY(!result.allMatched());
        QCOMPARE(result.sellers.size(), 1);
        const SellerReconciliation &perSeller = result.sellers.first();
        QCOMPARE(perSeller.sellerName, QStringLiteral("Test Seller"));
        // 1000.00 opening, less 42.00 + 118.00 + 118.00 + 45.00 refunded.
        QCOMPARE(perSeller.providerBalanceCents, std::optional<qint64>(100000 - 4200 - 11800 - 11800 - 4500));
        QCOMPARE(result.totals.providerCents[std::size_t(ReconCategory::ProviderOnly)], 11800);

        // The same statement confirms the duplicate at the provider.
        const QList<DuplicatePayout> duplicates = findDuplicatePayouts(*payouts, &answer.statement);
        QCOMPARE(duplicates.size(), 1);
        QCOMPARE(duplicates.first().ticketExtIds(), QStringList{QStringLiteral("T-B")});
        QCOMPARE(duplicates.first().amountAtRiskCents, 11800);
        QVERIFY(duplicates.first().confirmedAtProvider);
    }
};

QTEST_GUILESS_MAIN(ReconcileSandboxTest)
#include "tst_reconcilesandbox.moc"

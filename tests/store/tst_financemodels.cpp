// The finance item models over the imported demo data, each watched by
// QAbstractItemModelTester: sellers and their balances, the duplicate payouts with their
// recovery marks, and a reconciliation against a statement built from the demo's own ledger.

#include "finance/payoutrecovery.h"
#include "itemmodels/duplicatepayoutmodel.h"
#include "itemmodels/palette.h"
#include "itemmodels/reconciliationmodel.h"
#include "itemmodels/sellerbalancemodel.h"
#include "store/reassessment.h"
#include "storetestsupport.h"
#include "support/testmacros.h"
#include "support/time.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace verity;
using verity::test::utcMs;
using namespace storetest;

namespace {

using Tester = QAbstractItemModelTester;
const QString ashcombe = QStringLiteral("ashcombe-furniture");

} // namespace

class TestFinanceModels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void sellerBalances();
    void spansRead();
    void duplicatePayouts();
    void duplicateWindowAndStatement();
    void reconciliationRowsAndFilter();
    void recoveryMarkShows();
    void settledUnknownsConfirmTheDuplicates();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<SqliteStore> m_store;
};

void TestFinanceModels::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_store = openStore(m_dir.filePath(QStringLiteral("demo.sqlite")));
    QVERIFY(m_store);
    const ImportReport report = importFile(*m_store, demoDataResource());
    QVERIFY2(report.clean(), qPrintable(describe(report)));
}

void TestFinanceModels::sellerBalances()
{
    SellerBalanceModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0); // read on refresh, not on construction
    model.refresh();
    QVERIFY(model.rowCount() > 1);
    const int row = model.rowOfSeller(ashcombe);
    QVERIFY(row >= 0);
    using M = SellerBalanceModel;
    QCOMPARE(cell(model, row, M::SellerColumn).toString(), QStringLiteral("Ashcombe Furniture"));
    QCOMPARE(cell(model, row, M::BalanceColumn).toString(), QStringLiteral("-$47.00"));
    QCOMPARE(cell(model, row, M::BalanceColumn, M::SortRole).toLongLong(), -4700);
    QCOMPARE(cell(model, row, M::AsOfColumn).toString(), QStringLiteral("2026-04-01"));
    // A negative balance is flagged in colour and words, a positive one is not.
    QCOMPARE(cell(model, row, M::BalanceColumn, Qt::ForegroundRole).value<QBrush>().color(),
             QColor(QLatin1String(negativeMoneyColor)));
    QVERIFY(cell(model, row, M::BalanceColumn, Qt::ToolTipRole).toString().contains(QStringLiteral("owes")));
    QCOMPARE(cell(model, row, M::SellerColumn, M::SellerIdRole).toString(), ashcombe);
    // c4 performed and c3 unknown, $118.00 each.
    QVERIFY(cell(model, row, M::RefundsColumn).toInt() >= 2);
    QVERIFY(cell(model, row, M::PerformedColumn, M::SortRole).toLongLong() >= 11800);
    QVERIFY(cell(model, row, M::UnknownColumn, M::SortRole).toLongLong() >= 11800);
    for (int other = 0; other < model.rowCount(); ++other) {
        const QVariant cents = cell(model, other, M::BalanceColumn, M::SortRole);
        if (cents.isValid() && cents.toLongLong() >= 0)
            QVERIFY(!cell(model, other, M::BalanceColumn, Qt::ForegroundRole).isValid());
    }
    QCOMPARE(model.sellerIds().size(), model.rowCount());
    model.refresh();
    QCOMPARE(model.rowOfSeller(ashcombe), row);
    QCOMPARE(model.headerData(M::UnknownColumn, Qt::Horizontal).toString(), QStringLiteral("May have moved"));
}

void TestFinanceModels::spansRead()
{
    QCOMPARE(spanText(7400), QStringLiteral("7.4 s"));
    QCOMPARE(spanText(0), QStringLiteral("0.0 s"));
    QCOMPARE(spanText(59940), QStringLiteral("59.9 s"));
    QCOMPARE(spanText(182000), QStringLiteral("3 min 2 s"));
    QCOMPARE(spanText(2 * 3600000 + 5 * 60000), QStringLiteral("2 h 05 min"));
    QCOMPARE(spanText(3 * 86400000LL + 4 * 3600000), QStringLiteral("3 d 4 h"));
}

void TestFinanceModels::duplicatePayouts()
{
    DuplicatePayoutModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.refresh();
    QCOMPARE(model.rowCount(), 5);
    // Each pairs a performed refund with one whose outcome is unknown: possible, not yet proved.
    QCOMPARE(model.summary(),
             QStringLiteral("No duplicate payouts confirmed; 5 possible ($728.00) await lookups"));
    for (int i = 0; i < model.rowCount(); ++i) {
        QVERIFY(!model.duplicate(i)->isConfirmed());
        QVERIFY(cell(model, i, DuplicatePayoutModel::BasisColumn)
                        .toString()
                        .startsWith(QStringLiteral("Possible")));
    }
    int row = -1;
    for (int i = 0; i < model.rowCount(); ++i) {
        if (model.duplicate(i)->sellerId == ashcombe)
            row = i;
    }
    QVERIFY(row >= 0);
    using M = DuplicatePayoutModel;
    QCOMPARE(cell(model, row, M::SellerColumn).toString(), QStringLiteral("Ashcombe Furniture"));
    QCOMPARE(cell(model, row, M::TicketsColumn).toString(), QStringLiteral("T-20260317-0412"));
    QCOMPARE(cell(model, row, M::RefundsColumn).toInt(), 2);
    QCOMPARE(cell(model, row, M::AtRiskColumn).toString(), QStringLiteral("$118.00"));
    QCOMPARE(cell(model, row, M::AtRiskColumn, M::SortRole).toLongLong(), 11800);
    QCOMPARE(cell(model, row, M::TimeBetweenColumn).toString(), QStringLiteral("7.4 s"));
    QCOMPARE(cell(model, row, M::BasisColumn).toString(),
             QStringLiteral("Possible: 1 unknown refund awaiting a lookup; same intent key"));
    QCOMPARE(cell(model, row, M::RecoveryColumn).toString(), QString());
    QCOMPARE(cell(model, row, M::SellerColumn, M::KeyRole).toString(), model.duplicate(row)->key);
    QCOMPARE(model.rowOfKey(model.duplicate(row)->key), row);
    QVERIFY(!model.mark(row));
    QVERIFY(!model.duplicate(model.rowCount()));
}

void TestFinanceModels::duplicateWindowAndStatement()
{
    DuplicatePayoutModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.refresh();
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.setWindowSeconds(5);
    QCOMPARE(model.windowSeconds(), 5);
    QCOMPARE(resets.size(), 1);
    model.setWindowSeconds(5); // unchanged: not read again
    QCOMPARE(resets.size(), 1);
    // Intent keys group whatever the window: the demo's duplicates all have one.
    QCOMPARE(model.rowCount(), 5);
    model.setWindowSeconds(60);

    // A statement with no refunds adds nothing.
    ProviderStatement statement;
    statement.period = Period{utcMs(2026, 3, 1), utcMs(2026, 5, 1)};
    model.setStatement(statement);
    QVERIFY(model.hasStatement());
    QCOMPARE(model.rowCount(), 5);
    model.setStatement(std::nullopt);
    QVERIFY(!model.hasStatement());
}

void TestFinanceModels::reconciliationRowsAndFilter()
{
    // The provider's side as the sandbox has it: a refund for each performed payout, and one
    // for Ashcombe's unknown c3, which reached the provider.
    const Period period{utcMs(2026, 3, 1), utcMs(2026, 5, 1)};
    const Expected<QList<LedgerPayout>> payouts = m_store->payouts(period.fromMs, period.toMs);
    QVERIFY(payouts);
    ProviderStatement statement;
    statement.period = period;
    statement.source = QStringLiteral("test");
    int performed = 0;
    int number = 0;
    for (const LedgerPayout &payout : *payouts) {
        const bool ashcombeUnknown = payout.effect == PayoutEffect::Unknown && payout.sellerId == ashcombe
                && payout.ticketExtId == QStringLiteral("T-20260317-0412");
        if (payout.effect != PayoutEffect::Performed && !ashcombeUnknown)
            continue;
        performed += payout.effect == PayoutEffect::Performed ? 1 : 0;
        StatementRefund refund;
        refund.id = payout.refundId.isEmpty() || ashcombeUnknown ? QStringLiteral("re_test_%1").arg(++number)
                                                                 : payout.refundId;
        refund.paymentIntent = payout.paymentIntent;
        refund.amountCents = payout.amountCents;
        refund.currency = payout.currency;
        refund.status = QStringLiteral("succeeded");
        refund.createdMs = payout.at;
        refund.intentKey = payout.intentKey;
        refund.ticketExtId = payout.ticketExtId;
        refund.account = payout.sellerId;
        refund.origin = QStringLiteral("test");
        refund.record = QStringLiteral("{\"id\": \"%1\"}").arg(refund.id);
        statement.refunds.append(refund);
    }
    QVERIFY(performed > 0);

    ReconciliationModel model(*m_store);
    model.setClock([] { return utcMs(2026, 5, 2); });
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    QVERIFY(!model.hasReconciliation());
    QVERIFY(model.totalsText().startsWith(QStringLiteral("No reconciliation yet")));
    const Expected<void> done = model.setStatement(statement);
    QVERIFY_OK(done);
    QVERIFY(model.hasReconciliation());
    QCOMPARE(model.rowCount(), performed + 1);

    using M = ReconciliationModel;
    model.setCategoryFilter(ReconCategory::ProviderOnly);
    QCOMPARE(model.rowCount(), 1);
    const ReconRow *row = model.reconRow(0);
    QVERIFY(row);
    QCOMPARE(row->category, ReconCategory::ProviderOnly);
    // The incident's second refund of one intent: the intent was paid twice.
    QCOMPARE(cell(model, 0, M::CategoryColumn).toString(), QStringLiteral("Provider only · paid twice"));
    QCOMPARE(cell(model, 0, M::SellerColumn).toString(), QStringLiteral("Ashcombe Furniture"));
    QVERIFY(cell(model, 0, M::TicketColumn).toString().startsWith(QStringLiteral("T-20260317-0412")));
    QCOMPARE(cell(model, 0, M::LedgerColumn).toString(), QStringLiteral("—"));
    QCOMPARE(cell(model, 0, M::ProviderColumn).toString(), QStringLiteral("$118.00"));
    QCOMPARE(cell(model, 0, M::DifferenceColumn).toString(), QStringLiteral("+$118.00"));
    QCOMPARE(cell(model, 0, M::ProviderColumn, M::SortRole).toLongLong(), 11800);
    QCOMPARE(cell(model, 0, M::CategoryColumn, M::CategoryRole).toInt(), int(ReconCategory::ProviderOnly));

    model.setCategoryFilter(ReconCategory::Matched);
    QCOMPARE(model.rowCount(), performed);
    QCOMPARE(cell(model, 0, M::DifferenceColumn).toString(), QString());
    QCOMPARE(cell(model, 0, M::LedgerColumn).toString(), cell(model, 0, M::ProviderColumn).toString());
    model.setCategoryFilter(ReconCategory::LedgerOnly);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.reconRow(0));
    model.setCategoryFilter(std::nullopt);
    QCOMPARE(model.rowCount(), performed + 1);
    // The duplicate payouts alone: both of the incident's refunds, and only rows paid twice.
    model.setPaidTwiceFilter(true);
    QVERIFY(model.rowCount() >= 2);
    for (int i = 0; i < model.rowCount(); ++i)
        QVERIFY(model.reconRow(i)->paidTwice);
    model.setPaidTwiceFilter(false);
    QCOMPARE(model.rowCount(), performed + 1);
    // One seller's rows alone, with the category filter as it was.
    model.setSellerFilter(ashcombe);
    QCOMPARE(model.sellerFilter(), ashcombe);
    QVERIFY(model.rowCount() >= 2 && model.rowCount() < performed + 1);
    for (int i = 0; i < model.rowCount(); ++i)
        QCOMPARE(model.reconRow(i)->sellerId, ashcombe);
    model.setCategoryFilter(ReconCategory::ProviderOnly);
    QCOMPARE(model.rowCount(), 1);
    model.setCategoryFilter(std::nullopt);
    model.setSellerFilter(QString());
    QCOMPARE(model.rowCount(), performed + 1);
    // No account balances in this statement: no row is part of a balance difference.
    QCOMPARE(cell(model, 0, M::BalanceShareColumn).toString(), QString());

    QVERIFY2(model.totalsText().contains(QStringLiteral("Provider only 1 ($118.00)")),
             qPrintable(model.totalsText()));
    QVERIFY(model.totalsText().contains(QStringLiteral("Matched %1").arg(performed)));
    QCOMPARE(model.categoryTotalsText(ReconCategory::LedgerOnly), QStringLiteral("Ledger only 0 ($0.00)"));

    // Reconciled again from the store: the same rows.
    model.refresh();
    QCOMPARE(model.rowCount(), performed + 1);
}

void TestFinanceModels::recoveryMarkShows()
{
    DuplicatePayoutModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.refresh();
    int row = -1;
    for (int i = 0; i < model.rowCount(); ++i) {
        if (model.duplicate(i)->sellerId == ashcombe)
            row = i;
    }
    QVERIFY(row >= 0);
    const Expected<PayoutMark> mark =
            markDuplicatePayout(*m_store, *model.duplicate(row), RecoveryState::RecoveryRequested,
                                QStringLiteral("Asked Dana <b>Whitfield</b> to return $118.00"),
                                QStringLiteral("finn"), utcMs(2026, 4, 2));
    QVERIFY_OK(mark);
    model.refresh();
    using M = DuplicatePayoutModel;
    QCOMPARE(cell(model, row, M::RecoveryColumn).toString(),
             QStringLiteral("Recovery requested: Asked Dana <b>Whitfield</b> to return $118.00"));
    QVERIFY(cell(model, row, M::RecoveryColumn, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("by finn")));
    QVERIFY(model.mark(row));
    QCOMPARE(model.mark(row)->state, RecoveryState::RecoveryRequested);
    QCOMPARE(model.summary(),
             QStringLiteral("No duplicate payouts confirmed; 5 possible ($728.00) await lookups (1 recovery "
                            "requested)"));
    QCOMPARE(model.marks().size(), 1);
}

// Once the unknown refunds are settled as performed, the same groups are duplicate payouts,
// as the queue's duplicate effects count them. (Runs last: it settles the demo's refunds.)
void TestFinanceModels::settledUnknownsConfirmTheDuplicates()
{
    const QList<EscalationRow> open = *m_store->openEscalations(0, 100);
    for (const EscalationRow &row : open) {
        if (row.tool != u"issue_refund")
            continue;
        QVERIFY(m_store->resolveEscalation(Settlement{row.id, Resolution::Performed, SettlementBasis::Lookup,
                                                      QString(), QStringLiteral("finn"), utcMs(2026, 4, 6)}));
        QVERIFY(reassessTicket(*m_store, row.ticketId));
    }
    DuplicatePayoutModel model(*m_store);
    model.refresh();
    QStringList confirmed;
    for (int i = 0; i < model.rowCount(); ++i) {
        if (model.duplicate(i)->isConfirmed())
            confirmed << model.duplicate(i)->ticketExtIds();
    }
    QCOMPARE(confirmed.size(), 5);
    QVERIFY2(model.summary().startsWith(QStringLiteral("5 duplicate payouts, $728.00 at risk")),
             qPrintable(model.summary()));
    TicketQuery duplicates;
    duplicates.filter = TicketFilter::DuplicateEffect;
    QStringList queue;
    const QList<TicketRow> rows = *m_store->tickets(duplicates, 0, 100);
    for (const TicketRow &row : rows)
        queue << row.extId;
    confirmed.sort();
    queue.sort();
    QCOMPARE(queue, confirmed);
}

QTEST_GUILESS_MAIN(TestFinanceModels)
#include "tst_financemodels.moc"

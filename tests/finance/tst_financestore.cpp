// The store's finance reads on the demo data (the March incident) in a real SQLite file:
// payouts with every resolution applied, seller balances and histories, the duplicate
// payouts they hold, and recovery marks written with their audit entries.

#include "../store/storetestsupport.h"
#include "audit/auditlog.h"
#include "finance/duplicatepayouts.h"
#include "finance/payoutmonth.h"
#include "finance/payoutrecovery.h"
#include "import/importjob.h"
#include "support/testmacros.h"
#include "support/teststore.h"

#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace verity;

// The message is read only when there is one.

namespace {

constexpr qint64 endOfTime = std::numeric_limits<qint64>::max();
const QString ashcombe = QStringLiteral("ashcombe-furniture");
const QString incidentTicket = QStringLiteral("T-20260317-0412");

QStringList describe(const QList<LedgerPayout> &payouts)
{
    QStringList lines;
    for (const LedgerPayout &p : payouts)
        lines.append(QStringLiteral("%1 %2 %3 %4")
                             .arg(p.ticketExtId, p.callExtId, payoutEffectId(p.effect))
                             .arg(p.amountCents));
    return lines;
}

} // namespace

class FinanceStoreTest : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Store> m_store;

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_store = test::openTestStore(m_dir.filePath(
                QStringLiteral("finance-%1.sqlite").arg(QString::fromUtf8(QTest::currentTestFunction()))));
        QVERIFY(m_store);
        const ImportReport report = storetest::importFile(*m_store, demoDataResource());
        QVERIFY2(report.clean(), qPrintable(storetest::describe(report)));
    }

    void cleanup() { m_store.reset(); }

    void payoutsOfTheIncident()
    {
        Expected<QList<LedgerPayout>> all = m_store->payouts(0, endOfTime);
        QVERIFY_OK(all);
        const QStringList ashcombes = describe(*all).filter(incidentTicket);
        QCOMPARE(ashcombes,
                 (QStringList{QStringLiteral("T-20260317-0412 c3 unknown 11800"),
                              QStringLiteral("T-20260317-0412 c4 performed 11800")}));
        // Refused and already-performed writes moved nothing: no payouts.
        QVERIFY(describe(*all).filter(QStringLiteral("T-20260320-0114 c3")).isEmpty());
        QVERIFY(describe(*all).filter(QStringLiteral("T-20260331-0093 c4")).isEmpty());
        for (const LedgerPayout &p : *all) {
            if (p.ticketExtId == incidentTicket && p.callExtId == u"c4") {
                QCOMPARE(p.refundId, QStringLiteral("re_B69RgwuSCddMBH"));
                QCOMPARE(p.sellerName, QStringLiteral("Ashcombe Furniture"));
                QCOMPARE(p.paymentIntent, QStringLiteral("pi_SU-88421"));
                QVERIFY(!p.intentKey.isEmpty());
            }
        }
        // A period leaves out what was called outside it: [from, to).
        const qint64 c4At = 1773757934400;
        Expected<QList<LedgerPayout>> after = m_store->payouts(c4At, endOfTime);
        QVERIFY_OK(after);
        QCOMPARE(describe(*after).filter(incidentTicket),
                 QStringList{QStringLiteral("T-20260317-0412 c4 performed 11800")});
        Expected<QList<LedgerPayout>> before = m_store->payouts(0, c4At);
        QCOMPARE(describe(*before).filter(incidentTicket),
                 QStringList{QStringLiteral("T-20260317-0412 c3 unknown 11800")});
    }

    // The Reconciliation tab opens on the month of the newest refund in Verity's ledger (a
    // performed one): the demo's last, whichever month "today" is; an empty store opens on
    // today's month.
    void newestPayoutDecidesTheMonth()
    {
        Expected<QList<LedgerPayout>> all = m_store->payouts(0, endOfTime);
        QVERIFY_OK(all);
        QVERIFY(!all->isEmpty());
        qint64 newest = 0;
        qint64 newestPerformed = 0;
        for (const LedgerPayout &p : *all) {
            newest = qMax(newest, p.at);
            if (p.effect == PayoutEffect::Performed)
                newestPerformed = qMax(newestPerformed, p.at);
        }
        Expected<std::optional<qint64>> read = m_store->newestPayoutAt();
        QVERIFY_OK(read);
        QCOMPARE(*read, std::optional<qint64>(newest));
        QCOMPARE(*m_store->newestPerformedPayoutAt(), std::optional<qint64>(newestPerformed));

        const QDate newestDay = QDateTime::fromMSecsSinceEpoch(newestPerformed, Qt::UTC).date();
        QCOMPARE(newestDay.year(), 2026);
        for (const QDate &today : {QDate(2026, 12, 14), QDate(2027, 1, 2), newestDay}) {
            Expected<OpeningPeriod> month = latestReconciliationMonth(*m_store, today);
            QVERIFY_OK(month);
            QCOMPARE(periodText(month->period), periodText(calendarMonth(newestDay)));
            QVERIFY(month->period.contains(newestPerformed));
            QCOMPARE(month->note, QString());
        }

        // A ticket of today whose refund timed out: its outcome is unknown, and a month of
        // nothing but that reconciles to nothing unless the provider made it. The month stays
        // the ledger's, and the note names the later refund...
        const QString december = m_dir.filePath(QStringLiteral("december.jsonl"));
        const QString ticket = QStringLiteral("T-20261207-0001");
        QVERIFY(storetest::writeLines(
                december,
                {storetest::ticketOpened(ticket, QStringLiteral("2026-12-07T09:00:00Z")),
                 storetest::refundCall(ticket, QStringLiteral("2026-12-07T09:01:00Z"), QStringLiteral("c1")),
                 storetest::toolResult(ticket, QStringLiteral("2026-12-07T09:01:05Z"), QStringLiteral("c1"),
                                       R"({"error":"refund failed: upstream timeout"})")}));
        const ImportReport report = storetest::importFile(*m_store, december);
        QVERIFY2(report.clean(), qPrintable(storetest::describe(report)));
        QVERIFY(**m_store->newestPayoutAt() > newestPerformed);
        Expected<OpeningPeriod> withUnknown = latestReconciliationMonth(*m_store, QDate(2026, 12, 7));
        QVERIFY_OK(withUnknown);
        QCOMPARE(periodText(withUnknown->period), periodText(calendarMonth(newestDay)));
        QVERIFY2(withUnknown->note.contains(QStringLiteral("2026-12-07 09:01 UTC")),
                 qPrintable(withUnknown->note));
        // ...until a lookup proves it was never made: then there is nothing after the month.
        const qint64 escalation = test::openEscalationId(*m_store, ticket, QStringLiteral("c1"));
        QVERIFY(escalation > 0);
        Expected<ResolutionClaim> claim = m_store->resolveEscalation(
                Settlement{escalation, Resolution::NotPerformed, SettlementBasis::Lookup, QString(),
                           QStringLiteral("Dana"), 1796800000000});
        QVERIFY(claim && claim->claimed);
        QCOMPARE(*m_store->newestPayoutAt(), std::optional<qint64>(newest));
        QCOMPARE(latestReconciliationMonth(*m_store, QDate(2026, 12, 7))->note, QString());

        // No payouts at all: nothing, and the month is today's.
        std::unique_ptr<Store> empty = test::openTestStore(m_dir.filePath(QStringLiteral("empty.sqlite")));
        QVERIFY(empty);
        QCOMPARE(*empty->newestPayoutAt(), std::optional<qint64>());
        QCOMPARE(*empty->newestPerformedPayoutAt(), std::optional<qint64>());
        Expected<OpeningPeriod> month = latestReconciliationMonth(*empty, QDate(2026, 12, 14));
        QVERIFY_OK(month);
        QCOMPARE(periodText(month->period), QStringLiteral("2026-12-01 to 2026-12-31 (UTC)"));
        QCOMPARE(month->note, QString());

        // Only an unknown refund: its month, since that is all there is, and said so.
        const QString may = m_dir.filePath(QStringLiteral("may.jsonl"));
        const QString mayTicket = QStringLiteral("T-20260502-0001");
        QVERIFY(storetest::writeLines(
                may,
                {storetest::ticketOpened(mayTicket, QStringLiteral("2026-05-02T09:00:00Z")),
                 storetest::refundCall(mayTicket, QStringLiteral("2026-05-02T09:01:00Z"),
                                       QStringLiteral("c1")),
                 storetest::toolResult(mayTicket, QStringLiteral("2026-05-02T09:01:05Z"),
                                       QStringLiteral("c1"),
                                       R"({"error":"refund failed: upstream timeout"})")}));
        const ImportReport mayReport = storetest::importFile(*empty, may);
        QVERIFY2(mayReport.clean(), qPrintable(storetest::describe(mayReport)));
        Expected<OpeningPeriod> onlyUnknown = latestReconciliationMonth(*empty, QDate(2026, 12, 14));
        QVERIFY_OK(onlyUnknown);
        QCOMPARE(periodText(onlyUnknown->period), QStringLiteral("2026-05-01 to 2026-05-31 (UTC)"));
        QVERIFY2(onlyUnknown->note.contains(QStringLiteral("no refund yet")), qPrintable(onlyUnknown->note));
    }

    void calendarMonths_data()
    {
        QTest::addColumn<QDate>("day");
        QTest::addColumn<QString>("month");
        QTest::newRow("first day") << QDate(2026, 4, 1) << QStringLiteral("2026-04-01 to 2026-04-30 (UTC)");
        QTest::newRow("last day") << QDate(2026, 3, 31) << QStringLiteral("2026-03-01 to 2026-03-31 (UTC)");
        QTest::newRow("december") << QDate(2026, 12, 14) << QStringLiteral("2026-12-01 to 2026-12-31 (UTC)");
        QTest::newRow("leap february")
                << QDate(2028, 2, 10) << QStringLiteral("2028-02-01 to 2028-02-29 (UTC)");
    }

    void calendarMonths()
    {
        QFETCH(QDate, day);
        QFETCH(QString, month);
        const Period period = calendarMonth(day);
        QCOMPARE(periodText(period), month);
        QCOMPARE(QDateTime::fromMSecsSinceEpoch(period.fromMs, Qt::UTC).time(), QTime(0, 0));
        QVERIFY(period.contains(QDateTime(day, QTime(23, 59, 59, 999), Qt::UTC).toMSecsSinceEpoch()));
    }

    void duplicatesOfTheDemo()
    {
        Expected<QList<LedgerPayout>> all = m_store->payouts(0, endOfTime);
        const QList<DuplicatePayout> duplicates = findDuplicatePayouts(*all);
        QCOMPARE(duplicates.size(), 5);
        const DuplicatePayout &first = duplicates.first();
        QCOMPARE(first.sellerName, QStringLiteral("Ashcombe Furniture"));
        QCOMPARE(first.ticketExtIds(), QStringList{incidentTicket});
        QCOMPARE(first.amountAtRiskCents, 11800);
        QCOMPARE(first.spanMs, 7400);
        qint64 beyondAshcombe = 0;
        for (qsizetype i = 1; i < duplicates.size(); ++i)
            beyondAshcombe += duplicates.at(i).amountAtRiskCents;
        QCOMPARE(beyondAshcombe, 61000); // $610.00 over the four other incident tickets
    }

    void resolutionsDecideWhatMoved()
    {
        const qint64 escalation = test::openEscalationId(*m_store, incidentTicket, QStringLiteral("c3"));
        QVERIFY(escalation > 0);
        Expected<ResolutionClaim> claim = m_store->resolveEscalation(
                Settlement{escalation, Resolution::NotPerformed, SettlementBasis::Lookup, QString(),
                           QStringLiteral("Dana"), 1775000000000});
        QVERIFY2(claim && claim->claimed, claim ? "not claimed" : qPrintable(claim.message()));
        Expected<QList<LedgerPayout>> all = m_store->payouts(0, endOfTime);
        QCOMPARE(describe(*all).filter(incidentTicket),
                 QStringList{QStringLiteral("T-20260317-0412 c4 performed 11800")});
        QCOMPARE(findDuplicatePayouts(*all).size(), 4);

        const qint64 other =
                test::openEscalationId(*m_store, QStringLiteral("T-20260319-0187"), QStringLiteral("c3"));
        claim = m_store->resolveEscalation(Settlement{other, Resolution::Performed, SettlementBasis::Lookup,
                                                      QString(), QStringLiteral("Dana"), 1775000000000});
        QVERIFY(claim && claim->claimed);
        all = m_store->payouts(0, endOfTime);
        QCOMPARE(describe(*all).filter(QStringLiteral("T-20260319-0187")),
                 (QStringList{QStringLiteral("T-20260319-0187 c3 performed 14500"),
                              QStringLiteral("T-20260319-0187 c4 performed 14500")}));
    }

    void sellerBalancesAndHistory()
    {
        Expected<QList<SellerBalance>> sellers = m_store->sellerBalances();
        QVERIFY_OK(sellers);
        QCOMPARE(sellers->size(), 12);
        QCOMPARE(sellers->first().name, QStringLiteral("Ashcombe Furniture")); // by name
        const SellerBalance &a = sellers->first();
        QCOMPARE(a.balanceCents, std::optional<qint64>(-4700));
        QCOMPARE(QDateTime::fromMSecsSinceEpoch(a.balanceAsOf, Qt::UTC).date(), QDate(2026, 4, 1));
        QCOMPARE(a.performedCents, 11800);
        QCOMPARE(a.unknownCents, 11800);
        QCOMPARE(a.payouts, 2);
        QCOMPARE(a.currency, QStringLiteral("USD"));

        Expected<SellerHistory> history = m_store->sellerHistory(ashcombe);
        QVERIFY_OK(history);
        QCOMPARE(history->snapshots.size(), 2); // 189.00 reported twice on 17 March: one point
        QCOMPARE(history->snapshots.first().balanceCents, 18900);
        QCOMPARE(history->snapshots.last().balanceCents, -4700);
        QCOMPARE(describe(history->debits),
                 (QStringList{QStringLiteral("T-20260317-0412 c3 unknown 11800"),
                              QStringLiteral("T-20260317-0412 c4 performed 11800")}));
        Expected<SellerHistory> nobody = m_store->sellerHistory(QStringLiteral("no-such-seller"));
        QVERIFY(nobody && nobody->snapshots.isEmpty() && nobody->debits.isEmpty());
    }

    void recoveryMarksGoToTheAuditLog()
    {
        Expected<QList<LedgerPayout>> all = m_store->payouts(0, endOfTime);
        const DuplicatePayout duplicate = findDuplicatePayouts(*all).first();

        Expected<PayoutMark> refused =
                markDuplicatePayout(*m_store, duplicate, RecoveryState::RecoveryRequested,
                                    QStringLiteral("asked"), QStringLiteral("  "), 1);
        QVERIFY(!refused);
        QVERIFY(m_store->payoutMarks()->isEmpty());
        QCOMPARE(*m_store->countAuditEntries(), 0);

        Expected<PayoutMark> requested =
                markDuplicatePayout(*m_store, duplicate, RecoveryState::RecoveryRequested,
                                    QStringLiteral("Asked the buyer to return $118.00"),
                                    QStringLiteral("Finance: Ines"), 1775100000000);
        QVERIFY_OK(requested);
        Expected<PayoutMark> again =
                markDuplicatePayout(*m_store, duplicate, RecoveryState::RecoveryRequested,
                                    QStringLiteral("Asked the buyer to return $118.00"),
                                    QStringLiteral("Finance: Ines"), 1775100000001);
        QVERIFY(!again);
        Expected<PayoutMark> recovered = markDuplicatePayout(*m_store, duplicate, RecoveryState::Recovered,
                                                             QStringLiteral("Buyer returned it"),
                                                             QStringLiteral("Finance: Ines"), 1775200000000);
        QVERIFY_OK(recovered);

        const QHash<QString, PayoutMark> current = currentMarks(*m_store->payoutMarks());
        QCOMPARE(current.size(), 1);
        QCOMPARE(current.value(duplicate.key).state, RecoveryState::Recovered);
        QCOMPARE(current.value(duplicate.key).note, QStringLiteral("Buyer returned it"));

        Expected<QList<AuditEntry>> entries = m_store->auditEntries(0, 10);
        QCOMPARE(entries->size(), 2);
        QCOMPARE(entries->at(0).action, QStringLiteral("recovery_requested"));
        QCOMPARE(entries->at(1).action, QStringLiteral("recovered"));
        QCOMPARE(entries->at(0).operatorName, QStringLiteral("Finance: Ines"));
        QVERIFY2(entries->at(0).detail.contains(incidentTicket), qPrintable(entries->at(0).detail));
        QVERIFY2(entries->at(0).detail.contains(QStringLiteral("$118.00")),
                 qPrintable(entries->at(0).detail));
        QVERIFY(entries->at(1).detail.contains(QStringLiteral("Buyer returned it")));
        Expected<AuditVerification> verified = AuditLog::verify(*m_store);
        QVERIFY(verified && verified->intact);
    }
};

QTEST_GUILESS_MAIN(FinanceStoreTest)
#include "tst_financestore.moc"

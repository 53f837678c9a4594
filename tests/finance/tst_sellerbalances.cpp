// What the store adds up per seller (Store::sellerBalances): the performed payouts, the
// unknown ones and their count, seller by seller, exactly as the single query it replaced
// added them up, and as the store's payouts list them, on the demo data as imported and after
// escalations are resolved each way (not performed, performed, performed again). A call whose
// outcome reads "performed" but whose escalation was resolved "not performed" is left out of
// both: the resolution, a reading of the provider, outranks what the tool reported.

#include "../store/storetestsupport.h"
#include "support/rawsqlite.h"
#include "support/testmacros.h"
#include "support/teststore.h"

#include <QHash>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace verity;
using namespace verity::test;

namespace {

// The sums as the store once made them, in one query joining every money write to its
// escalation.
const char *const joinedSums =
        "SELECT t.seller_id, CASE WHEN c.outcome = 'performed' OR e.resolution IN ('performed', "
        "'performed_again') "
        "THEN 1 ELSE 0 END, SUM(c.amount_cents), COUNT(*) "
        "FROM tool_calls c JOIN tickets t ON t.id = c.ticket_id LEFT JOIN escalations e ON e.tool_call_id = "
        "c.id "
        "WHERE c.tool_class = 'write_money' AND c.amount_cents IS NOT NULL AND c.outcome IN ('performed', "
        "'unknown') "
        "AND t.seller_id IS NOT NULL AND (e.resolution IS NULL OR e.resolution <> 'not_performed') "
        "GROUP BY t.seller_id, 2";

struct Sums
{
    qint64 performedCents = 0;
    qint64 unknownCents = 0;
    int payouts = 0;
    bool operator==(const Sums &) const = default;
};

QString describe(const QString &seller, const Sums &sums)
{
    return QStringLiteral("%1: performed %2, unknown %3, %4 payouts")
            .arg(seller)
            .arg(sums.performedCents)
            .arg(sums.unknownCents)
            .arg(sums.payouts);
}

} // namespace

class SellerBalancesTest : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Store> m_store;

    // Each seller's sums three ways, as lines to compare: from sellerBalances, from the query
    // it replaced, and from the payouts.
    struct Lines
    {
        QStringList balances;
        QStringList joined;
        QStringList payouts;
    };
    Lines sellerLines()
    {
        Lines lines;
        Expected<QList<LedgerPayout>> payouts = m_store->payouts(0, std::numeric_limits<qint64>::max());
        Expected<QList<SellerBalance>> sellers = m_store->sellerBalances();
        if (!payouts || !sellers)
            return {{QStringLiteral("failed")}, {}, {}};
        QHash<QString, Sums> fromPayouts;
        for (const LedgerPayout &payout : std::as_const(*payouts)) {
            Sums &sums = fromPayouts[payout.sellerId];
            (payout.effect == PayoutEffect::Performed ? sums.performedCents : sums.unknownCents) +=
                    payout.amountCents;
            ++sums.payouts;
        }
        QHash<QString, Sums> fromJoined;
        RawSqlite raw(m_store->location());
        QSqlQuery query(raw.db());
        if (!query.exec(QString::fromLatin1(joinedSums)))
            return {{QStringLiteral("failed")}, {}, {}};
        while (query.next()) {
            Sums &sums = fromJoined[query.value(0).toString()];
            (query.value(1).toInt() == 1 ? sums.performedCents : sums.unknownCents) +=
                    query.value(2).toLongLong();
            sums.payouts += query.value(3).toInt();
        }
        for (const SellerBalance &seller : std::as_const(*sellers)) {
            lines.balances.append(
                    describe(seller.id, Sums{seller.performedCents, seller.unknownCents, seller.payouts}));
            lines.joined.append(describe(seller.id, fromJoined.value(seller.id)));
            lines.payouts.append(describe(seller.id, fromPayouts.value(seller.id)));
        }
        return lines;
    }

    void resolve(const QString &ticket, const QString &call, Resolution resolution)
    {
        const qint64 escalation = openEscalationId(*m_store, ticket, call);
        QVERIFY2(escalation > 0, qPrintable(ticket + u' ' + call));
        Expected<ResolutionClaim> claim =
                m_store->resolveEscalation(Settlement{escalation, resolution, SettlementBasis::Lookup,
                                                      QString(), QStringLiteral("Dana"), 1775000000000});
        QVERIFY2(claim && claim->claimed, claim ? "not claimed" : qPrintable(claim.message()));
    }

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_store = test::openTestStore(m_dir.filePath(
                QStringLiteral("sellers-%1.sqlite").arg(QString::fromUtf8(QTest::currentTestFunction()))));
        QVERIFY(m_store);
        const ImportReport report = storetest::importFile(*m_store, demoDataResource());
        QVERIFY2(report.clean(), qPrintable(storetest::describe(report)));
    }

    void cleanup() { m_store.reset(); }

    void asImported()
    {
        const Lines lines = sellerLines();
        QCOMPARE(lines.balances, lines.joined);
        QCOMPARE(lines.balances, lines.payouts);
        QVERIFY(lines.balances.join(u'\n').contains(
                QStringLiteral("ashcombe-furniture: performed 11800, unknown 11800, 2 payouts")));
    }

    void onceResolved()
    {
        // Every open escalation of the demo, resolved in turn each of the three ways.
        Expected<qint64> count = m_store->countOpenEscalations();
        QVERIFY_OK(count);
        Expected<QList<EscalationRow>> open = m_store->openEscalations(0, int(*count));
        QVERIFY_OK(open);
        QVERIFY(open->size() >= 3);
        const Resolution ways[] = {Resolution::NotPerformed, Resolution::Performed,
                                   Resolution::PerformedAgain};
        for (qsizetype i = 0; i < open->size(); ++i) {
            const EscalationRow &row = open->at(i);
            resolve(row.ticketExtId, row.callExtId, ways[i % 3]);
            const Lines lines = sellerLines();
            QCOMPARE(lines.balances, lines.joined);
            QCOMPARE(lines.balances, lines.payouts);
        }
        QCOMPARE(*m_store->countOpenEscalations(), 0);
    }

    void aPerformedOutcomeResolvedNotPerformed()
    {
        // An escalation on a call whose outcome reads "performed", resolved "not performed":
        // the sums and the payouts alike leave it out.
        qint64 escalation = 0;
        {
            RawSqlite raw(m_store->location());
            QSqlQuery query(raw.db());
            QVERIFY(query.exec(QStringLiteral(
                    "INSERT INTO escalations (tool_call_id, ticket_id, opened_at, amount_cents, state) "
                    "SELECT c.id, c.ticket_id, c.called_at, c.amount_cents, 'open' FROM tool_calls c "
                    "WHERE c.tool_class = 'write_money' AND c.outcome = 'performed' AND c.amount_cents IS "
                    "NOT NULL "
                    "AND NOT EXISTS (SELECT 1 FROM escalations e WHERE e.tool_call_id = c.id) ORDER BY c.id "
                    "LIMIT 1")));
            QCOMPARE(query.numRowsAffected(), 1);
            QVERIFY(query.exec(QStringLiteral("SELECT e.id FROM escalations e ORDER BY e.id DESC LIMIT 1"))
                    && query.next());
            escalation = query.value(0).toLongLong();
        }
        Expected<ResolutionClaim> claim = m_store->resolveEscalation(
                Settlement{escalation, Resolution::NotPerformed, SettlementBasis::Lookup, QString(),
                           QStringLiteral("Dana"), 1775000000000});
        QVERIFY2(claim && claim->claimed, claim ? "not claimed" : qPrintable(claim.message()));
        const Lines lines = sellerLines();
        QCOMPARE(lines.balances, lines.joined);
        QCOMPARE(lines.balances, lines.payouts);
    }
};

QTEST_GUILESS_MAIN(SellerBalancesTest)
#include "tst_sellerbalances.moc"

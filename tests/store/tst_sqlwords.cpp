// The stored words a statement names ("{outcome:unknown}") written as the database stores them,
// and finance's payout rule written as SQL: the condition, run by SQLite over every settlement a
// money write can have, counts exactly what payoutStanding() counts.

#include "domain/settlement.h"
#include "store/sqlwords.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>

using namespace verity;

class TestSqlWords : public QObject
{
    Q_OBJECT

private slots:
    void writesTheDomainsWords_data()
    {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("written");
        QTest::newRow("an outcome") << QStringLiteral("outcome = {outcome:unknown}")
                                    << QStringLiteral("outcome = 'unknown'");
        QTest::newRow("several kinds")
                << QStringLiteral(
                           "state = {state:open} AND basis IN ({basis:lookup}, {basis:reconciliation}) "
                           "AND tool_class = {class:write_money} AND resolution = "
                           "{resolution:performed_again}")
                << QStringLiteral("state = 'open' AND basis IN ('lookup', 'reconciliation') "
                                  "AND tool_class = 'write_money' AND resolution = 'performed_again'");
        QTest::newRow("other braces stay") << QStringLiteral("SELECT '{}', '{a,b}', {colour:red}")
                                           << QStringLiteral("SELECT '{}', '{a,b}', {colour:red}");
        QTest::newRow("no words") << QStringLiteral("SELECT 1") << QStringLiteral("SELECT 1");
    }
    void writesTheDomainsWords()
    {
        QFETCH(QString, sql);
        QFETCH(QString, written);
        QCOMPARE(withStoredWords(sql), written);
    }

    void countedPayoutsAsPayoutStandingCountsThem()
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("words"));
        db.setDatabaseName(QStringLiteral(":memory:"));
        QVERIFY2(db.open(), qPrintable(db.lastError().text()));
        {
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("CREATE TABLE s (outcome TEXT, resolution TEXT, basis TEXT)")));
            const std::optional<Resolution> resolutions[] = {std::nullopt, Resolution::Performed,
                                                             Resolution::NotPerformed,
                                                             Resolution::PerformedAgain};
            const std::optional<SettlementBasis> bases[] = {std::nullopt, SettlementBasis::Lookup,
                                                            SettlementBasis::Attestation,
                                                            SettlementBasis::Reconciliation};
            int expected = 0;
            QStringList counted;
            for (Outcome outcome : {Outcome::Performed, Outcome::Unknown}) {
                for (const auto &resolution : resolutions) {
                    for (const auto &basis : bases) {
                        const QString row =
                                QStringLiteral("%1/%2/%3")
                                        .arg(outcomeId(outcome),
                                             resolution ? resolutionId(*resolution) : QStringLiteral("-"),
                                             basis ? settlementBasisId(*basis) : QStringLiteral("-"));
                        QVERIFY(q.prepare(QStringLiteral("INSERT INTO s VALUES (?, ?, ?)")));
                        q.addBindValue(outcomeId(outcome));
                        q.addBindValue(resolution ? QVariant(resolutionId(*resolution)) : QVariant());
                        q.addBindValue(basis ? QVariant(settlementBasisId(*basis)) : QVariant());
                        QVERIFY2(q.exec(), qPrintable(q.lastError().text()));
                        // A refund performed again is dated by the ledger, and read apart.
                        if (payoutStanding(outcome, resolution, basis).effect
                            && resolution != Resolution::PerformedAgain) {
                            ++expected;
                            counted << row;
                        }
                    }
                }
            }
            QVERIFY(expected > 0);
            const QString condition = countedPayoutCondition(
                    QStringLiteral("outcome"), QStringLiteral("resolution"), QStringLiteral("basis"));
            QVERIFY2(q.exec(QStringLiteral("SELECT outcome || '/' || COALESCE(resolution, '-') || '/' || "
                                           "COALESCE(basis, '-') FROM s WHERE ")
                            + condition + QStringLiteral(" ORDER BY rowid")),
                     qPrintable(q.lastError().text() + u' ' + condition));
            QStringList selected;
            while (q.next())
                selected << q.value(0).toString();
            QCOMPARE(selected, counted);
        }
        db.close();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(QStringLiteral("words"));
    }
};

QTEST_GUILESS_MAIN(TestSqlWords)
#include "tst_sqlwords.moc"

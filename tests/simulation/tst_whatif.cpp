// The what-if run of the March incident, built from the demo data as the console stores it:
// ticket T-20260317-0412 (order SU-88421, $118.00, Ashcombe Furniture at $189.00), whose
// first refund call timed out. As shipped, the model retries and the provider pays twice:
// Ashcombe ends at -$47.00. With the intent key, the lookup finds the first refund: one
// refund, $71.00, no escalation.

#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "simulation/whatif.h"
#include "store/sqlitestore.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;

class TestWhatIf : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void scenarioOfTheIncident();
    void marchIncident_data();
    void marchIncident();

private:
    QTemporaryDir m_folder;
    std::unique_ptr<SqliteStore> m_store;
    std::optional<IncidentScenario> m_scenario;
};

void TestWhatIf::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    Expected<std::unique_ptr<SqliteStore>> opened = SqliteStore::open(m_folder.filePath(QStringLiteral("demo.sqlite")));
    QVERIFY(opened.ok());
    m_store = std::move(*opened);
    TranscriptImporter importer(*m_store, ToolRegistry::builtIn());
    const ImportReport report = importer.importFile(demoDataResource());
    QVERIFY2(report.clean(), qPrintable(report.summary()));
    Expected<std::optional<qint64>> id = m_store->ticketIdByExtId(QStringLiteral("T-20260317-0412"));
    QVERIFY(id.ok() && id->has_value());
    Expected<std::optional<TicketDetail>> detail = m_store->ticket(**id);
    Expected<QList<TranscriptEntry>> transcript = m_store->transcript(**id);
    QVERIFY(detail.ok() && detail->has_value() && transcript.ok());
    Expected<IncidentScenario> scenario = incidentScenario(**detail, *transcript);
    QVERIFY2(scenario.ok(), qPrintable(scenario ? QString() : scenario.message()));
    m_scenario = *scenario;
}

void TestWhatIf::scenarioOfTheIncident()
{
    const SimTicket &ticket = m_scenario->ticket;
    QCOMPARE(ticket.orderId, QStringLiteral("SU-88421"));
    QCOMPARE(ticket.itemId, QStringLiteral("OAK-4S"));
    QCOMPARE(ticket.amountCents, qint64(11800));
    QCOMPARE(ticket.seller.id, QStringLiteral("ashcombe-furniture"));
    QCOMPARE(ticket.seller.openingBalanceCents, qint64(18900));
    QCOMPARE(m_scenario->stalledAttempts, QList<int>{1}); // c3 timed out; c4 went through
}

void TestWhatIf::marchIncident_data()
{
    QTest::addColumn<SimPolicy>("policy");
    QTest::addColumn<int>("refunds");
    QTest::addColumn<qint64>("balanceAfter");
    QTest::addColumn<bool>("escalated");
    QTest::addColumn<QString>("told");
    QTest::newRow("as shipped") << SimPolicy::AsShipped << 2 << qint64(-4700) << false << QStringLiteral("I've refunded $118.00");
    QTest::newRow("intent key") << SimPolicy::IntentKey << 1 << qint64(7100) << false << QStringLiteral("I've refunded $118.00");
}

void TestWhatIf::marchIncident()
{
    QFETCH(SimPolicy, policy);
    QFETCH(int, refunds);
    QFETCH(qint64, balanceAfter);
    QFETCH(bool, escalated);
    QFETCH(QString, told);
    Expected<WhatIfResult> result = runWhatIf(*m_scenario, policy);
    QVERIFY2(result.ok(), qPrintable(result ? QString() : result.message()));
    QVERIFY2(result->problem.isEmpty(), qPrintable(result->problem));
    QCOMPARE(result->refunds.size(), refunds);
    QCOMPARE(result->refundedCents, qint64(11800) * refunds);
    QCOMPARE(result->openingBalanceCents, qint64(18900));
    QCOMPARE(result->balanceAfterCents, balanceAfter);
    QCOMPARE(result->escalation.has_value(), escalated);
    QVERIFY2(result->toldCustomer.contains(told), qPrintable(result->toldCustomer));
    // The events a pane lists: the first refund call at the incident's own moment, a timeout.
    bool timedOut = false;
    qint64 firstRefundAt = 0;
    for (const SimulatedEvent &event : result->events) {
        if (event.kind == SimulatedEvent::Kind::ToolCall && event.line.value("tool", std::string()) == "issue_refund" && !firstRefundAt)
            firstRefundAt = event.at;
        if (event.kind == SimulatedEvent::Kind::Http && event.line.value("error", std::string()) == "timeout")
            timedOut = true;
    }
    QVERIFY(timedOut);
    QCOMPARE(firstRefundAt, m_scenario->ticket.firstRefundAt);
}

QTEST_GUILESS_MAIN(TestWhatIf)
#include "tst_whatif.moc"

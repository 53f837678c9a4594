// The what-if run of the March incident, built from the demo data as the console stores it:
// ticket T-20260317-0412 (order SU-88421, $118.00, Ashcombe Furniture at $189.00), whose
// first refund call timed out. As shipped, the model retries and the provider pays twice:
// Ashcombe ends at -$47.00. With the intent key, the lookup finds the first refund: one
// refund, $71.00, no escalation. Two more demo tickets: T-20260325-0141, whose first two
// refund calls both got no answer (every such attempt stalls, in order), and T-20260320-0114,
// whose first refund call the provider refused (the refund run again is the one after it).

#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "simulation/whatif.h"
#include "simulation/whatifcomparison.h"
#include "store/storefactory.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
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
    void twoUnansweredAttempts_data();
    void twoUnansweredAttempts();
    void refusedCallIsNotTheRefund_data();
    void refusedCallIsNotTheRefund();
    void noRefundToMakeIsRefused();
    void comparisonModel();

private:
    struct StoredTicket
    {
        TicketDetail detail;
        QList<TranscriptEntry> transcript;
    };
    std::optional<StoredTicket> stored(const QString &extId);

    QTemporaryDir m_folder;
    std::unique_ptr<Store> m_store;
    std::optional<IncidentScenario> m_scenario;
};

void TestWhatIf::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    Expected<std::unique_ptr<Store>> opened = openStore(m_folder.filePath(QStringLiteral("demo.sqlite")));
    QVERIFY(opened.ok());
    m_store = std::move(*opened);
    TranscriptImporter importer(*m_store, ToolRegistry::builtIn());
    const ImportReport report = importer.importFile(demoDataResource());
    QVERIFY2(report.clean(), qPrintable(report.summary()));
    const std::optional<StoredTicket> ticket = stored(QStringLiteral("T-20260317-0412"));
    QVERIFY(ticket);
    Expected<IncidentScenario> scenario = incidentScenario(ticket->detail, ticket->transcript);
    QVERIFY2(scenario.ok(), qPrintable(scenario ? QString() : scenario.message()));
    m_scenario = *scenario;
}

std::optional<TestWhatIf::StoredTicket> TestWhatIf::stored(const QString &extId)
{
    Expected<std::optional<qint64>> id = m_store->ticketIdByExtId(extId);
    if (!id.ok() || !id->has_value())
        return std::nullopt;
    Expected<std::optional<TicketDetail>> detail = m_store->ticket(**id);
    Expected<QList<TranscriptEntry>> transcript = m_store->transcript(**id);
    if (!detail.ok() || !detail->has_value() || !transcript.ok())
        return std::nullopt;
    return StoredTicket{**detail, *transcript};
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
    QTest::newRow("as shipped") << SimPolicy::AsShipped << 2 << qint64(-4700) << false
                                << QStringLiteral("I've refunded $118.00");
    QTest::newRow("intent key") << SimPolicy::IntentKey << 1 << qint64(7100) << false
                                << QStringLiteral("I've refunded $118.00");
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
        if (event.kind == SimulatedEvent::Kind::ToolCall
            && event.line.value("tool", std::string()) == "issue_refund" && !firstRefundAt)
            firstRefundAt = event.at;
        if (event.kind == SimulatedEvent::Kind::Http && event.line.value("error", std::string()) == "timeout")
            timedOut = true;
    }
    QVERIFY(timedOut);
    QCOMPARE(firstRefundAt, m_scenario->ticket.firstRefundAt);
}

void TestWhatIf::twoUnansweredAttempts_data()
{
    QTest::addColumn<SimPolicy>("policy");
    QTest::addColumn<int>("refunds");
    // Linden Home Textiles at $413.00; the rug's refund is $96.50.
    QTest::newRow("as shipped") << SimPolicy::AsShipped << 3;
    QTest::newRow("intent key") << SimPolicy::IntentKey << 1;
}

void TestWhatIf::twoUnansweredAttempts()
{
    QFETCH(SimPolicy, policy);
    QFETCH(int, refunds);
    const std::optional<StoredTicket> ticket = stored(QStringLiteral("T-20260325-0141"));
    QVERIFY(ticket);
    Expected<IncidentScenario> scenario = incidentScenario(ticket->detail, ticket->transcript);
    QVERIFY2(scenario.ok(), qPrintable(scenario ? QString() : scenario.message()));
    // c3 timed out and c4 met a 504: both stall, in order; c5 went through.
    QCOMPARE(scenario->stalledAttempts, (QList<int>{1, 2}));
    QVERIFY2(scenario->faultNote.contains(QStringLiteral("c3"))
                     && scenario->faultNote.contains(QStringLiteral("c4")),
             qPrintable(scenario->faultNote));
    QCOMPARE(scenario->ticket.amountCents, qint64(9650));

    Expected<WhatIfResult> result = runWhatIf(*scenario, policy);
    QVERIFY2(result.ok(), qPrintable(result ? QString() : result.message()));
    QVERIFY2(result->problem.isEmpty(), qPrintable(result->problem));
    QCOMPARE(result->refunds.size(), refunds);
    QCOMPARE(result->openingBalanceCents, qint64(41300));
    QCOMPARE(result->balanceAfterCents, qint64(41300) - qint64(9650) * refunds);
    int timeouts = 0;
    for (const SimulatedEvent &event : result->events) {
        if (event.kind == SimulatedEvent::Kind::Http && event.line.value("method", std::string()) == "POST"
            && event.line.value("error", std::string()) == "timeout")
            ++timeouts;
    }
    // As shipped, both stalled attempts time out; the intent key's lookup after the first finds
    // the refund, so it never makes a second.
    QCOMPARE(timeouts, policy == SimPolicy::AsShipped ? 2 : 1);
}

void TestWhatIf::refusedCallIsNotTheRefund_data()
{
    QTest::addColumn<SimPolicy>("policy");
    QTest::newRow("as shipped") << SimPolicy::AsShipped;
    QTest::newRow("intent key") << SimPolicy::IntentKey;
}

void TestWhatIf::refusedCallIsNotTheRefund()
{
    QFETCH(SimPolicy, policy);
    const std::optional<StoredTicket> ticket = stored(QStringLiteral("T-20260320-0114"));
    QVERIFY(ticket);
    Expected<IncidentScenario> scenario = incidentScenario(ticket->detail, ticket->transcript);
    QVERIFY2(scenario.ok(), qPrintable(scenario ? QString() : scenario.message()));
    // c3 asked for -1800 and was refused; c4's $18.00 is the refund.
    QCOMPARE(scenario->ticket.amountCents, qint64(1800));
    QVERIFY(scenario->stalledAttempts.isEmpty());
    QVERIFY2(scenario->faultNote.contains(QStringLiteral("c4"))
                     && scenario->faultNote.contains(QStringLiteral("c3")),
             qPrintable(scenario->faultNote));
    for (const TranscriptEntry &entry : ticket->transcript) {
        if (entry.isToolCall && entry.call.callExtId == u"c4")
            QCOMPARE(scenario->ticket.firstRefundAt, entry.call.calledAt);
    }

    Expected<WhatIfResult> result = runWhatIf(*scenario, policy);
    QVERIFY2(result.ok(), qPrintable(result ? QString() : result.message()));
    QVERIFY2(result->problem.isEmpty(), qPrintable(result->problem));
    QCOMPARE(result->refunds.size(), 1);
    QCOMPARE(result->refundedCents, qint64(1800));
    QVERIFY2(result->toldCustomer.contains(QStringLiteral("$18.00")), qPrintable(result->toldCustomer));
    QVERIFY2(!result->toldCustomer.contains(QStringLiteral("-$18.00")), qPrintable(result->toldCustomer));
}

void TestWhatIf::noRefundToMakeIsRefused()
{
    // T-20260320-0114 without its second call: only the refused one is left.
    std::optional<StoredTicket> ticket = stored(QStringLiteral("T-20260320-0114"));
    QVERIFY(ticket);
    ticket->transcript.removeIf(
            [](const TranscriptEntry &entry) { return entry.isToolCall && entry.call.callExtId == u"c4"; });
    Expected<IncidentScenario> scenario = incidentScenario(ticket->detail, ticket->transcript);
    QVERIFY(!scenario.ok());
    QVERIFY2(scenario.message().contains(QStringLiteral("T-20260320-0114"))
                     && scenario.message().contains(QStringLiteral("positive amount")),
             qPrintable(scenario.message()));
}

// The side-by-side table the What-if window shows, watched by the model tester from empty,
// through a ticket chosen, to both runs done.
void TestWhatIf::comparisonModel()
{
    WhatIfComparison comparison(*m_store);
    QAbstractItemModelTester tester(&comparison, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const qint64 id = m_store->ticketIdByExtId(QStringLiteral("T-20260317-0412"))->value_or(0);
    QVERIFY(comparison.setTicket(id).ok());
    QCOMPARE(comparison.rowCount(), int(WhatIfComparison::RowCount));
    QCOMPARE(comparison.columnCount(), int(WhatIfComparison::ColumnCount));
    QSignalSpy finished(&comparison, &WhatIfComparison::finished);
    comparison.run();
    QVERIFY(finished.wait(60000));
    const QAbstractItemModel &model = comparison;
    const auto cell = [&model](int row, int column) { return model.index(row, column).data().toString(); };
    QVERIFY2(cell(WhatIfComparison::RefundsRow, WhatIfComparison::AsShippedColumn)
                     .startsWith(QStringLiteral("2 refunds, $236.00")),
             qPrintable(cell(WhatIfComparison::RefundsRow, WhatIfComparison::AsShippedColumn)));
    QVERIFY(cell(WhatIfComparison::BalanceRow, WhatIfComparison::IntentKeyColumn)
                    .startsWith(QStringLiteral("$71.00")));
    // The other ticket, chosen after a run: the tester sees the reset.
    const qint64 other = m_store->ticketIdByExtId(QStringLiteral("T-20260320-0114"))->value_or(0);
    QVERIFY(comparison.setTicket(other).ok());
    QCOMPARE(comparison.rowCount(), int(WhatIfComparison::RowCount));
}

QTEST_GUILESS_MAIN(TestWhatIf)
#include "tst_whatif.moc"

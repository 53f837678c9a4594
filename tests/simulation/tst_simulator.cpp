// The simulator end to end against the real sandbox on 127.0.0.1: the same seed gives the
// same numbers and the same transcript bytes, another seed other ones; over 10,000 tickets
// with accept-then-stall faults the tool as shipped pays out duplicates and the intent key
// never does, escalating exactly the writes that really ended unknown; and what --out
// writes imports without a rejected line, http and provider lines included.

#include "import/transcriptimporter.h"
#include "simulation/simulatedtranscript.h"
#include "simulation/simulationoptions.h"
#include "simulation/simulationsummary.h"
#include "store/storefactory.h"

#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;

namespace {

SimulationOptions optionsFor(SimPolicy policy, int tickets, double rate, quint32 seed, bool events)
{
    SimulationOptions options;
    options.policy = policy;
    options.tickets = tickets;
    options.faultRate = rate;
    options.seed = seed;
    options.keepEvents = events;
    return options;
}

SimulationResult run(const SimulationOptions &options)
{
    Expected<SimulationResult> result = runSimulation(simulationSetup(options));
    if (!result)
        qFatal("the simulation failed: %s", qPrintable(result.message()));
    return *result;
}

// Every number, so two summaries compare as a whole.
QJsonObject numbers(const SimulationSummary &summary)
{
    return summaryJson(summary);
}

} // namespace

class TestSimulator : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void sameSeedSameNumbersAndBytes_data();
    void sameSeedSameNumbersAndBytes();
    void anotherSeedOtherNumbers();
    void tenThousandTickets();
    void countingOnlyKeepsNoEvents();
    void transcriptsImportWithTraces_data();
    void transcriptsImportWithTraces();
};

void TestSimulator::sameSeedSameNumbersAndBytes_data()
{
    QTest::addColumn<SimPolicy>("policy");
    QTest::newRow("as shipped") << SimPolicy::AsShipped;
    QTest::newRow("intent key") << SimPolicy::IntentKey;
}

void TestSimulator::sameSeedSameNumbersAndBytes()
{
    QFETCH(SimPolicy, policy);
    SimulationOptions options = optionsFor(policy, 200, 0.2, 42, true);
    const SimulationResult first = run(options);
    options.concurrency = 13; // another interleaving: nothing may depend on it
    const SimulationResult second = run(options);
    const SimulationSummary a = summarize(first);
    const SimulationSummary b = summarize(second);
    QVERIFY2(a.problems == 0, qPrintable(a.firstProblem));
    QCOMPARE(numbers(a), numbers(b));
    QVERIFY(std::any_of(first.tickets.cbegin(), first.tickets.cend(), [](const TicketOutcome &ticket) {
        return ticket.firstPostStalled;
    })); // faults struck
    const QByteArray bytes = nativeTranscript(first.tickets);
    QVERIFY(!bytes.isEmpty());
    QCOMPARE(nativeTranscript(second.tickets), bytes);
}

void TestSimulator::anotherSeedOtherNumbers()
{
    const SimulationResult one = run(optionsFor(SimPolicy::AsShipped, 200, 0.2, 42, true));
    const SimulationResult other = run(optionsFor(SimPolicy::AsShipped, 200, 0.2, 43, true));
    QVERIFY(numbers(summarize(one)) != numbers(summarize(other)));
    QVERIFY(nativeTranscript(one.tickets) != nativeTranscript(other.tickets));
}

void TestSimulator::tenThousandTickets()
{
    constexpr int tickets = 10000;
    constexpr double rate = 0.05;
    constexpr quint32 seed = 20260317;
    QElapsedTimer timer;
    timer.start();
    const SimulationResult shipped = run(optionsFor(SimPolicy::AsShipped, tickets, rate, seed, false));
    const qint64 shippedMs = timer.restart();
    const SimulationResult fixed = run(optionsFor(SimPolicy::IntentKey, tickets, rate, seed, false));
    const qint64 fixedMs = timer.elapsed();
    qInfo("10,000 tickets: as shipped %lld ms, intent key %lld ms", shippedMs, fixedMs);

    const SimulationSummary asShipped = summarize(shipped);
    QVERIFY2(asShipped.problems == 0, qPrintable(asShipped.firstProblem));
    QCOMPARE(asShipped.tickets, tickets);
    QVERIFY(asShipped.duplicateRefunds > 0);
    QVERIFY(asShipped.moneyAtRiskCents > 0);
    QVERIFY(asShipped.sellersLeftNegative > 0);
    QCOMPARE(asShipped.unknownsEscalated, 0); // as shipped, nothing ever says "unknown"
    qInfo("as shipped: %s", qPrintable(summaryText(asShipped).replace(u'\n', QStringLiteral("; "))));

    const SimulationSummary intentKey = summarize(fixed);
    qInfo("intent key: %s", qPrintable(summaryText(intentKey).replace(u'\n', QStringLiteral("; "))));
    QVERIFY2(intentKey.problems == 0, qPrintable(intentKey.firstProblem));
    QCOMPARE(intentKey.duplicateRefunds, 0);
    QCOMPARE(intentKey.moneyAtRiskCents, 0);
    QCOMPARE(intentKey.sellersLeftNegative, 0);
    QCOMPARE(intentKey.retriesAfterUnknown, 0);
    // The writes that really ended unknown: the POST stalled and the reads were down, so no
    // lookup could tell. Counted from the fault schedule, not from the tool's answers.
    int reallyUnknown = 0;
    for (const TicketOutcome &ticket : fixed.tickets) {
        const bool unknown = ticket.firstPostStalled && ticket.readsDown;
        reallyUnknown += unknown ? 1 : 0;
        QCOMPARE(ticket.unknownAnswers > 0, unknown);
        if (unknown) {
            QVERIFY2(ticket.escalation.has_value(), qPrintable(ticket.ticketId));
            QCOMPARE(ticket.refundCalls, 1); // never retried
        }
        QCOMPARE(ticket.refunds.size(), 1); // a stalled refund is committed too: one each, always
    }
    QVERIFY(reallyUnknown > 0);
    QCOMPARE(intentKey.unknownsEscalated, reallyUnknown);
    QCOMPARE(intentKey.escalations, reallyUnknown);
    QCOMPARE(intentKey.refundsPerformed, qint64(tickets));
}

void TestSimulator::countingOnlyKeepsNoEvents()
{
    // Without events a finished ticket's run is dropped at once; the numbers and the
    // provider's refunds, oldest first, are the same as with them.
    const SimulationResult counted = run(optionsFor(SimPolicy::AsShipped, 200, 0.3, 5, false));
    const SimulationResult full = run(optionsFor(SimPolicy::AsShipped, 200, 0.3, 5, true));
    QCOMPARE(numbers(summarize(counted)), numbers(summarize(full)));
    QVERIFY(summarize(counted).duplicateRefunds > 0);
    QCOMPARE(counted.tickets.size(), full.tickets.size());
    for (qsizetype i = 0; i < counted.tickets.size(); ++i) {
        const TicketOutcome &a = counted.tickets.at(i);
        const TicketOutcome &b = full.tickets.at(i);
        QVERIFY(a.events.isEmpty());
        QVERIFY(!b.events.isEmpty());
        QCOMPARE(a.refunds.size(), b.refunds.size());
        for (qsizetype r = 0; r < a.refunds.size(); ++r) {
            QCOMPARE(a.refunds.at(r).id, b.refunds.at(r).id);
            QCOMPARE(a.refunds.at(r).key, b.refunds.at(r).key);
        }
    }
}

void TestSimulator::transcriptsImportWithTraces_data()
{
    sameSeedSameNumbersAndBytes_data();
}

void TestSimulator::transcriptsImportWithTraces()
{
    QFETCH(SimPolicy, policy);
    const SimulationResult result = run(optionsFor(policy, 60, 0.4, 7, true));
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("simulated.jsonl"));
    QVERIFY(writeNativeTranscript(path, result.tickets).ok());

    Expected<std::unique_ptr<Store>> store = openStore(folder.filePath(QStringLiteral("verity.sqlite")));
    QVERIFY2(store.ok(), qPrintable(store ? QString() : store.message()));
    TranscriptImporter importer(**store, ToolRegistry::builtIn());
    const ImportReport report = importer.importFile(path);
    QVERIFY2(report.clean(), qPrintable(report.rejectionMessages().join(u'\n') + report.fatal));
    QCOMPARE(report.ticketsOpened, qint64(60));

    int stalled = 0;
    for (const TicketOutcome &ticket : result.tickets) {
        if (!ticket.firstPostStalled)
            continue;
        ++stalled;
        Expected<std::optional<qint64>> id = (*store)->ticketIdByExtId(ticket.ticketId);
        QVERIFY(id.ok() && id->has_value());
        Expected<QList<TraceEvent>> traces = (*store)->traceEvents(**id);
        QVERIFY(traces.ok());
        int http = 0, provider = 0, timeouts = 0;
        for (const TraceEvent &event : *traces) {
            if (event.kind == TraceKind::Http) {
                ++http;
                timeouts += event.http.error == u"timeout" ? 1 : 0;
            } else {
                ++provider;
            }
        }
        QVERIFY2(http >= 1 && timeouts >= 1, qPrintable(ticket.ticketId));
        QCOMPARE(provider, int(ticket.refunds.size()));
        // What the console reads from the stored transcript agrees with the provider.
        Expected<QList<TranscriptEntry>> entries = (*store)->transcript(**id);
        QVERIFY(entries.ok());
        int refundCalls = 0;
        for (const TranscriptEntry &entry : *entries)
            refundCalls += entry.isToolCall && entry.call.tool == u"issue_refund" ? 1 : 0;
        QCOMPARE(refundCalls, ticket.refundCalls);
    }
    QVERIFY(stalled > 0);
}

QTEST_GUILESS_MAIN(TestSimulator)
#include "tst_simulator.moc"

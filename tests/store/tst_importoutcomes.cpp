// What the importer makes of write results: structured and unstructured outcomes, a write
// with no result, a result that arrives in a later import and settles an escalation, and
// batch boundaries (a result committed in a later batch than its call) that must not change
// the final database.

#include "storetestsupport.h"

#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace storetest;

namespace {

const QString good = QStringLiteral("T-GOOD");

} // namespace

class TestImportOutcomes : public QObject
{
    Q_OBJECT

private slots:
    void batchSizeDoesNotChangeTheResult_data();
    void batchSizeDoesNotChangeTheResult();
    void writeOutcome_data();
    void writeOutcome();
    void laterResultSettlesEscalation_data();
    void laterResultSettlesEscalation();
    void laterResultKeepsAnEscalationSomeoneActedOn_data();
    void laterResultKeepsAnEscalationSomeoneActedOn();

private:
    QTemporaryDir m_dir;
};

void TestImportOutcomes::batchSizeDoesNotChangeTheResult_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("batchSize");
    // 30 tickets whose results all come at the end of the file, long after their calls.
    QList<QByteArray> calls, results;
    const QByteArray kinds[] = {R"({"refund_id":"re","status":"queued"})",
                                R"({"error":"upstream timeout"})",
                                R"({"error":"validation failed"})",
                                R"({"outcome":"already_performed"})",
                                R"("504 Gateway Timeout")",
                                QByteArray()};
    for (int i = 0; i < 30; ++i) {
        const QString ticket = QStringLiteral("T-%1").arg(i, 3, 10, QLatin1Char('0'));
        calls << ticketOpened(ticket)
              << refundCall(ticket, QStringLiteral("2026-03-17T10:01:00Z"), QStringLiteral("c1"));
        if (i % 4 == 0) // a retry with the same intent
            calls << refundCall(ticket, QStringLiteral("2026-03-17T10:02:00Z"), QStringLiteral("c2"));
        const QByteArray &kind = kinds[i % 6];
        if (!kind.isNull())
            results << toolResult(ticket, QStringLiteral("2026-03-17T11:00:00Z"), QStringLiteral("c1"), kind);
        if (i % 4 == 0)
            results << toolResult(ticket, QStringLiteral("2026-03-17T11:00:01Z"), QStringLiteral("c2"),
                                  R"({"refund_id":"re2"})");
    }
    const QString late = m_dir.filePath(QStringLiteral("late-results.jsonl"));
    writeLines(late, calls + results);
    for (int size : {1, 2, 7}) {
        QTest::addRow("demo, batch %d", size) << demoDataResource() << size;
        QTest::addRow("late results, batch %d", size) << late << size;
    }
}

void TestImportOutcomes::batchSizeDoesNotChangeTheResult()
{
    QFETCH(QString, file);
    QFETCH(int, batchSize);
    const QString tag =
            QString::fromLatin1(QTest::currentDataTag()).replace(QStringLiteral(", "), QStringLiteral("-"));
    std::unique_ptr<SqliteStore> small =
            openStore(m_dir.filePath(QStringLiteral("small-%1.sqlite").arg(tag)));
    std::unique_ptr<SqliteStore> large =
            openStore(m_dir.filePath(QStringLiteral("large-%1.sqlite").arg(tag)));
    QVERIFY(small && large);
    const ImportReport smallReport = importFile(*small, file, batchSize);
    const ImportReport largeReport = importFile(*large, file, 2000);
    QVERIFY2(smallReport.clean(), qPrintable(describe(smallReport)));
    QVERIFY2(largeReport.clean(), qPrintable(describe(largeReport)));
    QCOMPARE(smallReport.eventsImported, largeReport.eventsImported);
    RawSqlite smallFile(small->location());
    RawSqlite largeFile(large->location());
    QCOMPARE(consistencyViolations(smallFile.db()), QStringList());
    QCOMPARE(ticketSummaries(smallFile.db()), ticketSummaries(largeFile.db()));
    QCOMPARE(toolCallDump(smallFile.db()), toolCallDump(largeFile.db()));
    QCOMPARE(escalationDump(smallFile.db()), escalationDump(largeFile.db()));
}

void TestImportOutcomes::writeOutcome_data()
{
    QTest::addColumn<QByteArray>("result"); // null: the call never got a result
    QTest::addColumn<QString>("outcome");
    QTest::newRow("structured performed")
            << QByteArray(R"({"outcome":"performed","refund_id":"re_1"})") << QStringLiteral("performed");
    QTest::newRow("structured already performed")
            << QByteArray(R"({"outcome":"already_performed"})") << QStringLiteral("already_performed");
    QTest::newRow("structured not performed")
            << QByteArray(R"({"outcome":"not_performed"})") << QStringLiteral("not_performed");
    QTest::newRow("structured unknown")
            << QByteArray(R"({"outcome":"unknown"})") << QStringLiteral("unknown");
    QTest::newRow("unstructured success")
            << QByteArray(R"({"refund_id":"re_1","status":"queued"})") << QStringLiteral("performed");
    QTest::newRow("unstructured timeout")
            << QByteArray(R"({"error":"refund failed: upstream timeout"})") << QStringLiteral("unknown");
    QTest::newRow("unstructured 503 text")
            << QByteArray(R"("503 Service Unavailable")") << QStringLiteral("unknown");
    QTest::newRow("unstructured refusal")
            << QByteArray(R"({"error":"amount exceeds the order total"})") << QStringLiteral("not_performed");
    QTest::newRow("no result") << QByteArray() << QStringLiteral("unknown");
}

void TestImportOutcomes::writeOutcome()
{
    QFETCH(QByteArray, result);
    QFETCH(QString, outcome);
    const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-');
    const QString path = m_dir.filePath(QStringLiteral("outcome-%1.jsonl").arg(tag));
    QList<QByteArray> lines{ticketOpened(good),
                            refundCall(good, QStringLiteral("2026-03-17T10:00:02Z"), QStringLiteral("c1"))};
    if (!result.isNull())
        lines << toolResult(good, QStringLiteral("2026-03-17T10:00:09Z"), QStringLiteral("c1"), result);
    QVERIFY(writeLines(path, lines));
    std::unique_ptr<SqliteStore> store =
            openStore(m_dir.filePath(QStringLiteral("outcome-%1.sqlite").arg(tag)));
    QVERIFY(store);
    const ImportReport report = importFile(*store, path);
    QVERIFY2(report.clean(), qPrintable(describe(report)));

    const bool unknown = outcome == u"unknown";
    const qint64 ticketId = **store->ticketIdByExtId(good);
    const QList<TranscriptEntry> transcript = *store->transcript(ticketId);
    QCOMPARE(transcript.size(), 1);
    const ToolCallRow &call = transcript.first().call;
    QVERIFY(call.outcome.has_value());
    QCOMPARE(outcomeId(*call.outcome), outcome);
    QVERIFY(!call.outcomeReason.isEmpty());
    QCOMPARE(call.hasResult, !result.isNull());
    QCOMPARE(call.escalationId.has_value(), unknown);
    QCOMPARE(*store->countOpenEscalations(), unknown ? 1 : 0);
    const TicketDetail detail = **store->ticket(ticketId);
    QCOMPARE(detail.row.hasUnknown, unknown);
    QCOMPARE(detail.row.needsAttention, unknown);
    QCOMPARE(detail.row.writeCount, 1);
    QCOMPARE(outcomeId(*detail.row.worstOutcome), outcome);
    if (unknown) {
        const EscalationRow escalation = store->openEscalations(0, 10)->first();
        QCOMPARE(escalation.callExtId, QStringLiteral("c1"));
        QCOMPARE(escalation.ticketExtId, good);
        QCOMPARE(escalation.amountCents, std::optional<qint64>(4200));
        QCOMPARE(escalation.currency, QStringLiteral("USD"));
    }
    QCOMPARE(consistencyViolations(RawSqlite(store->location()).db()), QStringList());
}

void TestImportOutcomes::laterResultSettlesEscalation_data()
{
    QTest::addColumn<QByteArray>("result");
    QTest::addColumn<int>("openEscalations");
    QTest::newRow("performed") << QByteArray(R"({"refund_id":"re_1"})") << 0;
    QTest::newRow("not performed") << QByteArray(R"({"error":"declined by issuer"})") << 0;
    QTest::newRow("already performed") << QByteArray(R"({"outcome":"already_performed"})") << 0;
    QTest::newRow("still unknown") << QByteArray(R"({"error":"gateway timeout"})") << 1;
}

void TestImportOutcomes::laterResultSettlesEscalation()
{
    QFETCH(QByteArray, result);
    QFETCH(int, openEscalations);
    const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-');
    const QString calls = m_dir.filePath(QStringLiteral("later-calls-%1.jsonl").arg(tag));
    const QString results = m_dir.filePath(QStringLiteral("later-results-%1.jsonl").arg(tag));
    QVERIFY(writeLines(calls,
                       {ticketOpened(good),
                        refundCall(good, QStringLiteral("2026-03-17T10:00:02Z"), QStringLiteral("c1"))}));
    QVERIFY(writeLines(
            results,
            {toolResult(good, QStringLiteral("2026-03-17T12:00:00Z"), QStringLiteral("c1"), result)}));
    std::unique_ptr<SqliteStore> store =
            openStore(m_dir.filePath(QStringLiteral("later-%1.sqlite").arg(tag)));
    QVERIFY(store);
    QVERIFY(importFile(*store, calls).clean());
    QCOMPARE(*store->countOpenEscalations(), 1);
    QVERIFY(importFile(*store, results).clean());
    QCOMPARE(*store->countOpenEscalations(), openEscalations);
    RawSqlite file(store->location());
    QCOMPARE(scalar(file.db(), QStringLiteral("SELECT count(*) FROM escalations")), openEscalations);
    const TicketDetail detail = **store->ticket(**store->ticketIdByExtId(good));
    QCOMPARE(detail.row.hasUnknown, openEscalations > 0);
    QCOMPARE(detail.row.needsAttention, openEscalations > 0);
    QCOMPARE(consistencyViolations(file.db()), QStringList());
}

void TestImportOutcomes::laterResultKeepsAnEscalationSomeoneActedOn_data()
{
    QTest::addColumn<QString>("act");
    QTest::newRow("claimed") << QStringLiteral("claim");
    QTest::newRow("noted") << QStringLiteral("note");
    QTest::newRow("claimed and let go") << QStringLiteral("release");
}

// A result that comes after a person took the escalation up must not take it, or its claim
// and notes, from under them: it stays open, under its own id, for that person to settle.
void TestImportOutcomes::laterResultKeepsAnEscalationSomeoneActedOn()
{
    QFETCH(QString, act);
    const QString calls = m_dir.filePath(QStringLiteral("acted-calls-%1.jsonl").arg(act));
    const QString results = m_dir.filePath(QStringLiteral("acted-results-%1.jsonl").arg(act));
    QVERIFY(writeLines(calls,
                       {ticketOpened(good),
                        refundCall(good, QStringLiteral("2026-03-17T10:00:02Z"), QStringLiteral("c1"))}));
    QVERIFY(writeLines(results,
                       {toolResult(good, QStringLiteral("2026-03-17T12:00:00Z"), QStringLiteral("c1"),
                                   R"({"refund_id":"re_1"})")}));
    std::unique_ptr<SqliteStore> store =
            openStore(m_dir.filePath(QStringLiteral("acted-%1.sqlite").arg(act)));
    QVERIFY(store);
    QVERIFY(importFile(*store, calls).clean());
    const QList<EscalationRow> open = *store->openEscalations(0, 10);
    QCOMPARE(open.size(), 1);
    const qint64 escalation = open.first().id;
    if (act == QLatin1String("note")) {
        QVERIFY(store->noteEscalation(escalation, QStringLiteral("asked the provider")));
    } else {
        QVERIFY(store->claimEscalation(escalation, QStringLiteral("dana"), 1000, 4'000'000'000'000)->taken);
        if (act == QLatin1String("release"))
            QVERIFY(*store->releaseEscalationClaim(escalation, QStringLiteral("dana")));
    }
    QVERIFY(importFile(*store, results).clean());
    const QList<EscalationRow> after = *store->openEscalations(0, 10);
    if (act == QLatin1String("release")) {
        // Given back before anything was recorded: nothing of anyone's work is lost.
        QCOMPARE(after.size(), 0);
        return;
    }
    QCOMPARE(after.size(), 1);
    QCOMPARE(after.first().id, escalation);
    QCOMPARE(consistencyViolations(RawSqlite(store->location()).db()), QStringList());
}

QTEST_GUILESS_MAIN(TestImportOutcomes)
#include "tst_importoutcomes.moc"

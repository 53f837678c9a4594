// The native importer against real SQLite files: the demo data, importing twice, every kind
// of bad line (reported by line number, the rest still imported) and the `verity import`
// command line. Outcomes, escalations and batch boundaries: tst_importoutcomes.

#include "storetestsupport.h"
#include "support/filedigest.h"
#include "support/verityprocess.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace storetest;

namespace {

const QString good = QStringLiteral("T-GOOD");

// The file every bad-line case is put in: the bad line is line 5, between good lines.
QList<QByteArray> fileAround(const QByteArray &badLine)
{
    QList<QByteArray> lines{
            ticketOpened(good),
            message(good, QStringLiteral("2026-03-17T10:00:01Z"), QStringLiteral("customer"),
                    QStringLiteral("before the bad line")),
            refundCall(good, QStringLiteral("2026-03-17T10:00:02Z"), QStringLiteral("c1")),
            toolResult(good, QStringLiteral("2026-03-17T10:00:03Z"), QStringLiteral("c1"),
                       R"({"refund_id":"re_1","status":"queued"})"),
            message(good, QStringLiteral("2026-03-17T10:00:05Z"), QStringLiteral("agent"),
                    QStringLiteral("after the bad line")),
            refundCall(good, QStringLiteral("2026-03-17T10:00:06Z"), QStringLiteral("c2"), 100),
            toolResult(good, QStringLiteral("2026-03-17T10:00:07Z"), QStringLiteral("c2"),
                       R"({"outcome":"performed"})"),
            reply(good, QStringLiteral("2026-03-17T10:00:08Z"), QStringLiteral("Refunded."))};
    if (!badLine.isNull())
        lines.insert(4, badLine);
    return lines;
}

QStringList outcomeDump(const QSqlDatabase &db)
{
    return ticketSummaries(db) + toolCallDump(db) + escalationDump(db) + messageDump(db);
}

} // namespace

class TestImport : public QObject
{
    Q_OBJECT

private slots:
    void demo_data();
    void demo();
    void importTwiceChangesNothing_data();
    void importTwiceChangesNothing();
    void badLine_data();
    void badLine();
    void aRefusedOpeningIsNamedByItsTicketsLaterLines();
    void optionalFieldsAndLooseFormatting();
    void providerEventWithoutCall();
    void ticketIdInAnotherCase();
    void badRefundAmountKeepsTheCallWithoutMoney_data();
    void badRefundAmountKeepsTheCallWithoutMoney();
    void commandLine_data();
    void commandLine();

private:
    QTemporaryDir m_dir;
};

void TestImport::demo_data()
{
    QTest::addColumn<TicketFilter>("filter");
    QTest::addColumn<QString>("independentCount"); // the filter's meaning, in SQL over the calls
    QTest::newRow("all") << TicketFilter::All << QStringLiteral("SELECT count(*) FROM tickets");
    QTest::newRow("unknown")
            << TicketFilter::Unknown
            << QStringLiteral("SELECT count(DISTINCT ticket_id) FROM tool_calls WHERE outcome = 'unknown'");
    QTest::newRow("repeated intent")
            << TicketFilter::RepeatedIntent
            << QStringLiteral("SELECT count(DISTINCT ticket_id) FROM (SELECT ticket_id FROM tool_calls WHERE "
                              "intent_key "
                              "IS NOT NULL GROUP BY ticket_id, intent_key HAVING count(*) > 1)");
    QTest::newRow("needs attention")
            << TicketFilter::NeedsAttention
            << QStringLiteral(
                       "SELECT count(*) FROM tickets t WHERE EXISTS (SELECT 1 FROM tool_calls c WHERE "
                       "c.ticket_id = "
                       "t.id AND (c.outcome = 'unknown' OR c.tool_class = 'unclassified' OR (c.tool_class "
                       "LIKE "
                       "'write%' AND c.intent_key IS NULL))) OR EXISTS (SELECT 1 FROM tool_calls c WHERE "
                       "c.ticket_id = t.id AND c.outcome = 'performed' AND c.intent_key IS NOT NULL GROUP BY "
                       "c.intent_key HAVING count(*) > 1)");
}

void TestImport::demo()
{
    QFETCH(TicketFilter, filter);
    QFETCH(QString, independentCount);
    std::unique_ptr<SqliteStore> store =
            openStore(m_dir.filePath(QStringLiteral("demo-%1.sqlite").arg(int(filter))));
    QVERIFY(store);
    const ImportReport report = importFile(*store, demoDataResource());
    QVERIFY2(report.clean(), qPrintable(describe(report)));
    QCOMPARE(report.linesRead, 570);
    QCOMPARE(report.eventsImported, 570);
    QCOMPARE(report.eventsUnchanged, 0);
    QCOMPARE(report.ticketsOpened, 46);
    QCOMPARE(report.rejected.size(), 0);

    RawSqlite raw(store->location());
    QSqlDatabase &db = raw.db();
    QCOMPARE(*store->countTickets({}), 46);
    QCOMPARE(*store->countOpenEscalations(), 15);
    const qint64 expected = scalar(db, independentCount);
    QVERIFY(expected > 0);
    TicketQuery query;
    query.filter = filter;
    QCOMPARE(*store->countTickets(query), expected);
    QCOMPARE(store->tickets(query, 0, 1000)->size(), expected);
    QCOMPARE(consistencyViolations(db), QStringList());

    QCOMPARE(rows(db,
                  QStringLiteral(
                          "SELECT c.call_ext_id, c.outcome, c.repeated, c.intent_key = (SELECT intent_key "
                          "FROM tool_calls WHERE ticket_id = t.id AND call_ext_id = 'c3') FROM tool_calls c "
                          "JOIN tickets t ON t.id = c.ticket_id WHERE t.ext_id = 'T-20260317-0412' AND "
                          "c.tool = 'issue_refund' ORDER BY c.seq")),
             (QStringList{QStringLiteral("c3|unknown|1|1"), QStringLiteral("c4|performed|1|1")}));

    const QByteArray sha = test::fileSha256(demoDataResource());
    QVERIFY(!sha.isEmpty());
    QCOMPARE(rows(db, QStringLiteral("SELECT sha256, lines_read, lines_rejected FROM imports")),
             QStringList{QString::fromLatin1(sha) + QStringLiteral("|570|0")});
}

void TestImport::importTwiceChangesNothing_data()
{
    QTest::addColumn<bool>("fromCopy");
    QTest::newRow("same file") << false;
    QTest::newRow("a copy at another path") << true;
}

void TestImport::importTwiceChangesNothing()
{
    QFETCH(bool, fromCopy);
    const QString copy = m_dir.filePath(QStringLiteral("copy-%1.jsonl").arg(int(fromCopy)));
    QFile::remove(copy);
    QVERIFY(QFile::copy(demoDataResource(), copy));
    std::unique_ptr<SqliteStore> store =
            openStore(m_dir.filePath(QStringLiteral("twice-%1.sqlite").arg(fromCopy)));
    QVERIFY(store);
    const ImportReport first = importFile(*store, demoDataResource());
    QVERIFY2(first.clean(), qPrintable(describe(first)));
    RawSqlite raw(store->location());
    QSqlDatabase &db = raw.db();
    const QStringList countsBefore = tableCounts(db);
    const QStringList dumpBefore =
            databaseDump(db, {QStringLiteral("imports"), QStringLiteral("queue_totals")});

    const ImportReport second = importFile(*store, fromCopy ? copy : demoDataResource());
    QVERIFY2(second.clean(), qPrintable(describe(second)));
    QCOMPARE(second.linesRead, 570);
    QCOMPARE(second.eventsImported, 0);
    QCOMPARE(second.eventsUnchanged, 570);
    QCOMPARE(second.ticketsOpened, 0);

    // Only the record of imports grows, by design: one row per import run.
    QStringList countsAfter = tableCounts(db);
    QCOMPARE(countsAfter.removeAll(QStringLiteral("imports=2")), 1);
    QStringList expectedCounts = countsBefore;
    QCOMPARE(expectedCounts.removeAll(QStringLiteral("imports=1")), 1);
    QCOMPARE(countsAfter, expectedCounts);
    QCOMPARE(databaseDump(db, {QStringLiteral("imports"), QStringLiteral("queue_totals")}), dumpBefore);
    QCOMPARE(*store->countOpenEscalations(), 15);
}

void TestImport::badLine_data()
{
    QTest::addColumn<QByteArray>("badLine");
    QTest::addColumn<QStringList>("reasonMentions");
    const QByteArray note = message(good, QStringLiteral("2026-03-17T10:00:04Z"), QStringLiteral("agent"),
                                    QStringLiteral("a note"));
    QTest::newRow("truncated JSON") << note.left(40) << QStringList{QStringLiteral("JSON")};
    QTest::newRow("not an object") << QByteArray("[1, 2, 3]") << QStringList{QStringLiteral("JSON object")};
    QTest::newRow("at is a number") << with(note, QStringLiteral("at"), 1773741604)
                                    << QStringList{QStringLiteral("\"at\""),
                                                   QStringLiteral("expected a string")};
    QTest::newRow("time without zone")
            << with(note, QStringLiteral("at"), QStringLiteral("2026-03-17T10:00:04"))
            << QStringList{QStringLiteral("\"at\""), QStringLiteral("with a zone"),
                           QStringLiteral("2026-03-17T10:00:04")};
    QTest::newRow("unknown type") << with(note, QStringLiteral("type"), QStringLiteral("note"))
                                  << QStringList{QStringLiteral("\"type\""), QStringLiteral("expected"),
                                                 QStringLiteral("\"note\"")};
    QTest::newRow("missing ticket") << with(note, QStringLiteral("ticket"), QJsonValue(QJsonValue::Undefined))
                                    << QStringList{QStringLiteral("\"ticket\""), QStringLiteral("missing")};
    QTest::newRow("result for a call that does not exist")
            << toolResult(good, QStringLiteral("2026-03-17T10:00:04Z"), QStringLiteral("c9"),
                          R"({"ok":true})")
            << QStringList{QStringLiteral("\"c9\""), QStringLiteral("no such tool_call")};
    QTest::newRow("message for a ticket never opened")
            << message(QStringLiteral("T-NEVER"), QStringLiteral("2026-03-17T10:00:04Z"),
                       QStringLiteral("customer"), QStringLiteral("hello"))
            << QStringList{QStringLiteral("\"T-NEVER\""), QStringLiteral("ticket_opened")};
    // The opening line of T-BAD with one field's text replaced.
    const auto opening = [](const char *from, const char *to) {
        return ticketOpened(QStringLiteral("T-BAD")).replace(from, to);
    };
    QTest::newRow("fractional amount_cents in an item")
            << opening("\"amount_cents\":4200", "\"amount_cents\":42.5")
            << QStringList{QStringLiteral("order.items[0].amount_cents"), QStringLiteral("whole number"),
                           QStringLiteral("42.5")};
    QTest::newRow("amount_cents as text")
            << opening("\"amount_cents\":4200", "\"amount_cents\":\"4200\"")
            << QStringList{QStringLiteral("order.items[0].amount_cents"), QStringLiteral("whole number")};
    QTest::newRow("a balance no sum can hold")
            << opening("\"balance_cents\":", "\"balance_cents\":9223372036854775807,\"was\":")
            << QStringList{QStringLiteral("seller.balance_cents"), QStringLiteral("from -1000000000000 to"),
                           QStringLiteral("9223372036854775807")};
    QTest::newRow("a balance beyond any whole number")
            << opening("\"balance_cents\":", "\"balance_cents\":18446744073709551615,\"was\":")
            << QStringList{QStringLiteral("seller.balance_cents"),
                           QStringLiteral("to 1000000000000, got 18446744073709551615")};
    QTest::newRow("an item of negative cents")
            << opening("\"amount_cents\":4200", "\"amount_cents\":-4200")
            << QStringList{QStringLiteral("order.items[0].amount_cents"), QStringLiteral("-4200")};
    QTest::newRow("call_id reused with other content")
            << refundCall(good, QStringLiteral("2026-03-17T10:00:04Z"), QStringLiteral("c1"), 999)
            << QStringList{QStringLiteral("\"c1\""), QStringLiteral("already used")};
    QTest::newRow("second different result")
            << toolResult(good, QStringLiteral("2026-03-17T10:00:04Z"), QStringLiteral("c1"),
                          R"({"error":"timeout"})")
            << QStringList{QStringLiteral("\"c1\""), QStringLiteral("different result")};
    QTest::newRow("from robot") << with(note, QStringLiteral("from"), QStringLiteral("robot"))
                                << QStringList{QStringLiteral("\"from\""),
                                               QStringLiteral("customer, agent or system"),
                                               QStringLiteral("\"robot\"")};
    QTest::newRow("result missing") << with(
            toolResult(good, QStringLiteral("2026-03-17T10:00:04Z"), QStringLiteral("c9"), "1"),
            QStringLiteral("result"), QJsonValue(QJsonValue::Undefined))
                                    << QStringList{QStringLiteral("\"result\""), QStringLiteral("missing")};
    const auto trace = [](const char *json) {
        return QByteArray(R"({"ticket":"T-GOOD","at":"2026-03-17T10:00:04Z",)") + json + '}';
    };
    QTest::newRow("http for a call that does not exist")
            << trace(R"("type":"http","call_id":"c9","method":"POST","url":"/v1/refunds","error":"timeout")")
            << QStringList{QStringLiteral("http event"), QStringLiteral("\"c9\""),
                           QStringLiteral("no such tool_call")};
    QTest::newRow("http without status or error")
            << trace(R"("type":"http","call_id":"c1","method":"POST","url":"/v1/refunds")")
            << QStringList{QStringLiteral("\"status\""), QStringLiteral("\"error\""),
                           QStringLiteral("timeout")};
    QTest::newRow("http status out of range")
            << trace(R"("type":"http","call_id":"c1","method":"POST","url":"/v1/refunds","status":99)")
            << QStringList{QStringLiteral("\"status\""), QStringLiteral("100 to 599"), QStringLiteral("99")};
    QTest::newRow("http attempt zero") << trace(
            R"("type":"http","call_id":"c1","method":"POST","url":"/v1/refunds","status":200,"attempt":0)")
                                       << QStringList{QStringLiteral("\"attempt\""),
                                                      QStringLiteral("1 for the first")};
    QTest::newRow("http duration beyond a day") << trace(
            R"("type":"http","call_id":"c1","method":"POST","url":"/v1/refunds","error":"timeout","duration_ms":9223372036854775807)")
                                                << QStringList{QStringLiteral("\"duration_ms\""),
                                                               QStringLiteral("a day")};
    QTest::newRow("http duration too large for a number") << trace(
            R"("type":"http","call_id":"c1","method":"POST","url":"/v1/refunds","error":"timeout","duration_ms":18446744073709551615)")
                                                          << QStringList{QStringLiteral("\"duration_ms\""),
                                                                         QStringLiteral("too large")};
    QTest::newRow("http status and error") << trace(
            R"("type":"http","call_id":"c1","method":"POST","url":"/v1/refunds","status":200,"error":"timeout")")
                                           << QStringList{QStringLiteral("\"error\""),
                                                          QStringLiteral("not both")};
    QTest::newRow("http blank error")
            << trace(R"("type":"http","call_id":"c1","method":"POST","url":"/v1/refunds","error":"   ")")
            << QStringList{QStringLiteral("\"error\""), QStringLiteral("must not be empty")};
    QTest::newRow("provider negative amount")
            << trace(R"("type":"provider","event":"refund.created","amount_cents":-500)")
            << QStringList{QStringLiteral("\"amount_cents\""), QStringLiteral("from 0")};
    QTest::newRow("provider amount beyond reason")
            << trace(R"("type":"provider","event":"refund.created","amount_cents":9223372036854775807)")
            << QStringList{QStringLiteral("\"amount_cents\""), QStringLiteral("9223372036854775807")};
    QTest::newRow("provider without event")
            << trace(R"("type":"provider","object_id":"re_1")")
            << QStringList{QStringLiteral("\"event\""), QStringLiteral("missing")};
    QTest::newRow("provider amount as text")
            << trace(R"("type":"provider","event":"refund.created","amount_cents":"4200")")
            << QStringList{QStringLiteral("\"amount_cents\""), QStringLiteral("whole number")};
    QTest::newRow("provider replayed as text")
            << trace(R"("type":"provider","event":"refund.created","replayed":"yes")")
            << QStringList{QStringLiteral("\"replayed\""), QStringLiteral("true or false")};
    QTest::newRow("ticket reopened with other details")
            << with(ticketOpened(good), QStringLiteral("subject"), QStringLiteral("Another subject"))
            << QStringList{QStringLiteral("\"T-GOOD\""), QStringLiteral("opened")};
}

// A ticket_opened line refused as it is read (its balance past any sum) leaves its ticket
// unopened; the ticket's later lines say so and where, not only that it was never opened.
void TestImport::aRefusedOpeningIsNamedByItsTicketsLaterLines()
{
    const QString path = m_dir.filePath(QStringLiteral("refused-opening.jsonl"));
    QVERIFY(writeLines(
            path,
            {ticketOpened(QStringLiteral("T-HUGE"))
                     .replace("\"balance_cents\":", "\"balance_cents\":9223372036854775807,\"was\":"),
             message(QStringLiteral("T-HUGE"), QStringLiteral("2026-03-17T10:00:04Z"),
                     QStringLiteral("customer"), QStringLiteral("hello"))}));
    std::unique_ptr<SqliteStore> store = openStore(m_dir.filePath(QStringLiteral("refused-opening.sqlite")));
    QVERIFY(store);
    const ImportReport report = importFile(*store, path);
    QCOMPARE(report.rejected.size(), 2);
    QVERIFY2(report.rejected.at(1).reason.contains(QStringLiteral(
                     "ticket \"T-HUGE\" was not opened: its ticket_opened event (at line 1) was refused")),
             qPrintable(report.rejected.at(1).reason));
}

void TestImport::badLine()
{
    QFETCH(QByteArray, badLine);
    QFETCH(QStringList, reasonMentions);
    const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-');
    const QString path = m_dir.filePath(QStringLiteral("bad-%1.jsonl").arg(tag));
    const QString cleanPath = m_dir.filePath(QStringLiteral("clean-%1.jsonl").arg(tag));
    QVERIFY(writeLines(path, fileAround(badLine)));
    QVERIFY(writeLines(cleanPath, fileAround({})));

    std::unique_ptr<SqliteStore> store = openStore(m_dir.filePath(QStringLiteral("bad-%1.sqlite").arg(tag)));
    std::unique_ptr<SqliteStore> reference =
            openStore(m_dir.filePath(QStringLiteral("clean-%1.sqlite").arg(tag)));
    QVERIFY(store && reference);
    const ImportReport report = importFile(*store, path);
    QVERIFY2(report.fatal.isEmpty(), qPrintable(report.fatal));
    QCOMPARE(report.linesRead, 9);
    QCOMPARE(report.rejected.size(), 1);
    QCOMPARE(report.rejected.first().place.line, 5);
    for (const QString &mention : std::as_const(reasonMentions))
        QVERIFY2(report.rejected.first().reason.contains(mention),
                 qPrintable(QStringLiteral("\"%1\" does not mention %2")
                                    .arg(report.rejected.first().reason, mention)));
    QVERIFY(report.rejectionMessages().first().startsWith(path + QStringLiteral(":5: ")));
    QCOMPARE(report.eventsImported, 8);
    QCOMPARE(report.ticketsOpened, 1);

    // Everything before and after the bad line is there, exactly as if it had never been in the file.
    const ImportReport clean = importFile(*reference, cleanPath);
    QVERIFY2(clean.clean(), qPrintable(describe(clean)));
    RawSqlite raw(store->location());
    RawSqlite referenceRaw(reference->location());
    QCOMPARE(outcomeDump(raw.db()), outcomeDump(referenceRaw.db()));
    QCOMPARE(rows(raw.db(), QStringLiteral("SELECT text FROM messages ORDER BY seq")),
             (QStringList{QStringLiteral("before the bad line"), QStringLiteral("after the bad line"),
                          QStringLiteral("Refunded.")}));
    QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM tool_calls WHERE result_at IS NOT NULL")),
             2);
}

void TestImport::optionalFieldsAndLooseFormatting()
{
    // The format makes subject, customer, currency, balance and duration_ms optional.
    const QString path = m_dir.filePath(QStringLiteral("minimal.jsonl"));
    // Also tolerated: a byte order mark, CRLF line ends, blank lines and fields from later versions.
    QVERIFY(writeLines(
            path,
            {"\xEF\xBB\xBF"
             R"({"type":"ticket_opened","ticket":"T-MIN","at":"2026-03-17T15:32:07.123456789+01:00",)"
             R"("order":{"id":"O-MIN"},"seller":{"id":"s1","name":"Seller One"},"future":1})"
             "\r",
             "", "  \t", R"({"type":"reply","ticket":"T-MIN","at":"2026-03-17T14:33:00Z","text":"Hi"})"}));
    std::unique_ptr<SqliteStore> store = openStore(m_dir.filePath(QStringLiteral("minimal.sqlite")));
    QVERIFY(store);
    const ImportReport report = importFile(*store, path);
    QVERIFY2(report.clean(), qPrintable(describe(report)));
    QCOMPARE(report.linesRead, 4);
    QCOMPARE(report.eventsImported, 2);
    QCOMPARE(rows(RawSqlite(store->location()).db(),
                  QStringLiteral("SELECT t.ext_id, t.subject, t.opened_at, o.currency FROM tickets t "
                                 "JOIN orders o ON o.id = t.order_id")),
             QStringList{QStringLiteral("T-MIN||1773757927123|USD")});
}

void TestImport::providerEventWithoutCall()
{
    // A provider event may arrive without the call that caused it (a webhook the agent never
    // asked for): the format makes call_id optional, so the line imports and reads back.
    const QString path = m_dir.filePath(QStringLiteral("provider-alone.jsonl"));
    QVERIFY(writeLines(path,
                       {R"({"type":"ticket_opened","ticket":"T-HOOK","at":"2026-03-17T10:00:00Z",)"
                        R"("order":{"id":"O-HOOK"},"seller":{"id":"s1","name":"Seller One"}})",
                        R"({"type":"provider","ticket":"T-HOOK","at":"2026-03-17T10:00:05Z",)"
                        R"("event":"refund.created","object_id":"re_1","amount_cents":4200})"}));
    std::unique_ptr<SqliteStore> store = openStore(m_dir.filePath(QStringLiteral("provider-alone.sqlite")));
    QVERIFY(store);
    const ImportReport report = importFile(*store, path);
    QVERIFY2(report.clean(), qPrintable(describe(report)));
    QCOMPARE(report.eventsImported, 2);
    const qint64 ticket = scalar(RawSqlite(store->location()).db(),
                                 QStringLiteral("SELECT id FROM tickets WHERE ext_id = 'T-HOOK'"));
    const auto events = store->traceEvents(ticket);
    QVERIFY(events);
    QCOMPARE(events->size(), 1);
    QCOMPARE(events->first().callExtId, QString());
    QCOMPARE(events->first().provider.objectId, QStringLiteral("re_1"));
    QCOMPARE(events->first().provider.amountCents, std::optional<qint64>(4200));

    // Imported twice, it is still one event.
    QVERIFY2(importFile(*store, path).clean(), "second import");
    QCOMPARE(store->traceEvents(ticket)->size(), 1);
}

void TestImport::ticketIdInAnotherCase()
{
    // The schema compares ticket ids without case, so "t-case" names the ticket "T-CASE".
    // Whether the importer accepts or rejects the line, the ticket's events must keep
    // distinct sequence numbers in file order.
    const QString path = m_dir.filePath(QStringLiteral("case.jsonl"));
    const QString ticket = QStringLiteral("T-CASE");
    QVERIFY(writeLines(path,
                       {ticketOpened(ticket),
                        message(ticket, QStringLiteral("2026-03-17T10:00:01Z"), QStringLiteral("customer"),
                                QStringLiteral("one")),
                        message(ticket.toLower(), QStringLiteral("2026-03-17T10:00:02Z"),
                                QStringLiteral("customer"), QStringLiteral("two")),
                        message(ticket, QStringLiteral("2026-03-17T10:00:03Z"), QStringLiteral("customer"),
                                QStringLiteral("three"))}));
    std::unique_ptr<SqliteStore> store = openStore(m_dir.filePath(QStringLiteral("case.sqlite")));
    QVERIFY(store);
    const ImportReport report = importFile(*store, path);
    QVERIFY2(report.fatal.isEmpty(), qPrintable(report.fatal));
    QCOMPARE(report.eventsImported + report.rejected.size(), 4);
    RawSqlite raw(store->location());
    QSqlDatabase &db = raw.db();
    QCOMPARE(
            rows(db, QStringLiteral("SELECT ticket_id, seq FROM messages GROUP BY 1, 2 HAVING count(*) > 1")),
            QStringList());
    QCOMPARE(consistencyViolations(db), QStringList());
    const QStringList texts =
            rows(db,
                 QStringLiteral("SELECT text FROM messages WHERE ticket_id = (SELECT id FROM "
                                "tickets WHERE ext_id = 'T-CASE') ORDER BY seq"));
    const QStringList inFileOrder = report.rejected.isEmpty()
            ? QStringList{QStringLiteral("one"), QStringLiteral("two"), QStringLiteral("three")}
            : QStringList{QStringLiteral("one"), QStringLiteral("three")};
    QCOMPARE(texts, inFileOrder);
}

// A refund's amount is whole, positive cents within reach. Anything else is never money (not a
// -$118.00 refund performed, not a refund with no amount passed over in silence): the call is
// kept as what the agent did, without an amount, and the import names the line and what was
// expected.
void TestImport::badRefundAmountKeepsTheCallWithoutMoney_data()
{
    QTest::addColumn<QByteArray>("amount");
    QTest::addColumn<QString>("got");
    QTest::newRow("negative") << QByteArray("-11800") << QStringLiteral("got -11800");
    QTest::newRow("fractional") << QByteArray("118.5") << QStringLiteral("got 118.5");
    QTest::newRow("NaN") << QByteArray("\"NaN\"") << QStringLiteral("got \"NaN\"");
    QTest::newRow("over 2^63") << QByteArray("123456789012345678901234567890") << QStringLiteral("got ");
    QTest::newRow("zero") << QByteArray("0") << QStringLiteral("got 0");
}

void TestImport::badRefundAmountKeepsTheCallWithoutMoney()
{
    QFETCH(QByteArray, amount);
    QFETCH(QString, got);
    const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-');
    QByteArray call = refundCall(good, QStringLiteral("2026-03-17T10:00:04Z"), QStringLiteral("c9"));
    call.replace("\"amount_cents\":4200", "\"amount_cents\":" + amount);
    const QString path = m_dir.filePath(QStringLiteral("amount-%1.jsonl").arg(tag));
    QVERIFY(writeLines(path, fileAround(call)));
    std::unique_ptr<SqliteStore> store =
            openStore(m_dir.filePath(QStringLiteral("amount-%1.sqlite").arg(tag)));
    const ImportReport report = importFile(*store, path);
    QVERIFY2(report.clean(), qPrintable(describe(report)));
    QCOMPARE(report.notices.size(), 1);
    QCOMPARE(report.notices.first().place.line, 5);
    const QString notice = report.noticeMessages().first();
    QVERIFY2(notice.startsWith(path + QStringLiteral(":5: ")), qPrintable(notice));
    QVERIFY2(notice.contains(QStringLiteral("field \"amount_cents\": expected whole cents from 1 to")),
             qPrintable(notice));
    QVERIFY2(notice.contains(got), qPrintable(notice));
    RawSqlite raw(store->location());
    QSqlDatabase &db = raw.db();
    QCOMPARE(rows(db,
                  QStringLiteral(
                          "SELECT coalesce(amount_cents, 'none') FROM tool_calls WHERE call_ext_id = 'c9'")),
             QStringList{QStringLiteral("none")});
    QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM tool_calls WHERE amount_cents < 0")), 0);
    // What is wrong stays with the call, and a refund that took effect with no amount Verity can
    // count is a ticket a person must look at: no sum shows the money it moved.
    const QString kept =
            rows(db, QStringLiteral("SELECT amount_error FROM tool_calls WHERE call_ext_id = 'c9'")).value(0);
    QVERIFY2(kept.contains(got) && kept.startsWith(QStringLiteral("field \"amount_cents\"")),
             qPrintable(kept));
    QCOMPARE(scalar(db,
                    QStringLiteral("SELECT needs_attention FROM tickets WHERE id = (SELECT ticket_id FROM "
                                   "tool_calls WHERE call_ext_id = 'c9')")),
             1);
}

void TestImport::commandLine_data()
{
    QTest::addColumn<bool>("withBadLine");
    QTest::addColumn<bool>("json");
    QTest::newRow("bad line, text") << true << false;
    QTest::newRow("bad line, json") << true << true;
    QTest::newRow("clean, text") << false << false;
    QTest::newRow("clean, json") << false << true;
}

void TestImport::commandLine()
{
    QFETCH(bool, withBadLine);
    QFETCH(bool, json);
    const QString tag =
            QString::fromLatin1(QTest::currentDataTag()).replace(QStringLiteral(", "), QStringLiteral("-"));
    const QString file = m_dir.filePath(QStringLiteral("cli-%1.jsonl").arg(tag));
    const QString db = m_dir.filePath(QStringLiteral("cli-%1.sqlite").arg(tag));
    const QByteArray bad = message(good, QStringLiteral("2026-03-17T10:00:04Z"), QStringLiteral("robot"),
                                   QStringLiteral("beep"));
    QVERIFY(writeLines(file, fileAround(withBadLine ? bad : QByteArray())));
    QStringList arguments{QStringLiteral("import"), QStringLiteral("--db"), db, file};
    if (json)
        arguments.insert(1, QStringLiteral("--json"));
    const test::VerityRun run = test::runVerity(arguments, test::isolatedEnvironment(m_dir.path()));
    QCOMPARE(run.exitCode, withBadLine ? 1 : 0);

    if (json) {
        QJsonParseError error;
        const QJsonObject result = QJsonDocument::fromJson(run.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + run.out));
        QCOMPARE(result.value(QStringLiteral("ok")).toBool(true), !withBadLine);
        const QJsonObject fileReport = result.value(QStringLiteral("files")).toArray().at(0).toObject();
        QCOMPARE(fileReport.value(QStringLiteral("path")).toString(), file);
        QCOMPARE(fileReport.value(QStringLiteral("events_imported")).toInt(), withBadLine ? 8 : 8);
        const QJsonArray rejected = fileReport.value(QStringLiteral("rejected")).toArray();
        QCOMPARE(rejected.size(), withBadLine ? 1 : 0);
        if (withBadLine) {
            QCOMPARE(rejected.at(0).toObject().value(QStringLiteral("line")).toInt(), 5);
            QVERIFY(rejected.at(0)
                            .toObject()
                            .value(QStringLiteral("reason"))
                            .toString()
                            .contains(QStringLiteral("from")));
        }
    } else if (withBadLine) {
        QVERIFY2(run.err.contains(file + QStringLiteral(":5: ")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("robot")), qPrintable(run.err));
    } else {
        QVERIFY2(!run.err.contains(QStringLiteral(": ")), qPrintable(run.err));
        QVERIFY2(run.out.contains(QStringLiteral("8 events imported")), qPrintable(run.out));
    }
    std::unique_ptr<SqliteStore> store = openStore(db);
    QVERIFY(store);
    QCOMPARE(*store->countTickets({}), 1);
}

QTEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"

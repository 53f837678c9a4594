// Transcripts of every format through the whole import into a real SQLite file: counts per
// file, the class of each repeated intent, soft failures, bad input that is skipped whole
// while the rest imports, streaming, the profiles chosen, and tools classified afterwards.

#include "../store/storetestsupport.h"
#include "domain/registrychoice.h"
#include "domain/userregistry.h"
#include "import/reclassifier.h"
#include "itemmodels/ticketqueuemodel.h"
#include "support/testmacros.h"
#include "support/teststore.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace verity;
using namespace storetest;

namespace {

QString data(const char *name)
{
    return QStringLiteral(VERITY_TEST_DATA "/") + QString::fromLatin1(name);
}

RegistrySelection profiles(const QString &userFile = QString())
{
    return automaticRegistries(userFile);
}

// A conversation in OpenAI chat form, one JSONL line: the agent's calls as (id, tool, arguments
// JSON, result text) in order.
QByteArray chatLine(const QString &id, const QList<std::array<QString, 4>> &calls)
{
    QJsonArray messages{
            QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                        {QStringLiteral("content"), QStringLiteral("My shelf arrived cracked.")}}};
    for (const auto &[callId, tool, arguments, result] : calls) {
        messages.append(QJsonObject{
                {QStringLiteral("role"), QStringLiteral("assistant")},
                {QStringLiteral("content"), QJsonValue()},
                {QStringLiteral("tool_calls"),
                 QJsonArray{QJsonObject{{QStringLiteral("id"), callId},
                                        {QStringLiteral("type"), QStringLiteral("function")},
                                        {QStringLiteral("function"),
                                         QJsonObject{{QStringLiteral("name"), tool},
                                                     {QStringLiteral("arguments"), arguments}}}}}}});
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("tool")},
                                    {QStringLiteral("tool_call_id"), callId},
                                    {QStringLiteral("content"), result}});
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("messages"), messages}})
            .toJson(QJsonDocument::Compact);
}

const QString refund = QStringLiteral(R"({"order_id":"SU-1","item_id":"A","amount_cents":11800})");

} // namespace

class TestTranscriptImport : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    QString newPath(const char *suffix = ".sqlite")
    {
        return m_dir.filePath(QStringLiteral("f%1%2").arg(++m_files).arg(QLatin1String(suffix)));
    }

private slots:
    // Each real and hand-made file imports with no option, read by the right format and
    // profile; the stored counts match what the file holds.
    void realFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("registry");
        QTest::addColumn<int>("tickets");
        QTest::addColumn<int>("calls");
        QTest::addColumn<int>("writes");
        QTest::addColumn<int>("errorFlagged");
        QTest::addColumn<int>("unclassified");
        QTest::addColumn<int>("retries");

        // Counted independently from the files (python, json module).
        QTest::newRow("τ-bench v1 airline")
                << data("tau/tau-bench-v1-gpt-4o-airline-excerpt.json") << QStringLiteral("tau-v1")
                << QStringLiteral("tau-airline") << 6 << 45 << 12 << 0 << 0 << 4;
        QTest::newRow("τ² retail") << data("tau/tau2-gpt-4.1-retail.json") << QStringLiteral("tau2")
                                   << QStringLiteral("tau-retail") << 40 << 299 << 63 << 12 << 0 << 1;
        QTest::newRow("τ² telecom") << data("tau/tau2-gpt-4.1-mini-telecom-trace.json")
                                    << QStringLiteral("tau2") << QStringLiteral("tau-telecom") << 1 << 8 << 0
                                    << 0 << 0 << 0;
        QTest::newRow("OTLP GenAI") << data("formats/otlp-genai.jsonl") << QStringLiteral("otlp")
                                    << QStringLiteral("default") << 2 << 6 << 5 << 1 << 0 << 1;
    }

    void realFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, format);
        QFETCH(QString, registry);
        QFETCH(int, tickets);
        QFETCH(int, calls);
        QFETCH(int, writes);
        QFETCH(int, errorFlagged);
        QFETCH(int, unclassified);
        QFETCH(int, retries);

        const QString path = newPath();
        auto store = test::openTestStore(path);
        QVERIFY(store);
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(file);
        QVERIFY2(report.clean(), qPrintable(describe(report)));
        QCOMPARE(report.format, format);
        QVERIFY2(report.registries.contains(registry), qPrintable(report.registries.join(u',')));
        QCOMPARE(report.ticketsOpened, tickets);
        QCOMPARE(report.repeats.retries, retries);

        RawSqlite raw(path);
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM tickets")), tickets);
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM tool_calls")), calls);
        QCOMPARE(scalar(raw.db(),
                        QStringLiteral("SELECT count(*) FROM tool_calls WHERE tool_class LIKE 'write%'")),
                 writes);
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM tool_calls WHERE result_error = 1")),
                 errorFlagged);
        QCOMPARE(scalar(raw.db(),
                        QStringLiteral("SELECT count(*) FROM tool_calls WHERE tool_class = 'unclassified'")),
                 unclassified);
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT sum(retry_count) FROM tickets")), retries);
        QCOMPARE(
                scalar(raw.db(),
                       QStringLiteral("SELECT count(*) FROM tickets WHERE source_format = '%1'").arg(format)),
                tickets);
        QVERIFY(consistencyViolations(raw.db()).isEmpty());

        // Again: nothing changes.
        const QStringList before = databaseDump(raw.db(), {QStringLiteral("imports")});
        const ImportReport again = importer.importFile(file);
        QVERIFY2(again.clean(), qPrintable(describe(again)));
        QCOMPARE(again.eventsImported, 0);
        QCOMPARE(databaseDump(raw.db(), {QStringLiteral("imports")}), before);
    }

    // A τ ticket names no order or seller: it says its task and trial (searchable like an
    // order id), its domain and model, and what dated it. A renamed copy of a τ-bench file is
    // the same run: it imports nothing new.
    void tauTicketsSayWhatTheyAre()
    {
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(*store, profiles());
        QVERIFY(importer.importFile(data("tau/tau2-gpt-4.1-retail.json")).clean());
        const QString v1 = data("tau/tau-bench-v1-gpt-4o-airline-excerpt.json");
        QVERIFY(importer.importFile(v1).clean());
        const QString copy = m_dir.filePath(QStringLiteral("gpt-4o-airline-renamed.json"));
        QVERIFY(QFile::copy(v1, copy));
        const ImportReport again = importer.importFile(copy);
        QVERIFY(again.clean());
        QCOMPARE(again.ticketsOpened, 0);
        QCOMPARE(again.eventsImported, 0);

        RawSqlite raw(path);
        QCOMPARE(rows(raw.db(),
                      QStringLiteral("SELECT task, origin, dated_by FROM tickets "
                                     "WHERE ext_id = '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae'")),
                 QStringList{QStringLiteral("task 40 · trial 0|retail · gpt-4.1|<null>")});
        // τ-bench v1 has no times at all: the file's modification time dates it, and says so.
        QCOMPARE(rows(raw.db(),
                      QStringLiteral("SELECT task, origin, dated_by FROM tickets "
                                     "WHERE ext_id LIKE 'tau-bench/task-3/trial-0/%'")),
                 QStringList{QStringLiteral("task 3 · trial 0|airline|file_modified")});

        TicketQuery query;
        query.search = QStringLiteral("task 40");
        Expected<QList<TicketRow>> found = store->ticketPage(query, TicketPage{std::nullopt, false, 0, 10});
        QVERIFY(found);
        QCOMPARE(found->size(), 1);
        QCOMPARE(found->first().extId, QStringLiteral("55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae"));
        QCOMPARE(found->first().task, QStringLiteral("task 40 · trial 0"));
        QCOMPARE(*store->countTickets(query), 1);
    }

    // τ errors are refusals ("Error: ..." before any state changed): not performed, and the
    // model's corrected repeat is a retry after an error, never a duplicate.
    void tauErrorsAreRefusals()
    {
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(*store, profiles());
        QVERIFY(importer.importFile(data("tau/tau-bench-v1-gpt-4o-airline-excerpt.json")).clean());
        RawSqlite raw(path);
        QCOMPARE(rows(raw.db(),
                      QStringLiteral(
                              "SELECT DISTINCT outcome FROM tool_calls WHERE raw_result LIKE '\"Error: %' "
                              "AND tool_class LIKE 'write%'")),
                 QStringList{QStringLiteral("not_performed")});
        QCOMPARE(
                scalar(raw.db(), QStringLiteral("SELECT count(*) FROM tool_calls WHERE outcome = 'unknown'")),
                0);
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT sum(duplicate_effects) FROM tickets")), 0);
    }

    // The queue tells the states apart, in words, and sorts them worst first: a duplicate
    // effect, an unknown, a retry after a refusal, a refusal, a plain success.
    void queueTellsStatesApart()
    {
        const QString file = newPath(".jsonl");
        const QString issued = QStringLiteral(R"({"status":"refunded","refund_id":"re_1"})");
        const QString again = QStringLiteral(R"({"status":"refunded","refund_id":"re_2"})");
        const QString refused = QStringLiteral(R"({"outcome":"not_performed"})");
        const QString unknown = QStringLiteral(R"({"outcome":"unknown"})");
        const QString r = QStringLiteral("issue_refund");
        QVERIFY(writeLines(
                file,
                {chatLine(QStringLiteral("fine"), {{QStringLiteral("c1"), r, refund, issued}}),
                 chatLine(QStringLiteral("retry"),
                          {{QStringLiteral("c1"), r, refund, refused},
                           {QStringLiteral("c2"), r, refund, issued}}),
                 chatLine(QStringLiteral("dup"),
                          {{QStringLiteral("c1"), r, refund, issued},
                           {QStringLiteral("c2"), r, refund, again}}),
                 chatLine(QStringLiteral("refused"), {{QStringLiteral("c1"), r, refund, refused}}),
                 chatLine(QStringLiteral("unknown"), {{QStringLiteral("c1"), r, refund, unknown}})}));
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        QVERIFY(importer.importFile(file).clean());

        TicketQueueModel queue(*store);
        QAbstractItemModelTester tester(&queue, QAbstractItemModelTester::FailureReportingMode::QtTest);
        queue.sort(TicketQueueModel::AttentionColumn, Qt::AscendingOrder); // a header's first click
        QStringList seen;
        for (int row = 0; row < queue.rowCount(); ++row)
            seen << queue.index(row, TicketQueueModel::TicketColumn).data().toString() + u'|'
                            + queue.index(row, TicketQueueModel::AttentionColumn).data().toString() + u'|'
                            + queue.index(row, TicketQueueModel::OutcomeColumn).data().toString();
        QCOMPARE(seen,
                 (QStringList{QStringLiteral("dup|Duplicate effect|Duplicate effect"),
                              QStringLiteral("unknown|Unknown|Unknown: do not retry"),
                              QStringLiteral("retry|Retry|Not performed"),
                              QStringLiteral("refused||Not performed"), QStringLiteral("fine||Performed")}));
        QVERIFY(queue.index(2, TicketQueueModel::AttentionColumn)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(QStringLiteral("sent again after an error")));
    }

    // Arguments a transcript wrote as JSON text are stored as written, byte for byte: a number
    // beyond any integer type keeps its digits, spacing and key order stay.
    void argumentsStoredAsWritten()
    {
        const QString file = newPath(".jsonl");
        const QString written = QStringLiteral(
                R"({ "order_id":"SU-1", "amount_cents": 123456789012345678901234567890, "item_id":"A" })");
        QVERIFY(writeLines(file,
                           {chatLine(QStringLiteral("big"),
                                     {{QStringLiteral("c1"), QStringLiteral("issue_refund"), written,
                                       QStringLiteral("Error: refused")}})}));
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(*store, profiles());
        importer.importFile(file);
        RawSqlite raw(path);
        QCOMPARE(rows(raw.db(), QStringLiteral("SELECT arguments, amount_cents FROM tool_calls")),
                 QStringList{written + QStringLiteral("|<null>")});
    }

    // Each class of repeat, as the summary, the tickets and the calls say it.
    void repeatClasses()
    {
        const QString file = newPath(".jsonl");
        const QString ok = QStringLiteral(R"({"status":"refunded","refund_id":"re_1"})");
        // Two refunds made: two refund records. (The same record twice is the provider replaying one.)
        const QString second = QStringLiteral(R"({"status":"refunded","refund_id":"re_2"})");
        QVERIFY(writeLines(
                file,
                {chatLine(QStringLiteral("dup"),
                          {{QStringLiteral("c1"), QStringLiteral("issue_refund"), refund, ok},
                           {QStringLiteral("c2"), QStringLiteral("issue_refund"), refund, second}}),
                 chatLine(QStringLiteral("retry"),
                          {{QStringLiteral("c1"), QStringLiteral("issue_refund"), refund,
                            QStringLiteral("Error: upstream timeout")},
                           {QStringLiteral("c2"), QStringLiteral("issue_refund"), refund, ok}}),
                 chatLine(QStringLiteral("harmless"),
                          {{QStringLiteral("c1"), QStringLiteral("issue_refund"), refund, ok},
                           {QStringLiteral("c2"), QStringLiteral("issue_refund"), refund,
                            QStringLiteral(R"({"outcome":"already_performed"})")}}),
                 chatLine(QStringLiteral("soft"),
                          {{QStringLiteral("c1"), QStringLiteral("issue_refund"), refund,
                            QStringLiteral(R"({"success": 0})")}})}));
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(file);
        QVERIFY2(report.clean(), qPrintable(describe(report)));
        QCOMPARE(report.repeats.duplicateEffects, 1);
        QCOMPARE(report.repeats.duplicateCents, 11800);
        QCOMPARE(report.repeats.retries, 1);
        QCOMPARE(report.repeats.harmless, 1);
        QVERIFY2(report.summary().contains(
                         QStringLiteral("1 duplicate effect ($118.00 paid twice), 1 retry after an "
                                        "error, 1 harmless repeat")),
                 qPrintable(report.summary()));

        RawSqlite raw(path);
        QCOMPARE(
                rows(raw.db(),
                     QStringLiteral(
                             "SELECT t.ext_id, c.call_ext_id, c.repeat_kind, p.call_ext_id FROM tool_calls c "
                             "JOIN tickets t ON t.id = c.ticket_id JOIN tool_calls p ON p.id = c.repeat_of "
                             "ORDER BY t.ext_id")),
                (QStringList{QStringLiteral("dup|c2|duplicate_effect|c1"),
                             QStringLiteral("harmless|c2|harmless|c1"),
                             QStringLiteral("retry|c2|retry|c1")}));
        // The soft failure reads as an error: {"success": 0} never counts as done.
        QCOMPARE(rows(raw.db(),
                      QStringLiteral("SELECT outcome FROM tool_calls c JOIN tickets t ON t.id = c.ticket_id "
                                     "WHERE t.ext_id = 'soft'")),
                 QStringList{QStringLiteral("unknown")});
        QCOMPARE(rows(raw.db(),
                      QStringLiteral("SELECT ext_id FROM tickets WHERE needs_attention = 1 ORDER BY ext_id")),
                 (QStringList{QStringLiteral("dup"), QStringLiteral("retry"), QStringLiteral("soft")}));

        // The queue filters find them.
        TicketQuery duplicates;
        duplicates.filter = TicketFilter::DuplicateEffect;
        QCOMPARE(store->countTickets(duplicates).value(), 1);
        TicketQuery retries;
        retries.filter = TicketFilter::RetryAfterError;
        QCOMPARE(store->countTickets(retries).value(), 1);
    }

    // A conversation that cannot be read is skipped whole; the others import; what was stored
    // before stays as it was.
    void badConversationSkippedWhole()
    {
        const QString path = newPath();
        auto store = test::openTestStore(path);
        const QString good = newPath(".jsonl");
        QVERIFY(writeLines(good,
                           {chatLine(QStringLiteral("earlier"),
                                     {{QStringLiteral("c1"), QStringLiteral("get_order"),
                                       QStringLiteral(R"({"order_id":"SU-1"})"), QStringLiteral("{}")}})}));
        TranscriptImporter importer(*store, profiles());
        QVERIFY(importer.importFile(good).clean());
        RawSqlite raw(path);
        const QStringList before =
                databaseDump(raw.db(), {QStringLiteral("imports"), QStringLiteral("queue_totals")});

        QByteArray orphan = chatLine(QStringLiteral("orphan"), {});
        orphan.replace("]}", R"(,{"role":"tool","tool_call_id":"zz","content":"done"}]})");
        QByteArray truncated = chatLine(QStringLiteral("cut"),
                                        {{QStringLiteral("c1"), QStringLiteral("issue_refund"),
                                          QStringLiteral(R"({"order_id":"SU-1")"), QStringLiteral("ok")}});
        const QString file = newPath(".jsonl");
        QVERIFY(writeLines(file,
                           {orphan, truncated, R"({"messages": [)",
                            chatLine(QStringLiteral("fine"),
                                     {{QStringLiteral("c1"), QStringLiteral("get_order"),
                                       QStringLiteral(R"({"order_id":"SU-2"})"), QStringLiteral("{}")}}),
                            R"({"messages": nope})"}));
        const ImportReport report = importer.importFile(file);
        QCOMPARE(report.rejected.size(), 4);
        const QStringList messages = report.rejectionMessages();
        QVERIFY2(messages.at(0).startsWith(file + QStringLiteral(":1: conversation \"orphan\": ")),
                 qPrintable(messages.at(0)));
        QVERIFY2(messages.at(0).contains(QStringLiteral("no call with that id")), qPrintable(messages.at(0)));
        QVERIFY2(messages.at(1).startsWith(
                         file + QStringLiteral(":2: messages[1].tool_calls[0].function.arguments: ")),
                 qPrintable(messages.at(1)));
        QVERIFY2(messages.at(1).contains(QStringLiteral("arguments")), qPrintable(messages.at(1)));
        QVERIFY2(messages.at(2).startsWith(file + QStringLiteral(":3: not valid JSON at column")),
                 qPrintable(messages.at(2)));
        QVERIFY2(messages.at(2).contains(QStringLiteral("the line ends before its JSON does")),
                 qPrintable(messages.at(2)));
        // A line whole but wrong says what the parser found, where.
        QVERIFY2(messages.at(3).startsWith(file
                                           + QStringLiteral(":5: not valid JSON at column 15: syntax error")),
                 qPrintable(messages.at(3)));
        QCOMPARE(report.ticketsOpened, 1);
        QCOMPARE(rows(raw.db(), QStringLiteral("SELECT ext_id FROM tickets ORDER BY ext_id")),
                 (QStringList{QStringLiteral("earlier"), QStringLiteral("fine")}));
        for (const QString &row : before)
            QVERIFY2(databaseDump(raw.db(), {QStringLiteral("imports"), QStringLiteral("queue_totals")})
                             .contains(row),
                     qPrintable(row));
    }

    // A document cut short: what came before the break is kept, the break is named by byte.
    void truncatedDocument()
    {
        QByteArray bytes = fileBytes(data("tau/tau2-gpt-4.1-retail.json"));
        bytes.truncate(bytes.size() / 2);
        const QString file = newPath(".json");
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes);
        out.close();
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(file);
        QVERIFY(!report.fatal.isEmpty());
        QVERIFY2(report.fatal.startsWith(QStringLiteral("byte ")), qPrintable(report.fatal));
        QVERIFY2(report.fatal.contains(QStringLiteral("not valid JSON")), qPrintable(report.fatal));
        QVERIFY(report.ticketsOpened > 5 && report.ticketsOpened < 40);
    }

    // A results file written on one line (minified) still streams, and JSON Lines whose first
    // line is longer than what the format check reads are still read as lines.
    void longFirstLines()
    {
        const QJsonDocument retail = QJsonDocument::fromJson(fileBytes(data("tau/tau2-gpt-4.1-retail.json")));
        QVERIFY(retail.isObject());
        const QString minified = newPath(".json");
        {
            QFile out(minified);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(retail.toJson(QJsonDocument::Compact));
        }
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(minified);
        QVERIFY2(report.clean(), qPrintable(describe(report)));
        QCOMPARE(report.ticketsOpened, 40);
        QCOMPARE(report.linesRead, 0); // read as a document, not as one enormous line

        const QString lines = newPath(".jsonl");
        const QString longText = QString(70000, u'x');
        QByteArray first = chatLine(
                QStringLiteral("long"),
                {{QStringLiteral("c1"), QStringLiteral("message_seller"),
                  QStringLiteral(R"({"seller_id":"s","text":"%1"})").arg(longText), QStringLiteral("sent")}});
        QVERIFY(writeLines(lines, {first, chatLine(QStringLiteral("short"), {})}));
        const ImportReport second = importer.importFile(lines);
        QVERIFY2(second.clean(), qPrintable(describe(second)));
        QCOMPARE(second.linesRead, 2);
        QCOMPARE(second.ticketsOpened, 2);
    }

    // Nesting deep enough to exhaust the stack in a copy is refused by line, by conversation
    // element and by document, with the limit named.
    void deepNestingIsRefused()
    {
        const QByteArray deep = QByteArray(20000, '[') + QByteArray(20000, ']');
        const QString lines = newPath(".jsonl");
        QVERIFY(writeLines(lines,
                           {chatLine(QStringLiteral("fine"), {}),
                            R"({"messages":[{"role":"user","content":)" + deep + "}]}"}));
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(lines);
        QCOMPARE(report.ticketsOpened, 1);
        QCOMPARE(report.rejected.size(), 1);
        QVERIFY2(report.rejectionMessages().first().contains(
                         QStringLiteral(":2: JSON nested deeper than 128 levels")),
                 qPrintable(report.rejectionMessages().first()));

        const QString document = newPath(".json");
        QFile out(document);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("[\n" + chatLine(QStringLiteral("first"), {}).trimmed() + R"(,
{"messages":[{"role":"user","content":)"
                  + deep + "}]}]");
        out.close();
        const ImportReport streamed = importer.importFile(document);
        QVERIFY2(streamed.fatal.contains(QStringLiteral("JSON nested deeper than 128 levels")),
                 qPrintable(streamed.fatal));
        QVERIFY2(streamed.fatal.startsWith(QStringLiteral("byte ")), qPrintable(streamed.fatal));
        QCOMPARE(streamed.ticketsOpened, 1); // the conversation before it is kept
    }

    // Tool spans exported before the root span that names their conversation still join it,
    // so the two identical refunds across the batches are one ticket's duplicate.
    void otlpBatchesJoinTheirConversation()
    {
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(data("formats/otlp-split-batches.jsonl"));
        QVERIFY2(report.clean(), qPrintable(describe(report)));
        RawSqlite raw(path);
        QCOMPARE(rows(raw.db(), QStringLiteral("SELECT ext_id FROM tickets")),
                 QStringList{QStringLiteral("conv-split")});
        QCOMPARE(scalar(raw.db(),
                        QStringLiteral("SELECT count(*) FROM tool_calls WHERE tool = 'issue_refund'")),
                 2);
        QCOMPARE(scalar(raw.db(),
                        QStringLiteral("SELECT count(*) FROM tool_calls WHERE repeat_of IS NOT NULL")),
                 1);
    }

    // The layout is told right however the file starts: a list of messages whose first message
    // is longer than the format check reads is one conversation; a native file whose first line
    // is broken, or mistyped, is still read line by line.
    void awkwardBeginnings()
    {
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());

        const QString messages = newPath(".json");
        QFile out(messages);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("[\n  {\"content\": \"" + QByteArray(70000, 'x')
                  + "\", \"role\": \"system\"},\n"
                    "  {\"role\": \"user\", \"content\": \"Where is my order?\"}\n]\n");
        out.close();
        const ImportReport whole = importer.importFile(messages);
        QVERIFY2(whole.clean(), qPrintable(describe(whole)));
        QCOMPARE(whole.ticketsOpened, 1);

        const QByteArray opened =
                R"({"type":"ticket_opened","ticket":"T-AWK","at":"2026-04-10T10:00:00Z","order":{"id":"SU-7","items":[]},"seller":{"id":"s7","name":"Seven"}})";
        const QByteArray message =
                R"({"type":"message","ticket":"T-AWK","at":"2026-04-10T10:01:00Z","from":"customer","text":"hello"})";
        const QString broken = newPath(".jsonl");
        QVERIFY(writeLines(broken,
                           {QByteArray("{\"type\":\"message\",\"ticket\":\"T-AWK\","), opened, message}));
        const ImportReport first = importer.importFile(broken);
        QVERIFY2(first.fatal.isEmpty(), qPrintable(first.fatal));
        QCOMPARE(first.rejected.size(), 1);
        QCOMPARE(first.rejected.first().place.line, 1);
        QCOMPARE(first.eventsImported, 2);

        const QString typo = newPath(".jsonl");
        QVERIFY(writeLines(
                typo,
                {R"({"type":"message","tickt":"T-AWK","at":"2026-04-10T10:02:00Z","from":"customer","text":"typo"})",
                 R"({"type":"message","ticket":"T-AWK","at":"2026-04-10T10:03:00Z","from":"customer","text":"again"})"}));
        const ImportReport second = importer.importFile(typo);
        QCOMPARE(second.rejected.size(), 1);
        QCOMPARE(second.rejected.first().place.line, 1);
        QVERIFY2(second.rejected.first().reason.contains(QStringLiteral("\"ticket\"")),
                 qPrintable(second.rejected.first().reason));
        QCOMPARE(second.eventsImported, 1);
    }

    // A conversation without an id of its own is named by its content: the same conversation in
    // a renamed file is the same ticket; a different one in a file of the same name is not.
    void conversationsWithoutIds()
    {
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(*store, profiles());
        auto anonymous = [](const char *text) {
            return QByteArray("{\"messages\":[{\"role\":\"user\",\"content\":\"") + text + "\"}]}";
        };
        QTemporaryDir a;
        QTemporaryDir b;
        QVERIFY(writeLines(a.filePath(QStringLiteral("support.jsonl")), {anonymous("Alice: my refund?")}));
        QVERIFY(writeLines(b.filePath(QStringLiteral("support.jsonl")), {anonymous("Bob: my pickup?")}));
        QVERIFY(writeLines(b.filePath(QStringLiteral("renamed.jsonl")), {anonymous("Alice: my refund?")}));
        QVERIFY(importer.importFile(a.filePath(QStringLiteral("support.jsonl"))).clean());
        QVERIFY(importer.importFile(b.filePath(QStringLiteral("support.jsonl"))).clean());
        const ImportReport again = importer.importFile(b.filePath(QStringLiteral("renamed.jsonl")));
        QVERIFY2(again.clean(), qPrintable(describe(again)));
        QCOMPARE(again.ticketsOpened, 0);
        RawSqlite raw(path);
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM tickets")), 2);
        QCOMPARE(scalar(raw.db(),
                        QStringLiteral("SELECT count(*) FROM tickets WHERE ext_id LIKE 'conversation-%'")),
                 2);
    }

    // A conversation that is skipped leaves nothing behind, not even its tools in the summary.
    void skippedConversationTeachesNothing()
    {
        QByteArray orphan = chatLine(QStringLiteral("orphan"),
                                     {{QStringLiteral("c1"), QStringLiteral("mystery_tool"),
                                       QStringLiteral("{}"), QStringLiteral("ok")}});
        orphan.replace("]}", R"(,{"role":"tool","tool_call_id":"zz","content":"done"}]})");
        const QString file = newPath(".jsonl");
        QVERIFY(writeLines(file, {orphan}));
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(file);
        QCOMPARE(report.rejected.size(), 1);
        QVERIFY(report.unclassifiedTools.isEmpty());
        QVERIFY(store->unclassifiedTools().value().isEmpty());
    }

    void unknownFormat()
    {
        const QString file = newPath(".csv");
        QVERIFY(writeLines(file, {"ticket,order,amount", "T-1,SU-1,118.00"}));
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(file);
        QVERIFY2(report.fatal.contains(QStringLiteral("not a transcript format Verity reads")),
                 qPrintable(report.fatal));
        QVERIFY2(report.fatal.contains(QStringLiteral("ticket,order")), qPrintable(report.fatal));
        QCOMPARE(report.ticketsOpened, 0);
    }

    // A binary file, or one that starts with a terminal escape, is quoted with its control
    // characters spelled out: the message never carries them to a screen or a terminal.
    void unknownFormatQuotesNoControlCharacters()
    {
        const QString file = newPath(".log");
        QVERIFY(writeLines(file, {QByteArray("\x1b[2J\x1b]0;owned\x07plain text\x01")}));
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(file);
        QVERIFY2(report.fatal.contains(QStringLiteral("not a transcript format Verity reads")),
                 qPrintable(report.fatal));
        QVERIFY2(report.fatal.contains(QStringLiteral("\\x1B[2J\\x1B]0;owned\\x07plain text\\x01")),
                 qPrintable(report.fatal));
        for (const QChar c : report.fatal)
            QVERIFY2(c.category() != QChar::Other_Control, qPrintable(report.fatal));
    }

    // A line longer than the bound is refused unread, by its line and length, and the lines
    // after it are imported: a 65 MB line never becomes gigabytes of parsed JSON.
    void overlongLineIsRefusedUnread_data()
    {
        QTest::addColumn<bool>("lastLine");
        QTest::newRow("in the middle") << false;
        QTest::newRow("last, with no newline") << true;
    }

    void overlongLineIsRefusedUnread()
    {
        QFETCH(bool, lastLine);
        const QString file = newPath(".jsonl");
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(chatLine(QStringLiteral("before"),
                               {{QStringLiteral("c1"), QStringLiteral("get_order"), QStringLiteral("{}"),
                                 QStringLiteral("ok")}})
                      + '\n');
            const QByteArray chunk(1 << 20, 'x');
            out.write("{\"messages\":[{\"role\":\"user\",\"content\":\"");
            for (int i = 0; i < 65; ++i)
                out.write(chunk);
            out.write("\"}]}");
            if (!lastLine) {
                out.write("\n");
                out.write(chatLine(QStringLiteral("after"),
                                   {{QStringLiteral("c1"), QStringLiteral("get_order"), QStringLiteral("{}"),
                                     QStringLiteral("ok")}})
                          + '\n');
            }
        }
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(file);
        QVERIFY2(report.fatal.isEmpty(), qPrintable(report.fatal));
        QCOMPARE(report.rejected.size(), 1);
        QCOMPARE(report.rejected.first().place.line, 2);
        QVERIFY2(report.rejected.first().reason.contains(
                         QStringLiteral("the line is 65.0 MB long; a line may be at most 64 MB")),
                 qPrintable(report.rejected.first().reason));
        QCOMPARE(report.ticketsOpened, lastLine ? 1 : 2);
        // Imported again, the file is the same file: nothing new, the same refusal.
        const ImportReport again = importer.importFile(file);
        QCOMPARE(again.ticketsOpened, 0);
        QCOMPARE(again.rejected.size(), 1);
    }

    // An empty file, or one of blank lines, says so; nothing is stored, not even an import row.
    void emptyFileSaysSo()
    {
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        const QString empty = newPath(".jsonl");
        QVERIFY(writeLines(empty, {}));
        QFile::resize(empty, 0);
        const ImportReport none = importer.importFile(empty);
        QVERIFY2(none.fatal == QStringLiteral("the file is empty: there is nothing to import"),
                 qPrintable(none.fatal));
        const QString blank = newPath(".jsonl");
        QVERIFY(writeLines(blank, {"", "  ", ""}));
        const ImportReport spaces = importer.importFile(blank);
        QVERIFY2(spaces.fatal.contains(QStringLiteral("only blank lines")), qPrintable(spaces.fatal));
        QCOMPARE(store->countTickets(TicketQuery{}).value(), 0);
    }

    // A pipe or FIFO is read once, from its first line: `verity import <(zcat day.jsonl.gz)`.
    void fifoIsReadWhole()
    {
        const QString regular = newPath(".jsonl");
        QVERIFY(QFile::copy(QStringLiteral(VERITY_TEST_DATA "/../../resources/demo/march-incident.jsonl"),
                            regular));
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("day.jsonl"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        // The writer runs beside the import: a FIFO's open blocks until both ends are there.
        QProcess writer;
        writer.start(QStringLiteral("sh"),
                     {QStringLiteral("-c"), QStringLiteral("cat \"$0\" > \"$1\""), regular, fifo});
        QVERIFY(writer.waitForStarted());
        auto piped = test::openTestStore(newPath());
        const ImportReport fromPipe = TranscriptImporter(*piped, profiles()).importFile(fifo);
        QVERIFY(writer.waitForFinished());
        QVERIFY2(fromPipe.clean(), qPrintable(describe(fromPipe)));
        auto direct = test::openTestStore(newPath());
        const ImportReport fromFile = TranscriptImporter(*direct, profiles()).importFile(regular);
        QCOMPARE(fromPipe.linesRead, fromFile.linesRead);
        QCOMPARE(fromPipe.eventsImported, fromFile.eventsImported);
        QCOMPARE(fromPipe.ticketsOpened, 46);
        QCOMPARE(piped->countOpenEscalations().value(), direct->countOpenEscalations().value());
    }

    // Verity's own lines choose a profile per ticket, by the tools its calls name: a retail agent's
    // file is read with tau-retail without --registry, and a later file's calls of a ticket are
    // read with the profile that ticket was opened with.
    void nativeLinesChooseTheirTicketsProfile()
    {
        const auto line = [](const QJsonObject &object) {
            return QJsonDocument(object).toJson(QJsonDocument::Compact);
        };
        const auto opened = [&line](const char *ticket) {
            return line({{QStringLiteral("type"), QStringLiteral("ticket_opened")},
                         {QStringLiteral("ticket"), QString::fromLatin1(ticket)},
                         {QStringLiteral("at"), QStringLiteral("2026-04-10T10:00:00Z")},
                         {QStringLiteral("order"),
                          QJsonObject{{QStringLiteral("id"), QStringLiteral("SU-7")},
                                      {QStringLiteral("items"), QJsonArray()},
                                      {QStringLiteral("payment_intent"), QStringLiteral("pi_SU-7")}}},
                         {QStringLiteral("seller"),
                          QJsonObject{{QStringLiteral("id"), QStringLiteral("s7")},
                                      {QStringLiteral("name"), QStringLiteral("Seven")},
                                      {QStringLiteral("balance_cents"), 1000}}}});
        };
        const auto call = [&line](const char *ticket, const char *id, const char *tool,
                                  const QJsonObject &arguments) {
            return line({{QStringLiteral("type"), QStringLiteral("tool_call")},
                         {QStringLiteral("ticket"), QString::fromLatin1(ticket)},
                         {QStringLiteral("at"), QStringLiteral("2026-04-10T10:01:00Z")},
                         {QStringLiteral("call_id"), QString::fromLatin1(id)},
                         {QStringLiteral("tool"), QString::fromLatin1(tool)},
                         {QStringLiteral("arguments"), arguments}});
        };
        const QJsonObject order{{QStringLiteral("order_id"), QStringLiteral("#W1")}};
        const QString first = newPath(".jsonl");
        QVERIFY(writeLines(first,
                           {opened("T-DEF"),
                            call("T-DEF", "c1", "issue_refund",
                                 {{QStringLiteral("order_id"), QStringLiteral("SU-7")},
                                  {QStringLiteral("amount_cents"), 500}}),
                            opened("T-RET"), call("T-RET", "c1", "get_order_details", order),
                            call("T-RET", "c2", "cancel_pending_order",
                                 {{QStringLiteral("order_id"), QStringLiteral("#W1")},
                                  {QStringLiteral("reason"), QStringLiteral("ordered by mistake")}})}));
        auto store = test::openTestStore(newPath());
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(first);
        QVERIFY2(report.clean(), qPrintable(describe(report)));
        QVERIFY2(report.unclassifiedTools.isEmpty(), qPrintable(report.unclassifiedTools.join(u' ')));
        QCOMPARE(report.registries, (QStringList{QStringLiteral("default"), QStringLiteral("tau-retail")}));
        QCOMPARE((*store->readTicket(QStringLiteral("T-DEF")))->registry, QStringLiteral("default"));
        QCOMPARE((*store->readTicket(QStringLiteral("T-RET")))->registry, QStringLiteral("tau-retail"));

        const QString later = newPath(".jsonl");
        QVERIFY(writeLines(later,
                           {call("T-RET", "c3", "return_delivered_order_items",
                                 {{QStringLiteral("order_id"), QStringLiteral("#W1")},
                                  {QStringLiteral("item_ids"), QJsonArray{QStringLiteral("1")}},
                                  {QStringLiteral("payment_method_id"), QStringLiteral("pm_1")}})}));
        const ImportReport next = importer.importFile(later);
        QVERIFY2(next.clean(), qPrintable(describe(next)));
        QVERIFY2(next.unclassifiedTools.isEmpty(), qPrintable(next.unclassifiedTools.join(u' ')));
        const Expected<QList<StoredCall>> stored =
                store->writeCalls((*store->readTicket(QStringLiteral("T-RET")))->id);
        QVERIFY_OK(stored);
        QStringList writes;
        for (const StoredCall &each : *stored)
            writes.append(each.tool);
        QCOMPARE(writes,
                 (QStringList{QStringLiteral("cancel_pending_order"),
                              QStringLiteral("return_delivered_order_items")}));
    }

    // A τ² airline file whose only call is transfer_to_human_agents, a tool of both τ profiles:
    // the file's own domain_name decides, not the order of the profiles.
    void declaredDomainDecidesATie()
    {
        const QJsonObject call{{QStringLiteral("id"), QStringLiteral("call_1")},
                               {QStringLiteral("name"), QStringLiteral("transfer_to_human_agents")},
                               {QStringLiteral("arguments"),
                                QJsonObject{{QStringLiteral("summary"), QStringLiteral("wants a human")}}},
                               {QStringLiteral("requestor"), QStringLiteral("assistant")}};
        const QJsonArray messages{
                QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                            {QStringLiteral("content"), QStringLiteral("I want a human.")},
                            {QStringLiteral("turn_idx"), 0},
                            {QStringLiteral("timestamp"), QStringLiteral("2025-08-01T10:00:00")}},
                QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                            {QStringLiteral("content"), QJsonValue()},
                            {QStringLiteral("turn_idx"), 1},
                            {QStringLiteral("timestamp"), QStringLiteral("2025-08-01T10:00:01")},
                            {QStringLiteral("tool_calls"), QJsonArray{call}}},
                QJsonObject{{QStringLiteral("role"), QStringLiteral("tool")},
                            {QStringLiteral("id"), QStringLiteral("call_1")},
                            {QStringLiteral("content"), QStringLiteral("Transfer successful")},
                            {QStringLiteral("requestor"), QStringLiteral("assistant")},
                            {QStringLiteral("turn_idx"), 2},
                            {QStringLiteral("timestamp"), QStringLiteral("2025-08-01T10:00:02")},
                            {QStringLiteral("error"), false}}};
        const QJsonObject simulation{{QStringLiteral("id"), QStringLiteral("sim-1")},
                                     {QStringLiteral("task_id"), QStringLiteral("7")},
                                     {QStringLiteral("trial"), 0},
                                     {QStringLiteral("messages"), messages}};
        for (const char *domain : {"airline", "retail"}) {
            const QString file = newPath(".json");
            const QJsonObject document{{QStringLiteral("timestamp"), QStringLiteral("2025-08-01T10:00:00")},
                                       {QStringLiteral("info"),
                                        QJsonObject{{QStringLiteral("environment_info"),
                                                     QJsonObject{{QStringLiteral("domain_name"),
                                                                  QString::fromLatin1(domain)}}}}},
                                       {QStringLiteral("tasks"), QJsonArray()},
                                       {QStringLiteral("simulations"), QJsonArray{simulation}}};
            // On one line (read as JSON Lines) and indented (read as a document, streamed).
            for (const QJsonDocument::JsonFormat layout : {QJsonDocument::Compact, QJsonDocument::Indented}) {
                QVERIFY(writeLines(file, {QJsonDocument(document).toJson(layout)}));
                auto store = test::openTestStore(newPath());
                const ImportReport report = TranscriptImporter(*store, profiles()).importFile(file);
                QVERIFY2(report.clean(), qPrintable(describe(report)));
                QCOMPARE(report.registries,
                         QStringList{QStringLiteral("tau-") + QString::fromLatin1(domain)});
            }
        }
    }

    // --registry NAME reads every call with that profile.
    void forcedProfile()
    {
        const Expected<RegistryChoice> choice = chooseRegistry({QStringLiteral("default"), QString()});
        QVERIFY_OK(choice);
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(*store, choice->selection);
        const ImportReport report = importer.importFile(data("tau/tau2-gpt-4.1-mini-telecom-trace.json"));
        QVERIFY(report.clean());
        QCOMPARE(report.registries, QStringList{QStringLiteral("default")});
        QVERIFY(report.unclassifiedTools.contains(QStringLiteral("get_customer_by_phone")));
        const Expected<RegistryChoice> missing =
                chooseRegistry({QStringLiteral("no-such-profile"), QString()});
        QVERIFY(!missing);
        QCOMPARE(missing.code(), std::error_code(InputErrc::Missing));
        QVERIFY2(missing.message().contains(QStringLiteral("no-such-profile")),
                 qPrintable(missing.message()));
    }

    // A tool nobody knew, classified afterwards: saved to the user's file, its calls read again.
    void classifyAfterImport()
    {
        const QString file = newPath(".jsonl");
        const QString credit = QStringLiteral(R"({"account":"acct-9","cents":500})");
        QVERIFY(writeLines(file,
                           {chatLine(QStringLiteral("credit"),
                                     {{QStringLiteral("c1"), QStringLiteral("apply_credit"), credit,
                                       QStringLiteral("credit applied")},
                                      {QStringLiteral("c2"), QStringLiteral("apply_credit"), credit,
                                       QStringLiteral("credit applied")}})}));
        const QString path = newPath();
        auto store = test::openTestStore(path);
        const QString userFile = m_dir.filePath(QStringLiteral("config/registry.json"));
        TranscriptImporter importer(*store, profiles(userFile));
        const ImportReport report = importer.importFile(file);
        QCOMPARE(report.unclassifiedTools, QStringList{QStringLiteral("apply_credit")});
        QCOMPARE(store->unclassifiedTools().value().size(), 1);
        QCOMPARE(store->unclassifiedTools().value().first().calls, 2);
        // Until then it is judged as its calls suggest, and says so.
        QCOMPARE(store->unclassifiedTools().value().first().inferredClass, ToolClass::WriteMoney);
        QVERIFY(store->unclassifiedTools().value().first().inferredBecause.contains(QLatin1String("cents")));

        ToolSpec spec;
        spec.name = QStringLiteral("apply_credit");
        spec.toolClass = ToolClass::WriteMoney;
        spec.intent = suggestIntentFields(credit);
        spec.amountField = QStringLiteral("cents");
        QVERIFY(saveToolToUserRegistry(userFile, spec));
        Expected<Reclassification> done = reclassifyTool(*store, profiles(userFile), spec.name);
        QVERIFY_OK(done);
        QCOMPARE(done->calls, 2);
        QCOMPARE(done->tickets, 1);
        QVERIFY(store->unclassifiedTools().value().isEmpty());

        RawSqlite raw(path);
        // Confirmed: no call says its class was inferred any more.
        QCOMPARE(scalar(raw.db(),
                        QStringLiteral("SELECT count(*) FROM tool_calls WHERE class_inferred IS NOT NULL")),
                 0);
        QCOMPARE(
                rows(raw.db(),
                     QStringLiteral("SELECT call_ext_id, tool_class, outcome, amount_cents, repeat_kind FROM "
                                    "tool_calls ORDER BY seq")),
                (QStringList{QStringLiteral("c1|write_money|performed|500|<null>"),
                             QStringLiteral("c2|write_money|performed|500|duplicate_effect")}));
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT duplicate_cents FROM tickets")), 500);
        // The next import knows the tool from the user's file.
        Expected<ToolRegistry> reloaded = ToolRegistry::builtIn().extendedWithFile(userFile);
        QVERIFY(reloaded && reloaded->find(QStringLiteral("apply_credit")));
    }

    // The AI SDK's own spans, with a registry that knows none of their tools: its tool
    // definitions (gen_ai.tool.definitions) make issue_refund a money write, so the refund that
    // timed out is escalated and its identical retry caught; confirming the class makes it the
    // registry's and clears the mark.
    void classFromTheTelemetry()
    {
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(
                *store, RegistrySelection::forced(NamedRegistry{QStringLiteral("empty"), ToolRegistry()}));
        const ImportReport report = importer.importFile(data("formats/otlp-ai-sdk-7-refund-retry.jsonl"));
        QVERIFY2(report.rejected.isEmpty(), qPrintable(report.summary()));
        QVERIFY(report.unclassifiedTools.contains(QStringLiteral("issue_refund")));

        RawSqlite raw(path);
        QCOMPARE(rows(raw.db(),
                      QStringLiteral("SELECT tool_class, outcome, repeat_kind, amount_cents, intent_error "
                                     "FROM tool_calls WHERE tool = 'issue_refund' ORDER BY seq")),
                 (QStringList{
                         QStringLiteral("write_money|unknown|<null>|4599|no registry knows issue_refund"),
                         QStringLiteral("write_money|performed|retry|4599|no registry knows issue_refund")}));
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM escalations WHERE state = 'open'")),
                 1);
        const QList<UnclassifiedTool> tools = store->unclassifiedTools().value();
        const auto refundTool = std::find_if(tools.cbegin(), tools.cend(), [](const UnclassifiedTool &tool) {
            return tool.tool == QLatin1String("issue_refund");
        });
        QVERIFY(refundTool != tools.cend());
        QCOMPARE(refundTool->inferredClass, ToolClass::WriteMoney);
        QVERIFY2(refundTool->inferredBecause.contains(QLatin1String("gen_ai.tool.definitions")),
                 qPrintable(refundTool->inferredBecause));

        const QString userFile = m_dir.filePath(QStringLiteral("config/telemetry-registry.json"));
        ToolSpec spec;
        spec.name = QStringLiteral("issue_refund");
        spec.toolClass = ToolClass::WriteMoney;
        spec.intent = {{QStringLiteral("order_id"), IntentField::Type::String},
                       {QStringLiteral("amount_cents"), IntentField::Type::Integer}};
        spec.amountField = QStringLiteral("amount_cents");
        QVERIFY(saveToolToUserRegistry(userFile, spec));
        Expected<ToolRegistry> confirmed = ToolRegistry().extendedWithFile(userFile);
        QVERIFY_OK(confirmed);
        Expected<Reclassification> done = reclassifyTool(
                *store, RegistrySelection::forced(NamedRegistry{QStringLiteral("empty"), *confirmed}),
                spec.name);
        QVERIFY_OK(done);
        QCOMPARE(done->calls, 2);
        QCOMPARE(rows(raw.db(),
                      QStringLiteral("SELECT tool_class, repeat_kind, class_inferred, intent_error "
                                     "FROM tool_calls WHERE tool = 'issue_refund' ORDER BY seq")),
                 (QStringList{QStringLiteral("write_money|<null>|<null>|<null>"),
                              QStringLiteral("write_money|retry|<null>|<null>")}));
    }

    // A logged chat request names the tools the model was given: a description that says money
    // moves makes a tool no registry knows a money write, so its repeat is caught.
    void classFromAChatRequestsTools()
    {
        const QString file = newPath(".jsonl");
        const QString arguments = QStringLiteral(R"({"order_id":"SU-1","sum":4599})");
        QJsonObject conversation =
                QJsonDocument::fromJson(chatLine(QStringLiteral("tools"),
                                                 {{QStringLiteral("m1"), QStringLiteral("make_it_right"),
                                                   arguments, QStringLiteral(R"({"status":"ok"})")},
                                                  {QStringLiteral("m2"), QStringLiteral("make_it_right"),
                                                   arguments, QStringLiteral(R"({"status":"ok"})")}}))
                        .object();
        conversation.insert(
                QStringLiteral("tools"),
                QJsonArray{QJsonObject{
                        {QStringLiteral("type"), QStringLiteral("function")},
                        {QStringLiteral("function"),
                         QJsonObject{{QStringLiteral("name"), QStringLiteral("make_it_right")},
                                     {QStringLiteral("description"),
                                      QStringLiteral("Refund the customer for a damaged order.")}}}}});
        QVERIFY(writeLines(file, {QJsonDocument(conversation).toJson(QJsonDocument::Compact)}));
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(file);
        QVERIFY2(report.rejected.isEmpty(), qPrintable(report.summary()));
        RawSqlite raw(path);
        QCOMPARE(rows(raw.db(),
                      QStringLiteral("SELECT tool_class, repeat_kind, amount_cents FROM tool_calls "
                                     "ORDER BY seq")),
                 (QStringList{QStringLiteral("write_money|<null>|<null>"),
                              QStringLiteral("write_money|duplicate_effect|<null>")}));
        const QString because =
                rows(raw.db(),
                     QStringLiteral("SELECT class_inferred FROM tool_calls WHERE call_ext_id = 'm1'"))
                        .value(0);
        QVERIFY2(because.contains(QLatin1String("the transcript's \"tools\"")), qPrintable(because));
    }

    // Calls of one tool inferred as different classes: the most cautious is offered, so one
    // click never makes a money write a lesser one; and a chat request's "tools" that is no list
    // is said.
    void theMostCautiousInferenceIsOffered()
    {
        const QString file = newPath(".jsonl");
        QJsonObject conversation =
                QJsonDocument::fromJson(chatLine(QStringLiteral("cautious"),
                                                 {{QStringLiteral("k1"), QStringLiteral("settle_it"),
                                                   QStringLiteral(R"({"account":"a-1"})"),
                                                   QStringLiteral(R"({"status":"ok"})")},
                                                  {QStringLiteral("k2"), QStringLiteral("settle_it"),
                                                   QStringLiteral(R"({"account":"a-1","credit_cents":2500})"),
                                                   QStringLiteral(R"({"status":"ok"})")}}))
                        .object();
        conversation.insert(
                QStringLiteral("tools"),
                QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("settle_it")},
                                       {QStringLiteral("description"), QStringLiteral("Apply it.")},
                                       {QStringLiteral("annotations"),
                                        QJsonObject{{QStringLiteral("idempotentHint"), true}}}}});
        QJsonObject broken = QJsonDocument::fromJson(chatLine(QStringLiteral("broken-tools"), {})).object();
        broken.insert(QStringLiteral("tools"), QStringLiteral("settle_it"));
        QVERIFY(writeLines(file,
                           {QJsonDocument(conversation).toJson(QJsonDocument::Compact),
                            QJsonDocument(broken).toJson(QJsonDocument::Compact)}));
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(*store, profiles());
        const ImportReport report = importer.importFile(file);
        QVERIFY2(report.rejected.isEmpty(), qPrintable(report.summary()));
        QVERIFY2(report.noticeMessages().join(u'\n').contains(
                         QStringLiteral("tools: expected a list of tool definitions, got \"settle_it\"")),
                 qPrintable(report.noticeMessages().join(u'\n')));
        RawSqlite raw(path);
        QCOMPARE(
                rows(raw.db(), QStringLiteral("SELECT call_ext_id, tool_class FROM tool_calls ORDER BY seq")),
                (QStringList{QStringLiteral("k1|write_wasteful"), QStringLiteral("k2|write_money")}));
        const QList<UnclassifiedTool> tools = store->unclassifiedTools().value();
        QCOMPARE(tools.size(), 1);
        QCOMPARE(tools.first().inferredClass, ToolClass::WriteMoney);
        QVERIFY2(tools.first().inferredBecause.startsWith(
                         QStringLiteral("in its call, credit_cents looks like money"))
                         && tools.first().inferredBecause.contains(
                                 QStringLiteral("the most cautious is offered")),
                 qPrintable(tools.first().inferredBecause));
    }

    // Calls stored inferred or unclassified although the registry now knows their tools (a
    // confirmation cut short after the registry was saved): read again as it says, every tool.
    void toolsTheRegistryNowKnowsAreReadAgain()
    {
        const QString path = newPath();
        auto store = test::openTestStore(path);
        TranscriptImporter importer(
                *store, RegistrySelection::forced(NamedRegistry{QStringLiteral("empty"), ToolRegistry()}));
        QVERIFY(importer.importFile(data("formats/otlp-ai-sdk-7-refund-retry.jsonl")).rejected.isEmpty());
        const RegistrySelection known =
                RegistrySelection::forced(NamedRegistry{QStringLiteral("empty"), ToolRegistry::builtIn()});
        Expected<QStringList> done = reclassifyKnownTools(*store, known);
        QVERIFY_OK(done);
        QCOMPARE(*done, (QStringList{QStringLiteral("issue_refund"), QStringLiteral("get_order")}));
        RawSqlite raw(path);
        QCOMPARE(rows(raw.db(),
                      QStringLiteral("SELECT DISTINCT tool, tool_class, class_inferred FROM tool_calls "
                                     "ORDER BY tool")),
                 (QStringList{QStringLiteral("get_order|read|<null>"),
                              QStringLiteral("issue_refund|write_money|<null>")}));
        QCOMPARE(rows(raw.db(),
                      QStringLiteral("SELECT repeat_kind FROM tool_calls WHERE tool = 'issue_refund' "
                                     "ORDER BY seq")),
                 (QStringList{QStringLiteral("<null>"), QStringLiteral("retry")}));
        // Nothing left to read again.
        QCOMPARE(reclassifyKnownTools(*store, known).value(), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestTranscriptImport)
#include "tst_transcriptimport.moc"

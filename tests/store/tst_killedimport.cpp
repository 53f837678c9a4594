// An import killed with SIGKILL, or cancelled, at any moment: what it committed is a sound
// database, every ticket in it is exactly the ticket a whole import makes (no conversation cut
// at a batch boundary, no escalation a whole import would not open), and importing the file
// again ends exactly where one clean import ends.

#include "storetestsupport.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>

#include <deque>

using namespace verity;
using namespace storetest;

namespace {

// The lines of one ticket of the large file: 5 to 7 lines, some refunds left without a result.
QStringList ticketLines(int i)
{
    static const QString results[] = {QStringLiteral("{\"refund_id\":\"re_%1\",\"status\":\"queued\"}"),
                                      QStringLiteral("{\"error\":\"refund failed: upstream timeout, %1\"}"),
                                      QStringLiteral("{\"outcome\":\"performed\",\"refund_id\":\"re_%1\"}"),
                                      QStringLiteral("{\"outcome\":\"unknown\",\"note\":\"%1\"}"),
                                      QStringLiteral("{\"error\":\"validation failed for %1\"}")};
    const QString ticket = QStringLiteral("T-%1").arg(i, 6, 10, QLatin1Char('0'));
    const QString at = QStringLiteral("2026-03-%1T%2:%3:")
                               .arg(1 + i % 28, 2, 10, QLatin1Char('0'))
                               .arg(i / 60 % 24, 2, 10, QLatin1Char('0'))
                               .arg(i % 60, 2, 10, QLatin1Char('0'));
    const int cents = 500 + i % 9000;
    // Spelled out rather than through arg(): "%2" followed by digits would read as "%20".
    const QString opened = QStringLiteral("{\"type\":\"ticket_opened\",\"ticket\":\"") + ticket
            + QStringLiteral("\",\"at\":\"") + at
            + QStringLiteral("00Z\",\"subject\":\"Refund %1\",\"order\":{\"id\":"
                             "\"O-%1\",\"items\":[{\"id\":\"ITEM\",\"title\":\"Thing\","
                             "\"quantity\":1,\"amount_cents\":%2}]},\"seller\":{\"id\":"
                             "\"seller-%3\",\"name\":\"Seller %3\"}}")
                      .arg(i)
                      .arg(cents)
                      .arg(i % 40);
    QStringList lines{opened};
    lines << QStringLiteral("{\"type\":\"message\",\"ticket\":\"") + ticket + QStringLiteral("\",\"at\":\"")
                    + at
                    + QStringLiteral("01Z\",\"from\":\"customer\",\"text\":\"Please refund order %1\"}")
                              .arg(i);
    const int calls = i % 7 == 0 ? 2 : 1; // every seventh ticket retries the same refund
    for (int c = 1; c <= calls; ++c) {
        const QString head = QStringLiteral("\",\"ticket\":\"") + ticket + QStringLiteral("\",\"at\":\"") + at
                + QString::number(c);
        lines << QStringLiteral("{\"type\":\"tool_call") + head
                        + QStringLiteral("2Z\",\"call_id\":\"c%1\",\"tool\":\"issue_refund\",\"arguments\":"
                                         "{\"order_id\":\"O-%2\",\"item_id\":\"ITEM\",\"amount_cents\":%3}}")
                                  .arg(c)
                                  .arg(i)
                                  .arg(cents);
        if (i % 11 == 5 && c == calls)
            continue; // no result at all
        lines << QStringLiteral("{\"type\":\"tool_result") + head
                        + QStringLiteral("5Z\",\"call_id\":\"c%1\",\"result\":").arg(c)
                        + results[(i + c) % 5].arg(i) + u'}';
    }
    lines << QStringLiteral("{\"type\":\"reply\",\"ticket\":\"") + ticket + QStringLiteral("\",\"at\":\"")
                    + at + QStringLiteral("59Z\",\"text\":\"Done.\"}");
    return lines;
}

// Tickets three at a time with their lines interleaved, and every thirteenth ticket's last
// line held back until five tickets later, as an agent serving several customers at once
// writes them: a batch of a fixed number of lines would end inside tickets.
bool writeInterleavedFile(const QString &path, int ticketCount, qint64 *lineCount)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    QTextStream out(&file);
    qint64 lines = 0;
    std::deque<std::pair<int, QString>> heldBack; // (ticket to write it after, line)
    for (int first = 0; first < ticketCount; first += 3) {
        QList<QStringList> group;
        for (int i = first; i < qMin(first + 3, ticketCount); ++i) {
            group.append(ticketLines(i));
            if (i % 13 == 0)
                heldBack.emplace_back(i + 5, group.last().takeLast());
        }
        for (qsizetype row = 0; row < 7; ++row) {
            for (const QStringList &ticket : std::as_const(group)) {
                if (row < ticket.size()) {
                    out << ticket.at(row) << '\n';
                    ++lines;
                }
            }
        }
        const int written = qMin(first + 3, ticketCount);
        while (!heldBack.empty() && (heldBack.front().first < written || written == ticketCount)) {
            out << heldBack.front().second << '\n';
            ++lines;
            heldBack.pop_front();
        }
    }
    out.flush();
    *lineCount = lines;
    return out.status() == QTextStream::Ok && file.error() == QFileDevice::NoError;
}

void startImport(QProcess &process, const QString &db, const QString &file, const QString &configHome)
{
    startVerity(process,
                {QStringLiteral("import"), QStringLiteral("--json"), QStringLiteral("--db"), db, file},
                configHome);
}

QStringList callKeys(const QSqlDatabase &db)
{
    return rows(db,
                QStringLiteral("SELECT t.ext_id, c.call_ext_id, c.outcome, c.intent_key FROM tool_calls c "
                               "JOIN tickets t ON t.id = c.ticket_id ORDER BY t.ext_id, c.call_ext_id"));
}

// What a database holds ticket by ticket, each dump's rows beginning with the ticket's id.
struct TicketDumps
{
    explicit TicketDumps(const QSqlDatabase &db)
        : dumps{{"summary", ticketSummaries(db)},
                {"calls", toolCallDump(db)},
                {"messages", messageDump(db)},
                {"escalations", escalationDump(db)}}
    {}
    std::pair<const char *, QStringList> dumps[4];
};

// Where the tickets of `partial` differ from the same tickets of a whole import; empty when
// every ticket it holds is whole.
QStringList partialTickets(const QSqlDatabase &partial, const TicketDumps &whole)
{
    const QStringList ids = rows(partial, QStringLiteral("SELECT ext_id FROM tickets"));
    const QSet<QString> stored(ids.cbegin(), ids.cend());
    const TicketDumps got(partial);
    QStringList differences;
    for (int d = 0; d < 4; ++d) {
        QStringList expected;
        for (const QString &row : whole.dumps[d].second) {
            if (stored.contains(row.section(u'|', 0, 0)))
                expected << row;
        }
        const QStringList &have = got.dumps[d].second;
        for (qsizetype i = 0; i < qMax(have.size(), expected.size()); ++i) {
            const QString a = have.value(i, QStringLiteral("<none>"));
            const QString b = expected.value(i, QStringLiteral("<none>"));
            if (a != b) {
                differences << QStringLiteral("%1: stored \"%2\", a whole import has \"%3\"")
                                       .arg(QLatin1String(got.dumps[d].first), a, b);
                break;
            }
        }
    }
    return differences;
}

} // namespace

class TestKilledImport : public QObject
{
    Q_OBJECT

private slots:
    void cancelledAtEveryCommit_data();
    void cancelledAtEveryCommit();
    void killedAtRandomMoments();
};

void TestKilledImport::cancelledAtEveryCommit_data()
{
    QTest::addColumn<QString>("file"); // empty: the interleaved native file
    QTest::newRow("native, tickets interleaved") << QString();
    QTest::newRow("OpenTelemetry, a trace over two requests")
            << QStringLiteral(VERITY_TEST_DATA "/formats/otlp-split-batches.jsonl");
    QTest::newRow("Anthropic") << QStringLiteral(VERITY_TEST_DATA "/formats/anthropic-support.jsonl");
}

// Batches of one unit, cancelled after each commit in turn: each stop is a batch boundary, and
// every ticket stored at every one of them is whole.
void TestKilledImport::cancelledAtEveryCommit()
{
    QFETCH(QString, file);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    if (file.isEmpty()) {
        file = dir.filePath(QStringLiteral("interleaved.jsonl"));
        qint64 lines = 0;
        QVERIFY(writeInterleavedFile(file, 40, &lines));
    }
    const QString cleanPath = dir.filePath(QStringLiteral("clean.sqlite"));
    {
        std::unique_ptr<SqliteStore> clean = openStore(cleanPath);
        QVERIFY(clean);
        const ImportReport report = importFile(*clean, file);
        QVERIFY2(report.fatal.isEmpty() && report.rejected.isEmpty(), qPrintable(describe(report)));
    }
    RawSqlite clean(cleanPath);
    QVERIFY(clean.isOpen());
    const qint64 ticketCount = scalar(clean.db(), QStringLiteral("SELECT count(*) FROM tickets"));
    const TicketDumps whole(clean.db());

    int stops = 0;
    for (int stopAt = 1;; ++stopAt) {
        const QString path = dir.filePath(QStringLiteral("stopped-%1.sqlite").arg(stopAt));
        ImportReport report;
        {
            std::unique_ptr<SqliteStore> store = openStore(path);
            QVERIFY(store);
            TranscriptImporter importer(*store, ToolRegistry::builtIn());
            importer.setBatchSize(1);
            int calls = 0; // the first call starts the clock, before any batch
            importer.setProgress([&](qint64, qint64) { return ++calls <= stopAt; });
            report = importer.importFile(file);
        }
        QVERIFY2(report.fatal.isEmpty(), qPrintable(report.fatal));
        RawSqlite stopped(path);
        QVERIFY(stopped.isOpen());
        const QStringList partial = partialTickets(stopped.db(), whole);
        QVERIFY2(partial.isEmpty(),
                 qPrintable(QStringLiteral("stopped after commit %1: ").arg(stopAt)
                            + partial.join(QStringLiteral("; "))));
        QCOMPARE(consistencyViolations(stopped.db()), QStringList());
        if (!report.cancelled) {
            QCOMPARE(scalar(stopped.db(), QStringLiteral("SELECT count(*) FROM tickets")), ticketCount);
            break;
        }
        ++stops;
        QVERIFY(stopAt < 100000);
    }
    qInfo("%d stops, %lld tickets", stops, ticketCount);
    QVERIFY(stops > 0);
}

void TestKilledImport::killedAtRandomMoments()
{
    QElapsedTimer clock;
    clock.start();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    constexpr int ticketCount = 3000;
    const QString file = dir.filePath(QStringLiteral("large.jsonl"));
    const QString cleanDb = dir.filePath(QStringLiteral("clean.sqlite"));
    const QString configHome = dir.filePath(QStringLiteral("config"));
    qint64 lineCount = 0;
    QVERIFY(writeInterleavedFile(file, ticketCount, &lineCount));

    // ---- one clean import, timed: the kills land anywhere within its length ----
    QElapsedTimer cleanTime;
    cleanTime.start();
    QProcess clean;
    startImport(clean, cleanDb, file, configHome);
    QVERIFY(clean.waitForFinished(120000));
    const qint64 importMs = cleanTime.elapsed();
    QCOMPARE(clean.exitStatus(), QProcess::NormalExit);
    QVERIFY2(clean.exitCode() == 0, clean.readAllStandardError().constData());
    RawSqlite reference(cleanDb);
    QVERIFY(reference.isOpen());
    QCOMPARE(scalar(reference.db(), QStringLiteral("SELECT count(*) FROM tickets")), ticketCount);
    const TicketDumps whole(reference.db());
    qInfo("%lld lines imported in %lld ms", lineCount, importMs);

    const quint32 seed = qEnvironmentVariableIsSet("VERITY_KILL_SEED")
            ? quint32(qEnvironmentVariableIntValue("VERITY_KILL_SEED"))
            : QRandomGenerator::global()->generate();
    QRandomGenerator random(seed);
    constexpr int kills = 24;
    int midway = 0; // kills that left some tickets and not all
    QString resumable;
    qint64 resumableTickets = 0;
    for (int run = 0; run < kills; ++run) {
        const QString killedDb = dir.filePath(QStringLiteral("killed-%1.sqlite").arg(run));
        const int delayMs = int(random.bounded(quint32(qMax<qint64>(importMs, 1))));
        QProcess importer;
        startImport(importer, killedDb, file, configHome);
        QVERIFY2(importer.waitForStarted(10000), qPrintable(importer.errorString()));
        if (!importer.waitForFinished(delayMs)) {
            importer.kill();
            QVERIFY(importer.waitForFinished(10000));
        }
        if (!QFile::exists(killedDb))
            continue;
        RawSqlite raw(killedDb);
        QVERIFY(raw.isOpen());
        const QString where =
                QStringLiteral("seed %1, kill %2 after %3 ms: ").arg(seed).arg(run).arg(delayMs);
        QCOMPARE(rows(raw.db(), QStringLiteral("PRAGMA integrity_check")), QStringList{QStringLiteral("ok")});
        if (!tableNames(raw.db()).contains(QStringLiteral("tickets")))
            continue; // killed before the schema was committed
        QCOMPARE(rows(raw.db(), QStringLiteral("PRAGMA foreign_key_check")), QStringList());
        const QStringList partial = partialTickets(raw.db(), whole);
        QVERIFY2(partial.isEmpty(), qPrintable(where + partial.join(QStringLiteral("; "))));
        QVERIFY2(consistencyViolations(raw.db()).isEmpty(),
                 qPrintable(where + consistencyViolations(raw.db()).join(QStringLiteral("; "))));
        const qint64 stored = scalar(raw.db(), QStringLiteral("SELECT count(*) FROM tickets"));
        if (stored > 0 && stored < ticketCount) {
            ++midway;
            if (resumable.isEmpty()) {
                resumable = killedDb;
                resumableTickets = stored;
            }
        }
    }
    qInfo("seed %u: %d of %d kills landed mid-import", seed, midway, kills);
    QVERIFY2(midway >= 5,
             qPrintable(QStringLiteral("only %1 kills landed mid-import (seed %2)").arg(midway).arg(seed)));

    // ---- import again over one killed database: it ends where the clean import ended ----
    QProcess resume;
    startImport(resume, resumable, file, configHome);
    QVERIFY(resume.waitForFinished(120000));
    QCOMPARE(resume.exitStatus(), QProcess::NormalExit);
    const QByteArray resumeOut = resume.readAllStandardOutput();
    QVERIFY2(resume.exitCode() == 0, (resumeOut + resume.readAllStandardError()).constData());
    const QJsonObject report = QJsonDocument::fromJson(resumeOut)
                                       .object()
                                       .value(QStringLiteral("files"))
                                       .toArray()
                                       .at(0)
                                       .toObject();
    QCOMPARE(report.value(QStringLiteral("lines")).toInteger(), lineCount);
    QCOMPARE(report.value(QStringLiteral("events_imported")).toInteger()
                     + report.value(QStringLiteral("events_already_present")).toInteger(),
             lineCount);
    QVERIFY(report.value(QStringLiteral("events_already_present")).toInteger() > 0);
    QCOMPARE(report.value(QStringLiteral("tickets_opened")).toInteger(), ticketCount - resumableTickets);

    RawSqlite resumed(resumable);
    QVERIFY(resumed.isOpen());
    QCOMPARE(rows(resumed.db(), QStringLiteral("PRAGMA integrity_check")), QStringList{QStringLiteral("ok")});
    QCOMPARE(tableCounts(resumed.db()), tableCounts(reference.db()));
    QCOMPARE(callKeys(resumed.db()), callKeys(reference.db()));
    QCOMPARE(ticketSummaries(resumed.db()), ticketSummaries(reference.db()));
    QCOMPARE(escalationDump(resumed.db()), escalationDump(reference.db()));
    QCOMPARE(messageDump(resumed.db()), messageDump(reference.db()));
    QCOMPARE(consistencyViolations(resumed.db()), QStringList());
    qInfo("done in %lld ms", clock.elapsed());
}

QTEST_GUILESS_MAIN(TestKilledImport)
#include "tst_killedimport.moc"

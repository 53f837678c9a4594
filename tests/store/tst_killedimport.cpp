// `verity import` killed with SIGKILL in the middle of a large file: what it committed is a
// sound database (integrity, foreign keys, escalations and ticket summaries agree with the
// calls), and importing the file again ends exactly where one clean import ends.

#include "storetestsupport.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <QThread>

using namespace verity;
using namespace storetest;

namespace {

constexpr int ticketCount = 15000;

// Tickets of 5 to 7 lines, so batches of 2000 lines end in the middle of tickets and some
// results land in a later batch than their calls.
bool writeLargeFile(const QString &path, qint64 *lineCount)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    QTextStream out(&file);
    qint64 lines = 0;
    const QString results[] = {QStringLiteral(R"({"refund_id":"re_%1","status":"queued"})"),
                               QStringLiteral(R"({"error":"refund failed: upstream timeout, %1"})"),
                               QStringLiteral(R"({"outcome":"performed","refund_id":"re_%1"})"),
                               QStringLiteral(R"({"outcome":"unknown","note":"%1"})"),
                               QStringLiteral(R"({"error":"validation failed for %1"})")};
    for (int i = 0; i < ticketCount; ++i) {
        const QString ticket = QStringLiteral("T-%1").arg(i, 6, 10, QLatin1Char('0'));
        const QString at = QStringLiteral("2026-03-%1T%2:%3:")
                                   .arg(1 + i % 28, 2, 10, QLatin1Char('0'))
                                   .arg(i / 60 % 24, 2, 10, QLatin1Char('0'))
                                   .arg(i % 60, 2, 10, QLatin1Char('0'));
        const int cents = 500 + i % 9000;
        out << R"({"type":"ticket_opened","ticket":")" << ticket << R"(","at":")" << at
            << R"(00Z","subject":"Refund )" << i << R"(","order":{"id":"O-)" << i
            << R"(","items":[{"id":"ITEM","title":"Thing","quantity":1,)"
            << R"("amount_cents":)" << cents << R"(}]},"seller":{"id":"seller-)" << i % 40
            << R"(","name":"Seller )" << i % 40 << R"("}})" << '\n';
        out << R"({"type":"message","ticket":")" << ticket << R"(","at":")" << at
            << R"(01Z","from":"customer","text":"Please refund order )" << i << R"("})" << '\n';
        lines += 2;
        const int calls = i % 7 == 0 ? 2 : 1; // every seventh ticket retries the same refund
        for (int c = 1; c <= calls; ++c) {
            out << R"({"type":"tool_call","ticket":")" << ticket << R"(","at":")" << at << c
                << R"(2Z","call_id":"c)" << c << R"(","tool":"issue_refund","arguments":{"order_id":"O-)" << i
                << R"(","item_id":"ITEM","amount_cents":)" << cents << "}}\n";
            ++lines;
            if (i % 11 == 5 && c == calls)
                continue; // no result at all
            out << R"({"type":"tool_result","ticket":")" << ticket << R"(","at":")" << at << c
                << R"(5Z","call_id":"c)" << c << R"(","result":)" << results[(i + c) % 5].arg(i) << "}\n";
            ++lines;
        }
        out << R"({"type":"reply","ticket":")" << ticket << R"(","at":")" << at << R"(59Z","text":"Done."})"
            << '\n';
        ++lines;
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

} // namespace

class TestKilledImport : public QObject
{
    Q_OBJECT

private slots:
    void killedImportIsConsistentAndResumes();
};

void TestKilledImport::killedImportIsConsistentAndResumes()
{
    QElapsedTimer clock;
    clock.start();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("large.jsonl"));
    const QString killedDb = dir.filePath(QStringLiteral("killed.sqlite"));
    const QString cleanDb = dir.filePath(QStringLiteral("clean.sqlite"));
    const QString configHome = dir.filePath(QStringLiteral("config"));
    qint64 lineCount = 0;
    QVERIFY(writeLargeFile(file, &lineCount));
    qInfo("wrote %lld lines in %lld ms", lineCount, clock.elapsed());

    // ---- start, wait for some committed batches, kill ----
    QProcess importer;
    startImport(importer, killedDb, file, configHome);
    QVERIFY2(importer.waitForStarted(10000), qPrintable(importer.errorString()));
    qint64 committed = 0;
    {
        std::unique_ptr<RawDatabase> poll; // a reader of its own, opened once the file exists
        QElapsedTimer waited;
        waited.start();
        while (importer.state() == QProcess::Running && waited.elapsed() < 60000) {
            if (!poll && QFile::exists(killedDb))
                poll = std::make_unique<RawDatabase>(killedDb, QStringLiteral("QSQLITE_BUSY_TIMEOUT=200"));
            if (poll) {
                committed = scalar(poll->db(), QStringLiteral("SELECT count(*) FROM tickets"));
                if (committed >= ticketCount / 10 && committed < ticketCount)
                    break;
            }
            QThread::msleep(10);
        }
    }
    if (importer.state() != QProcess::Running)
        QSKIP("the import finished before it could be killed");
    importer.kill();
    QVERIFY(importer.waitForFinished(10000));
    QCOMPARE(importer.exitStatus(), QProcess::CrashExit);
    qInfo("killed after %lld ms with %lld tickets committed", clock.elapsed(), committed);

    // ---- what the killed process left ----
    qint64 killedTickets = 0;
    {
        RawDatabase raw(killedDb);
        QVERIFY(raw.isOpen());
        QCOMPARE(rows(raw.db(), QStringLiteral("PRAGMA integrity_check")), QStringList{QStringLiteral("ok")});
        QCOMPARE(rows(raw.db(), QStringLiteral("PRAGMA foreign_key_check")), QStringList());
        killedTickets = scalar(raw.db(), QStringLiteral("SELECT count(*) FROM tickets"));
        QVERIFY2(killedTickets >= committed && killedTickets < ticketCount,
                 qPrintable(QString::number(killedTickets)));
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM imports")), 0);
        QVERIFY(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM escalations")) > 0);
        QCOMPARE(consistencyViolations(raw.db()), QStringList());
    }

    // ---- resume, and a clean import of the same file beside it ----
    QProcess resume, clean;
    startImport(resume, killedDb, file, configHome);
    startImport(clean, cleanDb, file, configHome);
    QVERIFY(resume.waitForFinished(120000));
    QVERIFY(clean.waitForFinished(120000));
    QCOMPARE(resume.exitStatus(), QProcess::NormalExit);
    QCOMPARE(clean.exitStatus(), QProcess::NormalExit);
    const QByteArray resumeOut = resume.readAllStandardOutput();
    QVERIFY2(resume.exitCode() == 0, (resumeOut + resume.readAllStandardError()).constData());
    QVERIFY2(clean.exitCode() == 0, clean.readAllStandardError().constData());
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
    QCOMPARE(report.value(QStringLiteral("tickets_opened")).toInteger(), ticketCount - killedTickets);

    RawDatabase resumed(killedDb);
    RawDatabase reference(cleanDb);
    QVERIFY(resumed.isOpen() && reference.isOpen());
    QCOMPARE(rows(resumed.db(), QStringLiteral("PRAGMA integrity_check")), QStringList{QStringLiteral("ok")});
    QCOMPARE(scalar(resumed.db(), QStringLiteral("SELECT count(*) FROM tickets")), ticketCount);
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

// `verity import --follow` as an agent runtime's log grows under it: lines read as they are
// written (a line waits for its newline), a write in flight until its grace ends, and reading
// going on across a rotation (the path names a new file) and a truncation.

#include "support/teststore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace verity;
using namespace verity::test;

namespace {

const QByteArray opened =
        R"({"type":"ticket_opened","ticket":"T-F-1","at":"2026-03-19T17:06:40Z","subject":"Refund",)"
        R"("order":{"id":"BW-1","currency":"USD","items":[{"id":"LMP-2","title":"Lamp","quantity":1,)"
        R"("amount_cents":1200}],"payment_intent":"pi_BW-1"},"seller":{"id":"brightwell","name":"Brightwell"}})";

QByteArray refund(const char *callId)
{
    return QByteArray(R"({"type":"tool_call","ticket":"T-F-1","at":"2026-03-19T17:06:42Z","call_id":")")
            + callId
            + R"(","tool":"issue_refund","arguments":{"order_id":"BW-1","item_id":"LMP-2","amount_cents":1200}})";
}

QByteArray refunded(const char *callId)
{
    return QByteArray(R"({"type":"tool_result","ticket":"T-F-1","at":"2026-03-19T17:06:43Z","call_id":")")
            + callId + R"(","result":{"refund_id":"re_1","status":"succeeded"}})";
}

void append(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::Append));
    file.write(bytes);
}

struct Call
{
    QString outcome;
    bool inFlight = false;
    bool escalated = false;
};

// What the store says of each call of T-F-1, by its id; read through a connection of its own.
QHash<QString, Call> callsOf(const QString &database)
{
    std::unique_ptr<Store> store = openTestStore(database);
    QHash<QString, Call> calls;
    if (!store)
        return calls;
    const Expected<std::optional<qint64>> ticket = store->ticketIdByExtId(QStringLiteral("T-F-1"));
    if (!ticket || !*ticket)
        return calls;
    const Expected<QList<TranscriptEntry>> entries = store->transcript(**ticket);
    for (const TranscriptEntry &entry : entries ? *entries : QList<TranscriptEntry>()) {
        if (entry.isToolCall)
            calls.insert(entry.call.callExtId,
                         Call{entry.call.outcome ? outcomeId(*entry.call.outcome) : QString(),
                              entry.call.inFlightUntil.has_value(), entry.call.escalationId.has_value()});
    }
    return calls;
}

// How far process `pid` has read the file at `path` (its descriptor's offset), or -1.
qint64 offsetIn(qint64 pid, const QString &path)
{
    const QString fds = QStringLiteral("/proc/%1/fd").arg(pid);
    const QString target = QFileInfo(path).canonicalFilePath();
    for (const QFileInfo &fd : QDir(fds).entryInfoList(QDir::Files | QDir::System)) {
        if (fd.symLinkTarget() != target)
            continue;
        QFile info(QStringLiteral("/proc/%1/fdinfo/%2").arg(pid).arg(fd.fileName()));
        if (!info.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &line : info.readAll().split('\n')) {
            if (line.startsWith("pos:"))
                return line.mid(4).trimmed().toLongLong();
        }
    }
    return -1;
}

} // namespace

class TestFollowImport : public QObject
{
    Q_OBJECT

private slots:
    void followsALogAcrossRotationWithWritesInFlight();
};

void TestFollowImport::followsALogAcrossRotationWithWritesInFlight()
{
    QTemporaryDir folder;
    const QString database = folder.filePath(QStringLiteral("desk.sqlite"));
    const QString log = folder.filePath(QStringLiteral("agent.jsonl"));
    append(log, opened + "\n");

    QProcess follower;
    follower.start(QStringLiteral(VERITY_BINARY),
                   {QStringLiteral("import"), QStringLiteral("--db"), database, QStringLiteral("--follow"),
                    QStringLiteral("--grace"), QStringLiteral("3"), log});
    QString said;
    connect(&follower, &QProcess::readyReadStandardError, this,
            [&] { said += QString::fromUtf8(follower.readAllStandardError()); });
    QVERIFY(follower.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(said.contains(QStringLiteral("following")), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(openTestStore(database)->ticketIdByExtId(QStringLiteral("T-F-1"))->has_value(),
                             10000);

    // A line is read once its newline is written: its first part, not JSON on its own, is read
    // to the file's end (the follower's offset says so) and waits; the whole line is then stored,
    // and nothing was refused on the way.
    const QByteArray c1 = refund("c1");
    append(log, c1.first(c1.size() - 1));
    QTRY_COMPARE_WITH_TIMEOUT(offsetIn(follower.processId(), log), QFileInfo(log).size(), 10000);
    append(log, c1.last(1) + "\n" + refund("c2") + "\n");
    QTRY_VERIFY_WITH_TIMEOUT(callsOf(database).contains(QStringLiteral("c2")), 5000);
    QVERIFY(callsOf(database).contains(QStringLiteral("c1")));
    QVERIFY2(!said.contains(QStringLiteral("line 2")), qPrintable(said));
    QCOMPARE(callsOf(database).value(QStringLiteral("c1")).inFlight, true);
    QCOMPARE(callsOf(database).value(QStringLiteral("c1")).escalated, false);

    // Rotated: the old file moved away, a new one created; c1's result is in the new one.
    QVERIFY(QFile::rename(log, log + QStringLiteral(".1")));
    append(log, refunded("c1") + "\n" + "not json\n");
    QTRY_COMPARE_WITH_TIMEOUT(callsOf(database).value(QStringLiteral("c1")).outcome,
                              QStringLiteral("performed"), 5000);
    QCOMPARE(callsOf(database).value(QStringLiteral("c1")).inFlight, false);

    // c2's result never comes: once its grace is over, it waits for a person.
    QTRY_VERIFY_WITH_TIMEOUT(callsOf(database).value(QStringLiteral("c2")).escalated, 15000);
    QCOMPARE(callsOf(database).value(QStringLiteral("c1")).escalated, false);

    // Truncated in place and written again from the start: what was read before changes nothing.
    QFile::resize(log, 0);
    append(log, opened + "\n" + refund("c3") + "\n");
    QTRY_VERIFY_WITH_TIMEOUT(callsOf(database).contains(QStringLiteral("c3")), 5000);
    QCOMPARE(callsOf(database).size(), 3);

    ::kill(pid_t(follower.processId()), SIGTERM);
    QVERIFY(follower.waitForFinished(10000));
    QCOMPARE(follower.exitCode(), 0);
    said += QString::fromUtf8(follower.readAllStandardError());
    QVERIFY2(said.contains(QStringLiteral("is a new file")) && said.contains(QStringLiteral("was truncated"))
                     && said.contains(QStringLiteral("line 2: not valid JSON")),
             qPrintable(said));
}

QTEST_GUILESS_MAIN(TestFollowImport)
#include "tst_followimport.moc"

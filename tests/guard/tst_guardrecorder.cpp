// What the guard stores, against a real SQLite file (and, where it says so, a PostgreSQL
// cluster): answers are stored on a session of their own, a write's verdict reads the write
// answers handed over before it and escalates an overdue one it repeats, a ticket's summary
// follows its calls, and nothing handed over is lost when the recorder ends or its database
// cannot be opened.

#include "guard/guardrecorder.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"
#include "support/testmacros.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <future>
#include <optional>
#include <thread>

using namespace verity;
using nlohmann::json;

namespace {

RegistrySelection builtIn()
{
    return RegistrySelection::forced(NamedRegistry{QStringLiteral("default"), ToolRegistry::builtIn()});
}

GuardedCall call(const QString &id, const QString &tool, json arguments)
{
    GuardedCall made;
    made.conversation = QStringLiteral("SU-60001-chat");
    made.conversationNamed = true;
    made.callId = id;
    made.sourceId = QStringLiteral("session 1 ") + id;
    made.tool = tool;
    made.arguments = std::move(arguments);
    made.origin = QStringLiteral("ledger");
    made.at = QDateTime::currentMSecsSinceEpoch();
    return made;
}

GuardedCall refund(const QString &id)
{
    return call(id, QStringLiteral("issue_refund"), {{"order_id", "SU-60001"}, {"amount_cents", 2500}});
}

json answerSaying(const char *text)
{
    return {{"content", json::array({{{"type", "text"}, {"text", text}}})}};
}

} // namespace

class GuardRecorderTest : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void aWriteAnswerHandedOverIsReadByTheNextVerdict();
    void answersHandedOverAreAllStoredWhenTheRecorderEnds();
    void answersThatCannotBeStoredAreTold();
    void aSentWriteIsInItsTicketsSummaryWhileInFlight_data() { backends(); }
    void aSentWriteIsInItsTicketsSummaryWhileInFlight();
    void aRepeatOfAnOverdueWriteEscalatesItAndIsHeld_data() { backends(); }
    void aRepeatOfAnOverdueWriteEscalatesItAndIsHeld();
    void twoGuardsWritingOneTicketNumberItsStepsInTurn_data() { backends(); }
    void twoGuardsWritingOneTicketNumberItsStepsInTurn();

private:
    static void backends()
    {
        QTest::addColumn<bool>("team");
        QTest::newRow("sqlite") << false;
        QTest::newRow("postgresql") << true;
    }
    // The test's database: a desk file, or a new database on the cluster for a "team" row.
    QString database()
    {
        if (m_location.isEmpty())
            m_location = m_dir->filePath(QStringLiteral("desk.sqlite"));
        return m_location;
    }
    void chooseBackend()
    {
        QFETCH(bool, team);
        if (team)
            m_location = m_cluster.createDatabase(QStringLiteral("guard_%1").arg(++m_databases));
    }
    qsizetype storedCalls()
    {
        Expected<std::unique_ptr<Store>> store = openStore(database());
        if (!store)
            return -1;
        Expected<std::optional<qint64>> ticket = (*store)->ticketIdByExtId(QStringLiteral("SU-60001-chat"));
        if (!ticket || !*ticket)
            return 0;
        Expected<QList<TranscriptEntry>> entries = (*store)->transcript(**ticket);
        qsizetype calls = 0;
        for (const TranscriptEntry &entry : entries ? *entries : QList<TranscriptEntry>())
            calls += entry.isToolCall ? 1 : 0;
        return calls;
    }

    // The chat's row in the queue, as another console reads it.
    std::optional<TicketRow> ticketRow()
    {
        Expected<std::unique_ptr<Store>> store = openStore(database());
        Expected<QList<TicketRow>> rows =
                store ? (*store)->tickets(TicketQuery{}, 0, 10) : Expected<QList<TicketRow>>(store.error());
        if (!rows || rows->isEmpty())
            return std::nullopt;
        return rows->first();
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_location;
    test::PostgresCluster m_cluster;
    int m_databases = 0;
};

void GuardRecorderTest::initTestCase()
{
    QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
}

void GuardRecorderTest::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_location.clear();
}

void GuardRecorderTest::aWriteAnswerHandedOverIsReadByTheNextVerdict()
{
    Expected<std::unique_ptr<Store>> store = openStore(database());
    QVERIFY_OK(store);
    const QString path = database();
    GuardRecorder recorder(**store, [path] { return openStore(path); }, builtIn(), 60000, {});
    GuardedCall first = refund(QStringLiteral("c1"));
    Expected<WriteAdmission> sent = recorder.admitWrite(first, QString());
    QVERIFY_OK(sent);
    QCOMPARE(sent->verdict.kind, RepeatVerdict::Kind::Send);
    // The answer is handed over and the retry judged at once: the verdict waits for it, so the
    // model hears the refund was made instead of being held.
    recorder.recordResult(first, answerSaying("Refund re_60001 issued"), false, QString(),
                          QDateTime::currentMSecsSinceEpoch());
    GuardedCall retry = refund(QStringLiteral("c2"));
    Expected<WriteAdmission> again = recorder.admitWrite(retry, QString());
    QVERIFY_OK(again);
    QCOMPARE(again->verdict.kind, RepeatVerdict::Kind::AnswerPerformed);
}

void GuardRecorderTest::answersHandedOverAreAllStoredWhenTheRecorderEnds()
{
    const QString path = database();
    {
        Expected<std::unique_ptr<Store>> store = openStore(path);
        QVERIFY_OK(store);
        GuardRecorder recorder(**store, [path] { return openStore(path); }, builtIn(), 60000, {});
        for (int i = 0; i < 10; ++i) {
            const GuardedCall read = call(QStringLiteral("r%1").arg(i), QStringLiteral("get_order"),
                                          {{"order_id", "SU-60001"}});
            recorder.recordResult(read, answerSaying("{\"status\":\"delivered\"}"), false, QString(),
                                  read.at);
        }
    }
    QCOMPARE(storedCalls(), 10);
}

void GuardRecorderTest::answersThatCannotBeStoredAreTold()
{
    Expected<std::unique_ptr<Store>> store = openStore(database());
    QVERIFY_OK(store);
    QStringList told;
    {
        GuardRecorder recorder(
                **store,
                [] {
                    return Expected<std::unique_ptr<Store>>(makeError(QStringLiteral("the server is away")));
                },
                builtIn(), 60000, [&told](const QString &why) { told.append(why); });
        const GuardedCall read =
                call(QStringLiteral("r1"), QStringLiteral("get_order"), {{"order_id", "SU-60001"}});
        recorder.recordResult(read, answerSaying("{}"), false, QString(), read.at);
        QTRY_COMPARE(told.size(), 1);
    }
    QVERIFY2(told.first().contains(
                     QLatin1String("1 answer(s) to reads could not be recorded (the server is away)")),
             qPrintable(told.first()));
    QCOMPARE(storedCalls(), 0);
}

void GuardRecorderTest::aSentWriteIsInItsTicketsSummaryWhileInFlight()
{
    chooseBackend();
    QVERIFY(!database().isEmpty());
    Expected<std::unique_ptr<Store>> store = openStore(database());
    QVERIFY_OK(store);
    const QString path = database();
    GuardRecorder recorder(**store, [path] { return openStore(path); }, builtIn(), 60000, {});
    GuardedCall sent = refund(QStringLiteral("c1"));
    QVERIFY_OK(recorder.admitWrite(sent, QString()));
    // The call is stored before it is sent, and its ticket's summary, as another console reads
    // it, says a write waits for its answer.
    QTRY_VERIFY(ticketRow() && ticketRow()->writeCount == 1);
    const std::optional<TicketRow> row = ticketRow();
    QVERIFY(row->hasUnknown);
    QVERIFY(row->unknownInFlight);
}

void GuardRecorderTest::aRepeatOfAnOverdueWriteEscalatesItAndIsHeld()
{
    // A guard killed mid-call leaves its write in flight; once its deadline has passed, the first
    // repeat of it makes it unknown and escalated, and is held naming the escalation.
    chooseBackend();
    QVERIFY(!database().isEmpty());
    Expected<std::unique_ptr<Store>> store = openStore(database());
    QVERIFY_OK(store);
    const QString path = database();
    qint64 now = QDateTime::currentMSecsSinceEpoch();
    GuardRecorder recorder(
            **store, [path] { return openStore(path); }, builtIn(), 60000, {}, [&now] { return now; });
    GuardedCall sent = refund(QStringLiteral("c1"));
    sent.at = now;
    QVERIFY_OK(recorder.admitWrite(sent, QString()));
    now += 61000;
    GuardedCall retry = refund(QStringLiteral("c2"));
    retry.at = now;
    Expected<WriteAdmission> held = recorder.admitWrite(retry, QString());
    QVERIFY_OK(held);
    QCOMPARE(held->verdict.kind, RepeatVerdict::Kind::Hold);
    QVERIFY(held->verdict.earlier.escalationId.has_value());
    QVERIFY(!held->verdict.earlier.inFlightUntil);
    QCOMPARE(*(*store)->countOpenEscalations(), qint64(1));
    const std::optional<TicketRow> row = ticketRow();
    QVERIFY(row);
    QVERIFY(row->hasUnknown);
    QVERIFY(!row->unknownInFlight);
    QVERIFY(row->needsAttention);
}

void GuardRecorderTest::twoGuardsWritingOneTicketNumberItsStepsInTurn()
{
    // Two guards (two sessions) on one conversation, each admitting a write of its own intent
    // while the other's transaction is open: the second waits for the first's ticket, so each
    // call gets a step of its own and the ticket's summary counts both.
    chooseBackend();
    QVERIFY(!database().isEmpty());
    const QString path = database();
    Expected<std::unique_ptr<Store>> first = openStore(path);
    Expected<std::unique_ptr<Store>> second = openStore(path);
    QVERIFY_OK(first);
    QVERIFY_OK(second);
    std::atomic<bool> inside = false; // the first guard's clock, read inside its transaction
    std::optional<std::thread> other;
    std::promise<QString> secondDone;
    std::future<QString> secondAnswer = secondDone.get_future();
    GuardRecorder secondGuard(**second, [path] { return openStore(path); }, builtIn(), 60000, {});
    GuardRecorder firstGuard(
            **first, [path] { return openStore(path); }, builtIn(), 60000, {},
            [&] {
                if (inside.exchange(false)) {
                    other.emplace([&] {
                        GuardedCall late = call(QStringLiteral("c3"), QStringLiteral("issue_refund"),
                                                {{"order_id", "SU-60001"}, {"amount_cents", 700}});
                        Expected<WriteAdmission> admitted = secondGuard.admitWrite(late, QString());
                        secondDone.set_value(admitted ? QString() : admitted.message());
                    });
                    // Long enough for the second to store its call, were it not made to wait.
                    secondAnswer.wait_for(std::chrono::milliseconds(500));
                }
                return QDateTime::currentMSecsSinceEpoch();
            });
    GuardedCall opening = refund(QStringLiteral("c1"));
    QVERIFY_OK(firstGuard.admitWrite(opening, QString())); // the ticket is stored
    inside = true;
    GuardedCall next = call(QStringLiteral("c2"), QStringLiteral("issue_refund"),
                            {{"order_id", "SU-60001"}, {"amount_cents", 900}});
    QVERIFY_OK(firstGuard.admitWrite(next, QString()));
    QVERIFY(other);
    other->join();
    QCOMPARE(secondAnswer.get(), QString());

    Expected<std::optional<qint64>> ticket = (*first)->ticketIdByExtId(QStringLiteral("SU-60001-chat"));
    QVERIFY(ticket && *ticket);
    Expected<QList<TranscriptEntry>> entries = (*first)->transcript(**ticket);
    QVERIFY_OK(entries);
    QStringList steps;
    for (const TranscriptEntry &entry : std::as_const(*entries))
        steps.append(QStringLiteral("%1 %2").arg(entry.seq).arg(entry.call.callExtId));
    QCOMPARE(steps, (QStringList{QStringLiteral("1 c1"), QStringLiteral("2 c2"), QStringLiteral("3 c3")}));
    const std::optional<TicketRow> row = ticketRow();
    QVERIFY(row);
    QCOMPARE(row->writeCount, 3);
}

QTEST_GUILESS_MAIN(GuardRecorderTest)
#include "tst_guardrecorder.moc"

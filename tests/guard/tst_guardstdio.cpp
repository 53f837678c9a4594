// `verity guard` over stdio, with the official MCP SDK on both sides: its Client (driver.mjs)
// starts the guard in place of its server, and the guard starts the SDK's McpServer
// (ledger-server.mjs), whose ledger file says how many refunds really happened.

#include "guardagent.h"
#include "store/storefactory.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

#include <csignal>

using namespace verity;
using namespace verity::test;
using nlohmann::json;

namespace {

const json refundOf(const char *order, int cents)
{
    return json{{"order_id", order}, {"item_id", "OAK-4S"}, {"amount_cents", cents}};
}

// The ticket's tool calls as the store has them now.
QList<ToolCallRow> callsOf(const QString &database, const QString &ticket)
{
    QList<ToolCallRow> calls;
    Expected<std::unique_ptr<Store>> store = openStore(database);
    if (!store)
        return calls;
    Expected<std::optional<qint64>> id = (*store)->ticketIdByExtId(ticket);
    if (!id || !*id)
        return calls;
    Expected<QList<TranscriptEntry>> entries = (*store)->transcript(**id);
    for (const TranscriptEntry &entry : entries ? *entries : QList<TranscriptEntry>()) {
        if (entry.isToolCall)
            calls.append(entry.call);
    }
    return calls;
}

qint64 escalationIn(const QString &text)
{
    const QRegularExpressionMatch found = QRegularExpression(QStringLiteral("escalation (\\d+)")).match(text);
    return found.hasMatch() ? found.captured(1).toLongLong() : 0;
}

} // namespace

class GuardStdioTest : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void annotationsPassAndReadsAreRelayedEveryTime();
    void aTimedOutRefundIsHeldUntilAPersonSettlesIt();
    void aRefundFoundNotPerformedIsSentOnceWithItsKey();
    void aLateAnswerThatItWasPerformedOutranksASettlementThatItWasNot();
    void aLateAnswerSettlesTheCall();
    void aCancelledWriteIsSettledByTheAnswerThatStillComes();
    void anotherAgentIsHeldWhileTheWriteIsInFlight();
    void aKilledGuardLeavesItsCallUnknown();
    void writesAreRefusedWhileTheStoreIsAway();
    void aRetryFromAnotherSessionIsHeld();
    void callsItCannotJudgeAreNotSent();
    void aToolTheServerDoesNotHaveIsNotPerformed();
    void aDatabaseThatCanNeverRecordStopsTheGuard();
    void aServerThatEndsAtOnceIsReported();

private:
    GuardAgent::Options options(const QString &mode = QStringLiteral("answer")) const
    {
        GuardAgent::Options made;
        made.database = m_dir->filePath(QStringLiteral("desk.db"));
        made.ledger = m_dir->filePath(QStringLiteral("ledger.jsonl"));
        made.refundMode = mode;
        return made;
    }
    QProcessEnvironment environment() const { return isolatedEnvironment(m_dir->path()); }

    std::unique_ptr<QTemporaryDir> m_dir;
};

void GuardStdioTest::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void GuardStdioTest::annotationsPassAndReadsAreRelayedEveryTime()
{
    GuardAgent agent(options(), environment());
    const json listed = agent.send({{"op", "list"}});
    QVERIFY2(listed.contains("tools"), qPrintable(agent.log()));
    QHash<QString, json> annotations;
    for (const json &tool : listed["tools"])
        annotations.insert(QString::fromStdString(tool["name"].get<std::string>()),
                           tool.value("annotations", json()));
    QVERIFY(annotations.value(QStringLiteral("get_order")) == (json{{"readOnlyHint", true}}));
    QVERIFY(annotations.value(QStringLiteral("send_voucher")).value("idempotentHint", false));

    for (int i = 0; i < 3; ++i) {
        const json read =
                agent.call(QStringLiteral("get_order"), {{"order_id", "SU-1"}}, 5000, QStringLiteral("T-R"));
        QVERIFY2(resultText(read).contains(QLatin1String("delivered")), read.dump().c_str());
    }
    QVERIFY(agent.close());
    QCOMPARE(ledgerEntries(options().ledger, "read").size(), 3);
    const QList<ToolCallRow> calls = callsOf(options().database, QStringLiteral("T-R"));
    QCOMPARE(calls.size(), 3);
    for (const ToolCallRow &call : calls) {
        QCOMPARE(call.toolClass, ToolClass::Read);
        QVERIFY(call.hasResult);
        QVERIFY(!call.escalationId);
    }
}

void GuardStdioTest::aTimedOutRefundIsHeldUntilAPersonSettlesIt()
{
    GuardAgent agent(options(QStringLiteral("hang")), environment());
    const json first = agent.call(QStringLiteral("issue_refund"), refundOf("SU-88421", 11800), 1000,
                                  QStringLiteral("T-1"));
    QCOMPARE(first["error"].value("code", 0), -32001); // the SDK's "Request timed out"
    const json retry = agent.call(QStringLiteral("issue_refund"), refundOf("SU-88421", 11800), 1000,
                                  QStringLiteral("T-1"));
    QVERIFY2(resultIsError(retry), retry.dump().c_str());
    const QString held = resultText(retry);
    QVERIFY2(held.startsWith(QLatin1String("NOT SENT.")), qPrintable(held));
    QVERIFY2(held.contains(QLatin1String("Do not retry")), qPrintable(held));
    const qint64 escalation = escalationIn(held);
    QVERIFY2(escalation > 0, qPrintable(held));
    QCOMPARE(ledgerEntries(options().ledger, "refund").size(), 1);

    QList<ToolCallRow> calls = callsOf(options().database, QStringLiteral("T-1"));
    QCOMPARE(calls.size(), 2);
    QCOMPARE(calls[0].outcome, Outcome::Unknown);
    QCOMPARE(calls[0].escalationId, escalation);
    QCOMPARE(calls[0].toolClass, ToolClass::WriteMoney);
    QCOMPARE(calls[1].outcome, Outcome::NotPerformed);
    QVERIFY2(calls[1].outcomeReason.startsWith(
                     QStringLiteral("held: repeat of call %1").arg(calls[0].callExtId)),
             qPrintable(calls[1].outcomeReason));

    const QString refund = QString::fromStdString(
            ledgerEntries(options().ledger, "refund")[0]["refund_id"].get<std::string>());
    const VerityRun settled = runVerity(
            {QStringLiteral("resolve"), QStringLiteral("--db"), options().database,
             QString::number(escalation), QStringLiteral("--attest"), QStringLiteral("performed"),
             QStringLiteral("--reference"), refund, QStringLiteral("--note"),
             QStringLiteral("found at the provider"), QStringLiteral("--operator"), QStringLiteral("dana")},
            environment());
    QVERIFY2(settled.exitCode == 0, qPrintable(settled.err + settled.out));
    const json after = agent.call(QStringLiteral("issue_refund"), refundOf("SU-88421", 11800), 1000,
                                  QStringLiteral("T-1"));
    QVERIFY2(!resultIsError(after), after.dump().c_str());
    QVERIFY2(resultText(after).startsWith(QLatin1String("ALREADY DONE.")), after.dump().c_str());
    QVERIFY2(resultText(after).contains(refund), after.dump().c_str());
    QVERIFY(agent.close());
    QCOMPARE(ledgerEntries(options().ledger, "refund").size(), 1);
    calls = callsOf(options().database, QStringLiteral("T-1"));
    QCOMPARE(calls.size(), 3);
    QCOMPARE(calls[2].outcome, Outcome::AlreadyPerformed);
}

void GuardStdioTest::aRefundFoundNotPerformedIsSentOnceWithItsKey()
{
    GuardAgent agent(options(QStringLiteral("drop")), environment());
    const json first =
            agent.call(QStringLiteral("issue_refund"), refundOf("SU-2", 2500), 800, QStringLiteral("T-2"));
    QCOMPARE(first["error"].value("code", 0), -32001);
    QTRY_VERIFY(!callsOf(options().database, QStringLiteral("T-2")).isEmpty()
                && callsOf(options().database, QStringLiteral("T-2"))[0].escalationId);
    const ToolCallRow unknown = callsOf(options().database, QStringLiteral("T-2"))[0];
    const VerityRun settled = runVerity(
            {QStringLiteral("resolve"), QStringLiteral("--db"), options().database,
             QString::number(*unknown.escalationId), QStringLiteral("--attest"),
             QStringLiteral("not-performed"), QStringLiteral("--reference"),
             QStringLiteral("no refund on SU-2 at the provider"), QStringLiteral("--note"),
             QStringLiteral("searched the dashboard"), QStringLiteral("--operator"), QStringLiteral("dana")},
            environment());
    QVERIFY2(settled.exitCode == 0, qPrintable(settled.err + settled.out));

    const json again =
            agent.call(QStringLiteral("issue_refund"), refundOf("SU-2", 2500), 5000, QStringLiteral("T-2"));
    QVERIFY2(resultText(again).contains(QLatin1String("re_SU-2")), again.dump().c_str());
    const QList<json> refunds = ledgerEntries(options().ledger, "refund");
    QCOMPARE(refunds.size(), 1);
    // The guard filled the key the model left out: the intent's, as the store keys the call.
    QCOMPARE(QString::fromStdString(refunds[0].value("idempotency_key", std::string())), unknown.intentKey);
    const json once =
            agent.call(QStringLiteral("issue_refund"), refundOf("SU-2", 2500), 5000, QStringLiteral("T-2"));
    QVERIFY2(resultText(once).startsWith(QLatin1String("ALREADY DONE.")), once.dump().c_str());
    QVERIFY(agent.close());
    QCOMPARE(ledgerEntries(options().ledger, "refund").size(), 1);
    QVERIFY2(agent.log().contains(QLatin1String("with idempotency_key set to its intent's key")),
             qPrintable(agent.log()));
}

void GuardStdioTest::aLateAnswerThatItWasPerformedOutranksASettlementThatItWasNot()
{
    // A person attests "not performed" too soon; the refund's own answer then comes, saying it was
    // made. The retry is answered as done, not sent a second time. The answer comes late enough
    // that the settlement is in before it on a loaded machine.
    GuardAgent::Options late = options(QStringLiteral("late"));
    late.lateMs = 6000;
    GuardAgent agent(late, environment());
    const json first =
            agent.call(QStringLiteral("issue_refund"), refundOf("SU-6", 1900), 800, QStringLiteral("T-6"));
    QCOMPARE(first["error"].value("code", 0), -32001);
    QTRY_VERIFY(!callsOf(options().database, QStringLiteral("T-6")).isEmpty()
                && callsOf(options().database, QStringLiteral("T-6"))[0].escalationId);
    const ToolCallRow unknown = callsOf(options().database, QStringLiteral("T-6"))[0];
    const VerityRun settled = runVerity(
            {QStringLiteral("resolve"), QStringLiteral("--db"), options().database,
             QString::number(*unknown.escalationId), QStringLiteral("--attest"),
             QStringLiteral("not-performed"), QStringLiteral("--reference"),
             QStringLiteral("no refund on SU-6 in the dashboard"), QStringLiteral("--note"),
             QStringLiteral("searched too soon"), QStringLiteral("--operator"), QStringLiteral("dana")},
            environment());
    QVERIFY2(settled.exitCode == 0, qPrintable(settled.err + settled.out));
    QTRY_COMPARE_WITH_TIMEOUT(callsOf(options().database, QStringLiteral("T-6"))[0].outcome,
                              std::optional<Outcome>(Outcome::Performed), 30000);

    const json again =
            agent.call(QStringLiteral("issue_refund"), refundOf("SU-6", 1900), 5000, QStringLiteral("T-6"));
    QVERIFY2(!resultIsError(again), again.dump().c_str());
    QVERIFY2(resultText(again).startsWith(QLatin1String("ALREADY DONE.")), again.dump().c_str());
    QVERIFY2(resultText(again).contains(QLatin1String("re_SU-6_1")), again.dump().c_str());
    QVERIFY(agent.close());
    QCOMPARE(ledgerEntries(options().ledger, "refund").size(), 1);
}

void GuardStdioTest::aLateAnswerSettlesTheCall()
{
    // The guard's deadline passes while the client still waits: the write is unknown and
    // escalated, and the answer that comes after it is recorded and settles it. The answer comes
    // well after the deadline and the guard's once-a-second look, also on a loaded machine.
    GuardAgent::Options late = options(QStringLiteral("late"));
    late.lateMs = 8000;
    late.guardOptions = {QStringLiteral("--deadline"), QStringLiteral("1")};
    GuardAgent patient(late, environment());
    GuardAgent other(options(), environment());
    QVERIFY2(!other.send({{"op", "list"}}, 60000).is_null(), qPrintable(other.log() + patient.log()));
    patient.sendWithoutWaiting({{"op", "call"},
                                {"name", "issue_refund"},
                                {"arguments", refundOf("SU-3", 700)},
                                {"timeout", 20000},
                                {"conversation", "T-3"}});
    QTRY_VERIFY_WITH_TIMEOUT(!callsOf(late.database, QStringLiteral("T-3")).isEmpty()
                                     && callsOf(late.database, QStringLiteral("T-3"))[0].escalationId,
                             20000);
    const json held =
            other.call(QStringLiteral("issue_refund"), refundOf("SU-3", 700), 5000, QStringLiteral("T-3"));
    QVERIFY2(resultText(held).startsWith(QLatin1String("NOT SENT.")), held.dump().c_str());
    QVERIFY2(escalationIn(resultText(held)) > 0, held.dump().c_str());

    const json answered = patient.nextAnswer(20000);
    QVERIFY2(resultText(answered).contains(QLatin1String("re_SU-3_1")), answered.dump().c_str());
    QTRY_COMPARE_WITH_TIMEOUT(callsOf(late.database, QStringLiteral("T-3"))[0].outcome, Outcome::Performed,
                              20000);
    const json after =
            other.call(QStringLiteral("issue_refund"), refundOf("SU-3", 700), 5000, QStringLiteral("T-3"));
    QVERIFY2(resultText(after).startsWith(QLatin1String("ALREADY DONE.")), after.dump().c_str());
    QVERIFY2(resultText(after).contains(QLatin1String("re_SU-3_1")), after.dump().c_str());
    QVERIFY(patient.close());
    QVERIFY(other.close());
    QCOMPARE(ledgerEntries(late.ledger, "refund").size(), 1);
    // Whichever guard looked first escalated it.
    QVERIFY2((patient.log() + other.log()).contains(QLatin1String("got no answer by the deadline")),
             qPrintable(patient.log() + other.log()));
}

void GuardStdioTest::aCancelledWriteIsSettledByTheAnswerThatStillComes()
{
    // The SDK gives up after 1 s and cancels; the guard keeps the cancel from the server, whose
    // answer 2.5 s later is recorded: performed, so the retry is answered without sending.
    GuardAgent agent(options(QStringLiteral("late")), environment());
    const json first =
            agent.call(QStringLiteral("issue_refund"), refundOf("SU-6", 650), 1000, QStringLiteral("T-6"));
    QCOMPARE(first["error"].value("code", 0), -32001);
    QTRY_VERIFY_WITH_TIMEOUT(!callsOf(options().database, QStringLiteral("T-6")).isEmpty()
                                     && callsOf(options().database, QStringLiteral("T-6"))[0].outcome
                                             == Outcome::Performed,
                             20000);
    const json retry =
            agent.call(QStringLiteral("issue_refund"), refundOf("SU-6", 650), 5000, QStringLiteral("T-6"));
    QVERIFY2(resultText(retry).startsWith(QLatin1String("ALREADY DONE.")), retry.dump().c_str());
    QVERIFY2(resultText(retry).contains(QLatin1String("re_SU-6_1")), retry.dump().c_str());
    QVERIFY(agent.close());
    QCOMPARE(ledgerEntries(options().ledger, "refund").size(), 1);
    QVERIFY2(agent.log().contains(QLatin1String("its answer came after all")), qPrintable(agent.log()));
}

void GuardStdioTest::anotherAgentIsHeldWhileTheWriteIsInFlight()
{
    // The answer comes late enough for the second agent to ask meanwhile on a loaded machine.
    GuardAgent::Options late = options(QStringLiteral("late"));
    late.lateMs = 8000;
    GuardAgent slow(late, environment());
    GuardAgent other(options(), environment());
    // Two Node processes and two guards start at once: slow on a busy machine. Both are up
    // before the call, so that the wait below is for the call alone.
    QVERIFY2(!other.send({{"op", "list"}}, 60000).is_null(), qPrintable(other.log() + slow.log()));
    QVERIFY2(!slow.send({{"op", "list"}}, 60000).is_null(), qPrintable(other.log() + slow.log()));
    // The first agent's call waits for its answer; the second sends the same intent meanwhile.
    json firstAnswer;
    const json command{{"op", "call"},
                       {"name", "issue_refund"},
                       {"arguments", refundOf("SU-4", 900)},
                       {"timeout", 10000},
                       {"conversation", "T-4"}};
    // Not waited for: sent, and the second agent asks while it is in flight.
    slow.sendWithoutWaiting(command);
    QTRY_VERIFY_WITH_TIMEOUT(!callsOf(options().database, QStringLiteral("T-4")).isEmpty(), 30000);
    const json held =
            other.call(QStringLiteral("issue_refund"), refundOf("SU-4", 900), 5000, QStringLiteral("T-4"));
    QVERIFY2(resultText(held).contains(QLatin1String("NOT SENT.")), held.dump().c_str());
    firstAnswer = slow.nextAnswer(20000);
    QVERIFY2(resultText(firstAnswer).contains(QLatin1String("re_SU-4_1")), firstAnswer.dump().c_str());
    QVERIFY(slow.close());
    QVERIFY(other.close());
    QCOMPARE(ledgerEntries(options().ledger, "refund").size(), 1);
}

void GuardStdioTest::aKilledGuardLeavesItsCallUnknown()
{
    GuardAgent::Options hanging = options(QStringLiteral("hang"));
    hanging.guardOptions = {QStringLiteral("--deadline"), QStringLiteral("2")};
    {
        GuardAgent agent(hanging, environment());
        const json pid = agent.send({{"op", "pid"}});
        QVERIFY2(pid.value("pid", 0) > 0, pid.dump().c_str());
        agent.sendWithoutWaiting({{"op", "call"},
                                  {"name", "issue_refund"},
                                  {"arguments", refundOf("SU-5", 1200)},
                                  {"timeout", 30000},
                                  {"conversation", "T-5"}});
        QTRY_COMPARE_WITH_TIMEOUT(ledgerEntries(hanging.ledger, "refund").size(), 1, 20000);
        ::kill(pid["pid"].get<int>(), SIGKILL);
        const json lost = agent.nextAnswer(20000);
        QVERIFY2(lost.contains("error"), lost.dump().c_str());
    }
    QList<ToolCallRow> calls = callsOf(hanging.database, QStringLiteral("T-5"));
    QCOMPARE(calls.size(), 1);
    QVERIFY(calls[0].inFlightUntil); // stored before it was sent: never lost

    // Past its deadline, with no guard running: the first repeat escalates it, and names it.
    QTest::qWait(2500);
    GuardAgent restarted(hanging, environment());
    // A guard just started lists the server's tools before it judges a call: time enough for that.
    const json retry = restarted.call(QStringLiteral("issue_refund"), refundOf("SU-5", 1200), 5000,
                                      QStringLiteral("T-5"));
    QVERIFY2(resultText(retry).startsWith(QLatin1String("NOT SENT.")), retry.dump().c_str());
    QVERIFY2(escalationIn(resultText(retry)) > 0, retry.dump().c_str());
    QVERIFY(callsOf(hanging.database, QStringLiteral("T-5"))[0].escalationId);
    QVERIFY(restarted.close());
    QCOMPARE(ledgerEntries(hanging.ledger, "refund").size(), 1);
}

void GuardStdioTest::writesAreRefusedWhileTheStoreIsAway()
{
    GuardAgent::Options away = options();
    // Nothing listens on port 1 of loopback: the team database cannot be reached.
    away.database = QStringLiteral("postgresql://verity@127.0.0.1:1/team?connect_timeout=2");
    {
        GuardAgent agent(away, environment());
        const json read = agent.call(QStringLiteral("get_order"), {{"order_id", "SU-6"}}, 5000);
        QVERIFY2(resultText(read).contains(QLatin1String("delivered")), read.dump().c_str());
        const json refused = agent.call(QStringLiteral("issue_refund"), refundOf("SU-6", 500), 10000);
        QVERIFY2(resultIsError(refused), refused.dump().c_str());
        QVERIFY2(resultText(refused).startsWith(QLatin1String("NOT SENT.")), refused.dump().c_str());
        QVERIFY2(resultText(refused).contains(QLatin1String("could not be recorded")),
                 refused.dump().c_str());
        QVERIFY(agent.close());
        QCOMPARE(ledgerEntries(away.ledger, "refund").size(), 0);
        // Its start says it is not recording, rather than naming the database it records into.
        QVERIFY2(agent.log().contains(
                         QLatin1String("not recording yet: postgresql://verity@127.0.0.1:1/team")),
                 qPrintable(agent.log()));
        QVERIFY2(agent.log().contains(QLatin1String("which is refused until then")), qPrintable(agent.log()));
        QVERIFY2(!agent.log().contains(QLatin1String("recording into")), qPrintable(agent.log()));
    }
    away.guardOptions = {QStringLiteral("--when-store-down"), QStringLiteral("pass")};
    GuardAgent passing(away, environment());
    const json sent = passing.call(QStringLiteral("issue_refund"), refundOf("SU-6", 500), 10000);
    QVERIFY2(resultText(sent).contains(QLatin1String("re_SU-6")), sent.dump().c_str());
    QVERIFY(passing.close());
    QCOMPARE(ledgerEntries(away.ledger, "refund").size(), 1);
    QVERIFY2(passing.log().contains(QLatin1String("--when-store-down pass")), qPrintable(passing.log()));
    QVERIFY2(passing.log().contains(QLatin1String("which is sent unrecorded until then")),
             qPrintable(passing.log()));
}

void GuardStdioTest::aRetryFromAnotherSessionIsHeld()
{
    // No conversation named: the agent restarted after the timeout, in a session of its own.
    {
        GuardAgent first(options(QStringLiteral("hang")), environment());
        const json timedOut = first.call(QStringLiteral("issue_refund"), refundOf("SU-9", 990), 1000);
        QCOMPARE(timedOut["error"].value("code", 0), -32001);
        QVERIFY(first.close());
    }
    GuardAgent second(options(), environment());
    const json retry = second.call(QStringLiteral("issue_refund"), refundOf("SU-9", 990), 5000);
    QVERIFY2(resultText(retry).startsWith(QLatin1String("NOT SENT.")), retry.dump().c_str());
    QVERIFY(second.close());
    QCOMPARE(ledgerEntries(options().ledger, "refund").size(), 1);
}

void GuardStdioTest::callsItCannotJudgeAreNotSent()
{
    // A client of its own, writing raw lines: what an SDK would never send.
    QProcess guard;
    QProcessEnvironment env = environment();
    env.insert(QStringLiteral("LEDGER"), options().ledger);
    env.insert(QStringLiteral("REFUND_MODE"), QStringLiteral("hang"));
    guard.setProcessEnvironment(env);
    guard.setWorkingDirectory(QStringLiteral(VERITY_GUARD_JS));
    guard.start(QStringLiteral(VERITY_BINARY),
                {QStringLiteral("guard"), QStringLiteral("--db"), options().database, QStringLiteral("--"),
                 QStringLiteral(VERITY_NODE), QStringLiteral("ledger-server.mjs")});
    QVERIFY(guard.waitForStarted());
    const auto line = [](const json &message) { return QByteArray::fromStdString(message.dump()) + '\n'; };
    const json refund{{"name", "issue_refund"}, {"arguments", refundOf("SU-10", 100)}};
    guard.write(line({{"jsonrpc", "2.0"},
                      {"id", 0},
                      {"method", "initialize"},
                      {"params",
                       {{"protocolVersion", "2025-11-25"},
                        {"capabilities", json::object()},
                        {"clientInfo", {{"name", "raw"}, {"version", "1"}}}}}}));
    guard.write(line({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
    // Members of the wrong type are no reason to stop: a batch whose method is a number passes on.
    guard.write(line(json::array({{{"jsonrpc", "2.0"}, {"id", 9}, {"method", 5}}})));
    guard.write(line(
            json::array({{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", refund}},
                         {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", refund}}})));
    guard.write(line({{"jsonrpc", "2.0"},
                      {"id", 3},
                      {"method", "tools/call"},
                      {"params", {{"arguments", json::object()}}}}));
    guard.write(line({{"jsonrpc", "2.0"},
                      {"id", 4},
                      {"method", "tools/call"},
                      {"params", {{"name", "issue_refund"}, {"arguments", "order SU-10"}}}}));
    // What no JSON reader here can hold is never sent: it could be recorded by nobody.
    guard.write(
            "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"issue_refund\","
            "\"arguments\":{\"order_id\":\"SU-11\",\"item_id\":\"X\",\"amount_cents\":100,\"x\":1e400}}}\n");
    guard.write(
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"issue_refund\","
            "\"arguments\":{\"order_id\":\"SU-12\\ud800\",\"item_id\":\"X\",\"amount_cents\":100}}}\n");
    // An id still waiting for its answer is not used again: the first call's record would be lost.
    const json inFlight{{"jsonrpc", "2.0"},
                        {"id", 5},
                        {"method", "tools/call"},
                        {"params",
                         {{"name", "issue_refund"},
                          {"arguments", refundOf("SU-13", 100)},
                          {"_meta", {{"conversationId", "T-13"}}}}}};
    guard.write(line(inFlight));
    QTRY_VERIFY_WITH_TIMEOUT(ledgerEntries(options().ledger, "refund").size() == 1, 15000);
    guard.write(line(inFlight));
    // Nor by another request: the server's answer to it would settle the refund.
    guard.write(line({{"jsonrpc", "2.0"}, {"id", "5"}, {"method", "ping"}}));
    // Nor what nests too deep to read safely, nor a line with a byte order mark the server cannot read.
    guard.write(
            "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"issue_refund\","
            "\"arguments\":{\"order_id\":\"SU-14\",\"z\":"
            + QByteArray(300, '[') + QByteArray(300, ']') + "}}}\n");
    guard.write("\xEF\xBB\xBF"
                + line({{"jsonrpc", "2.0"},
                        {"id", 10},
                        {"method", "tools/call"},
                        {"params", {{"name", "issue_refund"}, {"arguments", refundOf("SU-15", 100)}}}}));

    // The guard answers these itself, at once; the server's answer to initialize comes when it does.
    QByteArray out;
    json batch;
    QHash<int, json> byId;
    QList<json> unaddressed;
    json stringFive;
    const auto answered = [&] {
        out += guard.readAllStandardOutput();
        batch = json();
        byId.clear();
        unaddressed.clear();
        for (const QByteArray &answer : out.trimmed().split('\n')) {
            const json parsedAnswer = json::parse(answer.toStdString(), nullptr, false);
            const auto id = parsedAnswer.is_object() ? parsedAnswer.find("id") : parsedAnswer.end();
            if (parsedAnswer.is_array())
                batch = parsedAnswer;
            else if (parsedAnswer.is_object() && (id == parsedAnswer.end() || id->is_null()))
                unaddressed.append(parsedAnswer);
            else if (parsedAnswer.is_object() && id->is_number_integer())
                byId.insert(id->get<int>(), parsedAnswer);
            else if (parsedAnswer.is_object() && *id == "5")
                stringFive = parsedAnswer;
        }
        return batch.is_array() && byId.contains(3) && byId.contains(4) && byId.contains(5)
                && stringFive.is_object() && unaddressed.size() >= 4;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(answered(), out.constData(), 15000);
    QVERIFY2(batch.size() == 2, out.constData());
    QCOMPARE(batch[0]["error"]["code"].get<int>(), -32600);
    QCOMPARE(byId.value(3)["error"]["code"].get<int>(), -32602);
    QVERIFY2(byId.value(3).dump().find("params.name must name the tool") != std::string::npos,
             out.constData());
    QVERIFY2(byId.value(4).dump().find("params.arguments must be an object") != std::string::npos,
             out.constData());
    for (const json &unread : unaddressed)
        QCOMPARE(unread["error"]["code"].get<int>(), -32700);
    QCOMPARE(byId.value(5)["error"]["code"].get<int>(), -32600);
    QCOMPARE(stringFive["error"]["code"].get<int>(), -32600);
    QVERIFY2(byId.value(5).dump().find("already used by a request") != std::string::npos, out.constData());
    guard.closeWriteChannel();
    QVERIFY(guard.waitForFinished(10000));
    QCOMPARE(ledgerEntries(options().ledger, "refund").size(), 1); // SU-13, once
    // The call still waiting keeps its record: unknown when the client went away, and escalated.
    const QList<ToolCallRow> calls = callsOf(options().database, QStringLiteral("T-13"));
    QCOMPARE(calls.size(), 1);
    QCOMPARE(calls[0].outcome, std::optional<Outcome>(Outcome::Unknown));
    QVERIFY(calls[0].escalationId);
}

void GuardStdioTest::aToolTheServerDoesNotHaveIsNotPerformed()
{
    // The server refuses a tool it does not list before running anything (a JSON-RPC error):
    // not performed, nothing escalated, and a second try is not held.
    GuardAgent agent(options(), environment());
    const json arguments{{"order_id", "SU-7"}, {"amount_cents", 500}};
    const json first = agent.call(QStringLiteral("wire_money"), arguments, 5000, QStringLiteral("T-7"));
    QVERIFY2(first.contains("error") || resultIsError(first), first.dump().c_str());
    QTRY_VERIFY(!callsOf(options().database, QStringLiteral("T-7")).isEmpty()
                && callsOf(options().database, QStringLiteral("T-7"))[0].outcome == Outcome::NotPerformed);
    const ToolCallRow refused = callsOf(options().database, QStringLiteral("T-7"))[0];
    QVERIFY(!refused.escalationId);
    QVERIFY2(refused.outcomeReason.contains(QLatin1String("refused the request before running it")),
             qPrintable(refused.outcomeReason));
    const json again = agent.call(QStringLiteral("wire_money"), arguments, 5000, QStringLiteral("T-7"));
    QVERIFY2(!resultText(again).startsWith(QLatin1String("NOT SENT.")), again.dump().c_str());
    QVERIFY(agent.close());
}

void GuardStdioTest::aDatabaseThatCanNeverRecordStopsTheGuard()
{
    // Unlike a team database that cannot be reached now, no wait mends a folder or another file.
    QFile text(m_dir->filePath(QStringLiteral("notes.txt")));
    QVERIFY(text.open(QIODevice::WriteOnly));
    text.write("not a database\n");
    text.close();
    for (const QString &database :
         {m_dir->path(), text.fileName(), m_dir->filePath(QStringLiteral("no-such-folder/desk.sqlite"))}) {
        QProcess guard;
        guard.setProcessEnvironment(environment());
        guard.start(QStringLiteral(VERITY_BINARY),
                    {QStringLiteral("guard"), QStringLiteral("--db"), database, QStringLiteral("--"),
                     QStringLiteral("true")});
        QVERIFY(guard.waitForFinished(20000));
        const QString said = QString::fromUtf8(guard.readAllStandardError());
        QCOMPARE(guard.exitCode(), 2);
        QVERIFY2(said.contains(database) && said.contains(QLatin1String("not started")), qPrintable(said));
    }
}

void GuardStdioTest::aServerThatEndsAtOnceIsReported()
{
    // A mistyped server command line usually ends at once: the guard says so, and ends the same way.
    QProcess guard;
    guard.setProcessEnvironment(environment());
    guard.start(QStringLiteral(VERITY_BINARY),
                {QStringLiteral("guard"), QStringLiteral("--db"), m_dir->filePath(QStringLiteral("desk.db")),
                 QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("exit 3")});
    QVERIFY(guard.waitForFinished(20000));
    const QString said = QString::fromUtf8(guard.readAllStandardError());
    QCOMPARE(guard.exitCode(), 3);
    QVERIFY2(said.contains(QLatin1String("the MCP server sh exited with status 3")), qPrintable(said));
}

QTEST_GUILESS_MAIN(GuardStdioTest)
#include "tst_guardstdio.moc"

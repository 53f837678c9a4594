// Agents built on the frameworks teams run, exporting their frameworks' own telemetry to the real
// `verity collect`: the Vercel AI SDK 7 (its OpenTelemetry integration, GenAI conventions, and its
// legacy ai.* spans), LangChain traced by OpenInference, OpenLLMetry (Traceloop), and MCP tools
// called through the MCP SDK. All installed from npm by the framework_js_packages test. Each
// agent reads an order, issues a refund that times out after taking effect, and issues it again.
// For each: one ticket, about the order; the first refund unknown and escalated; the retry
// flagged as its repeat; the order's payment found for the lookup. The same spans written as
// the Collector's file exporter writes them import the same way. Half the agents run under a
// registry that knows none of their tools: the refund is a money write by what the frameworks'
// telemetry says of it, and its retry is caught even so.

#include "domain/toolregistry.h"
#include "resolution/refundpayment.h"
#include "support/collectprocess.h"
#include "support/teststore.h"
#include "support/verityprocess.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

namespace {

struct AgentRun
{
    int exitCode = -1;
    QString output;
};

// `setting`: more variables for the agent, "NAME=value NAME=value", or none.
AgentRun runAgent(const QString &agent, const QString &receiver, const QString &conversation,
                  const QString &otlpFile, const QString &setting)
{
    QProcess node;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("OTLP_FILE"), otlpFile);
    for (const QString &pair : setting.split(u' ', Qt::SkipEmptyParts))
        environment.insert(pair.section(u'=', 0, 0), pair.section(u'=', 1));
    node.setProcessEnvironment(environment);
    node.setWorkingDirectory(QStringLiteral(VERITY_FRAMEWORK_JS));
    node.setProcessChannelMode(QProcess::MergedChannels);
    node.start(QStringLiteral(VERITY_NODE),
               {QStringLiteral("agent-%1.mjs").arg(agent), receiver, conversation});
    if (!node.waitForFinished(120000)) {
        node.kill();
        node.waitForFinished();
        return {-1, QString::fromUtf8(node.readAll())};
    }
    return {node.exitStatus() == QProcess::NormalExit ? node.exitCode() : -1,
            QString::fromUtf8(node.readAll())};
}

// What a person sees of the one ticket the agent's conversation made.
struct Seen
{
    qint64 tickets = 0;
    QString ticketName;
    QString orderId;
    QString sellerName;
    QString subject;
    QString orderPayment; // the payment the order's own record names
    QStringList refunds; // the refund calls' ids, in order
    std::optional<Outcome> firstOutcome;
    bool firstEscalated = false;
    std::optional<RepeatKind> retryKind;
    QString retryRepeats;
    QString retryKeyBasis; // why the key is from all arguments; empty when from the profile
    ToolClass refundClass = ToolClass::Unclassified;
    QString refundClassInferred; // why, when no registry knew issue_refund
    QString payment; // the lookup's payment, or why there is none
    QString problem;
};

Seen look(Store &store)
{
    Seen seen;
    const Expected<qint64> count = store.countTickets(TicketQuery{});
    seen.tickets = count ? *count : -1;
    const Expected<QList<TicketRow>> rows = store.tickets(TicketQuery{}, 0, 10);
    if (!rows || rows->isEmpty()) {
        seen.problem = QStringLiteral("no ticket");
        return seen;
    }
    const TicketRow &row = rows->constFirst();
    seen.ticketName = ticketName(row.extId, row.orderId);
    seen.orderId = row.orderId;
    seen.sellerName = row.sellerName;
    seen.subject = row.subject;
    if (const Expected<std::optional<TicketDetail>> detail = store.ticket(row.id); detail && *detail)
        seen.orderPayment = (*detail)->order.paymentIntent;
    const Expected<QList<TranscriptEntry>> transcript = store.transcript(row.id);
    if (!transcript) {
        seen.problem = transcript.message();
        return seen;
    }
    std::optional<EscalationDetail> escalation;
    for (const TranscriptEntry &entry : *transcript) {
        if (!entry.isToolCall || entry.call.tool != QLatin1String("issue_refund"))
            continue;
        seen.refunds.append(entry.call.callExtId);
        seen.refundClass = entry.call.toolClass;
        seen.refundClassInferred = entry.call.classInferred;
        if (seen.refunds.size() == 1) {
            seen.firstOutcome = entry.call.outcome;
            seen.firstEscalated = entry.call.escalationId.has_value();
            if (entry.call.escalationId) {
                const Expected<std::optional<EscalationDetail>> detail =
                        store.escalation(*entry.call.escalationId);
                if (detail && *detail)
                    escalation = **detail;
            }
        } else if (seen.refunds.size() == 2) {
            seen.retryKind = entry.call.repeatKind;
            seen.retryRepeats = entry.call.repeatOfCallId;
            seen.retryKeyBasis = entry.call.intentError;
        }
    }
    if (escalation) {
        const Expected<PaymentReference> payment =
                refundPayment(*escalation, *transcript, ToolRegistry::builtIn());
        seen.payment = payment ? payment->id : payment.message();
    }
    return seen;
}

// `inferredFrom`: empty when the registry knows issue_refund; else what its inferred class
// must name as its source.
void checkSeen(const Seen &seen, const QString &expectedName, const QString &inferredFrom)
{
    QVERIFY2(seen.problem.isEmpty(), qPrintable(seen.problem));
    QCOMPARE(seen.tickets, qint64(1));
    QCOMPARE(seen.orderId, QStringLiteral("SU-55502"));
    QCOMPARE(seen.ticketName, expectedName);
    // Whichever span came first, the ticket ends up whole: the seller and the order's payment from
    // get_order's record, the customer's words for a subject.
    QCOMPARE(seen.sellerName, QStringLiteral("S-77"));
    QCOMPARE(seen.orderPayment, QStringLiteral("pi_3Q55502"));
    QVERIFY2(seen.subject.startsWith(QStringLiteral("My order SU-55502 arrived damaged")),
             qPrintable(seen.subject));
    QCOMPARE(seen.refunds.size(), 2);
    QVERIFY(seen.firstOutcome == Outcome::Unknown);
    QVERIFY2(seen.firstEscalated, "the refund that timed out waits in the escalation queue");
    QVERIFY2(seen.retryKind == RepeatKind::Retry, "the identical refund after it is flagged as its repeat");
    QCOMPARE(seen.retryRepeats, seen.refunds.constFirst());
    QCOMPARE(seen.refundClass, ToolClass::WriteMoney);
    if (inferredFrom.isEmpty()) {
        QVERIFY2(seen.refundClassInferred.isEmpty(), qPrintable(seen.refundClassInferred));
        // The refund names no item_id: its key is from all of its arguments, and says so.
        QVERIFY2(seen.retryKeyBasis.contains(QLatin1String("item_id")), qPrintable(seen.retryKeyBasis));
    } else {
        // No registry knows the refund: it is a money write by what the telemetry says of it.
        QVERIFY2(seen.refundClassInferred.contains(inferredFrom), qPrintable(seen.refundClassInferred));
        QVERIFY2(seen.retryKeyBasis.contains(QLatin1String("no registry knows issue_refund")),
                 qPrintable(seen.retryKeyBasis));
    }
    QCOMPARE(seen.payment, QStringLiteral("pi_3Q55502"));
}

} // namespace

class TestFrameworkAgents : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(
                QFile::exists(QStringLiteral(VERITY_FRAMEWORK_JS "/node_modules/ai/package.json")),
                "the frameworks are not installed: run the framework_js_packages test first (ctest runs it)");
    }

    void agentToCollectAndFile_data()
    {
        QTest::addColumn<QString>("agent");
        QTest::addColumn<QString>("conversation"); // "none": the agent names no conversation
        // SPAN_PROCESSOR=simple: each span in a request of its own; MCP_SPANS=semconv: the MCP
        // conventions' client spans instead of OpenLLMetry's MCP instrumentation.
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("ticketName");
        // "default", or a profile that knows none of the agents' tools (τ-bench's airline): then
        // the refund's class comes from what the telemetry says of it, named here.
        QTest::addColumn<QString>("registry");
        QTest::addColumn<QString>("inferredFrom");
        const QString known = QStringLiteral("default");
        const QString unknown = QStringLiteral("tau-airline");
        QTest::newRow("AI SDK 7, GenAI spans, no conversation named")
                << QStringLiteral("ai-sdk") << QStringLiteral("none") << QString()
                << QStringLiteral("SU-55502") << known << QString();
        QTest::newRow("AI SDK 7, GenAI spans, one span a request, tools unregistered")
                << QStringLiteral("ai-sdk") << QStringLiteral("conv-ai")
                << QStringLiteral("SPAN_PROCESSOR=simple") << QStringLiteral("conv-ai") << unknown
                << QStringLiteral("gen_ai.tool.definitions");
        QTest::newRow("AI SDK legacy ai.toolCall spans, tools unregistered")
                << QStringLiteral("ai-sdk-legacy") << QStringLiteral("conv-legacy") << QString()
                << QStringLiteral("conv-legacy") << unknown << QStringLiteral("ai.prompt.tools");
        QTest::newRow("LangChain with OpenInference")
                << QStringLiteral("langchain") << QStringLiteral("conv-lc") << QString()
                << QStringLiteral("conv-lc") << known << QString();
        QTest::newRow("LangChain with OpenInference, one span a request, tools unregistered")
                << QStringLiteral("langchain") << QStringLiteral("conv-lc1")
                << QStringLiteral("SPAN_PROCESSOR=simple") << QStringLiteral("conv-lc1") << unknown
                << QStringLiteral("llm.tools");
        QTest::newRow("Traceloop") << QStringLiteral("traceloop") << QStringLiteral("conv-tl") << QString()
                                   << QStringLiteral("conv-tl") << known << QString();
        // OpenLLMetry records tools/list without the schemas: the refund's own arguments say money.
        QTest::newRow("MCP SDK, OpenLLMetry's MCP instrumentation, tools unregistered")
                << QStringLiteral("mcp") << QStringLiteral("conv-mcp") << QString()
                << QStringLiteral("conv-mcp") << unknown
                << QStringLiteral("in its call, amount_cents looks like money");
        QTest::newRow("MCP SDK, the conventions' client spans, one span a request")
                << QStringLiteral("mcp") << QStringLiteral("conv-mcp2")
                << QStringLiteral("MCP_SPANS=semconv SPAN_PROCESSOR=simple") << QStringLiteral("conv-mcp2")
                << known << QString();
    }

    void agentToCollectAndFile()
    {
        QFETCH(QString, agent);
        QFETCH(QString, conversation);
        QFETCH(QString, setting);
        QFETCH(QString, ticketName);
        QFETCH(QString, registry);
        QFETCH(QString, inferredFrom);
        const QStringList registryOption{QStringLiteral("--registry"), registry};
        QTemporaryDir folder;
        const QString live = folder.filePath(QStringLiteral("live.sqlite"));
        const QString file = folder.filePath(QStringLiteral("spans.jsonl"));
        CollectProcess receiver(live, QStringLiteral("127.0.0.1:0"), registryOption);
        QVERIFY(!receiver.url().isEmpty());
        const AgentRun run = runAgent(agent, receiver.url(), conversation, file, setting);
        QVERIFY2(run.exitCode == 0, qPrintable(run.output));
        QVERIFY(receiver.stop());
        // Nothing refused and nothing kept otherwise than it came.
        QVERIFY2(!receiver.log().contains(QLatin1String("refused:")), qPrintable(receiver.log()));
        QVERIFY2(receiver.log().contains(QLatin1String("POST /v1/traces 200")), qPrintable(receiver.log()));
        {
            std::unique_ptr<Store> store = openTestStore(live);
            QVERIFY(store);
            checkSeen(look(*store), ticketName, inferredFrom);
            if (QTest::currentTestFailed())
                qWarning("%s", qPrintable(receiver.log().right(3000)));
        }

        // The Collector's file exporter's lines, imported.
        const QString imported = folder.filePath(QStringLiteral("imported.sqlite"));
        const VerityRun import =
                runVerity(QStringList{QStringLiteral("import"), QStringLiteral("--db"), imported, file}
                                  + registryOption,
                          isolatedEnvironment(folder.path()));
        QVERIFY2(import.exitCode == 0, qPrintable(import.out + import.err));
        std::unique_ptr<Store> store = openTestStore(imported);
        QVERIFY(store);
        checkSeen(look(*store), ticketName, inferredFrom);
    }
};

QTEST_GUILESS_MAIN(TestFrameworkAgents)
#include "tst_frameworkagents.moc"

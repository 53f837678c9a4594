// `verity collect` as a team would run it, fed by exporters nobody here wrote: the OpenTelemetry
// JavaScript SDK's OTLP/HTTP protobuf and JSON exporters (installed from npm by the
// otlp_js_packages test), sending GenAI execute_tool spans of a refund that timed out and its
// retry; and a steady stream of spans while the receiver is stopped and started again.

#include "support/collectprocess.h"
#include "support/teststore.h"
#include "support/verityprocess.h"

#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace verity;
using namespace verity::test;

namespace {

QProcess *startNode(const QString &script, const QStringList &arguments, const QString &conversationOn = {})
{
    auto *node = new QProcess;
    if (!conversationOn.isEmpty()) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("CONVERSATION_ON"), conversationOn);
        node->setProcessEnvironment(environment);
    }
    node->setWorkingDirectory(QStringLiteral(VERITY_OTLP_JS));
    node->setProcessChannelMode(QProcess::MergedChannels);
    node->start(QStringLiteral(VERITY_NODE), QStringList{script} + arguments);
    return node;
}

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

QStringList callsOf(Store &store, const QString &conversation)
{
    const Expected<std::optional<TicketRef>> ticket = store.findTicket(conversation);
    if (!ticket || !*ticket)
        return {};
    const Expected<QList<TranscriptEntry>> entries = store.transcript((*ticket)->id);
    QStringList ids;
    for (const TranscriptEntry &entry : entries ? *entries : QList<TranscriptEntry>()) {
        if (entry.isToolCall)
            ids.append(entry.call.callExtId);
    }
    return ids;
}

} // namespace

class TestOtlpExporters : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void bothExportersMakeOneTicketWithAnOpenEscalation();
    void anExporterLosesNothingWhileTheReceiverRestarts();
    void toolSpansExportedBeforeTheirAgentSpanJoinItsConversation();
};

void TestOtlpExporters::initTestCase()
{
    QVERIFY2(QFile::exists(
                     QStringLiteral(VERITY_OTLP_JS "/node_modules/@opentelemetry/exporter-trace-otlp-proto")),
             "the exporters are not installed: run the otlp_js_packages test first (ctest runs it)");
}

// The SDK's span processors export each span as it ends: a turn's tool spans before the agent
// span that alone names the conversation. Each turn's trace is a ticket of its own until its
// agent span comes, then the conversation's: the first renamed, the second joined to it.
void TestOtlpExporters::toolSpansExportedBeforeTheirAgentSpanJoinItsConversation()
{
    QTemporaryDir folder;
    const QString database = folder.filePath(QStringLiteral("desk.sqlite"));
    CollectProcess receiver(database, QStringLiteral("127.0.0.1:0"), {});
    QVERIFY(!receiver.url().isEmpty());
    std::unique_ptr<QProcess> node(startNode(QStringLiteral("send-refund.mjs"),
                                             {receiver.url(), QStringLiteral("conv-js-root")},
                                             QStringLiteral("root")));
    QVERIFY(node->waitForFinished(60000));
    const QString said = QString::fromUtf8(node->readAll());
    QVERIFY2(node->exitCode() == 0 && said.contains(QStringLiteral("sent")), qPrintable(said));
    QVERIFY(receiver.stop());

    std::unique_ptr<Store> store = openTestStore(database);
    QVERIFY(store);
    QCOMPARE(callsOf(*store, QStringLiteral("conv-js-root")),
             QStringList({QStringLiteral("call_O1"), QStringLiteral("call_O2"), QStringLiteral("call_O3")}));
    QVERIFY(openEscalationId(*store, QStringLiteral("conv-js-root"), QStringLiteral("call_O2")) > 0);
    QCOMPARE(*store->countTickets(TicketQuery{}), 1);
    // The second turn's refund is the first one again, though each came in a trace of its own.
    const TicketDetail detail = **store->ticket(**store->ticketIdByExtId(QStringLiteral("conv-js-root")));
    QVERIFY2(detail.row.hasRepeatedIntent, "the retried refund is seen as a repeat of the unknown one");
}

void TestOtlpExporters::bothExportersMakeOneTicketWithAnOpenEscalation()
{
    QTemporaryDir folder;
    const QString database = folder.filePath(QStringLiteral("team.sqlite"));
    CollectProcess receiver(database, QStringLiteral("127.0.0.1:0"),
                            {QStringLiteral("--token"), QStringLiteral("t0ken")});
    QVERIFY(!receiver.url().isEmpty());

    std::unique_ptr<QProcess> node(
            startNode(QStringLiteral("send-refund.mjs"),
                      {receiver.url(), QStringLiteral("conv-js-1"), QStringLiteral("t0ken")}));
    QVERIFY(node->waitForFinished(60000));
    const QString said = QString::fromUtf8(node->readAll());
    QVERIFY2(node->exitCode() == 0 && said.contains(QStringLiteral("sent")), qPrintable(said));
    QVERIFY(receiver.stop());
    QVERIFY2(receiver.log().contains(QStringLiteral("POST /v1/traces 200")), qPrintable(receiver.log()));

    std::unique_ptr<Store> store = openTestStore(database);
    QVERIFY(store);
    QCOMPARE(callsOf(*store, QStringLiteral("conv-js-1")),
             QStringList({QStringLiteral("call_O1"), QStringLiteral("call_O2"), QStringLiteral("call_O3")}));
    QVERIFY2(openEscalationId(*store, QStringLiteral("conv-js-1"), QStringLiteral("call_O2")) > 0,
             "the refund that timed out waits for a person");
    const Expected<qint64> tickets = store->countTickets(TicketQuery{});
    QVERIFY(tickets);
    QCOMPARE(*tickets, 1);

    // Without the token nothing is taken, and the exporter is told.
    CollectProcess guarded(database, QStringLiteral("127.0.0.1:0"),
                           {QStringLiteral("--token"), QStringLiteral("t0ken")});
    std::unique_ptr<QProcess> anonymous(
            startNode(QStringLiteral("send-refund.mjs"), {guarded.url(), QStringLiteral("conv-js-2")}));
    QVERIFY(anonymous->waitForFinished(60000));
    QCOMPARE(anonymous->exitCode(), 1);
    QVERIFY(guarded.stop());
    QVERIFY(guarded.log().contains(QStringLiteral("401")));
    QVERIFY(callsOf(*store, QStringLiteral("conv-js-2")).isEmpty());
}

void TestOtlpExporters::anExporterLosesNothingWhileTheReceiverRestarts()
{
    QTemporaryDir folder;
    const QString database = folder.filePath(QStringLiteral("team.sqlite"));
    const QString listen = QStringLiteral("127.0.0.1:%1").arg(freePort());
    auto receiver = std::make_unique<CollectProcess>(database, listen);
    QVERIFY(!receiver->url().isEmpty());

    constexpr int spans = 150;
    std::unique_ptr<QProcess> node(startNode(
            QStringLiteral("send-steady.mjs"),
            {receiver->url(), QStringLiteral("conv-steady"), QString::number(spans), QStringLiteral("20")}));
    QString said;
    QVERIFY(QTest::qWaitFor(
            [&] {
                said += QString::fromUtf8(node->readAll());
                return said.contains(QStringLiteral("span 40\n")) || node->state() == QProcess::NotRunning;
            },
            30000));
    // Stopped mid-stream, as an upgrade or a reboot stops it, and started again a moment later.
    QVERIFY(receiver->stop());
    const QString firstLog = receiver->log();
    QTest::qWait(700);
    receiver = std::make_unique<CollectProcess>(database, listen);
    QVERIFY(!receiver->url().isEmpty());

    QVERIFY(node->waitForFinished(90000));
    said += QString::fromUtf8(node->readAll());
    QVERIFY2(node->exitCode() == 0 && said.contains(QStringLiteral("sent")), qPrintable(said.right(2000)));
    QVERIFY(receiver->stop());
    std::unique_ptr<Store> store = openTestStore(database);
    QVERIFY(store);
    QCOMPARE(callsOf(*store, QStringLiteral("conv-steady")).size(), spans);
    QVERIFY2(firstLog.contains(QStringLiteral("stopped")), qPrintable(firstLog));
}

QTEST_GUILESS_MAIN(TestOtlpExporters)
#include "tst_otlpexporters.moc"

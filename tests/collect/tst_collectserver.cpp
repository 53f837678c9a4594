// The telemetry receiver over real HTTP on loopback, in this process, into a real SQLite file:
// both OTLP encodings, gzip, spans sent again or in other batches, refusals and their reasons.

#include "collect/collectserver.h"
#include "domain/registrychoice.h"
#include "otlptrace.pb.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"
#include "support/teststore.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTemporaryDir>
#include <QTest>

#include <google/protobuf/util/json_util.h>
#include <zlib.h>

using namespace verity;
using namespace verity::test;
using nlohmann::json;

namespace {

constexpr qint64 second = 1000000000;
constexpr qint64 base = 1773940000LL * second; // 2026-03-19 17:06:40 UTC

json stringAttribute(const char *key, const std::string &value)
{
    return json{{"key", key}, {"value", {{"stringValue", value}}}};
}

struct ToolSpan
{
    std::string trace = "7d1f0c2e9a4b4c6d8e0f1a2b3c4d5e6f";
    std::string span;
    std::string conversation = "conv-collect-1";
    std::string tool;
    std::string callId;
    json arguments;
    std::optional<json> result; // none: no result recorded
    bool timedOut = false;
    int startSeconds = 0;
};

json spanJson(const ToolSpan &spec)
{
    json attributes = json::array({stringAttribute("gen_ai.operation.name", "execute_tool"),
                                   stringAttribute("gen_ai.tool.name", spec.tool),
                                   stringAttribute("gen_ai.tool.call.id", spec.callId),
                                   stringAttribute("gen_ai.tool.call.arguments", spec.arguments.dump())});
    if (!spec.conversation.empty()) // else only the trace's root span names it
        attributes.push_back(stringAttribute("gen_ai.conversation.id", spec.conversation));
    if (spec.result)
        attributes.push_back(stringAttribute("gen_ai.tool.call.result", spec.result->dump()));
    json status = json::object();
    if (spec.timedOut) {
        attributes.push_back(stringAttribute("error.type", "timeout"));
        status = json{{"code", 2}, {"message", "payments.internal did not answer within 30s"}};
    }
    const qint64 start = base + spec.startSeconds * second;
    return json{{"traceId", spec.trace},
                {"spanId", spec.span},
                {"name", "execute_tool " + spec.tool},
                {"kind", 1},
                {"startTimeUnixNano", std::to_string(start)},
                {"endTimeUnixNano", std::to_string(start + second / 2)},
                {"attributes", attributes},
                {"status", status}};
}

// The agent's own span, the trace's root, which ends (and is exported) after its tool spans.
json rootSpan(const std::string &trace, const std::string &conversation, int startSeconds = 0)
{
    const qint64 start = base + startSeconds * second;
    return json{{"traceId", trace},
                {"spanId", "a1a1a1a1a1a1a1a1"},
                {"name", "invoke_agent support"},
                {"kind", 1},
                {"startTimeUnixNano", std::to_string(start)},
                {"endTimeUnixNano", std::to_string(start + 60 * second)},
                {"attributes",
                 json::array({stringAttribute("gen_ai.operation.name", "invoke_agent"),
                              stringAttribute("gen_ai.conversation.id", conversation)})}};
}

json exportOf(const std::vector<json> &spans)
{
    return json{
            {"resourceSpans",
             json::array(
                     {{{"resource",
                        {{"attributes", json::array({stringAttribute("service.name", "support-agent")})}}},
                       {"scopeSpans", json::array({{{"scope", {{"name", "agent"}}}, {"spans", spans}}})}}})}};
}

ToolSpan getOrder()
{
    ToolSpan span;
    span.span = "c3c3c3c3c3c3c3c3";
    span.tool = "get_order";
    span.callId = "call_O1";
    span.arguments = json{{"order_id", "BW-30388"}};
    span.result = json{{"order_id", "BW-30388"}, {"status", "delivered"}, {"seller_id", "brightwell"}};
    span.startSeconds = 1;
    return span;
}

ToolSpan timedOutRefund()
{
    ToolSpan span;
    span.span = "d4d4d4d4d4d4d4d4";
    span.tool = "issue_refund";
    span.callId = "call_O2";
    span.arguments = json{{"order_id", "BW-30388"}, {"item_id", "LMP-2"}, {"amount_cents", 18900}};
    span.timedOut = true;
    span.startSeconds = 2;
    return span;
}

ToolSpan retriedRefund()
{
    ToolSpan span = timedOutRefund();
    span.span = "e5e5e5e5e5e5e5e5";
    span.callId = "call_O3";
    span.timedOut = false;
    span.result = json{{"refund_id", "re_1"}, {"status", "succeeded"}};
    span.startSeconds = 40;
    return span;
}

// The customer's next turn, a trace of its own named only by its agent span (rootSpan): the
// refund sent again under the first turn's call id, and another refund that timed out.
std::pair<ToolSpan, ToolSpan> laterTurn()
{
    ToolSpan retry = retriedRefund();
    retry.trace = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e";
    retry.conversation.clear();
    retry.callId = "call_O2";
    ToolSpan unknown = timedOutRefund();
    unknown.trace = retry.trace;
    unknown.conversation.clear();
    unknown.span = "f8f8f8f8f8f8f8f8";
    unknown.callId = "call_O9";
    unknown.arguments["amount_cents"] = 500;
    unknown.startSeconds = 50;
    return {retry, unknown};
}

// OTLP/JSON onto the protobuf encoding, as an SDK's protobuf exporter would send it: ids from
// hex to bytes (base64 in protobuf's own JSON mapping), the rest by protobuf's JSON parser.
QByteArray protobufOf(json request)
{
    for (json &resource : request["resourceSpans"]) {
        for (json &scope : resource["scopeSpans"]) {
            for (json &span : scope["spans"]) {
                for (const char *id : {"traceId", "spanId", "parentSpanId"}) {
                    if (span.contains(id))
                        span[id] = QByteArray::fromHex(QByteArray::fromStdString(span[id].get<std::string>()))
                                           .toBase64()
                                           .toStdString();
                }
            }
        }
    }
    verity::otlp::ExportTraceServiceRequest message;
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    const auto status = google::protobuf::util::JsonStringToMessage(request.dump(), &message, options);
    if (!status.ok())
        qFatal("cannot encode the test request: %s", status.ToString().c_str());
    return QByteArray::fromStdString(message.SerializeAsString());
}

QByteArray gzipOf(const QByteArray &bytes)
{
    z_stream stream = {};
    deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    QByteArray out(int(deflateBound(&stream, uLong(bytes.size()))), Qt::Uninitialized);
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.constData()));
    stream.avail_in = uInt(bytes.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = uInt(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(qsizetype(stream.total_out));
    deflateEnd(&stream);
    return out;
}

struct Reply
{
    int status = 0;
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; // names in lower case
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

// A receiver on 127.0.0.1 (a free port) over a SQLite file in a temporary folder.
class Receiver
{
public:
    explicit Receiver(CollectOptions options = {}, std::unique_ptr<Store> store = {})
    {
        m_store =
                store ? std::move(store) : openTestStore(m_folder.filePath(QStringLiteral("collect.sqlite")));
        if (!m_store)
            qFatal("cannot open the test store");
        const Expected<RegistryChoice> registries = chooseRegistry({QString(), QString()});
        if (!registries)
            qFatal("no registry: %s", qPrintable(registries.message()));
        m_server = std::make_unique<CollectServer>(*m_store, registries->selection, std::move(options));
        Expected<quint16> port = m_server->listenOn(QHostAddress::LocalHost, 0);
        if (!port)
            qFatal("the receiver cannot listen: %s", qPrintable(port.message()));
        m_port = *port;
    }

    Reply send(const QByteArray &method, const QString &path, const QByteArray &contentType,
               const QByteArray &body, const QList<std::pair<QByteArray, QByteArray>> &headers = {})
    {
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_port).arg(path)));
        request.setTransferTimeout(15000);
        if (!contentType.isEmpty())
            request.setRawHeader("Content-Type", contentType);
        for (const auto &[name, value] : headers)
            request.setRawHeader(name, value);
        QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        if (!reply->isFinished())
            loop.exec();
        Reply result;
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.body = reply->readAll();
        for (const auto &[name, value] : reply->rawHeaderPairs())
            result.headers.insert(name.toLower(), value);
        reply->deleteLater();
        return result;
    }
    Reply postJson(const json &request, const QList<std::pair<QByteArray, QByteArray>> &headers = {})
    {
        return send("POST", QStringLiteral("/v1/traces"), "application/json",
                    QByteArray::fromStdString(request.dump()), headers);
    }
    Reply postProtobuf(const json &request, bool gzip = false)
    {
        const QByteArray body = protobufOf(request);
        return send("POST", QStringLiteral("/v1/traces"), "application/x-protobuf",
                    gzip ? gzipOf(body) : body,
                    gzip ? QList<std::pair<QByteArray, QByteArray>>{{"Content-Encoding", "gzip"}}
                         : QList<std::pair<QByteArray, QByteArray>>{});
    }

    Store &store() { return *m_store; }
    CollectServer &server() { return *m_server; }
    qint64 tickets()
    {
        const Expected<qint64> count = m_store->countTickets(TicketQuery{});
        return count ? *count : -1;
    }
    // The call that `callId` repeats (same intent key), or empty.
    QString repeatOf(const QString &conversation, const QString &callId)
    {
        const Expected<std::optional<TicketRef>> ticket = m_store->findTicket(conversation);
        if (!ticket || !*ticket)
            return {};
        const Expected<QList<TranscriptEntry>> entries = m_store->transcript((*ticket)->id);
        for (const TranscriptEntry &entry : entries ? *entries : QList<TranscriptEntry>()) {
            if (entry.isToolCall && entry.call.callExtId == callId)
                return entry.call.repeatOfCallId;
        }
        return {};
    }
    // The calls stored in a conversation's ticket, in order; empty when it has none.
    QStringList calls(const QString &conversation)
    {
        const Expected<std::optional<TicketRef>> ticket = m_store->findTicket(conversation);
        if (!ticket || !*ticket)
            return {};
        const Expected<QList<TranscriptEntry>> entries = m_store->transcript((*ticket)->id);
        QStringList ids;
        for (const TranscriptEntry &entry : entries ? *entries : QList<TranscriptEntry>()) {
            if (entry.isToolCall)
                ids.append(entry.call.callExtId);
        }
        return ids;
    }

private:
    QTemporaryDir m_folder;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<CollectServer> m_server;
    quint16 m_port = 0;
    QNetworkAccessManager m_network;
};

} // namespace

class TestCollectServer : public QObject
{
    Q_OBJECT

private slots:
    void bothEncodingsGrowOneTicketAndOpenItsEscalation();
    void theSameSpansSentAgainChangeNothing();
    void refusedSpansAreCountedInPartialSuccess();
    void anUnreadableValueCostsNothingButANotice();
    void theOrderACallNamesLaterNamesTheTicket();
    void badRequestsAreRefusedWithTheirReason_data();
    void badRequestsAreRefusedWithTheirReason();
    void aStoppingReceiverAsksForTheRequestAgainLater();
    void toolSpansBeforeTheirConversationIsNamedJoinIt();
    void aLaterTraceOfAConversationJoinsItsTicket();
    void aCallIdUsedAgainInALaterRequestIsAnotherCall();
    void aTeamDatabaseTakesATracesSpansAsTheSupportRole();
    void turnAfterTurnJoinsOneTicket();
    void verityEventsArriveLineByLine();
    void aWriteReportedLiveIsInFlightUntilItsGraceEnds();
    void servesHttpsWithTheGivenCertificate();
};

void TestCollectServer::bothEncodingsGrowOneTicketAndOpenItsEscalation()
{
    Receiver receiver;
    // The agent's first batch: the order read and the refund that timed out, as JSON.
    const Reply first = receiver.postJson(exportOf({spanJson(getOrder()), spanJson(timedOutRefund())}));
    QCOMPARE(first.status, 200);
    QCOMPARE(first.headers.value("content-type"), QByteArray("application/json"));
    QCOMPARE(first.json(), QJsonObject()); // no partialSuccess: every span was taken
    QCOMPARE(receiver.tickets(), 1);
    const qint64 escalation =
            openEscalationId(receiver.store(), QStringLiteral("conv-collect-1"), QStringLiteral("call_O2"));
    QVERIFY2(escalation > 0, "the refund that timed out waits in the escalation queue");

    // A minute later the retry, from another exporter speaking protobuf, gzipped.
    const Reply second = receiver.postProtobuf(exportOf({spanJson(retriedRefund())}), true);
    QCOMPARE(second.status, 200);
    QCOMPARE(second.headers.value("content-type"), QByteArray("application/x-protobuf"));
    verity::otlp::ExportTraceServiceResponse response;
    QVERIFY(response.ParseFromArray(second.body.constData(), int(second.body.size())));
    QVERIFY(!response.has_partial_success());
    QCOMPARE(receiver.tickets(), 1);
    QCOMPARE(receiver.calls(QStringLiteral("conv-collect-1")),
             QStringList({QStringLiteral("call_O1"), QStringLiteral("call_O2"), QStringLiteral("call_O3")}));
    QCOMPARE(openEscalationId(receiver.store(), QStringLiteral("conv-collect-1"), QStringLiteral("call_O2")),
             escalation);
}

void TestCollectServer::theSameSpansSentAgainChangeNothing()
{
    Receiver receiver;
    const json whole =
            exportOf({spanJson(getOrder()), spanJson(timedOutRefund()), spanJson(retriedRefund())});
    QCOMPARE(receiver.postJson(whole).status, 200);
    const QStringList stored = receiver.calls(QStringLiteral("conv-collect-1"));
    QCOMPARE(stored.size(), 3);
    // An exporter's retry of the same request, the same spans in protobuf, and the same spans
    // batched otherwise: all recognised by their trace and span ids.
    QCOMPARE(receiver.postJson(whole).status, 200);
    QCOMPARE(receiver.postProtobuf(whole).status, 200);
    QCOMPARE(receiver.postJson(exportOf({spanJson(retriedRefund())})).status, 200);
    QCOMPARE(receiver.postJson(exportOf({spanJson(timedOutRefund()), spanJson(getOrder())})).status, 200);
    QCOMPARE(receiver.calls(QStringLiteral("conv-collect-1")), stored);
    QCOMPARE(receiver.tickets(), 1);
}

void TestCollectServer::toolSpansBeforeTheirConversationIsNamedJoinIt()
{
    Receiver receiver;
    // The batch processor exports the tool spans first; the root span naming the conversation
    // ends last and comes in a later request, alone or with the trace's other spans.
    ToolSpan refund = timedOutRefund();
    refund.conversation.clear();
    ToolSpan order = getOrder();
    order.conversation.clear();
    const json first = exportOf({spanJson(refund)});
    QCOMPARE(receiver.postJson(first).status, 200);
    QCOMPARE(receiver.tickets(), 1);
    const QString traceTicket = QStringLiteral("trace:7d1f0c2e9a4b4c6d8e0f1a2b3c4d5e6f");
    const qint64 escalation = openEscalationId(receiver.store(), traceTicket, QStringLiteral("call_O2"));
    QVERIFY2(escalation > 0, "the unknown refund is escalated before its conversation is named");

    const Reply named =
            receiver.postProtobuf(exportOf({spanJson(order), rootSpan(refund.trace, "conv-split")}));
    QCOMPARE(named.status, 200);
    QCOMPARE(receiver.tickets(), 1);
    // In the order they were made, whichever request brought them.
    QCOMPARE(receiver.calls(QStringLiteral("conv-split")),
             QStringList({QStringLiteral("call_O1"), QStringLiteral("call_O2")}));
    QCOMPARE(openEscalationId(receiver.store(), QStringLiteral("conv-split"), QStringLiteral("call_O2")),
             escalation);
    // The exporter's retry of the first request, after the name came, changes nothing.
    QCOMPARE(receiver.postJson(first).status, 200);
    QCOMPARE(receiver.tickets(), 1);
    QCOMPARE(receiver.calls(QStringLiteral("conv-split")).size(), 2);

    // A root span alone names a trace too.
    ToolSpan other = timedOutRefund();
    other.trace = "99990000999900009999000099990000";
    other.conversation.clear();
    other.span = "f7f7f7f7f7f7f7f7";
    QCOMPARE(receiver.postJson(exportOf({spanJson(other)})).status, 200);
    QCOMPARE(receiver.tickets(), 2);
    QCOMPARE(receiver.postJson(exportOf({rootSpan(other.trace, "conv-alone")})).status, 200);
    QCOMPARE(receiver.tickets(), 2);
    QCOMPARE(receiver.calls(QStringLiteral("conv-alone")), QStringList(QStringLiteral("call_O2")));
    // ... and a root span of a trace nothing was stored for opens no empty ticket.
    QCOMPARE(receiver.postJson(exportOf({rootSpan("12341234123412341234123412341234", "conv-none")})).status,
             200);
    QCOMPARE(receiver.tickets(), 2);
}

void TestCollectServer::aLaterTraceOfAConversationJoinsItsTicket()
{
    Receiver receiver;
    QCOMPARE(receiver.postJson(exportOf({spanJson(getOrder()), spanJson(timedOutRefund())})).status, 200);
    const qint64 escalation =
            openEscalationId(receiver.store(), QStringLiteral("conv-collect-1"), QStringLiteral("call_O2"));
    QVERIFY(escalation > 0);

    // The customer's next turn is a trace of its own; its tool spans come before its root span,
    // and number their calls afresh (call_O2 again).
    const auto [retry, unknown] = laterTurn();
    const json tools = exportOf({spanJson(retry), spanJson(unknown)});
    QCOMPARE(receiver.postJson(tools).status, 200);
    QCOMPARE(receiver.tickets(), 2);
    const qint64 traceTicket =
            (*receiver.store().findTicket(QStringLiteral("trace:5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e")))->id;
    QCOMPARE(receiver.postJson(exportOf({rootSpan(retry.trace, "conv-collect-1", 39)})).status, 200);
    QCOMPARE(receiver.tickets(), 1);
    const QStringList calls = receiver.calls(QStringLiteral("conv-collect-1"));
    QCOMPARE(calls.size(), 4);
    QCOMPARE(calls.mid(0, 2), QStringList({QStringLiteral("call_O1"), QStringLiteral("call_O2")}));
    QVERIFY2(calls.at(2).startsWith(QLatin1String("call_O2#")), qPrintable(calls.at(2)));
    QCOMPARE(calls.at(3), QStringLiteral("call_O9"));
    // Both escalations are the conversation's now, the first under its own id.
    QCOMPARE(openEscalationId(receiver.store(), QStringLiteral("conv-collect-1"), QStringLiteral("call_O2")),
             escalation);
    QVERIFY(openEscalationId(receiver.store(), QStringLiteral("conv-collect-1"), QStringLiteral("call_O9"))
            > 0);
    QCOMPARE(*receiver.store().countOpenEscalations(), 2);
    // The retry in the later trace is seen for what it is: the same refund again (its key,
    // first made under the trace's own ticket, is made again with the conversation's).
    QCOMPARE(receiver.repeatOf(QStringLiteral("conv-collect-1"), calls.at(2)), QStringLiteral("call_O2"));
    // Sent again, the trace's spans are recognised in the ticket they joined.
    QCOMPARE(receiver.postJson(tools).status, 200);
    QCOMPARE(receiver.postJson(exportOf({rootSpan(retry.trace, "conv-collect-1", 39)})).status, 200);
    QCOMPARE(receiver.calls(QStringLiteral("conv-collect-1")), calls);
    QCOMPARE(receiver.tickets(), 1);

    // The joined ticket's id is never another's: a console may still hold it (SQLite would give
    // the largest id again).
    ToolSpan next = getOrder();
    next.conversation = "conv-collect-2";
    next.span = "abababababababab";
    next.trace = "31313131313131313131313131313131";
    QCOMPARE(receiver.postJson(exportOf({spanJson(next)})).status, 200);
    QVERIFY((*receiver.store().findTicket(QStringLiteral("conv-collect-2")))->id > traceTicket);
}

// Turn after turn, each a trace whose tool span (call_1 every time) comes before its agent span:
// every turn joins the conversation, its call kept apart from the others'.
void TestCollectServer::turnAfterTurnJoinsOneTicket()
{
    Receiver receiver;
    for (int turn = 1; turn <= 4; ++turn) {
        ToolSpan call = timedOutRefund();
        call.trace = QByteArray::number(turn).repeated(32).left(32).toStdString();
        call.span = QByteArray::number(turn).repeated(16).left(16).toStdString();
        call.conversation.clear();
        call.callId = "call_1";
        call.arguments["amount_cents"] = 100 * turn;
        call.startSeconds = 60 * turn;
        const Reply tools = receiver.postJson(exportOf({spanJson(call)}));
        QVERIFY2(tools.status == 200, tools.body.constData());
        const Reply named = receiver.postJson(exportOf({rootSpan(call.trace, "conv-turns", 60 * turn - 1)}));
        QVERIFY2(named.status == 200, named.body.constData());
        QCOMPARE(receiver.tickets(), 1);
        QCOMPARE(receiver.calls(QStringLiteral("conv-turns")).size(), turn);
    }
    QCOMPARE(*receiver.store().countOpenEscalations(), 4);
}

void TestCollectServer::aCallIdUsedAgainInALaterRequestIsAnotherCall()
{
    Receiver receiver;
    QCOMPARE(receiver.postJson(exportOf({spanJson(timedOutRefund())})).status, 200);
    // An agent framework that numbers calls per turn: call_O2 again, a new refund that times out.
    ToolSpan again = timedOutRefund();
    again.span = "f9f9f9f9f9f9f9f9";
    again.arguments["item_id"] = "LMP-7";
    again.startSeconds = 90;
    const json request = exportOf({spanJson(again)});
    const Reply reply = receiver.postJson(request);
    QCOMPARE(reply.status, 200);
    QCOMPARE(reply.json(), QJsonObject()); // taken whole, not refused
    QCOMPARE(receiver.calls(QStringLiteral("conv-collect-1")),
             QStringList({QStringLiteral("call_O2"), QStringLiteral("call_O2#2")}));
    QVERIFY(openEscalationId(receiver.store(), QStringLiteral("conv-collect-1"), QStringLiteral("call_O2#2"))
            > 0);
    QCOMPARE(receiver.postJson(request).status, 200);
    QCOMPARE(receiver.calls(QStringLiteral("conv-collect-1")).size(), 2);
}

// On a team database the receiver runs as a person with the support role: naming and joining
// a trace's ticket, and a later result on an escalation, are all within what that role may do.
void TestCollectServer::aTeamDatabaseTakesATracesSpansAsTheSupportRole()
{
    test::PostgresCluster cluster;
    QVERIFY2(cluster.start(), qPrintable(cluster.error()));
    QVERIFY2(cluster.execute(QStringLiteral("CREATE ROLE ben LOGIN")), qPrintable(cluster.error()));
    const QString owner = cluster.createDatabase(QStringLiteral("crewdb"));
    QVERIFY2(!owner.isEmpty(), qPrintable(cluster.error()));
    QVERIFY(openStore(owner)); // made by its owner, as `verity db init` does
    QVERIFY2(cluster.execute(QStringLiteral("GRANT verity_support TO ben"), QStringLiteral("crewdb")),
             qPrintable(cluster.error()));
    Expected<std::unique_ptr<Store>> asBen =
            openStore(cluster.location(QStringLiteral("crewdb"), QStringLiteral("ben")));
    QVERIFY2(asBen, asBen ? "" : qPrintable(asBen.message()));
    Receiver receiver(CollectOptions{}, std::move(*asBen));

    QCOMPARE(receiver.postJson(exportOf({spanJson(getOrder()), spanJson(timedOutRefund())})).status, 200);
    const auto [retry, unknown] = laterTurn();
    const Reply tools = receiver.postProtobuf(exportOf({spanJson(retry), spanJson(unknown)}));
    QVERIFY2(tools.status == 200, tools.body.constData());
    QCOMPARE(receiver.tickets(), 2);
    const Reply named = receiver.postJson(exportOf({rootSpan(retry.trace, "conv-collect-1", 39)}));
    QVERIFY2(named.status == 200, named.body.constData());
    QCOMPARE(receiver.tickets(), 1);
    QCOMPARE(receiver.calls(QStringLiteral("conv-collect-1")).size(), 4);
    QCOMPARE(*receiver.store().countOpenEscalations(), 2);
    // A trace named before any of its spans came: a new ticket, renamed in place.
    ToolSpan lone = timedOutRefund();
    lone.trace = "77777777777777777777777777777777";
    lone.conversation.clear();
    lone.span = "f1f1f1f1f1f1f1f1";
    QCOMPARE(receiver.postJson(exportOf({spanJson(lone)})).status, 200);
    QCOMPARE(receiver.postJson(exportOf({rootSpan(lone.trace, "conv-team-2")})).status, 200);
    QCOMPARE(receiver.calls(QStringLiteral("conv-team-2")), QStringList(QStringLiteral("call_O2")));
    QCOMPARE(receiver.tickets(), 2);

    // A conversation id PostgreSQL cannot store (U+0000) is refused alone; the rest is taken.
    ToolSpan nul = getOrder();
    nul.conversation = std::string("conv-N\0ul", 10);
    nul.span = "f2f2f2f2f2f2f2f2";
    ToolSpan kept = timedOutRefund();
    kept.conversation = "conv-team-3";
    kept.span = "f3f3f3f3f3f3f3f3";
    const Reply mixed = receiver.postJson(exportOf({spanJson(nul), spanJson(kept)}));
    QVERIFY2(mixed.status == 200, mixed.body.constData());
    QCOMPARE(mixed.json()
                     .value(QStringLiteral("partialSuccess"))
                     .toObject()
                     .value(QStringLiteral("rejectedSpans"))
                     .toInteger(),
             1);
    QVERIFY(openEscalationId(receiver.store(), QStringLiteral("conv-team-3"), QStringLiteral("call_O2")) > 0);

    // An order only a refund's arguments name is recorded with no seller, by the support role.
    ToolSpan unsold = timedOutRefund();
    unsold.conversation = "conv-team-4";
    unsold.span = "f4f4f4f4f4f4f4f4";
    unsold.arguments["order_id"] = "BW-99";
    QCOMPARE(receiver.postJson(exportOf({spanJson(unsold)})).status, 200);
    const TicketDetail unsoldTicket =
            **receiver.store().ticket(**receiver.store().ticketIdByExtId(QStringLiteral("conv-team-4")));
    QCOMPARE(unsoldTicket.row.orderId, QStringLiteral("BW-99"));
    QVERIFY(unsoldTicket.row.sellerName.isEmpty());
}

void TestCollectServer::refusedSpansAreCountedInPartialSuccess()
{
    Receiver receiver;
    ToolSpan nameless = getOrder();
    nameless.conversation = "conv-collect-2";
    nameless.span = "f6f6f6f6f6f6f6f6";
    nameless.tool = " ";
    const json request = exportOf({spanJson(getOrder()), spanJson(nameless)});

    const Reply asJson = receiver.postJson(request);
    QCOMPARE(asJson.status, 200);
    const QJsonObject partial = asJson.json().value(QStringLiteral("partialSuccess")).toObject();
    QCOMPARE(partial.value(QStringLiteral("rejectedSpans")).toInteger(), 1);
    const QString reason = partial.value(QStringLiteral("errorMessage")).toString();
    QVERIFY2(reason.contains(QStringLiteral("conv-collect-2"))
                     && reason.contains(QStringLiteral("gen_ai.tool.name")),
             qPrintable(reason));
    QCOMPARE(receiver.calls(QStringLiteral("conv-collect-1")), QStringList{QStringLiteral("call_O1")});
    QVERIFY(receiver.calls(QStringLiteral("conv-collect-2")).isEmpty());

    const Reply asProtobuf = receiver.postProtobuf(request);
    QCOMPARE(asProtobuf.status, 200);
    verity::otlp::ExportTraceServiceResponse response;
    QVERIFY(response.ParseFromArray(asProtobuf.body.constData(), int(asProtobuf.body.size())));
    QCOMPARE(response.partial_success().rejected_spans(), 1);
    QVERIFY(QString::fromStdString(response.partial_success().error_message())
                    .contains(QStringLiteral("conv-collect-2")));
}

// A refund whose arguments came cut short is still the refund that timed out: stored with its
// text, escalated, and the exporter told in partial_success, with nothing rejected.
void TestCollectServer::anUnreadableValueCostsNothingButANotice()
{
    Receiver receiver;
    json request = exportOf({spanJson(getOrder()), spanJson(timedOutRefund())});
    for (json &attribute : request["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["attributes"]) {
        if (attribute["key"] == "gen_ai.tool.call.arguments")
            attribute["value"] = json{{"stringValue", R"({"order_id": "BW-30388", "amount_cents": 189)"}};
    }
    const Reply asJson = receiver.postJson(request);
    QCOMPARE(asJson.status, 200);
    const QJsonObject partial = asJson.json().value(QStringLiteral("partialSuccess")).toObject();
    QCOMPARE(partial.value(QStringLiteral("rejectedSpans")).toInteger(), 0);
    const QString reason = partial.value(QStringLiteral("errorMessage")).toString();
    QVERIFY2(reason.contains(QStringLiteral("stored with notices"))
                     && reason.contains(QStringLiteral("call \"call_O2\" (issue_refund)"))
                     && reason.contains(QStringLiteral("gen_ai.tool.call.arguments")),
             qPrintable(reason));
    QCOMPARE(receiver.calls(QStringLiteral("conv-collect-1")),
             (QStringList{QStringLiteral("call_O1"), QStringLiteral("call_O2")}));
    QVERIFY(openEscalationId(receiver.store(), QStringLiteral("conv-collect-1"), QStringLiteral("call_O2"))
            > 0);

    const Reply asProtobuf = receiver.postProtobuf(request);
    QCOMPARE(asProtobuf.status, 200);
    verity::otlp::ExportTraceServiceResponse response;
    QVERIFY(response.ParseFromArray(asProtobuf.body.constData(), int(asProtobuf.body.size())));
    QCOMPARE(response.partial_success().rejected_spans(), 0);
    QVERIFY(QString::fromStdString(response.partial_success().error_message())
                    .contains(QStringLiteral("call_O2")));
}

// A conversation whose first request held only the customer's words takes the order (its seller
// and payment) from the read that comes in the next one.
void TestCollectServer::theOrderACallNamesLaterNamesTheTicket()
{
    Receiver receiver;
    const json chat = {
            {"traceId", "7d1f0c2e9a4b4c6d8e0f1a2b3c4d5e6f"},
            {"spanId", "a1a1a1a1a1a1a1a1"},
            {"name", "chat"},
            {"startTimeUnixNano", "1773757800000000000"},
            {"endTimeUnixNano", "1773757800500000000"},
            {"attributes",
             json::array(
                     {stringAttribute("gen_ai.operation.name", "chat"),
                      stringAttribute("gen_ai.conversation.id", "conv-collect-1"),
                      stringAttribute(
                              "gen_ai.input.messages",
                              R"([{"role":"user","parts":[{"type":"text","content":"My lamp is broken"}]}])")})}};
    QCOMPARE(receiver.postJson(exportOf({chat})).status, 200);
    ToolSpan read = getOrder();
    read.result = json{
            {"order_id", "BW-30388"}, {"seller_id", "brightwell"}, {"payment_intent", "pi_3PbWq7Lamp0388"}};
    QCOMPARE(receiver.postJson(exportOf({spanJson(read)})).status, 200);
    const TicketDetail detail =
            **receiver.store().ticket(**receiver.store().ticketIdByExtId(QStringLiteral("conv-collect-1")));
    QCOMPARE(detail.row.orderId, QStringLiteral("BW-30388"));
    QCOMPARE(detail.row.sellerName, QStringLiteral("brightwell"));
    QCOMPARE(detail.order.paymentIntent, QStringLiteral("pi_3PbWq7Lamp0388"));
}

void TestCollectServer::badRequestsAreRefusedWithTheirReason_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("encoding");
    QTest::addColumn<QByteArray>("authorization");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("reason");

    const QByteArray token = "Bearer s3cret";
    const QByteArray good = QByteArray::fromStdString(exportOf({spanJson(getOrder())}).dump());
    const QString traces = QStringLiteral("/v1/traces");
    QTest::newRow("no token") << QByteArray("POST") << traces << QByteArray("application/json")
                              << QByteArray() << QByteArray() << good << 401
                              << QStringLiteral("Authorization: Bearer");
    QTest::newRow("another token") << QByteArray("POST") << traces << QByteArray("application/json")
                                   << QByteArray() << QByteArray("Bearer guess") << good << 401
                                   << QStringLiteral("not the one");
    QTest::newRow("GET") << QByteArray("GET") << traces << QByteArray() << QByteArray() << token
                         << QByteArray() << 405 << QStringLiteral("POST only");
    QTest::newRow("metrics") << QByteArray("POST") << QStringLiteral("/v1/metrics")
                             << QByteArray("application/json") << QByteArray() << token << good << 404
                             << QStringLiteral("/v1/traces");
    QTest::newRow("plain text") << QByteArray("POST") << traces << QByteArray("text/plain") << QByteArray()
                                << token << good << 415 << QStringLiteral("application/x-protobuf");
    QTest::newRow("no content type") << QByteArray("POST") << traces << QByteArray() << QByteArray() << token
                                     << good << 415 << QStringLiteral("Content-Type");
    QTest::newRow("deflate") << QByteArray("POST") << traces << QByteArray("application/json")
                             << QByteArray("deflate") << token << good << 415 << QStringLiteral("gzip");
    QTest::newRow("broken JSON") << QByteArray("POST") << traces << QByteArray("application/json")
                                 << QByteArray() << token << QByteArray("{\"resourceSpans\": [") << 400
                                 << QStringLiteral("not JSON");
    QTest::newRow("JSON of something else")
            << QByteArray("POST") << traces << QByteArray("application/json") << QByteArray() << token
            << QByteArray("{\"spans\": []}") << 400 << QStringLiteral("resourceSpans");
    QTest::newRow("not protobuf") << QByteArray("POST") << traces << QByteArray("application/x-protobuf")
                                  << QByteArray() << token << QByteArray("\xff\xff\xff\xff garbage") << 400
                                  << QStringLiteral("ExportTraceServiceRequest");
    QTest::newRow("gzip that is not") << QByteArray("POST") << traces << QByteArray("application/json")
                                      << QByteArray("gzip") << token << good << 400 << QStringLiteral("gzip");
    QTest::newRow("too large") << QByteArray("POST") << traces << QByteArray("application/json")
                               << QByteArray() << token << QByteArray(70 * 1024, ' ') << 413
                               << QStringLiteral("at most");
    QTest::newRow("inflates too large")
            << QByteArray("POST") << traces << QByteArray("application/json") << QByteArray("gzip") << token
            << gzipOf(QByteArray(8 << 20, ' ')) << 413 << QStringLiteral("inflates");
    QTest::newRow("event lines of nothing known")
            << QByteArray("POST") << QStringLiteral("/v1/events") << QByteArray("application/x-ndjson")
            << QByteArray() << token << QByteArray("{\"type\": \"weather\"}\nnot json\n") << 400
            << QStringLiteral("line 2");
}

void TestCollectServer::badRequestsAreRefusedWithTheirReason()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, encoding);
    QFETCH(QByteArray, authorization);
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(QString, reason);

    CollectOptions options;
    options.token = QStringLiteral("s3cret");
    options.maxBodyBytes = 64 * 1024;
    Receiver receiver(options);
    QList<std::pair<QByteArray, QByteArray>> headers;
    if (!encoding.isEmpty())
        headers.append({"Content-Encoding", encoding});
    if (!authorization.isEmpty())
        headers.append({"Authorization", authorization});
    const Reply refused = receiver.send(method, path, contentType, body, headers);
    QCOMPARE(refused.status, status);
    // A refusal is a google.rpc.Status in the request's encoding.
    QString message = refused.json().value(QStringLiteral("message")).toString();
    if (contentType == "application/x-protobuf") {
        verity::otlp::RpcStatus rpc;
        QVERIFY(rpc.ParseFromArray(refused.body.constData(), int(refused.body.size())));
        QCOMPARE(rpc.code(), 3);
        message = QString::fromStdString(rpc.message());
    }
    QVERIFY2(message.contains(reason),
             qPrintable(message + QStringLiteral(" | ") + QString::fromUtf8(refused.body)));
    if (status == 401)
        QVERIFY(refused.headers.value("www-authenticate").startsWith("Bearer"));
    QCOMPARE(receiver.tickets(), 0);
    // The receiver goes on: the next good request is stored.
    // (The scheme's name is read in any case, as HTTP says.)
    const Reply next =
            receiver.postJson(exportOf({spanJson(getOrder())}), {{"Authorization", "bearer s3cret"}});
    QCOMPARE(next.status, 200);
    QCOMPARE(receiver.tickets(), 1);
}

void TestCollectServer::aStoppingReceiverAsksForTheRequestAgainLater()
{
    Receiver receiver;
    receiver.server().refuseFromNow();
    const Reply refused = receiver.postProtobuf(exportOf({spanJson(timedOutRefund())}));
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.headers.value("retry-after"), QByteArray("5"));
    verity::otlp::RpcStatus status;
    QVERIFY(status.ParseFromArray(refused.body.constData(), int(refused.body.size())));
    QVERIFY(QString::fromStdString(status.message()).contains(QStringLiteral("stopping")));
    QCOMPARE(receiver.tickets(), 0);
}

void TestCollectServer::verityEventsArriveLineByLine()
{
    Receiver receiver;
    const QByteArray opened =
            R"({"type":"ticket_opened","ticket":"T-LIVE-1","at":"2026-03-19T17:06:40Z","subject":"Refund for a lamp",)"
            R"("order":{"id":"BW-1","currency":"USD","items":[{"id":"LMP-2","title":"Lamp","quantity":1,)"
            R"("amount_cents":1200}],"payment_intent":"pi_BW-1"},"seller":{"id":"brightwell","name":"Brightwell"}})";
    const QByteArray call =
            R"({"type":"tool_call","ticket":"T-LIVE-1","at":"2026-03-19T17:06:42Z",)"
            R"("call_id":"c1","tool":"issue_refund","arguments":{"order_id":"BW-1","amount_cents":1200}})";
    const Reply first = receiver.send("POST", QStringLiteral("/v1/events"), "application/x-ndjson",
                                      opened + "\n\n" + call + "\n{broken\n");
    QVERIFY2(first.status == 200, first.body.constData());
    QCOMPARE(first.json().value(QStringLiteral("received")).toInt(), 3);
    QCOMPARE(first.json().value(QStringLiteral("stored")).toInt(), 2);
    QCOMPARE(first.json().value(QStringLiteral("refused")).toInt(), 1);
    QVERIFY(first.json()
                    .value(QStringLiteral("problems"))
                    .toArray()
                    .first()
                    .toString()
                    .startsWith(QStringLiteral("line 4: ")));
    QCOMPARE(receiver.calls(QStringLiteral("T-LIVE-1")), QStringList{QStringLiteral("c1")});
    // The same lines again change nothing.
    const Reply again =
            receiver.send("POST", QStringLiteral("/v1/events"), "application/x-ndjson", opened + "\n" + call);
    QCOMPARE(again.json().value(QStringLiteral("stored")).toInt(), 0);
    QCOMPARE(again.json().value(QStringLiteral("known")).toInt(), 2);
}

void TestCollectServer::aWriteReportedLiveIsInFlightUntilItsGraceEnds()
{
    qint64 now = 1773940000000;
    CollectOptions options;
    options.inFlightGraceMs = 120000;
    options.clock = [&now] { return now; };
    Receiver receiver(options);
    const QByteArray opened =
            R"({"type":"ticket_opened","ticket":"T-LIVE-2","at":"2026-03-19T17:06:40Z","subject":"Refund",)"
            R"("order":{"id":"BW-2","currency":"USD","items":[{"id":"LMP-2","title":"Lamp","quantity":1,)"
            R"("amount_cents":1200}],"payment_intent":"pi_BW-2"},"seller":{"id":"brightwell","name":"Brightwell"}})";
    const auto call = [](const char *id) {
        return QByteArray(
                       R"({"type":"tool_call","ticket":"T-LIVE-2","at":"2026-03-19T17:06:42Z","call_id":")")
                + id
                + R"(","tool":"issue_refund","arguments":{"order_id":"BW-2","item_id":"LMP-2","amount_cents":1200}})";
    };
    const QByteArray answered =
            R"({"type":"tool_result","ticket":"T-LIVE-2","at":"2026-03-19T17:06:43Z","call_id":"c1",)"
            R"("result":{"refund_id":"re_1","status":"succeeded"}})";
    const auto send = [&receiver](const QByteArray &lines) {
        return receiver.send("POST", QStringLiteral("/v1/events"), "application/x-ndjson", lines).status;
    };
    const auto inFlight = [&receiver](const QString &callId) -> std::optional<qint64> {
        const Expected<std::optional<TicketRef>> ticket =
                receiver.store().findTicket(QStringLiteral("T-LIVE-2"));
        const Expected<QList<TranscriptEntry>> entries = receiver.store().transcript((*ticket)->id);
        for (const TranscriptEntry &entry : *entries) {
            if (entry.isToolCall && entry.call.callExtId == callId)
                return entry.call.inFlightUntil;
        }
        return std::nullopt;
    };

    const auto ticketInFlight = [&receiver] {
        const qint64 id = **receiver.store().ticketIdByExtId(QStringLiteral("T-LIVE-2"));
        return (**receiver.store().ticket(id)).row.unknownInFlight;
    };

    // The agent reports the refund as it calls it: nobody knows yet, nor should anybody act.
    QCOMPARE(send(opened + "\n" + call("c1") + "\n" + call("c2")), 200);
    QVERIFY2(ticketInFlight(), "the queue shows the ticket in flight, not unknown");
    QCOMPARE(inFlight(QStringLiteral("c1")), std::optional<qint64>(now + 120000));
    QCOMPARE(openEscalationId(receiver.store(), QStringLiteral("T-LIVE-2"), QStringLiteral("c1")), 0);
    QCOMPARE(openEscalationId(receiver.store(), QStringLiteral("T-LIVE-2"), QStringLiteral("c2")), 0);

    // c1's result comes a second later: settled, never escalated.
    now += 1000;
    QCOMPARE(send(answered), 200);
    QCOMPARE(inFlight(QStringLiteral("c1")), std::nullopt);
    receiver.server().escalateOverdue();
    QCOMPARE(openEscalationId(receiver.store(), QStringLiteral("T-LIVE-2"), QStringLiteral("c1")), 0);
    QVERIFY(ticketInFlight());

    // c2's never does: once its grace is over it waits for a person like any unknown write.
    now += 118000;
    receiver.server().escalateOverdue();
    QCOMPARE(openEscalationId(receiver.store(), QStringLiteral("T-LIVE-2"), QStringLiteral("c2")), 0);
    now += 1000;
    receiver.server().escalateOverdue();
    QVERIFY(openEscalationId(receiver.store(), QStringLiteral("T-LIVE-2"), QStringLiteral("c2")) > 0);
    QCOMPARE(inFlight(QStringLiteral("c2")), std::nullopt);
    QVERIFY2(!ticketInFlight(), "its wait over, the ticket is unknown");

    // A trace's tool span is exported when it ends: without a result it is unknown at once.
    ToolSpan unanswered = timedOutRefund();
    unanswered.timedOut = false;
    QCOMPARE(receiver.postJson(exportOf({spanJson(unanswered)})).status, 200);
    QVERIFY(openEscalationId(receiver.store(), QStringLiteral("conv-collect-1"), QStringLiteral("call_O2"))
            > 0);
}

void TestCollectServer::servesHttpsWithTheGivenCertificate()
{
    QTemporaryDir folder;
    std::unique_ptr<Store> store = openTestStore(folder.filePath(QStringLiteral("tls.sqlite")));
    QVERIFY(store);
    const Expected<RegistryChoice> registries = chooseRegistry({QString(), QString()});
    QVERIFY(registries);
    const QString certificate = QStringLiteral(VERITY_TEST_DATA "/tls/loopback-cert.pem");
    CollectServer server(*store, registries->selection, CollectOptions{});
    // A key file that is no key is refused before anything listens, naming the file.
    const Expected<quint16> refused = server.listenOn(QHostAddress::LocalHost, 0, {certificate, certificate});
    QVERIFY(!refused);
    QVERIFY2(refused.message().contains(QStringLiteral("--tls-key")), qPrintable(refused.message()));
    // So is a key of another certificate: every handshake would fail, and nothing would say why.
    const Expected<quint16> mismatched = server.listenOn(
            QHostAddress::LocalHost, 0, {certificate, QStringLiteral(VERITY_TEST_DATA "/tls/other-key.pem")});
    QVERIFY(!mismatched);
    QVERIFY2(mismatched.message().contains(QStringLiteral("does not belong")),
             qPrintable(mismatched.message()));

    CollectServer secure(*store, registries->selection, CollectOptions{});
    const Expected<quint16> port =
            secure.listenOn(QHostAddress::LocalHost, 0,
                            {certificate, QStringLiteral(VERITY_TEST_DATA "/tls/loopback-key.pem")});
    QVERIFY2(port, port ? "" : qPrintable(port.message()));
    QNetworkAccessManager network;
    QNetworkRequest request(QUrl(QStringLiteral("https://127.0.0.1:%1/v1/traces").arg(*port)));
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setCaCertificates(QSslCertificate::fromPath(certificate));
    request.setSslConfiguration(tls);
    request.setRawHeader("Content-Type", "application/json");
    QNetworkReply *reply =
            network.post(request, QByteArray::fromStdString(exportOf({spanJson(getOrder())}).dump()));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    QCOMPARE(reply->error(), QNetworkReply::NoError);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    delete reply;
    const Expected<qint64> tickets = store->countTickets(TicketQuery{});
    QVERIFY(tickets);
    QCOMPARE(*tickets, 1);
}

QTEST_GUILESS_MAIN(TestCollectServer)
#include "tst_collectserver.moc"

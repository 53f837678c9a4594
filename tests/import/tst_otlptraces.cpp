// OpenTelemetry trace exports (OTLP/JSON, as the Collector's file exporter writes them): GenAI
// `execute_tool` spans and OpenInference `TOOL` spans become calls and results, chat spans give
// the messages, and spans are grouped into conversations. Broken input is an error that says
// where; nothing throws.

#include "import/formats/otlptraces.h"

#include <QFile>
#include <QTest>

#include <functional>

using namespace verity;
using json = nlohmann::json;

class TestOtlpTraces : public QObject
{
    Q_OBJECT

private slots:
    void looksLike_data();
    void looksLike();
    void genAiWholeFile();
    void genAiPerLine();
    void splitBatches();
    void traceConversations();
    void traceConversationsOfBadInput_data();
    void traceConversationsOfBadInput();
    void openInference();
    void toolOutcome_data();
    void toolOutcome();
    void grouping_data();
    void grouping();
    void messages();
    void otherSpansIgnored();
    void badInput_data();
    void badInput();
    void otherConversationsStillComeBack();
    void nestedCallsAcrossRequestsStayInTheirTrace();
    void longValuesAreCut();
    void robustness_data();
    void robustness();
    void everyAttributeOfAWrongType();
    void everyNodeReplaced();
    void toolHintsOfEachConvention_data();
    void toolHintsOfEachConvention();
    void aConversationsOwnDefinitionsComeFirst();
};

namespace {

constexpr qint64 base = 1773757800000; // 2026-03-17T14:30:00Z, the fixtures' clock
const char *traceA = "4bf92f3577b34da6a3ce929d0e0e4736";
const char *traceB = "0af7651916cd43dd8448eb211c80319c";

QList<json> readLines(const QString &name)
{
    QFile file(QStringLiteral(VERITY_TEST_DATA "/formats/") + name);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<json> lines;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (!line.trimmed().isEmpty())
            lines.append(json::parse(line.toStdString(), nullptr, false));
    }
    return lines;
}

// What an importer would hand over for a whole file: every line's resourceSpans in one request.
json mergedRequest(const QList<json> &lines)
{
    json merged = {{"resourceSpans", json::array()}};
    for (const json &line : lines) {
        for (const json &resource : line.at("resourceSpans"))
            merged["resourceSpans"].push_back(resource);
    }
    return merged;
}

QList<Expected<Conversation>> read(const json &request, const QHash<QString, QString> *traces = nullptr)
{
    ConversationContext context;
    context.fileStem = QStringLiteral("traces");
    context.ordinal = 1;
    context.traceConversations = traces;
    return readOtlpTraces(request, context);
}

// The reader's first pass over a file.
QHash<QString, QString> firstPass(const QList<json> &requests)
{
    QHash<QString, QString> traces;
    for (const json &request : requests)
        collectTraceConversations(request, traces);
    return traces;
}

QStringList ids(const QList<Expected<Conversation>> &conversations)
{
    QStringList out;
    for (const Expected<Conversation> &conversation : conversations)
        out.append(conversation ? conversation->id : QStringLiteral("error: ") + conversation.message());
    return out;
}

QString signature(const Turn &turn)
{
    switch (turn.kind) {
    case Turn::Kind::Message:
        return QStringLiteral("say:") + messageKindId(turn.messageKind);
    case Turn::Kind::ToolCall:
        return QStringLiteral("call:") + turn.tool;
    case Turn::Kind::ToolResult:
        return QStringLiteral("result:") + turn.tool;
    }
    return {};
}

QStringList signatures(const Conversation &conversation)
{
    QStringList out;
    for (const Turn &turn : conversation.turns)
        out.append(signature(turn));
    return out;
}

QList<Turn> ofKind(const Conversation &conversation, Turn::Kind kind)
{
    QList<Turn> out;
    for (const Turn &turn : conversation.turns) {
        if (turn.kind == kind)
            out.append(turn);
    }
    return out;
}

int countOf(const Conversation &conversation, Turn::Kind kind)
{
    return int(ofKind(conversation, kind).size());
}

QString show(const json &value)
{
    return QString::fromStdString(value.dump());
}

json attribute(const std::string &key, json anyValue)
{
    return {{"key", key}, {"value", std::move(anyValue)}};
}

json text(const std::string &value)
{
    return {{"stringValue", value}};
}

json request(const json &spans)
{
    return {{"resourceSpans",
             {{{"resource",
                {{"attributes", json::array({attribute("service.name", text("support-agent"))})}}},
               {"scopeSpans", {{{"scope", {{"name", "support_agent.tools"}}}, {"spans", spans}}}}}}}};
}

// A well-formed GenAI tool span: get_order, 250 ms, with arguments and no result.
json toolSpan(const char *traceId = traceA, const char *spanId = "00f067aa0ba902b7", qint64 startMs = base)
{
    return {{"traceId", traceId},
            {"spanId", spanId},
            {"name", "execute_tool get_order"},
            {"kind", 1},
            {"startTimeUnixNano", std::to_string(startMs * 1000000)},
            {"endTimeUnixNano", std::to_string((startMs + 250) * 1000000)},
            {"attributes",
             {attribute("gen_ai.operation.name", text("execute_tool")),
              attribute("gen_ai.tool.name", text("get_order")),
              attribute("gen_ai.tool.call.id", text("call_1")),
              attribute("gen_ai.tool.call.arguments", text(R"({"order_id":"W2871"})"))}},
            {"status", json::object()}};
}

// Sets (or, with a null value, removes) attributes of a span.
json withAttributes(json span, const json &changes)
{
    // A braced {attribute(…)} passed as one json is that attribute itself, not a list of one.
    for (const json &change : changes.is_object() ? json::array({changes}) : changes) {
        json &list = span["attributes"];
        for (auto it = list.begin(); it != list.end();)
            it = it->at("key") == change.at("key") ? list.erase(it) : it + 1;
        if (!change.at("value").is_null())
            list.push_back(change);
    }
    return span;
}

json parsed(const QByteArray &text)
{
    return json::parse(text.toStdString());
}

} // namespace

void TestOtlpTraces::looksLike_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("expected");
    QTest::newRow("export request") << QByteArray(R"({"resourceSpans":[]})") << true;
    QTest::newRow("resourceSpans not an array") << QByteArray(R"({"resourceSpans":{}})") << false;
    QTest::newRow("OTLP logs") << QByteArray(R"({"resourceLogs":[]})") << false;
    QTest::newRow("chat completion") << QByteArray(R"({"messages":[]})") << false;
    QTest::newRow("array") << QByteArray(R"([{"resourceSpans":[]}])") << false;
    QTest::newRow("null") << QByteArray("null") << false;
    QTest::newRow("string") << QByteArray(R"("resourceSpans")") << false;
}

void TestOtlpTraces::looksLike()
{
    QFETCH(QByteArray, value);
    QFETCH(bool, expected);
    QCOMPARE(looksLikeOtlpTraces(parsed(value)), expected);
}

void TestOtlpTraces::genAiWholeFile()
{
    const QList<json> lines = readLines(QStringLiteral("otlp-genai.jsonl"));
    QCOMPARE(lines.size(), 2);
    QVERIFY(looksLikeOtlpTraces(lines.at(0)));
    const QList<Expected<Conversation>> conversations = read(mergedRequest(lines));
    QCOMPARE(ids(conversations), (QStringList{QStringLiteral("conv-7f3a"), QStringLiteral("conv-91bc")}));

    // The refund conversation: two traces (one per customer turn), named by the root span only.
    const Conversation &refund = *conversations.at(0);
    QCOMPARE(refund.openedAt, std::optional<qint64>(base));
    QCOMPARE(refund.subject, QStringLiteral("Hi, I was charged for a blender I returned last week."));
    QVERIFY(refund.notices.isEmpty());
    QCOMPARE(signatures(refund),
             (QStringList{QStringLiteral("say:system"), QStringLiteral("say:customer"),
                          QStringLiteral("call:get_order"), QStringLiteral("result:get_order"),
                          QStringLiteral("say:reply"), QStringLiteral("say:customer"),
                          QStringLiteral("call:issue_refund"), QStringLiteral("result:issue_refund"),
                          QStringLiteral("call:issue_refund"), QStringLiteral("result:issue_refund"),
                          QStringLiteral("say:reply")}));
    QCOMPARE(refund.turns.at(5).text, QStringLiteral("Yes please, go ahead."));
    QVERIFY(refund.turns.at(10).text.startsWith(QStringLiteral("Done: $118.00")));

    const QList<Turn> calls = ofKind(refund, Turn::Kind::ToolCall);
    const QList<Turn> results = ofKind(refund, Turn::Kind::ToolResult);
    QCOMPARE(calls.at(0).callId, QStringLiteral("call_Q1xk"));
    QCOMPARE(calls.at(0).at, std::optional<qint64>(base + 1500));
    QVERIFY2(calls.at(0).arguments == json({{"order_id", "W2871"}}), qPrintable(show(calls.at(0).arguments)));
    QVERIFY(results.at(0).result.is_string()); // a JSON text result stays text
    QVERIFY(QString::fromStdString(results.at(0).result.get<std::string>())
                    .contains(QStringLiteral("\"returned\"")));
    QCOMPARE(results.at(0).durationMs, std::optional<qint64>(242));
    QVERIFY(!results.at(0).errorFlag);

    // The first refund timed out (status ERROR, error.type), the retry went through.
    const json refundArguments = {{"order_id", "W2871"}, {"item_id", "I-88"}, {"amount_cents", 11800}};
    QCOMPARE(calls.at(1).callId, QStringLiteral("call_R7a"));
    QVERIFY2(calls.at(1).arguments == refundArguments, qPrintable(show(calls.at(1).arguments)));
    QCOMPARE(results.at(1).callId, QStringLiteral("call_R7a"));
    QVERIFY(results.at(1).errorFlag);
    QCOMPARE(results.at(1).errorType, QStringLiteral("timeout"));
    QVERIFY2(results.at(1).result == json("payments.internal did not answer within 30s"),
             qPrintable(show(results.at(1).result)));
    QCOMPARE(results.at(1).durationMs, std::optional<qint64>(30000));
    QCOMPARE(results.at(1).at, std::optional<qint64>(base + 101100));
    QCOMPARE(calls.at(2).callId, QStringLiteral("call_R7b"));
    QVERIFY2(calls.at(2).arguments == refundArguments, qPrintable(show(calls.at(2).arguments)));
    QVERIFY(!results.at(2).errorFlag);
    QVERIFY(results.at(2).errorType.isEmpty());
    QCOMPARE(results.at(2).durationMs, std::optional<qint64>(880));

    // The pickup conversation: a soft failure and an escalation that never answered.
    const Conversation &pickup = *conversations.at(1);
    QCOMPARE(pickup.openedAt, std::optional<qint64>(base + 5000));
    QCOMPARE(
            pickup.subject,
            QStringLiteral(
                    "My package from seller Lumen arrived damaged (order W3310). Can you arrange a pickup?"));
    QCOMPARE(signatures(pickup),
             (QStringList{QStringLiteral("say:customer"), QStringLiteral("call:schedule_pickup"),
                          QStringLiteral("result:schedule_pickup"), QStringLiteral("call:message_seller"),
                          QStringLiteral("result:message_seller"), QStringLiteral("call:escalate_to_human"),
                          QStringLiteral("say:reply")}));
    const QList<Turn> pickupResults = ofKind(pickup, Turn::Kind::ToolResult);
    QCOMPARE(pickupResults.at(1).callId, QStringLiteral("call_M1"));
    QVERIFY2(pickupResults.at(1).result == json(R"({"success": 0})"),
             qPrintable(show(pickupResults.at(1).result)));
    QVERIFY(!pickupResults.at(1).errorFlag);
    QCOMPARE(pickupResults.at(1).durationMs, std::optional<qint64>(750));
    const Turn escalation = ofKind(pickup, Turn::Kind::ToolCall).at(2);
    QCOMPARE(escalation.callId, QStringLiteral("3c4d5e6f70819203")); // no gen_ai.tool.call.id: the span id
    QCOMPARE(escalation.at, std::optional<qint64>(base + 7400));
    QVERIFY(escalation.arguments.contains("reason"));
}

void TestOtlpTraces::genAiPerLine()
{
    // The collector's batches cut across conversations: each line gives the parts it has, under
    // the same ids, ordered by their first span in that line.
    const QList<json> lines = readLines(QStringLiteral("otlp-genai.jsonl"));
    QCOMPARE(lines.size(), 2);
    const QList<Expected<Conversation>> first = read(lines.at(0));
    const QList<Expected<Conversation>> second = read(lines.at(1));
    QCOMPARE(ids(first), (QStringList{QStringLiteral("conv-7f3a"), QStringLiteral("conv-91bc")}));
    QCOMPARE(ids(second), (QStringList{QStringLiteral("conv-91bc"), QStringLiteral("conv-7f3a")}));
    QCOMPARE(countOf(*first.at(0), Turn::Kind::ToolCall), 1);
    QCOMPARE(countOf(*first.at(1), Turn::Kind::ToolCall), 1);
    // A chat span repeats the history: a call whose span came in the first line is carried by
    // its messages here, marked so (the importer knows it again by its id).
    const auto spanCalls = [](const Conversation &conversation) {
        return std::count_if(conversation.turns.cbegin(), conversation.turns.cend(), [](const Turn &turn) {
            return turn.kind == Turn::Kind::ToolCall && !turn.carried;
        });
    };
    QCOMPARE(spanCalls(*second.at(0)), 2);
    QCOMPARE(countOf(*second.at(0), Turn::Kind::ToolCall), 3);
    QCOMPARE(spanCalls(*second.at(1)), 2);
    QCOMPARE(std::count_if(
                     second.at(1)->turns.cbegin(), second.at(1)->turns.cend(),
                     [](const Turn &turn) { return turn.kind == Turn::Kind::ToolResult && !turn.carried; }),
             2);
    QCOMPARE(second.at(1)->openedAt, std::optional<qint64>(base + 70000));
}

void TestOtlpTraces::splitBatches()
{
    // The collector sent the two refunds of trace T a batch before T's root span, the only one
    // that names the conversation; the file's first pass joins them up again.
    const QList<json> lines = readLines(QStringLiteral("otlp-split-batches.jsonl"));
    QCOMPARE(lines.size(), 2);
    const QString trace = QStringLiteral("7d1e2a0f9c3b4e58a6f1d2c3b4a59687");
    const QHash<QString, QString> traces = firstPass(lines);
    QCOMPARE(traces, (QHash<QString, QString>{{trace, QStringLiteral("conv-split")}}));
    QVERIFY(firstPass({lines.at(0)}).isEmpty());

    QCOMPARE(ids(read(lines.at(0))), QStringList{QStringLiteral("trace:") + trace});
    const QList<Expected<Conversation>> first = read(lines.at(0), &traces);
    QCOMPARE(ids(first), QStringList{QStringLiteral("conv-split")});
    QCOMPARE(signatures(*first.at(0)),
             (QStringList{QStringLiteral("call:issue_refund"), QStringLiteral("result:issue_refund"),
                          QStringLiteral("call:issue_refund"), QStringLiteral("result:issue_refund")}));
    const QList<Turn> refunds = ofKind(*first.at(0), Turn::Kind::ToolCall);
    QVERIFY(refunds.at(0).arguments == refunds.at(1).arguments);
    QCOMPARE(first.at(0)->subject, QStringLiteral("conv-split")); // not "Trace 7d1e2a0f"

    const QList<Expected<Conversation>> second = read(lines.at(1), &traces);
    QCOMPARE(ids(second), QStringList{QStringLiteral("conv-split")});
    QCOMPARE(signatures(*second.at(0)),
             (QStringList{QStringLiteral("call:get_order"), QStringLiteral("result:get_order")}));
    QCOMPARE(ids(read(mergedRequest(lines))), QStringList{QStringLiteral("conv-split")});

    // What the request itself says about a trace still comes first.
    const QHash<QString, QString> other{{trace, QStringLiteral("conv-other")}};
    QCOMPARE(ids(read(lines.at(1), &other)), QStringList{QStringLiteral("conv-split")});
}

void TestOtlpTraces::traceConversations()
{
    // The fixtures' traces map to the ids readOtlpTraces gives them, and a trace named by nothing
    // is left out.
    const QHash<QString, QString> genAi = firstPass(readLines(QStringLiteral("otlp-genai.jsonl")));
    QCOMPARE(genAi,
             (QHash<QString, QString>{
                     {QLatin1String(traceA), QStringLiteral("conv-7f3a")},
                     {QLatin1String(traceB), QStringLiteral("conv-7f3a")},
                     {QStringLiteral("5b8efff798038103d269b633813fc60c"), QStringLiteral("conv-91bc")}}));
    QFile file(QStringLiteral(VERITY_TEST_DATA "/formats/otlp-openinference.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const json openInference = json::parse(file.readAll().toStdString(), nullptr, false);
    const QHash<QString, QString> sessions = firstPass({openInference});
    QCOMPARE(sessions,
             (QHash<QString, QString>{
                     {QStringLiteral("8f14e45fceea167a5a36dedd4bea2543"), QStringLiteral("sess-a1")},
                     {QStringLiteral("c9f0f895fb98ab9159f51fd0297e236d"), QStringLiteral("sess-a1")},
                     {QStringLiteral("45c48cce2e2d7fbdea1afc51c7c6ad26"), QStringLiteral("sess-b2")}}));
    QCOMPARE(ids(read(openInference, &sessions)), ids(read(openInference)));

    // In one request a conversation id outranks a session id, as in readOtlpTraces, whichever
    // span comes first; across requests the first one recorded stays.
    const json sessionFirst = request(
            json::array({withAttributes(toolSpan(), {attribute("session.id", text("sess-1"))}),
                         withAttributes(toolSpan(traceA, "00f067aa0ba902b8"),
                                        {attribute("gen_ai.conversation.id", text("conv-1"))}),
                         withAttributes(toolSpan(traceB), {attribute("session.id", text("sess-2"))})}));
    QHash<QString, QString> traces;
    collectTraceConversations(sessionFirst, traces);
    const QHash<QString, QString> expected{{QLatin1String(traceA), QStringLiteral("conv-1")},
                                           {QLatin1String(traceB), QStringLiteral("sess-2")}};
    QCOMPARE(traces, expected);
    QCOMPARE(ids(read(sessionFirst)), (QStringList{QStringLiteral("conv-1"), QStringLiteral("sess-2")}));
    collectTraceConversations(
            request(json::array({withAttributes(toolSpan(traceB),
                                                {attribute("gen_ai.conversation.id", text("conv-2"))})})),
            traces);
    QCOMPARE(traces, expected);
}

void TestOtlpTraces::traceConversationsOfBadInput_data()
{
    QTest::addColumn<QByteArray>("value");
    const QList<QByteArray> values = {
            "null",
            "\"conv\"",
            "[{\"resourceSpans\":[]}]",
            R"({"resourceSpans":{"scopeSpans":[]}})",
            R"({"resourceSpans":[null,5,[],{"scopeSpans":5},{"scopeSpans":[null,"x",{"spans":{}}]}]})",
            R"({"resourceSpans":[{"scopeSpans":[{"spans":[null,7,[],{}]}]}]})",
    };
    for (qsizetype i = 0; i < values.size(); ++i)
        QTest::addRow("structure %d", int(i)) << values.at(i);

    // A span that would name its trace but for one bad part.
    const auto named = [](const json &traceId, const json &attributes) {
        json span = toolSpan();
        span["traceId"] = traceId;
        span["attributes"] = attributes;
        return QByteArray::fromStdString(request(json::array({span})).dump());
    };
    const json conversation = json::array({attribute("gen_ai.conversation.id", text("conv-x"))});
    const QList<json> badTraceIds = {json(nullptr),
                                     json(5),
                                     json("4bf92f35"),
                                     json("00000000000000000000000000000000"),
                                     json("4bf92f3577b34da6a3ce929d0e0e473z"),
                                     json::array({traceA})};
    for (qsizetype i = 0; i < badTraceIds.size(); ++i)
        QTest::addRow("trace id %d", int(i)) << named(badTraceIds.at(i), conversation);
    const QList<json> badValues = {json(nullptr),
                                   json("conv-x"),
                                   json(5),
                                   json::array(),
                                   {{"stringValue", 5}},
                                   {{"intValue", "7"}},
                                   {{"stringValue", ""}},
                                   {{"stringValue", "conv-x"}, {"intValue", 1}},
                                   {{"arrayValue", {{"values", json::array({text("conv-x")})}}}}};
    for (qsizetype i = 0; i < badValues.size(); ++i) {
        for (const char *key : {"gen_ai.conversation.id", "session.id"})
            QTest::addRow("%s value %d", key, int(i))
                    << named(traceA, json::array({attribute(key, badValues.at(i))}));
    }
    QTest::newRow("attributes not a list") << named(traceA, conversation.at(0));
    QTest::newRow("attribute without a key") << named(
            traceA, json::array({{{"value", text("conv-x")}}, {{"key", 5}, {"value", text("conv-x")}}}));
    // The first of a repeated key wins, as in readOtlpTraces, even when it is unreadable.
    QTest::newRow("repeated key") << named(
            traceA,
            json::array({attribute("gen_ai.conversation.id", json(5)),
                         attribute("gen_ai.conversation.id", text("conv-x"))}));
}

void TestOtlpTraces::traceConversationsOfBadInput()
{
    QFETCH(QByteArray, value);
    const json parsedValue = json::parse(value.toStdString(), nullptr, false);
    QVERIFY(!parsedValue.is_discarded());
    QHash<QString, QString> traces{{QLatin1String(traceB), QStringLiteral("conv-kept")}};
    try {
        collectTraceConversations(parsedValue, traces);
    } catch (const std::exception &error) {
        QFAIL(error.what());
    }
    QCOMPARE(traces, (QHash<QString, QString>{{QLatin1String(traceB), QStringLiteral("conv-kept")}}));
    // readOtlpTraces agrees that nothing names a conversation here.
    for (const QString &id : ids(read(parsedValue)))
        QVERIFY2(id.startsWith(QStringLiteral("trace:")) || id.startsWith(QStringLiteral("error: ")),
                 qPrintable(id));
}

void TestOtlpTraces::openInference()
{
    // A whole .json file, pretty-printed: one request.
    QFile file(QStringLiteral(VERITY_TEST_DATA "/formats/otlp-openinference.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const json value = json::parse(file.readAll().toStdString(), nullptr, false);
    QVERIFY(looksLikeOtlpTraces(value));

    const QList<Expected<Conversation>> conversations = read(value);
    QCOMPARE(ids(conversations),
             (QStringList{QStringLiteral("sess-a1"), QStringLiteral("sess-b2"),
                          QStringLiteral("trace:d3d9446802a44259755d38e6d163e820")}));

    const Conversation &order = *conversations.at(0);
    QCOMPARE(order.subject, QStringLiteral("Where is my order W5512? It was supposed to arrive yesterday."));
    QCOMPARE(order.openedAt, std::optional<qint64>(base + 200000));
    QCOMPARE(signatures(order),
             (QStringList{QStringLiteral("say:system"), QStringLiteral("say:customer"),
                          QStringLiteral("call:get_order"), QStringLiteral("result:get_order"),
                          QStringLiteral("say:reply"), QStringLiteral("call:issue_refund"),
                          QStringLiteral("result:issue_refund")}));
    const QList<Turn> calls = ofKind(order, Turn::Kind::ToolCall);
    const QList<Turn> results = ofKind(order, Turn::Kind::ToolResult);
    QCOMPARE(calls.at(0).callId, QStringLiteral("aa00000000000003")); // no tool_call.id: the span id
    QVERIFY2(calls.at(0).arguments == json({{"order_id", "W5512"}}), qPrintable(show(calls.at(0).arguments)));
    QVERIFY2(results.at(0).result
                     == json("Order W5512: shipped 2026-03-15 via UPS, tracking 1Z999AA10123456784"),
             qPrintable(show(results.at(0).result)));
    QCOMPARE(results.at(0).durationMs, std::optional<qint64>(150));
    // The second turn's trace names its session on the root only; the refund was declined.
    QVERIFY2(calls.at(1).arguments
                     == json({{"order_id", "W5512"}, {"item_id", "SHIP"}, {"amount_cents", 599}}),
             qPrintable(show(calls.at(1).arguments)));
    QVERIFY(results.at(1).errorFlag);
    QCOMPARE(results.at(1).errorType, QStringLiteral("stripe.error.CardError")); // from the exception event
    QVERIFY2(results.at(1).result == json("card_declined: the issuing bank refused the credit"),
             qPrintable(show(results.at(1).result)));
    QCOMPARE(results.at(1).durationMs, std::optional<qint64>(700));

    const Conversation &seller = *conversations.at(1);
    QCOMPARE(seller.subject, QStringLiteral("sess-b2"));
    QCOMPARE(signatures(seller),
             (QStringList{QStringLiteral("call:message_seller"), QStringLiteral("result:message_seller")}));
    QCOMPARE(seller.turns.at(0).callId, QStringLiteral("call_s9"));
    QVERIFY(seller.turns.at(1).result == json(R"({"delivered": true})"));

    const Conversation &lone = *conversations.at(2);
    QCOMPARE(lone.subject, QStringLiteral("Trace d3d94468"));
    QCOMPARE(countOf(lone, Turn::Kind::ToolCall), 1);
    QCOMPARE(lone.turns.at(1).durationMs, std::optional<qint64>(40));
}

void TestOtlpTraces::toolOutcome_data()
{
    QTest::addColumn<QByteArray>("attributes"); // set, or with a null value removed
    QTest::addColumn<QByteArray>("patch"); // a JSON merge patch on the span
    QTest::addColumn<QString>("callId");
    QTest::addColumn<QByteArray>("arguments");
    QTest::addColumn<bool>("hasResult");
    QTest::addColumn<QByteArray>("result");
    QTest::addColumn<bool>("errorFlag");
    QTest::addColumn<QString>("errorType");
    QTest::addColumn<qint64>("durationMs"); // -1: none
    QTest::addColumn<int>("notices");

    const QString call1 = QStringLiteral("call_1");
    const QByteArray order = R"({"order_id":"W2871"})";
    QTest::newRow("success, JSON text kept as text") << QByteArray(
            R"([{"key":"gen_ai.tool.call.result","value":{"stringValue":"{\"status\":\"shipped\"}"}}])")
                                                     << QByteArray("{}") << call1 << order << true
                                                     << QByteArray(R"("{\"status\":\"shipped\"}")") << false
                                                     << QString() << qint64(250) << 0;
    QTest::newRow("status ERROR with error.type, no result: the status message")
            << QByteArray(R"([{"key":"error.type","value":{"stringValue":"timeout"}}])")
            << QByteArray(R"({"status":{"code":2,"message":"payments did not answer"}})") << call1 << order
            << true << QByteArray(R"("payments did not answer")") << true << QStringLiteral("timeout")
            << qint64(250) << 0;
    QTest::newRow("status ERROR by name, no message: the error type")
            << QByteArray(R"([{"key":"error.type","value":{"stringValue":"rate_limited"}}])")
            << QByteArray(R"({"status":{"code":"STATUS_CODE_ERROR"}})") << call1 << order << true
            << QByteArray(R"("rate_limited")") << true << QStringLiteral("rate_limited") << qint64(250) << 0;
    QTest::newRow("error.type alone marks the failure")
            << QByteArray(R"([{"key":"error.type","value":{"stringValue":"tool_error"}},
                              {"key":"gen_ai.tool.call.result","value":{"stringValue":"boom"}}])")
            << QByteArray("{}") << call1 << order << true << QByteArray(R"("boom")") << true
            << QStringLiteral("tool_error") << qint64(250) << 0;
    QTest::newRow("the exception event fills in")
            << QByteArray("[]")
            << QByteArray(
                       R"({"status":{"code":2},"events":[{"name":"exception","timeUnixNano":"1773757800250000000",
                  "attributes":[{"key":"exception.type","value":{"stringValue":"ValueError"}},
                                {"key":"exception.message","value":{"stringValue":"amount exceeds the order total"}}]}]})")
            << call1 << order << true << QByteArray(R"("amount exceeds the order total")") << true
            << QStringLiteral("ValueError") << qint64(250) << 0;
    QTest::newRow("soft failure: status OK, result says otherwise")
            << QByteArray(R"([{"key":"gen_ai.tool.call.result","value":{"stringValue":"{\"success\": 0}"}}])")
            << QByteArray(R"({"status":{"code":"STATUS_CODE_OK"}})") << call1 << order << true
            << QByteArray(R"("{\"success\": 0}")") << false << QString() << qint64(250) << 0;
    QTest::newRow("structured result")
            << QByteArray(R"([{"key":"gen_ai.tool.call.result","value":{"kvlistValue":{"values":[
                  {"key":"refund_id","value":{"stringValue":"re_1"}},{"key":"amount_cents","value":{"intValue":"11800"}},
                  {"key":"ok","value":{"boolValue":true}},{"key":"tags","value":{"arrayValue":{"values":[{"doubleValue":1.5}]}}}]}}}])")
            << QByteArray("{}") << call1 << order << true
            << QByteArray(R"({"refund_id":"re_1","amount_cents":11800,"ok":true,"tags":[1.5]})") << false
            << QString() << qint64(250) << 0;
    QTest::newRow("integer result") << QByteArray(
            R"([{"key":"gen_ai.tool.call.result","value":{"intValue":42}}])")
                                    << QByteArray("{}") << call1 << order << true << QByteArray("42") << false
                                    << QString() << qint64(250) << 0;
    QTest::newRow("no result, no error: a call only")
            << QByteArray("[]") << QByteArray(R"({"status":{"code":0}})") << call1 << order << false
            << QByteArray("null") << false << QString() << qint64(-1) << 0;
    QTest::newRow("no call id: the span id")
            << QByteArray(R"([{"key":"gen_ai.tool.call.id","value":null},
                              {"key":"gen_ai.tool.call.result","value":{"stringValue":"ok"}}])")
            << QByteArray("{}") << QStringLiteral("00f067aa0ba902b7") << order << true
            << QByteArray(R"("ok")") << false << QString() << qint64(250) << 0;
    QTest::newRow("structured arguments")
            << QByteArray(R"([{"key":"gen_ai.tool.call.arguments","value":{"kvlistValue":{"values":[
                  {"key":"order_id","value":{"stringValue":"W1"}},{"key":"amount_cents","value":{"intValue":"11800"}}]}}}])")
            << QByteArray("{}") << call1 << QByteArray(R"({"order_id":"W1","amount_cents":11800})") << false
            << QByteArray("null") << false << QString() << qint64(-1) << 0;
    QTest::newRow("arguments not recorded")
            << QByteArray(R"([{"key":"gen_ai.tool.call.arguments","value":null}])") << QByteArray("{}")
            << call1 << QByteArray("{}") << false << QByteArray("null") << false << QString() << qint64(-1)
            << 1;
    QTest::newRow("blank arguments") << QByteArray(
            R"([{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"  "}}])")
                                     << QByteArray("{}") << call1 << QByteArray("{}") << false
                                     << QByteArray("null") << false << QString() << qint64(-1) << 1;
    QTest::newRow("no end time: no duration")
            << QByteArray(R"([{"key":"gen_ai.tool.call.result","value":{"stringValue":"ok"}}])")
            << QByteArray(R"({"endTimeUnixNano":null})") << call1 << order << true << QByteArray(R"("ok")")
            << false << QString() << qint64(-1) << 0;
    QTest::newRow("times as numbers")
            << QByteArray(R"([{"key":"gen_ai.tool.call.result","value":{"stringValue":"ok"}}])")
            << QByteArray(
                       R"({"startTimeUnixNano":1773757800000000000,"endTimeUnixNano":1773757801234000000})")
            << call1 << order << true << QByteArray(R"("ok")") << false << QString() << qint64(1234) << 0;
}

void TestOtlpTraces::toolOutcome()
{
    QFETCH(QByteArray, attributes);
    QFETCH(QByteArray, patch);
    QFETCH(QString, callId);
    QFETCH(QByteArray, arguments);
    QFETCH(bool, hasResult);
    QFETCH(QByteArray, result);
    QFETCH(bool, errorFlag);
    QFETCH(QString, errorType);
    QFETCH(qint64, durationMs);
    QFETCH(int, notices);

    json span = withAttributes(toolSpan(), parsed(attributes));
    span.merge_patch(parsed(patch));
    const QList<Expected<Conversation>> conversations = read(request(json::array({span})));
    QCOMPARE(conversations.size(), 1);
    QVERIFY2(conversations.at(0).ok(),
             qPrintable(conversations.at(0) ? QString() : conversations.at(0).message()));
    const Conversation &conversation = *conversations.at(0);
    QCOMPARE(conversation.id, QStringLiteral("trace:") + QLatin1String(traceA));
    QCOMPARE(conversation.subject, QStringLiteral("Trace 4bf92f35"));
    QCOMPARE(conversation.notices.size(), notices);
    QCOMPARE(conversation.turns.size(), hasResult ? 2 : 1);
    const Turn &call = conversation.turns.at(0);
    QCOMPARE(call.kind, Turn::Kind::ToolCall);
    QCOMPARE(call.tool, QStringLiteral("get_order"));
    QCOMPARE(call.callId, callId);
    QCOMPARE(call.at, std::optional<qint64>(base));
    QVERIFY2(call.arguments == parsed(arguments), qPrintable(show(call.arguments)));
    if (!hasResult)
        return;
    const Turn &answer = conversation.turns.at(1);
    QCOMPARE(answer.kind, Turn::Kind::ToolResult);
    QCOMPARE(answer.callId, callId);
    QVERIFY2(answer.result == parsed(result), qPrintable(show(answer.result)));
    QCOMPARE(answer.errorFlag, errorFlag);
    QCOMPARE(answer.errorType, errorType);
    QCOMPARE(answer.durationMs, durationMs < 0 ? std::nullopt : std::optional<qint64>(durationMs));
    QVERIFY(answer.at >= call.at);
}

void TestOtlpTraces::grouping_data()
{
    QTest::addColumn<QByteArray>("spans");
    QTest::addColumn<QStringList>("expected"); // conversation ids, each with its call count

    const auto span = [](const char *traceId, const char *spanId, qint64 startMs, const json &changes) {
        return withAttributes(toolSpan(traceId, spanId, startMs), changes);
    };
    const json plain = json::array();
    const json conversation = {attribute("gen_ai.conversation.id", text("c-1"))};
    const json session = {attribute("session.id", text("s-1"))};
    const json rootOnly = {{"traceId", traceA},
                           {"spanId", "1111111111111111"},
                           {"startTimeUnixNano", std::to_string((base - 10) * 1000000)},
                           {"attributes",
                            {attribute("gen_ai.operation.name", text("invoke_agent")),
                             attribute("gen_ai.conversation.id", text("c-root"))}}};

    QTest::newRow("by trace") << QByteArray::fromStdString(
            json::array({span(traceA, "00f067aa0ba902b7", base, plain),
                         span(traceB, "00f067aa0ba902b8", base + 5, plain)})
                    .dump())
                              << QStringList{QStringLiteral("trace:%1 1").arg(QLatin1String(traceA)),
                                             QStringLiteral("trace:%1 1").arg(QLatin1String(traceB))};
    QTest::newRow("one conversation over two traces, in time order") << QByteArray::fromStdString(
            json::array({span(traceB, "00f067aa0ba902b8", base + 5, conversation),
                         span(traceA, "00f067aa0ba902b7", base, conversation)})
                    .dump()) << QStringList{QStringLiteral("c-1 2")};
    QTest::newRow("the root span names the trace") << QByteArray::fromStdString(
            json::array({span(traceA, "00f067aa0ba902b7", base, plain), rootOnly}).dump())
                                                   << QStringList{QStringLiteral("c-root 1")};
    QTest::newRow("session when there is no conversation id")
            << QByteArray::fromStdString(json::array({span(traceA, "00f067aa0ba902b7", base, session),
                                                      span(traceB, "00f067aa0ba902b8", base + 5, session)})
                                                 .dump())
            << QStringList{QStringLiteral("s-1 2")};
    QTest::newRow("the trace's conversation id before the span's session")
            << QByteArray::fromStdString(
                       json::array({span(traceA, "00f067aa0ba902b7", base, session), rootOnly}).dump())
            << QStringList{QStringLiteral("c-root 1")};
    QTest::newRow("ordered by first span, the root's start included")
            << QByteArray::fromStdString(
                       json::array({span(traceB, "00f067aa0ba902b8", base - 5, plain),
                                    span(traceA, "00f067aa0ba902b7", base, plain), rootOnly})
                               .dump())
            << QStringList{QStringLiteral("c-root 1"),
                           QStringLiteral("trace:%1 1").arg(QLatin1String(traceB))};
}

void TestOtlpTraces::grouping()
{
    QFETCH(QByteArray, spans);
    QFETCH(QStringList, expected);
    QStringList actual;
    for (const Expected<Conversation> &conversation : read(request(parsed(spans)))) {
        QVERIFY2(conversation.ok(), qPrintable(conversation ? QString() : conversation.message()));
        actual.append(QStringLiteral("%1 %2")
                              .arg(conversation->id)
                              .arg(countOf(*conversation, Turn::Kind::ToolCall)));
    }
    QCOMPARE(actual, expected);
}

void TestOtlpTraces::messages()
{
    const auto chat = [](const char *spanId, qint64 startMs, const json &attributes) {
        json span = {{"traceId", traceA},
                     {"spanId", spanId},
                     {"startTimeUnixNano", std::to_string(startMs * 1000000)},
                     {"endTimeUnixNano", std::to_string((startMs + 100) * 1000000)},
                     {"attributes", attributes}};
        span["attributes"].push_back(attribute("gen_ai.operation.name", text("chat")));
        return span;
    };
    // Legacy plain-text prompt and completion; then OpenLLMetry's indexed form repeating the
    // history, where the customer says "yes" twice and both count.
    const json spans = json::array(
            {chat("0000000000000001", base,
                  {attribute("gen_ai.prompt", text("Can I return the kettle?\nIt leaks.")),
                   attribute("gen_ai.completion", text("Yes, within 30 days. Shall I start a return?"))}),
             chat("0000000000000002", base + 1000,
                  {attribute("gen_ai.prompt.0.role", text("user")),
                   attribute("gen_ai.prompt.0.content", text("yes")),
                   attribute("gen_ai.completion.0.role", text("assistant")),
                   attribute("gen_ai.completion.0.content", text("Do you want a label by email?"))}),
             chat("0000000000000003", base + 2000,
                  {attribute("gen_ai.prompt.0.role", text("user")),
                   attribute("gen_ai.prompt.0.content", text("yes")),
                   attribute("gen_ai.prompt.1.role", text("assistant")),
                   attribute("gen_ai.prompt.1.content", text("Do you want a label by email?")),
                   attribute("gen_ai.prompt.2.role", text("user")),
                   attribute("gen_ai.prompt.2.content", text("yes")),
                   attribute("gen_ai.completion.0.content", text("Sent."))}),
             chat("0000000000000004", base + 3000,
                  {attribute("gen_ai.input.messages", text("[{\"role\":\"user\"")),
                   attribute("gen_ai.output.messages", {{"intValue", "3"}})})});
    const QList<Expected<Conversation>> conversations = read(request(spans));
    QCOMPARE(conversations.size(), 1);
    QVERIFY(conversations.at(0).ok());
    const Conversation &conversation = *conversations.at(0);
    QStringList said;
    for (const Turn &turn : conversation.turns)
        said.append(signature(turn) + u' ' + turn.text);
    QCOMPARE(said,
             (QStringList{QStringLiteral("say:customer Can I return the kettle?\nIt leaks."),
                          QStringLiteral("say:reply Yes, within 30 days. Shall I start a return?"),
                          QStringLiteral("say:customer yes"),
                          QStringLiteral("say:reply Do you want a label by email?"),
                          QStringLiteral("say:customer yes"), QStringLiteral("say:reply Sent.")}));
    QCOMPARE(conversation.subject, QStringLiteral("Can I return the kettle?"));
    QCOMPARE(conversation.notices.size(), 1); // the last span's messages are unreadable: best effort
}

void TestOtlpTraces::otherSpansIgnored()
{
    const json http = {{"traceId", traceA},
                       {"spanId", "00f067aa0ba902b9"},
                       {"name", "GET"},
                       {"kind", "SPAN_KIND_CLIENT"},
                       {"startTimeUnixNano", "1773757800000000000"},
                       {"attributes",
                        {attribute("http.request.method", text("GET")),
                         attribute("gen_ai.conversation.id", {{"intValue", 5}}),
                         attribute("http.response.status_code", {{"intValue", "200"}})}}};
    const json broken = {{"traceId", 12},
                         {"startTimeUnixNano", "soon"},
                         {"attributes", {attribute("db.system", text("postgresql"))}}};
    QVERIFY(read(request(json::array({http, broken}))).isEmpty());
    QVERIFY(read(json{{"resourceSpans", json::array()}}).isEmpty());
    QVERIFY(read(json{{"resourceSpans", {{{"resource", json::object()}}}}}).isEmpty());
}

void TestOtlpTraces::badInput_data()
{
    QTest::addColumn<QByteArray>("request");
    // Refused: the span (or the request) cannot be read as a tool call at all. Kept: the call is
    // stored and each fragment is in the conversation's notices (or its id).
    QTest::addColumn<bool>("refused");
    QTest::addColumn<QStringList>("fragments");

    const QString at = QStringLiteral("resourceSpans[0].scopeSpans[0].spans[0] (span 00f067aa\u2026): ");
    const QString call = QStringLiteral("call \"call_1\" (get_order), ") + at;
    const auto row = [](const char *name, const json &value, bool refused, const QStringList &fragments) {
        QTest::newRow(name) << QByteArray::fromStdString(value.dump()) << refused << fragments;
    };
    const auto tool = [](const json &changes) {
        return request(json::array({withAttributes(toolSpan(), changes)}));
    };
    const auto patched = [](const json &patch) {
        json span = toolSpan();
        span.merge_patch(patch);
        return request(json::array({span}));
    };
    const auto arguments = [&tool](const json &value) {
        return tool({attribute("gen_ai.tool.call.arguments", value)});
    };

    row("not an object", json::array({1, 2}), true,
        {QStringLiteral("expected an OTLP trace export"), QStringLiteral("[1,2]")});
    row("resourceSpans not an array", json{{"resourceSpans", {{"a", 1}}}}, true,
        {QStringLiteral("resourceSpans: expected an array, got {\"a\":1}")});
    row("resourceSpans missing", json{{"resourceLogs", json::array()}}, true,
        {QStringLiteral("resourceSpans: expected an array, got nothing")});
    row("resource not an object", json{{"resourceSpans", {7}}}, true,
        {QStringLiteral("resourceSpans[0]: expected an object, got 7")});
    row("scopeSpans not an array", json{{"resourceSpans", {{{"scopeSpans", "x"}}}}}, true,
        {QStringLiteral("resourceSpans[0].scopeSpans: expected an array, got \"x\"")});
    row("spans not an array", json{{"resourceSpans", {{{"scopeSpans", {{{"spans", {{"a", 1}}}}}}}}}}, true,
        {QStringLiteral("resourceSpans[0].scopeSpans[0].spans: expected an array")});
    row("span not an object", request(json::array({nullptr})), true,
        {QStringLiteral("resourceSpans[0].scopeSpans[0].spans[0]: expected a span object, got null")});
    row("tool span without traceId", patched({{"traceId", nullptr}}), true,
        {at + QStringLiteral("traceId: expected 32 hex digits, got nothing")});
    row("tool span with an invalid traceId", patched({{"traceId", "xyz"}}), true,
        {at + QStringLiteral("traceId: expected 32 hex digits, got \"xyz\"")});
    // Without its name attribute, a span's name still names the tool ("execute_tool get_order").
    const auto nameless = [](const json &changes) {
        json span = withAttributes(toolSpan(), changes);
        span["name"] = "execute_tool";
        return request(json::array({span}));
    };
    row("tool name missing", nameless({attribute("gen_ai.tool.name", nullptr)}), true,
        {at + QStringLiteral("attribute \"gen_ai.tool.name\": expected the tool's name, got nothing"),
         QStringLiteral("conversation \"trace:4bf92f3577b34da6a3ce929d0e0e4736\"")});
    row("tool name not a string", nameless({attribute("gen_ai.tool.name", {{"intValue", "12"}})}), true,
        {at + QStringLiteral("attribute \"gen_ai.tool.name\": expected the tool's name as text, got 12")});
    row("attributes not an array", patched({{"attributes", {{"gen_ai.tool.name", "get_order"}}}}), true,
        {at + QStringLiteral("attributes: expected an array of {\"key\", \"value\"}"),
         QStringLiteral("(what the span is cannot be told)")});
    row("OpenInference tool without tool.name", request(json::array({[] {
            json span = withAttributes(toolSpan(),
                                       {attribute("gen_ai.operation.name", nullptr),
                                        attribute("openinference.span.kind", text("TOOL"))});
            span.erase("name");
            return span;
        }()})),
        true, {at + QStringLiteral("attribute \"tool.name\": expected the tool's name, got nothing")});

    // One odd value never costs the call: the rest of the span is read, and the notice says what.
    row("invalid traceId, conversation named", request(json::array({[] {
            json span = withAttributes(toolSpan(), {attribute("gen_ai.conversation.id", text("c-9"))});
            span["traceId"] = "00000000000000000000000000000000";
            return span;
        }()})),
        false, {QStringLiteral("c-9")});
    row("tool span without start", patched({{"startTimeUnixNano", nullptr}}), false,
        {call
         + QStringLiteral(
                 "startTimeUnixNano: expected the call's start time, got nothing; dated by its end")});
    row("start not a time", patched({{"startTimeUnixNano", "yesterday"}}), false,
        {call
         + QStringLiteral("startTimeUnixNano: expected nanoseconds since the epoch as a decimal string, got "
                          "\"yesterday\"")});
    row("end not a time", patched({{"endTimeUnixNano", json::array()}}), false,
        {call + QStringLiteral("endTimeUnixNano: expected nanoseconds"),
         QStringLiteral("its duration is not known")});
    row("arguments cut short", arguments(text(R"({"order_id")")), false,
        {call
                 + QStringLiteral(
                         R"(attribute "gen_ai.tool.call.arguments": expected JSON, got "{\"order_id\"")"),
         QStringLiteral("unexpected end of input"), QStringLiteral("kept as its text")});
    row("arguments an array", arguments(text("[1,2]")), false,
        {call
         + QStringLiteral(R"(attribute "gen_ai.tool.call.arguments": expected a JSON object, got [1,2])")});
    row("arguments JSON null", arguments(text("null")), false,
        {QStringLiteral("expected a JSON object, got null")});
    row("arguments nested absurdly deep",
        arguments(text("{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}")), false,
        {call
         + QStringLiteral("attribute \"gen_ai.tool.call.arguments\": nested deeper than any real arguments; "
                          "kept as its text")});
    row("arguments a number", arguments({{"intValue", "5"}}), false,
        {call + QStringLiteral("attribute \"gen_ai.tool.call.arguments\": expected a JSON object, got 5")});
    row("arguments a list", arguments({{"arrayValue", {{"values", {text("a")}}}}}), false,
        {QStringLiteral("expected a JSON object, got [\"a\"]")});
    row("attribute without a key",
        [] {
            json span = toolSpan();
            span["attributes"].push_back({{"value", text("y")}});
            return request(json::array({span}));
        }(),
        false,
        {call + QStringLiteral("attributes[4]: expected {\"key\""),
         QStringLiteral("that attribute is left out")});
    row("attribute value not an AnyValue", tool({attribute("gen_ai.tool.call.result", "ok")}), false,
        {call + QStringLiteral("attribute \"gen_ai.tool.call.result\": expected an OTLP AnyValue"),
         QStringLiteral("got \"ok\"; kept as it came")});
    row("two kinds in one AnyValue",
        tool({attribute("gen_ai.tool.call.result", {{"stringValue", "a"}, {"intValue", "1"}})}), false,
        {QStringLiteral("attribute \"gen_ai.tool.call.result\": expected an OTLP AnyValue")});
    row("string in an intValue", tool({attribute("error.type", {{"intValue", "five"}})}), false,
        {QStringLiteral("attribute \"error.type\": expected an OTLP AnyValue")});
    row("operation name not a string", tool({attribute("gen_ai.operation.name", {{"boolValue", true}})}),
        false, {});
    row("status code unknown", patched({{"status", {{"code", "STATUS_CODE_MAYBE"}}}}), false,
        {call + QStringLiteral("status.code: expected 0, 1, 2"), QStringLiteral("\"STATUS_CODE_MAYBE\""),
         QStringLiteral("read as unset")});
    row("status not an object", patched({{"status", "ERROR"}}), false,
        {call + QStringLiteral("status: expected an object")});
    row("status message not a string", patched({{"status", {{"code", 2}, {"message", 5}}}}), false,
        {call + QStringLiteral("status.message: expected a string, got 5")});
}

void TestOtlpTraces::badInput()
{
    QFETCH(QByteArray, request);
    QFETCH(bool, refused);
    QFETCH(QStringList, fragments);
    const QList<Expected<Conversation>> conversations = read(parsed(request));
    const auto error = std::find_if(conversations.cbegin(), conversations.cend(),
                                    [](const Expected<Conversation> &c) { return !c.ok(); });
    QCOMPARE(error != conversations.cend(), refused);
    // A refused span of a known conversation leaves a line in its ticket saying so; nothing else.
    QCOMPARE(conversations.size(), refused && conversations.constFirst().ok() ? 2 : 1);
    const Expected<Conversation> &kept = conversations.constFirst();
    if (refused && kept.ok()) {
        QCOMPARE(countOf(*kept, Turn::Kind::ToolCall), 0);
        QVERIFY(kept->turns.constFirst().text.startsWith(
                QStringLiteral("Verity could not read a tool span")));
    }
    const QString message = refused ? error->message() : kept->id + u'\n' + kept->notices.join(u'\n');
    if (!refused) {
        QCOMPARE(countOf(*kept, Turn::Kind::ToolCall), 1);
        // What was odd is said beside the call in the ticket too.
        QCOMPARE(countOf(*kept, Turn::Kind::Message) > 0, !kept->notices.isEmpty());
    }
    for (const QString &fragment : std::as_const(fragments))
        QVERIFY2(message.contains(fragment),
                 qPrintable(QStringLiteral("\"%1\" not in: %2").arg(fragment, message)));
}

void TestOtlpTraces::otherConversationsStillComeBack()
{
    json bad = withAttributes(toolSpan(traceB, "00f067aa0ba902b8", base + 5),
                              {attribute("gen_ai.tool.name", nullptr)});
    bad["name"] = "execute_tool"; // nothing names its tool
    json good = toolSpan(traceA, "00f067aa0ba902b7", base);
    json value = request(json::array({bad, good}));
    value["resourceSpans"][0]["scopeSpans"].push_back({{"spans", "none"}});
    const QList<Expected<Conversation>> conversations = read(value);
    QCOMPARE(conversations.size(), 4);
    QVERIFY(conversations.at(0).ok());
    QCOMPARE(conversations.at(0)->id, QStringLiteral("trace:") + QLatin1String(traceA));
    // The bad span's trace keeps a line saying a span of it was refused, and the refusal follows it.
    QVERIFY(conversations.at(1).ok());
    QCOMPARE(conversations.at(1)->id, QStringLiteral("trace:") + QLatin1String(traceB));
    QVERIFY(!conversations.at(2).ok());
    QVERIFY2(conversations.at(2).message().contains(QStringLiteral("spans[0] (span 00f067aa")),
             qPrintable(conversations.at(2).message()));
    QVERIFY(!conversations.at(3).ok()); // no conversation owns it: its own error, last
    QVERIFY2(conversations.at(3).message().startsWith(
                     QStringLiteral("resourceSpans[0].scopeSpans[1].spans: expected an array")),
             qPrintable(conversations.at(3).message()));
}

// OpenLLMetry's withTool span inside the AI SDK's execute_tool span, each exported alone: the
// outer one, coming second, is the call the inner one stored. Another trace whose model uses the
// same call ids (a mock model, a provider that numbers its calls) is not touched by that.
void TestOtlpTraces::nestedCallsAcrossRequestsStayInTheirTrace()
{
    QHash<QString, QPair<QString, QString>> within;
    QHash<QString, QString> aliases;
    const auto readLive = [&](const json &request) {
        ConversationContext context;
        context.toolSpansWithin = &within;
        context.callAliases = &aliases;
        return readOtlpTraces(request, context);
    };
    json inner = withAttributes(
            toolSpan(traceA, "00000000000000a2", base + 10),
            {attribute("gen_ai.operation.name", nullptr), attribute("gen_ai.tool.name", nullptr),
             attribute("gen_ai.tool.call.id", nullptr), attribute("traceloop.span.kind", text("tool")),
             attribute("traceloop.entity.name", text("get_order"))});
    inner["parentSpanId"] = "00000000000000a1";
    const QList<Expected<Conversation>> first = readLive(request(json::array({inner})));
    QCOMPARE(first.size(), 1);
    QCOMPARE(first.at(0)->turns.constFirst().callId, QStringLiteral("00000000000000a2"));
    const json outer = toolSpan(traceA, "00000000000000a1", base); // gen_ai.tool.call.id "call_1"
    const QList<Expected<Conversation>> second = readLive(request(json::array({outer})));
    QCOMPARE(second.size(), 1);
    const Turn again = second.at(0)->turns.constFirst();
    QCOMPARE(again.callId, QStringLiteral("00000000000000a2")); // the call the inner span stored
    QVERIFY(again.carried); // the importer leaves a call it has as it is

    // Trace B: its own call_1, and a model span carrying it by that id, are B's alone.
    json chat = {
            {"traceId", traceB},
            {"spanId", "00000000000000b1"},
            {"startTimeUnixNano", std::to_string(base * 1000000)},
            {"attributes",
             {attribute("gen_ai.operation.name", text("chat")),
              attribute(
                      "gen_ai.output.messages",
                      text(R"([{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_order","arguments":{"order_id":"W2871"}}]}])"))}}};
    const QList<Expected<Conversation>> other =
            readLive(request(json::array({chat, toolSpan(traceB, "00000000000000b2", base + 5)})));
    QCOMPARE(other.size(), 1);
    QStringList calls;
    for (const Turn &turn : other.at(0)->turns) {
        if (turn.kind == Turn::Kind::ToolCall)
            calls << turn.callId + (turn.carried ? QStringLiteral(" carried") : QString());
    }
    QCOMPARE(calls, QStringList{QStringLiteral("call_1")});
}

void TestOtlpTraces::longValuesAreCut()
{
    const std::string huge = "{\"note\": \"" + std::string(5000, 'x');
    const json value = request(json::array(
            {withAttributes(toolSpan(), {attribute("gen_ai.tool.call.arguments", text(huge))}),
             withAttributes(toolSpan(traceA, "00f067aa0ba902b8"),
                            {attribute("error.type", {{"kvlistValue", {{"values", json::array()}}}})})}));
    const QList<Expected<Conversation>> conversations = read(value);
    QCOMPARE(conversations.size(), 1);
    QVERIFY(conversations.at(0).ok());
    // Both calls are kept; what was odd about each is said briefly.
    QCOMPARE(countOf(*conversations.at(0), Turn::Kind::ToolCall), 2);
    const QStringList notices = conversations.at(0)->notices;
    QCOMPARE(notices.size(), 2); // the arguments, and error.type that is no text
    QVERIFY2(notices.at(0).contains(QStringLiteral("xxxx\u2026")), qPrintable(notices.at(0)));
    for (const QString &notice : notices) {
        QVERIFY2(!notice.contains(QString(80, u'x')), qPrintable(notice));
        QVERIFY2(notice.size() < 400, qPrintable(notice));
    }
}

void TestOtlpTraces::robustness_data()
{
    QTest::addColumn<QByteArray>("value");
    const QList<QByteArray> values = {
            "null",
            "0",
            "-1",
            "1e308",
            "true",
            "\"\"",
            "[]",
            "{}",
            "[null,1,\"x\",[],{}]",
            R"({"resourceSpans":[null,1,"x",[],{}]})",
            R"({"resourceSpans":[{"resource":5,"scopeSpans":[null,{"spans":[null,1,[],{},{"attributes":5},{"attributes":[null,1,{"key":5},{"key":"a","value":[]}]}]}]}]})",
            R"({"resourceSpans":[{"scopeSpans":{"spans":[]}}, {"instrumentationLibrarySpans":[{"spans":[{"traceId":[]}]}]}]})",
            R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":{},"startTimeUnixNano":-5,"endTimeUnixNano":"99999999999999999999999","status":[],"events":5,
                "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"arrayValue":{"values":[{"arrayValue":{}}]}}}]}]}]}]})",
            R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","startTimeUnixNano":"1","events":[null,{"name":"exception","attributes":[null,{"key":1}]}],
                "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.input.messages","value":{"stringValue":"[null,5,{\"role\":7,\"parts\":{}},{\"parts\":[null,{\"type\":\"text\",\"content\":[]}]}]"}},
                              {"key":"gen_ai.output.messages","value":{"arrayValue":{"values":[{"kvlistValue":{"values":[{"key":"parts","value":{"intValue":"x"}}]}}]}}},
                              {"key":"gen_ai.prompt.99999999999999999999.role","value":{"stringValue":"user"}},{"key":"gen_ai.prompt.","value":{}}]}]}]}]})",
    };
    for (qsizetype i = 0; i < values.size(); ++i)
        QTest::addRow("garbage %d", int(i)) << values.at(i);

    // Nesting: deep arrays around everything, and a deep kvlistValue in an attribute.
    QByteArray deep = QByteArray(5000, '[') + QByteArray(5000, ']');
    QTest::newRow("deep array") << deep;
    std::string any = R"({"stringValue":"x"})";
    for (int i = 0; i < 500; ++i)
        any = R"({"kvlistValue":{"values":[{"key":"k","value":)" + any + "}]}}";
    QTest::newRow("deep AnyValue") << QByteArray::fromStdString(
            request(json::array({withAttributes(toolSpan(),
                                                {attribute("gen_ai.tool.call.result", json::parse(any))})}))
                    .dump());
}

void TestOtlpTraces::robustness()
{
    QFETCH(QByteArray, value);
    const json parsedValue = json::parse(value.toStdString(), nullptr, false);
    QVERIFY(!parsedValue.is_discarded());
    try {
        (void)looksLikeOtlpTraces(parsedValue);
        QHash<QString, QString> traces;
        collectTraceConversations(parsedValue, traces);
        for (const Expected<Conversation> &conversation : read(parsedValue, &traces))
            QVERIFY(conversation.ok() || !conversation.message().isEmpty());
    } catch (const std::exception &error) {
        QFAIL(error.what());
    }
}

void TestOtlpTraces::everyAttributeOfAWrongType()
{
    const QList<json> wrong = {json(nullptr),
                               json("plain"),
                               json(5),
                               json::array(),
                               json::object(),
                               {{"intValue", "five"}},
                               {{"intValue", 1.5}},
                               {{"stringValue", 5}},
                               {{"boolValue", "yes"}},
                               {{"doubleValue", "NaN"}},
                               {{"bytesValue", json::array()}},
                               {{"arrayValue", {{"values", 5}}}},
                               {{"kvlistValue", {{"values", {{{"key", 5}}}}}}},
                               {{"kvlistValue", json::array()}},
                               {{"stringValue", "x"}, {"intValue", 1}},
                               {{"unknownValue", 1}},
                               {{"intValue", "99999999999999999999"}},
                               {{"stringValue", "{\"a\":"}},
                               {{"intValue", 5}},
                               {{"boolValue", true}},
                               {{"arrayValue", {{"values", {{{"intValue", 1}}}}}}}};
    const char *keys[] = {"gen_ai.operation.name",
                          "openinference.span.kind",
                          "gen_ai.conversation.id",
                          "session.id",
                          "gen_ai.tool.name",
                          "gen_ai.tool.call.id",
                          "gen_ai.tool.call.arguments",
                          "gen_ai.tool.call.result",
                          "error.type",
                          "tool.name",
                          "tool_call.id",
                          "input.value",
                          "output.value",
                          "gen_ai.input.messages",
                          "gen_ai.output.messages",
                          "gen_ai.prompt",
                          "gen_ai.completion",
                          "gen_ai.prompt.0.role",
                          "gen_ai.prompt.0.content",
                          "llm.input_messages.0.message.role",
                          "llm.output_messages.0.message.content"};
    const char *roles[][2] = {{"gen_ai.operation.name", "execute_tool"},
                              {"gen_ai.operation.name", "chat"},
                              {"openinference.span.kind", "TOOL"},
                              {"openinference.span.kind", "LLM"}};
    for (const auto &role : roles) {
        for (const json &value : wrong) {
            // Every attribute at once of this wrong kind, then the span's role restored so the
            // reader goes on past it.
            json changes = json::array();
            for (const char *key : keys)
                changes.push_back(attribute(key, value));
            json span = withAttributes(toolSpan(), changes);
            span = withAttributes(span, {attribute(role[0], text(role[1]))});
            for (const json &variant : {span, withAttributes(span, changes)}) {
                try {
                    QHash<QString, QString> traces;
                    collectTraceConversations(request(json::array({variant})), traces);
                    for (const Expected<Conversation> &conversation : read(request(json::array({variant}))))
                        QVERIFY(conversation.ok() || !conversation.message().isEmpty());
                } catch (const std::exception &error) {
                    QFAIL(qPrintable(QStringLiteral("%1 with %2: %3")
                                             .arg(QLatin1String(role[1]), show(value),
                                                  QString::fromUtf8(error.what()))));
                }
            }
        }
    }
}

void TestOtlpTraces::everyNodeReplaced()
{
    // Each value in the fixtures replaced in turn by garbage: whatever comes back, nothing throws.
    QList<json> lines = readLines(QStringLiteral("otlp-genai.jsonl"));
    QCOMPARE(lines.size(), 2);
    json root = lines.at(1);
    const QList<json> garbage = {json(nullptr), json(-7), json("\xE2\x80\xA6"), json::array({json::object()}),
                                 json::object({{"intValue", "x"}})};
    int reads = 0;
    std::function<void(json &)> visit = [&](json &node) {
        for (const json &replacement : garbage) {
            json saved = std::move(node);
            node = replacement;
            try {
                QHash<QString, QString> traces;
                collectTraceConversations(root, traces);
                (void)read(root, &traces);
            } catch (const std::exception &error) {
                QFAIL(error.what());
            }
            ++reads;
            node = std::move(saved);
        }
        if (node.is_structured()) {
            for (json &child : node)
                visit(child);
        }
    };
    visit(root);
    QVERIFY(reads > 1000);
}

void TestOtlpTraces::toolHintsOfEachConvention_data()
{
    QTest::addColumn<QString>(
            "spans"); // JSON: [span with the hint, or {} for none, changes to the tool span]
    QTest::addColumn<QString>("source"); // what get_order's hint names as its source; empty: no hint
    QTest::addColumn<QString>("description");
    QTest::addColumn<QString>("readOnly");
    QTest::addColumn<QString>("parameters");

    const auto model = [](const json &attributes, const char *name = "chat mock-model") {
        json span = toolSpan(traceA, "b7ad6b7169203331", base - 100);
        span["name"] = name;
        // A braced list of one attribute is that attribute itself, not a list of one.
        span["attributes"] = attributes.is_object() ? json::array({attributes}) : attributes;
        return span;
    };
    const auto row = [](const char *name, const json &other, const json &changes, const char *source,
                        const char *description, const char *readOnly, const char *parameters) {
        QTest::newRow(name) << show(json::array({other, changes})) << source << description << readOnly
                            << parameters;
    };
    const std::string definition =
            R"([{"type":"function","name":"get_order","description":"Look up an order.",)"
            R"("parameters":{"properties":{"order_id":{"type":"string"}}}}])";
    row("gen_ai.tool.definitions, as JSON text",
        model({attribute("gen_ai.operation.name", text("chat")),
               attribute("gen_ai.tool.definitions", text(definition))}),
        json::array(), "gen_ai.tool.definitions", "Look up an order.", "", "order_id:string");
    row("gen_ai.tool.definitions, structured",
        model({attribute("gen_ai.operation.name", text("chat")),
               attribute("gen_ai.tool.definitions",
                         {{"arrayValue",
                           {{"values",
                             {{{"kvlistValue",
                                {{"values",
                                  {attribute("name", text("get_order")),
                                   attribute("description", text("Look up an order."))}}}}}}}}}})}),
        json::array(), "gen_ai.tool.definitions", "Look up an order.", "", "");
    row("ai.prompt.tools",
        model({attribute("ai.operationId", text("ai.generateText.doGenerate")),
               attribute("ai.prompt.tools",
                         {{"arrayValue",
                           {{"values",
                             {text(R"({"type":"function","name":"get_order","inputSchema":)"
                                   R"({"properties":{"order_id":{"type":"string"}}}})")}}}}})}),
        json::array(), "ai.prompt.tools", "", "", "order_id:string");
    row("llm.tools.N.tool.json_schema",
        model({attribute("openinference.span.kind", text("LLM")),
               attribute(
                       "llm.tools.0.tool.json_schema",
                       text(R"({"type":"function","function":{"name":"get_order","description":"Look up an order."}})"))}),
        json::array(), "llm.tools", "Look up an order.", "", "");
    row("llm.request.functions.N",
        model({attribute("llm.request.functions.0.name", text("get_order")),
               attribute("llm.request.functions.0.description", text("Look up an order.")),
               attribute("llm.request.functions.0.parameters",
                         text(R"({"properties":{"order_id":{"type":"string"}}})"))}),
        json::array(), "llm.request.functions", "Look up an order.", "", "order_id:string");
    row("gen_ai.tool.description on the tool span", json::object(),
        attribute("gen_ai.tool.description", text("Look up an order.")), "gen_ai.tool.description",
        "Look up an order.", "", "");
    row("OpenInference tool.description and tool.parameters", json::object(),
        json::array({attribute("tool.name", text("get_order")),
                     attribute("tool.description", text("Look up an order.")),
                     attribute("tool.parameters", text(R"({"properties":{"order_id":{"type":"string"}}})"))}),
        "tool.description", "Look up an order.", "", "order_id:string");
    row("an MCP tools/list answer with annotations",
        model({attribute("traceloop.entity.output",
                         text(R"({"tools":[{"name":"get_order","annotations":{"readOnlyHint":true}}]})"))},
              "tools/list.mcp"),
        json::array(), "tools/list", "", "true", "");
    row("a tools/list answer on a span of another method is no hint",
        model({attribute("traceloop.entity.output",
                         text(R"({"tools":[{"name":"get_order","annotations":{"readOnlyHint":true}}]})"))},
              "tools/call.mcp"),
        json::array(), "", "", "", "");
    row("definitions that are no JSON are no hint",
        model({attribute("gen_ai.operation.name", text("chat")),
               attribute("gen_ai.tool.definitions", text("[{"))}),
        json::array(), "", "", "", "");
    row("definitions of other tools only",
        model({attribute("gen_ai.tool.definitions",
                         text(R"([{"name":"issue_refund","description":"Refund."}])"))}),
        json::array(), "", "", "", "");
}

void TestOtlpTraces::toolHintsOfEachConvention()
{
    QFETCH(QString, spans);
    QFETCH(QString, source);
    QFETCH(QString, description);
    QFETCH(QString, readOnly);
    QFETCH(QString, parameters);

    const json given = json::parse(spans.toStdString());
    json list = json::array({withAttributes(toolSpan(), given.at(1))});
    if (!given.at(0).empty())
        list.push_back(given.at(0));
    const QList<Expected<Conversation>> conversations = read(request(list));
    for (const Expected<Conversation> &conversation : conversations)
        QVERIFY2(bool(conversation), qPrintable(conversation ? QString() : conversation.message()));
    QCOMPARE(conversations.size(), 1);
    const Conversation &conversation = *conversations.first();
    QCOMPARE(countOf(conversation, Turn::Kind::ToolCall), 1); // the hint never stands in the call's way
    const auto hint = conversation.toolHints.constFind(QStringLiteral("get_order"));
    if (source.isEmpty()) {
        QVERIFY(hint == conversation.toolHints.cend());
        return;
    }
    QVERIFY(hint != conversation.toolHints.cend());
    QCOMPARE(hint->source, source);
    QCOMPARE(hint->description, description);
    QCOMPARE(hint->readOnly ? (*hint->readOnly ? QStringLiteral("true") : QStringLiteral("false"))
                            : QString(),
             readOnly);
    QStringList seen;
    for (const auto &[name, type] : hint->parameters)
        seen.append(name + u':' + type);
    QCOMPARE(seen.join(u','), parameters);
}

// Two agents' conversations in one request, and a third request later, each defining a tool of
// the same name otherwise: each conversation is judged by its own definition, and one that gives
// none by the newest definition remembered; a definition that cannot be read is said.
void TestOtlpTraces::aConversationsOwnDefinitionsComeFirst()
{
    const auto agent = [](const char *traceId, const char *conversation, const std::string &definitions,
                          const char *toolSpanId, const char *modelSpanId) {
        json model = toolSpan(traceId, modelSpanId, base - 100);
        model["name"] = "chat mock-model";
        model["attributes"] = json::array({attribute("gen_ai.operation.name", text("chat")),
                                           attribute("gen_ai.conversation.id", text(conversation)),
                                           attribute("gen_ai.tool.definitions", text(definitions))});
        return json::array({withAttributes(toolSpan(traceId, toolSpanId),
                                           attribute("gen_ai.conversation.id", text(conversation))),
                            model});
    };
    json spans = agent(traceA, "agent-1", R"([{"name":"get_order","description":"Look up an order."}])",
                       "00f067aa0ba90201", "00f067aa0ba90202");
    for (json &span : agent("4bf92f3577b34da6a3ce929d0e0e4737", "agent-2",
                            R"([{"name":"get_order","description":"Cancel the order and refund it."}])",
                            "00f067aa0ba90203", "00f067aa0ba90204"))
        spans.push_back(span);
    QHash<QString, ToolHint> memory;
    ConversationContext context;
    context.toolHints = &memory;
    QList<Expected<Conversation>> first = readOtlpTraces(request(spans), context);
    QCOMPARE(first.size(), 2);
    QHash<QString, QString> descriptions;
    for (const Expected<Conversation> &conversation : first) {
        QVERIFY(bool(conversation));
        descriptions.insert(conversation->id,
                            conversation->toolHints.value(QStringLiteral("get_order")).description);
    }
    QCOMPARE(descriptions.value(QStringLiteral("agent-1")), QStringLiteral("Look up an order."));
    QCOMPARE(descriptions.value(QStringLiteral("agent-2")),
             QStringLiteral("Cancel the order and refund it."));

    // Later, a third agent defines it again, then a conversation with no definition of its own.
    const json later = agent("5bf92f3577b34da6a3ce929d0e0e4737", "agent-3",
                             R"([{"name":"get_order","description":"Fetch an order."}])", "00f067aa0ba90205",
                             "00f067aa0ba90206");
    QCOMPARE(readOtlpTraces(request(later), context).size(), 1);
    const QList<Expected<Conversation>> bare = readOtlpTraces(
            request(json::array(
                    {withAttributes(toolSpan("6bf92f3577b34da6a3ce929d0e0e4737", "00f067aa0ba90207"),
                                    attribute("gen_ai.conversation.id", text("agent-4")))})),
            context);
    QCOMPARE(bare.size(), 1);
    QCOMPARE(bare.first()->toolHints.value(QStringLiteral("get_order")).description,
             QStringLiteral("Fetch an order."));

    // Definitions that are no list: the conversation is read, and says so.
    const QList<Expected<Conversation>> broken =
            readOtlpTraces(request(agent("7bf92f3577b34da6a3ce929d0e0e4737", "agent-5", "{\"name\":7}",
                                         "00f067aa0ba90208", "00f067aa0ba90209")),
                           context);
    QCOMPARE(broken.size(), 1);
    QVERIFY2(broken.first()->notices.join(u'\n').contains(QStringLiteral(
                     "attribute \"gen_ai.tool.definitions\": expected a list of tool definitions")),
             qPrintable(broken.first()->notices.join(u'\n')));
}

QTEST_GUILESS_MAIN(TestOtlpTraces)
#include "tst_otlptraces.moc"

// The chat-transcript adapters (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages):
// hand-made support-agent fixtures read turn by turn, content-based detection, rejections that
// name the JSON path, and arbitrary JSON that must never throw or crash.

#include "domain/timestamp.h"
#include "import/formats/anthropicmessages.h"
#include "import/formats/openaichat.h"
#include "import/formats/openairesponses.h"
#include "support/strings.h"

#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

using nlohmann::json;
using namespace verity;

namespace {

enum Format { Chat, Responses, Anthropic };
const int formats[] = {Chat, Responses, Anthropic};

Expected<Conversation> readAs(int format, const json &value, const ConversationContext &context)
{
    if (format == Chat)
        return readOpenAiChat(value, context);
    if (format == Responses)
        return readOpenAiResponses(value, context);
    return readAnthropicMessages(value, context);
}

bool looksLike(int format, const json &value)
{
    if (format == Chat)
        return looksLikeOpenAiChat(value);
    if (format == Responses)
        return looksLikeOpenAiResponses(value);
    return looksLikeAnthropicMessages(value);
}

// JSONL: one conversation a line; JSON: an array of conversations or one conversation.
QList<json> loadFixture(const QString &name)
{
    QFile file(QStringLiteral(VERITY_TEST_DATA "/formats/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot open fixture %s", qPrintable(name));
    const QByteArray bytes = file.readAll();
    QList<json> conversations;
    if (name.endsWith(QLatin1String(".jsonl"))) {
        for (const QByteArray &line : bytes.split('\n')) {
            if (!line.trimmed().isEmpty())
                conversations.append(json::parse(line.toStdString()));
        }
        return conversations;
    }
    const json root = json::parse(bytes.toStdString());
    if (!root.is_array())
        return {root};
    for (const json &conversation : root)
        conversations.append(conversation);
    return conversations;
}

ConversationContext contextFor(const QString &file, qint64 ordinal)
{
    return ConversationContext{QFileInfo(file).completeBaseName(), ordinal, QString()};
}

Conversation readFixture(const QString &file, int format, int index)
{
    const QList<json> conversations = loadFixture(file);
    Expected<Conversation> read = readAs(format, conversations.value(index), contextFor(file, index + 1));
    if (!read)
        qFatal("%s #%d: %s", qPrintable(file), index + 1, qPrintable(read.message()));
    return *read;
}

// Every turn in one line: "customer", "call get_order call_1", "result call_1 !" (an error)…
QStringList sequence(const Conversation &conversation)
{
    static const char *const kinds[] = {"customer", "agent", "system", "reply"};
    QStringList lines;
    for (const Turn &turn : conversation.turns) {
        if (turn.kind == Turn::Kind::Message)
            lines.append(QString::fromLatin1(kinds[int(turn.messageKind)]));
        else if (turn.kind == Turn::Kind::ToolCall)
            lines.append(QStringLiteral("call %1 %2").arg(turn.tool, turn.callId));
        else
            lines.append(QStringLiteral("result %1%2")
                                 .arg(turn.callId, turn.errorFlag ? QStringLiteral(" !") : QString()));
    }
    return lines;
}

const Turn &turnAt(const Conversation &conversation, Turn::Kind kind, const QString &callId)
{
    for (const Turn &turn : conversation.turns) {
        if (turn.kind == kind && turn.callId == callId)
            return turn;
    }
    qFatal("no turn for %s", qPrintable(callId));
}

qint64 ms(const char *isoTime)
{
    return *parseLooseTimestamp(QString::fromLatin1(isoTime));
}

} // namespace

// QCOMPARE cannot take nlohmann::json (its conversions confuse QTest's overloads).
#define COMPARE_JSON(actual, expected)                                                                       \
    QVERIFY2((actual) == (expected),                                                                         \
             qPrintable(QString::fromStdString((actual).dump()) + QStringLiteral(" != ")                     \
                        + QString::fromStdString((expected).dump())))

class TestChatFormats : public QObject
{
    Q_OBJECT

private slots:
    void fixtureFiles_data();
    void fixtureFiles();
    void conversations_data();
    void conversations();
    void chatDetails();
    void responsesDetails();
    void anthropicDetails();
    void arguments_data();
    void arguments();
    void subject_data();
    void subject();
    void detection_data();
    void detection();
    void badInput_data();
    void badInput();
    void robustness();
};

void TestChatFormats::fixtureFiles_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("format");
    QTest::addColumn<int>("count");
    QTest::newRow("chat jsonl") << QStringLiteral("openai-chat-support.jsonl") << int(Chat) << 3;
    QTest::newRow("chat completion") << QStringLiteral("openai-chat-completion.json") << int(Chat) << 1;
    QTest::newRow("responses json") << QStringLiteral("openai-responses-support.json") << int(Responses) << 2;
    QTest::newRow("responses items") << QStringLiteral("openai-responses-items.jsonl") << int(Responses) << 1;
    QTest::newRow("anthropic jsonl") << QStringLiteral("anthropic-support.jsonl") << int(Anthropic) << 3;
}

// Each conversation reads, and each format's predicate claims its own and no other's.
void TestChatFormats::fixtureFiles()
{
    QFETCH(QString, file);
    QFETCH(int, format);
    QFETCH(int, count);
    const QList<json> conversations = loadFixture(file);
    QCOMPARE(conversations.size(), count);
    for (qsizetype i = 0; i < conversations.size(); ++i) {
        const Expected<Conversation> read = readAs(format, conversations[i], contextFor(file, i + 1));
        QVERIFY2(read.ok(), qPrintable(read.ok() ? QString() : read.message()));
        for (const int other : formats)
            QVERIFY2(looksLike(other, conversations[i]) == (other == format),
                     qPrintable(QStringLiteral("#%1, predicate %2").arg(i + 1).arg(other)));
    }
}

void TestChatFormats::conversations_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("format");
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("subject");
    QTest::addColumn<QStringList>("turns");
    QTest::addColumn<int>("notices");
    const auto row = [](const char *name, const char *file, int format, int index, const char *id,
                        const char *subject, std::initializer_list<const char *> turns, int notices) {
        QTest::newRow(name) << QString::fromUtf8(file) << format << index << QString::fromUtf8(id)
                            << QString::fromUtf8(subject) << test::strings(turns) << notices;
    };
    const char *const chat = "openai-chat-support.jsonl";
    row("chat refund", chat, Chat, 0, "chat-7f3a",
        "Hi, my order SU-48213 arrived with a cracked mug. Can I get a refund for it?",
        {"system", "customer", "call get_order call_Qm1", "result call_Qm1", "reply",
         "call issue_refund call_Qm2", "result call_Qm2", "reply", "customer"},
        0);
    row("chat legacy function_call", chat, Chat, 1, "openai-chat-support#2",
        "The blender I ordered (SU-50007) doesn't turn on.",
        {"customer", "reply", "call schedule_pickup function_call@1", "result function_call@1", "reply"}, 0);
    row("chat parallel calls", chat, Chat, 2, "T-20931",
        "I ordered a walnut bookshelf three weeks ago and the seller keeps telling me it shipped but the "
        "tracking number they\u2026",
        {"system", "customer", "call message_seller call_Zx1", "call escalate_to_human call_Zx2",
         "result call_Zx1", "result call_Zx2", "reply"},
        1);
    row("chat completion", "openai-chat-completion.json", Chat, 0, "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "Where is my order SU-49990?", {"system", "customer", "call get_order call_Lk9"}, 0);

    const char *const responses = "openai-responses-support.json";
    row("responses exchange", responses, Responses, 0, "conv_68c1f2a9e4",
        "I was charged twice for order SU-47001. Please fix it.",
        {"system", "customer", "call get_order call_R1", "result call_R1", "agent",
         "call issue_refund call_R2", "result call_R2", "reply"},
        0);
    row("responses object", responses, Responses, 1, "resp_67ccd3a9da748190baa7f1570fe91ac6", "",
        {"call escalate_to_human call_R3"}, 1);
    row("responses items", "openai-responses-items.jsonl", Responses, 0, "openai-responses-items#1",
        "Can you pick up the broken lamp from order SU-52210?",
        {"system", "customer", "call schedule_pickup call_P1", "result call_P1", "reply"}, 1);

    const char *const anthropic = "anthropic-support.jsonl";
    row("anthropic refund error", anthropic, Anthropic, 0, "conv-anth-0042",
        "My order SU-46110 is missing the second pillow. Refund it please.",
        {"system", "customer", "reply", "call get_order toolu_01A", "result toolu_01A", "agent",
         "call issue_refund toolu_01B", "result toolu_01B !", "reply", "call escalate_to_human toolu_01C",
         "result toolu_01C", "customer", "reply"},
        0);
    row("anthropic image first", anthropic, Anthropic, 1, "48213",
        "The seller sent the wrong colour (order SU-48800). What now?",
        {"customer", "call message_seller toolu_02A", "result toolu_02A", "reply"}, 0);
    row("anthropic bare array", anthropic, Anthropic, 2, "anthropic-support#3",
        "Please schedule a pickup for order SU-53001.",
        {"customer", "call schedule_pickup toolu_03A", "result toolu_03A", "reply"}, 0);
}

void TestChatFormats::conversations()
{
    QFETCH(QString, file);
    QFETCH(int, format);
    QFETCH(int, index);
    QFETCH(QString, id);
    QFETCH(QString, subject);
    QFETCH(QStringList, turns);
    QFETCH(int, notices);

    const Conversation conversation = readFixture(file, format, index);
    QCOMPARE(conversation.id, id);
    QCOMPARE(conversation.subject, subject);
    QCOMPARE(sequence(conversation), turns);
    QVERIFY2(conversation.notices.size() == notices, qPrintable(conversation.notices.join(u'\n')));
    for (const Turn &turn : conversation.turns) {
        if (turn.kind == Turn::Kind::ToolCall)
            QVERIFY(turn.arguments.is_object());
    }
}

void TestChatFormats::chatDetails()
{
    const QString file = QStringLiteral("openai-chat-support.jsonl");
    const Conversation refund = readFixture(file, Chat, 0);
    QCOMPARE(refund.openedAt, std::optional<qint64>(ms("2025-03-17T14:32:07Z")));
    COMPARE_JSON(turnAt(refund, Turn::Kind::ToolCall, QStringLiteral("call_Qm2")).arguments,
                 (json{{"order_id", "SU-48213"}, {"item_id", "MUG-02"}, {"amount_cents", 1899}}));
    // A tool's JSON-looking answer stays the string it was.
    const Turn &order = turnAt(refund, Turn::Kind::ToolResult, QStringLiteral("call_Qm1"));
    QVERIFY(order.result.is_string());
    QVERIFY(order.result.get<std::string>().starts_with("{\"order_id\": \"SU-48213\""));
    QVERIFY(!order.errorFlag);
    QVERIFY(order.tool.isEmpty());

    const Conversation legacy = readFixture(file, Chat, 1);
    QCOMPARE(legacy.turns[0].text,
             QStringLiteral("The blender I ordered (SU-50007) doesn't turn on.\nPhoto attached.\n[image]"));
    const Turn &pickup = turnAt(legacy, Turn::Kind::ToolResult, QStringLiteral("function_call@1"));
    QCOMPARE(pickup.tool, QStringLiteral("schedule_pickup"));
    COMPARE_JSON(turnAt(legacy, Turn::Kind::ToolCall, QStringLiteral("function_call@1")).arguments,
                 (json{{"order_id", "SU-50007"}, {"date", "2025-03-20"}}));
    QVERIFY(!legacy.openedAt);

    const Conversation parallel = readFixture(file, Chat, 2);
    QCOMPARE(parallel.orderId, QStringLiteral("SU-51120"));
    QCOMPARE(parallel.openedAt, std::optional<qint64>(ms("2025-03-18T09:05:00Z")));
    QCOMPARE(parallel.turns[2].at, std::optional<qint64>(ms("2025-03-18T09:06:00Z")));
    COMPARE_JSON(turnAt(parallel, Turn::Kind::ToolCall, QStringLiteral("call_Zx2")).arguments,
                 json::object());
    const Turn &seller = turnAt(parallel, Turn::Kind::ToolResult, QStringLiteral("call_Zx1"));
    COMPARE_JSON(seller.result, json("Message sent.\nSeller has not replied in 72h."));
    QCOMPARE(seller.tool, QStringLiteral("message_seller"));
    QVERIFY(parallel.notices.value(0).contains(QLatin1String("messages[5]")));

    const Conversation completion = readFixture(QStringLiteral("openai-chat-completion.json"), Chat, 0);
    QCOMPARE(completion.openedAt, std::optional<qint64>(ms("2025-03-19T16:40:12Z")));
    COMPARE_JSON(completion.turns.last().arguments, (json{{"order_id", "SU-49990"}}));
}

void TestChatFormats::responsesDetails()
{
    const QString file = QStringLiteral("openai-responses-support.json");
    const Conversation exchange = readFixture(file, Responses, 0);
    QCOMPARE(exchange.openedAt, std::optional<qint64>(ms("2025-03-18T09:05:00Z")));
    COMPARE_JSON(turnAt(exchange, Turn::Kind::ToolCall, QStringLiteral("call_R2")).arguments,
                 (json{{"order_id", "SU-47001"}, {"item_id", "CH-2"}, {"amount_cents", 4250}}));
    COMPARE_JSON(turnAt(exchange, Turn::Kind::ToolResult, QStringLiteral("call_R2")).result,
                 json("Refund RF-6012 created."));
    QCOMPARE(exchange.turns[4].text, QStringLiteral("Two identical charges; refund the duplicate."));
    QVERIFY(turnAt(exchange, Turn::Kind::ToolResult, QStringLiteral("call_R1")).result.is_string());

    const Conversation object = readFixture(file, Responses, 1);
    QVERIFY(object.notices.value(0).contains(QLatin1String("resp_67ccd2bed1ec8190b14f964abc054267")));
    COMPARE_JSON(object.turns[0].arguments, (json{{"reason", "customer asked for a manager"}}));

    const Conversation items = readFixture(QStringLiteral("openai-responses-items.jsonl"), Responses, 0);
    QCOMPARE(items.turns[1].text,
             QStringLiteral("Can you pick up the broken lamp from order SU-52210?\n[image]"));
    COMPARE_JSON(turnAt(items, Turn::Kind::ToolResult, QStringLiteral("call_P1")).result,
                 json("{\"error\": \"no courier available on 2025-03-21\"}"));
    QVERIFY(items.notices.value(0).contains(QLatin1String("web_search_call")));
    QVERIFY(!items.openedAt);
}

void TestChatFormats::anthropicDetails()
{
    const QString file = QStringLiteral("anthropic-support.jsonl");
    const Conversation refund = readFixture(file, Anthropic, 0);
    QVERIFY(refund.turns[0].text.startsWith(QLatin1String("You are the support agent")));
    COMPARE_JSON(turnAt(refund, Turn::Kind::ToolCall, QStringLiteral("toolu_01B")).arguments,
                 (json{{"order_id", "SU-46110"}, {"item_id", "PIL-7"}, {"amount_cents", 2400}}));
    const Turn &failed = turnAt(refund, Turn::Kind::ToolResult, QStringLiteral("toolu_01B"));
    QVERIFY(failed.errorFlag);
    COMPARE_JSON(failed.result, json("Refund service timeout after 30s"));
    QVERIFY(!turnAt(refund, Turn::Kind::ToolResult, QStringLiteral("toolu_01A")).errorFlag);
    QCOMPARE(refund.turns[5].text,
             QStringLiteral("One of two pillows missing: refund 2400 cents for PIL-7."));
    QVERIFY(!refund.openedAt);

    // A result with an image stays the structure it is.
    const Conversation image = readFixture(file, Anthropic, 1);
    const json &photo = turnAt(image, Turn::Kind::ToolResult, QStringLiteral("toolu_02A")).result;
    QVERIFY(photo.is_array());
    QCOMPARE(photo.size(), std::size_t(2));
    QCOMPARE(image.turns[0].text,
             QStringLiteral("[image]\nThe seller sent the wrong colour (order SU-48800). What now?"));

    const Conversation timed = readFixture(file, Anthropic, 2);
    QCOMPARE(timed.openedAt, std::optional<qint64>(ms("2025-03-19T16:40:12Z")));
    QCOMPARE(timed.turns[2].at, std::optional<qint64>(ms("2025-03-19T16:40:16Z")));
}

void TestChatFormats::arguments_data()
{
    QTest::addColumn<QByteArray>("arguments");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("object string") << QByteArray(R"("{\"order_id\":\"SU-1\",\"amount_cents\":500}")")
                                   << QByteArray(R"({"order_id":"SU-1","amount_cents":500})");
    QTest::newRow("empty string") << QByteArray(R"("")") << QByteArray("{}");
    QTest::newRow("blank string") << QByteArray(R"("  \n")") << QByteArray("{}");
    QTest::newRow("null") << QByteArray("null") << QByteArray("{}");
    QTest::newRow("decoded object") << QByteArray(R"({"order_id":"SU-2"})")
                                    << QByteArray(R"({"order_id":"SU-2"})");
    QTest::newRow("unicode") << QByteArray(R"("{\"message\":\"arriv\u00e9e cass\u00e9e\"}")")
                             << QByteArray(R"({"message":"arrivée cassée"})");
}

void TestChatFormats::arguments()
{
    QFETCH(QByteArray, arguments);
    QFETCH(QByteArray, expected);
    const json function = {{"name", "issue_refund"}, {"arguments", json::parse(arguments.toStdString())}};
    const json value = {
            {"messages",
             {{{"role", "assistant"}, {"tool_calls", {{{"id", "c1"}, {"function", function}}}}}}}};
    const Expected<Conversation> read = readOpenAiChat(value, contextFor(QStringLiteral("t.jsonl"), 1));
    QVERIFY2(read.ok(), qPrintable(read.ok() ? QString() : read.message()));
    COMPARE_JSON(read->turns.value(0).arguments, json::parse(expected.toStdString()));
}

void TestChatFormats::subject_data()
{
    QTest::addColumn<QStringList>("customer");
    QTest::addColumn<QString>("subject");
    const QString words = QStringLiteral("refund please ").repeated(12).trimmed(); // 167 characters
    QTest::newRow("first line") << QStringList{QStringLiteral("  Broken lamp  \nOrder SU-9")}
                                << QStringLiteral("Broken lamp");
    QTest::newRow("blank first line")
            << QStringList{QStringLiteral("\n\nWrong size")} << QStringLiteral("Wrong size");
    QTest::newRow("blank message skipped")
            << QStringList{QStringLiteral("   "), QStringLiteral("Late parcel")}
            << QStringLiteral("Late parcel");
    QTest::newRow("cut between words")
            << QStringList{words}
            << QStringLiteral("refund please ").repeated(8) + QStringLiteral("refund\u2026");
    QTest::newRow("one long word") << QStringList{QString(200, u'x')} << QString(119, u'x') + QChar(0x2026);
    QTest::newRow("exactly 120") << QStringList{QString(120, u'y')} << QString(120, u'y');
    QTest::newRow("markup is text") << QStringList{QStringLiteral("<b>Hi</b> & bye")}
                                    << QStringLiteral("<b>Hi</b> & bye");
    QTest::newRow("no customer") << QStringList{} << QString();
}

void TestChatFormats::subject()
{
    QFETCH(QStringList, customer);
    QFETCH(QString, subject);
    json messages = json::array({{{"role", "system"}, {"content", "Be kind."}}});
    for (const QString &text : customer)
        messages.push_back({{"role", "user"}, {"content", text.toStdString()}});
    const Expected<Conversation> read = readOpenAiChat(messages, contextFor(QStringLiteral("s.jsonl"), 1));
    QVERIFY(read.ok());
    QCOMPARE(read->subject, subject);
    QVERIFY(read->subject.size() <= 120);
}

void TestChatFormats::detection_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("chat");
    QTest::addColumn<bool>("responses");
    QTest::addColumn<bool>("anthropic");
    const auto row = [](const char *name, const char *value, bool chat, bool responses, bool anthropic) {
        QTest::newRow(name) << QByteArray(value) << chat << responses << anthropic;
    };
    // Plain strings read the same either way: the chat reader takes them.
    row("plain strings",
        R"({"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"ok"}]})", true, false,
        false);
    row("bare plain strings", R"([{"role":"user","content":"hi"}])", true, false, false);
    row("empty messages", R"({"messages":[]})", true, false, false);
    row("text blocks", R"({"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]})", false,
        false, true);
    row("claude request",
        R"({"model":"claude-opus-4-1","system":"Be kind.","messages":[{"role":"user","content":"hi"}]})",
        false, false, true);
    row("chat system role", R"({"messages":[{"role":"system","content":[{"type":"text","text":"x"}]}]})",
        true, false, false);
    row("responses request", R"({"model":"gpt-4.1","input":"Where is my order?"})", false, true, false);
    row("responses input parts", R"([{"role":"user","content":[{"type":"input_text","text":"hi"}]}])", false,
        true, false);
    row("tau2 simulation",
        R"({"id":"s1","task_id":"7","trial":0,"termination_reason":"agent_stop",)"
        R"("messages":[{"role":"assistant",)"
        R"("content":null,"tool_calls":[{"id":"c","name":"get_order","arguments":{}}]}]})",
        false, false, false);
    row("tau v1", R"({"task_id":3,"reward":1.0,"info":{},"traj":[{"role":"user","content":"hi"}]})", false,
        false, false);
    row("otlp", R"({"resourceSpans":[{"scopeSpans":[]}]})", false, false, false);
    row("role not a string", R"({"messages":[{"role":1,"content":"hi"}]})", false, false, false);
    for (const char *scalar : {"null", "42", "\"messages\"", "[]", "{}", "[[]]", "[null]"})
        row(scalar, scalar, false, false, false);
}

void TestChatFormats::detection()
{
    QFETCH(QByteArray, value);
    QFETCH(bool, chat);
    QFETCH(bool, responses);
    QFETCH(bool, anthropic);
    const json parsed = json::parse(value.toStdString());
    QCOMPARE(looksLikeOpenAiChat(parsed), chat);
    QCOMPARE(looksLikeOpenAiResponses(parsed), responses);
    QCOMPARE(looksLikeAnthropicMessages(parsed), anthropic);
}

void TestChatFormats::badInput_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QStringList>("expected");
    const auto row = [](const char *name, int format, const QByteArray &value,
                        std::initializer_list<const char *> expected) {
        QTest::newRow(name) << format << value << test::strings(expected);
    };
    // An assistant tool call whose `function` is the given JSON.
    const auto call = [](const QByteArray &function) {
        return R"({"messages":[{"role":"user","content":"refund"},{"role":"assistant","tool_calls":[)"
               R"({"id":"c1","type":"function","function":)"
                + function + "}]}]}";
    };
    row("chat truncated arguments", Chat,
        call(R"({"name":"issue_refund","arguments":"{\"order_id\": \"SU-1\""})"),
        {"messages[1].tool_calls[0].function.arguments: expected a JSON object encoded as a string",
         R"(got "{\"order_id\": \"SU-1\"")", "truncated JSON"});
    row("chat arguments array", Chat, call(R"({"name":"get_order","arguments":"[1,2]"})"),
        {"function.arguments: expected a JSON object", "array"});
    row("chat arguments not JSON", Chat, call(R"({"name":"get_order","arguments":"order_id=SU-1"})"),
        {"function.arguments", "not JSON"});
    row("chat arguments number", Chat, call(R"({"name":"get_order","arguments":5})"),
        {"function.arguments: expected", "got number 5"});
    row("chat tool_call without name", Chat, call(R"({"arguments":"{}"})"),
        {"messages[1].tool_calls[0].function.name: expected a string"});
    row("chat function not object", Chat, call(R"("get_order")"),
        {"tool_calls[0].function: expected an object", R"("get_order")"});
    row("chat long excerpt cut", Chat,
        call(QByteArray(R"({"name":"message_seller","arguments":"{\"message\": \")")
                     .append(300, 'x')
                     .append(R"("})")),
        {R"(got "{\"message\": \"xxxx)", "x\u2026 (truncated JSON"});
    row("chat messages not array", Chat, R"({"messages":{"role":"user"}})",
        {"messages: expected an array of messages, got an object"});
    row("chat message not object", Chat, R"({"messages":["hello"]})",
        {R"(messages[0]: expected a message object, got "hello")"});
    row("chat role missing", Chat, R"({"messages":[{"content":"hi"}]})",
        {"messages[0].role: expected a string", "missing"});
    row("chat role number", Chat, R"({"messages":[{"role":7}]})",
        {"messages[0].role: expected a string, got number 7"});
    row("chat tool_calls not array", Chat, R"({"messages":[{"role":"assistant","tool_calls":{"id":"c"}}]})",
        {"messages[0].tool_calls: expected an array of tool calls, got an object"});
    row("chat tool_call without id", Chat,
        R"({"messages":[{"role":"assistant","tool_calls":[)"
        R"({"type":"function","function":{"name":"get_order"}}]}]})",
        {"messages[0].tool_calls[0].id: expected a string", "missing"});
    row("chat result content number", Chat,
        R"({"messages":[{"role":"tool","tool_call_id":"c1","content":42}]})",
        {"messages[0].content: expected a string or an array of content parts, got number 42"});
    row("chat result without call id", Chat, R"({"messages":[{"role":"tool","content":"ok"}]})",
        {"messages[0].tool_call_id: expected a string"});
    row("chat text part not text", Chat,
        R"({"messages":[{"role":"user","content":[{"type":"text","text":3}]}]})",
        {"messages[0].content[0].text: expected a string, got number 3"});
    row("chat bare array path", Chat,
        R"([{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"x","arguments":"[]"}}]}])",
        {"[0].tool_calls[0].function.arguments: expected a JSON object"});
    row("chat not a conversation", Chat, "42", {"conversation: expected an object", "got number 42"});

    row("responses truncated arguments", Responses,
        R"({"output":[{"type":"function_call","call_id":"c","name":"issue_refund",)"
        R"("arguments":"{\"amount\": 5"}]})",
        {"output[0].arguments: expected a JSON object encoded as a string", "truncated JSON"});
    row("responses call without call_id", Responses,
        R"({"output":[{"type":"function_call","name":"get_order","arguments":"{}"}]})",
        {"output[0].call_id: expected a string"});
    row("responses output of wrong type", Responses,
        R"({"input":[{"role":"user","content":"hi"},)"
        R"({"type":"function_call_output","call_id":"c","output":{}}]})",
        {"input[1].output: expected a string or an array of content parts, got an object"});
    row("responses input number", Responses, R"({"input":3})",
        {"input: expected a string or an array of items, got number 3"});
    row("responses output string", Responses, R"({"output":"hello"})",
        {R"(output: expected an array of items, got "hello")"});
    row("responses item not object", Responses, R"([{"role":"user","content":"hi"},3])",
        {"[1]: expected an item object, got number 3"});
    row("responses message without role", Responses, R"([{"type":"message","content":"hi"}])",
        {"[0].role: expected a string"});
    row("responses nothing", Responses, R"({"model":"gpt-4.1"})", {"output: expected an array of items"});

    // A refund request, an assistant turn with the given block, and a user turn with the other.
    const auto blocks = [](const char *assistantBlock, const char *userBlock) {
        return QByteArray(R"({"messages":[{"role":"user","content":"refund SU-1"},)"
                          R"({"role":"assistant","content":[)")
                + assistantBlock + R"(]},{"role":"user","content":[)" + userBlock + "]}]}";
    };
    const char *const use = R"({"type":"tool_use","id":"t1","name":"get_order","input":{"order_id":"SU-1"}})";
    const char *const result = R"({"type":"tool_result","tool_use_id":"t1","content":"ok"})";
    row("anthropic tool_use without id", Anthropic,
        blocks(R"({"type":"tool_use","name":"get_order","input":{}})", result),
        {"messages[1].content[0].id: expected a string"});
    row("anthropic input array", Anthropic,
        blocks(R"({"type":"tool_use","id":"t1","name":"x","input":[1]})", result),
        {"messages[1].content[0].input: expected an object, got an array"});
    row("anthropic result content number", Anthropic,
        blocks(use, R"({"type":"tool_result","tool_use_id":"t1","content":7})"),
        {"messages[2].content[0].content: expected a string or an array of content parts, got number 7"});
    row("anthropic is_error string", Anthropic,
        blocks(use, R"({"type":"tool_result","tool_use_id":"t1","content":"x","is_error":"yes"})"),
        {"messages[2].content[0].is_error: expected true or false", R"("yes")"});
    row("anthropic result without id", Anthropic, blocks(use, R"({"type":"tool_result","content":"x"})"),
        {"messages[2].content[0].tool_use_id: expected a string"});
    row("anthropic block not object", Anthropic, blocks(R"("hello")", result),
        {"messages[1].content[0]: expected a content block object"});
    row("anthropic result parts not objects", Anthropic,
        blocks(use, R"({"type":"tool_result","tool_use_id":"t1","content":[1]})"),
        {"messages[2].content[0].content[0]: expected a content part object"});
    row("anthropic messages not array", Anthropic, R"({"system":"x","messages":"hi"})",
        {R"(messages: expected an array of messages, got "hi")"});
    row("anthropic content number", Anthropic, R"({"messages":[{"role":"user","content":5}]})",
        {"messages[0].content: expected a string or an array of content blocks, got number 5"});
}

void TestChatFormats::badInput()
{
    QFETCH(int, format);
    QFETCH(QByteArray, value);
    QFETCH(QStringList, expected);
    const Expected<Conversation> read =
            readAs(format, json::parse(value.toStdString()), contextFor(QStringLiteral("bad.jsonl"), 1));
    QVERIFY(!read.ok());
    const QString message = read.message();
    for (const QString &fragment : expected)
        QVERIFY2(message.contains(fragment), qPrintable(message));
    QVERIFY2(message.size() < 260, qPrintable(message)); // quotations are cut short
}

namespace {

// Arbitrary JSON built from the words these formats use, so that it reaches deep into the readers.
json garbage(QRandomGenerator &random, int depth)
{
    static const char *const words[] = {"messages",
                                        "role",
                                        "content",
                                        "tool_calls",
                                        "function",
                                        "arguments",
                                        "id",
                                        "name",
                                        "type",
                                        "text",
                                        "input",
                                        "output",
                                        "call_id",
                                        "tool_use_id",
                                        "is_error",
                                        "system",
                                        "model",
                                        "choices",
                                        "message",
                                        "metadata",
                                        "timestamp",
                                        "created_at",
                                        "summary",
                                        "conversation",
                                        "user",
                                        "assistant",
                                        "tool",
                                        "developer",
                                        "tool_use",
                                        "tool_result",
                                        "function_call",
                                        "function_call_output",
                                        "reasoning",
                                        "thinking",
                                        "image",
                                        "{",
                                        "[1]",
                                        "",
                                        "\xc3\x28",
                                        "2025-03-17T14:32:07Z"};
    static const double numbers[] = {1.0e300, -0.5, std::nan(""), 1.7e9};
    const auto word = [&] { return std::string(words[random.bounded(int(std::size(words)))]); };
    switch (random.bounded(depth > 6 ? 6 : 9)) {
    case 0:
        return nullptr;
    case 1:
        return random.bounded(2) == 1;
    case 2:
        return std::int64_t(random.bounded(-5, 5)) * (std::int64_t(1) << random.bounded(40));
    case 3:
        return numbers[random.bounded(4)];
    case 4:
    case 5:
        return word();
    case 6:
    case 7: {
        json object = json::object();
        for (int i = random.bounded(5); i > 0; --i)
            object[word()] = garbage(random, depth + 1);
        return object;
    }
    default: {
        json array = json::array();
        for (int i = random.bounded(5); i > 0; --i)
            array.push_back(garbage(random, depth + 1));
        return array;
    }
    }
}

// Replaces some values inside a real conversation, to reach the paths past the first checks.
void mutate(json &value, QRandomGenerator &random)
{
    if (random.bounded(12) == 0) {
        value = garbage(random, 3);
        return;
    }
    if (value.is_object() || value.is_array()) {
        for (json &child : value)
            mutate(child, random);
    }
}

} // namespace

void TestChatFormats::robustness()
{
    QList<json> values;
    for (const json &value : json::parse(R"([null, 0, -1, 3.5, true, "", "messages", [], {}, [null],
            {"messages": null}, {"messages": [1, "two", null]}, {"input": {}}, {"output": [[]]},
            {"messages": [{"role": "assistant", "tool_calls": [null]}]},
            {"messages": [{"role": "tool", "tool_call_id": {}, "content": "x"}]},
            {"object": "response", "output": [{"type": 5}], "created_at": -1e300}])"))
        values.append(value);
    // Conversations nested in conversations, 2000 deep (moved, not copied, level by level).
    json deep = json::array();
    for (int i = 0; i < 2000; ++i) {
        json message = {{"role", "user"}, {"content", json::array()}};
        message["content"].push_back(std::move(deep));
        deep = {{"messages", json::array()}};
        deep["messages"].push_back(std::move(message));
    }
    values.append(std::move(deep));
    QRandomGenerator random(20250317);
    for (int i = 0; i < 1500; ++i)
        values.append(garbage(random, 0));
    for (const QString &file :
         {QStringLiteral("openai-chat-support.jsonl"), QStringLiteral("openai-responses-support.json"),
          QStringLiteral("openai-responses-items.jsonl"), QStringLiteral("anthropic-support.jsonl")}) {
        for (const json &conversation : loadFixture(file)) {
            for (int i = 0; i < 150; ++i) {
                json mutated = conversation;
                mutate(mutated, random);
                values.append(mutated);
            }
        }
    }
    json hostile = json::parse(
            R"({"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"x"}}]}]})");
    hostile["messages"][0]["tool_calls"][0]["function"]["arguments"] =
            std::string(200000, '['); // refused unparsed
    QVERIFY(!readOpenAiChat(hostile, contextFor(QStringLiteral("fuzz.jsonl"), 1)).ok());
    values.append(std::move(hostile));

    int rejected = 0;
    for (const json &value : values) {
        for (const int format : formats) {
            try {
                looksLike(format, value);
                const Expected<Conversation> read =
                        readAs(format, value, contextFor(QStringLiteral("fuzz.jsonl"), 1));
                if (!read.ok()) {
                    ++rejected;
                    QVERIFY(!read.message().isEmpty());
                }
            } catch (...) {
                const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
                QFAIL(qPrintable(QStringLiteral("format %1 threw on %2")
                                         .arg(format)
                                         .arg(QString::fromStdString(text).left(200))));
            }
        }
    }
    QVERIFY(rejected > 0);
}

QTEST_GUILESS_MAIN(TestChatFormats)
#include "tst_chatformats.moc"

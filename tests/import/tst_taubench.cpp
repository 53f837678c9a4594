// The τ-bench (v1) and τ²-bench adapters and the τ registry profiles, on real benchmark runs
// (tests/data/tau, see its README): what each file turns into, whether every tool it calls is
// classified, whether its write calls can be keyed, how their results read, what a broken file
// says, and that no JSON at all makes an adapter throw.

#include "domain/intentkey.h"
#include "domain/resultclassifier.h"
#include "domain/ticketassessment.h"
#include "domain/toolregistry.h"
#include "import/formats/taubench.h"
#include "support/testmacros.h"

#include <QFile>
#include <QMap>
#include <QRandomGenerator>
#include <QSet>
#include <QTest>

using namespace verity;
using nlohmann::json;

namespace {

const QString dataDir = QStringLiteral(VERITY_TEST_DATA "/tau/");
const QString registryDir = QStringLiteral(VERITY_TEST_DATA "/../../resources/registry/");

const QString v1File = QStringLiteral("tau-bench-v1-gpt-4o-airline-excerpt");
const QString retailFile = QStringLiteral("tau2-gpt-4.1-retail");
const QString telecomFile = QStringLiteral("tau2-gpt-4.1-mini-telecom-trace");

json loadJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return json();
    const QByteArray bytes = file.readAll();
    return json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
}

// Every conversation of a sample, read by the adapter its format needs; a rejected one fails.
QList<Conversation> readSample(const QString &stem)
{
    const json root = loadJson(dataDir + stem + QStringLiteral(".json"));
    const bool v1 = root.is_array();
    const json &elements = v1 ? root : root.value("simulations", json::array());
    QList<Conversation> conversations;
    qint64 ordinal = 0;
    for (const json &element : elements) {
        ConversationContext context{stem, ++ordinal, QString()};
        Expected<Conversation> read =
                v1 ? readTauV1Trajectory(element, context) : readTau2Simulation(element, context);
        if (!read) {
            qWarning("%s #%lld: %s", qPrintable(stem), ordinal, qPrintable(read.message()));
            return {};
        }
        conversations.append(*read);
    }
    return conversations;
}

ToolRegistry profile(const QString &name)
{
    Expected<ToolRegistry> registry = ToolRegistry::fromFile(registryDir + name);
    if (!registry) {
        qWarning("%s", qPrintable(registry.message()));
        return ToolRegistry();
    }
    return *registry;
}

QString resultText(const Turn &turn)
{
    return turn.result.is_string() ? QString::fromStdString(turn.result.get<std::string>()) : QString();
}

// Each result with the oldest call of its id that has no result yet (v1 ids repeat).
QList<QPair<const Turn *, const Turn *>> pairedWrites(const Conversation &conversation,
                                                      const ToolRegistry &registry)
{
    QHash<QString, QList<const Turn *>> open;
    QList<QPair<const Turn *, const Turn *>> pairs;
    for (const Turn &turn : conversation.turns) {
        if (turn.kind == Turn::Kind::ToolCall)
            open[turn.callId].append(&turn);
        if (turn.kind == Turn::Kind::ToolResult && !open[turn.callId].isEmpty()) {
            const Turn *call = open[turn.callId].takeFirst();
            if (isWrite(registry.classOf(call->tool)))
                pairs.append(std::pair(call, &turn));
        }
    }
    return pairs;
}

struct Totals
{
    int conversations = 0;
    int customer = 0, reply = 0, system = 0;
    int calls = 0, results = 0, errorFlags = 0, errorTexts = 0;
    QMap<QString, int> writes;
    int performed = 0, notPerformed = 0, otherVerdict = 0;
    QStringList unclassified;
    int retries = 0, duplicateEffects = 0, harmless = 0,
        needingAttention = 0; // what the ticket assessment says
};

Totals tally(const QList<Conversation> &conversations, const ToolRegistry &registry)
{
    Totals totals;
    totals.conversations = int(conversations.size());
    for (const Conversation &conversation : conversations) {
        for (const Turn &turn : conversation.turns) {
            switch (turn.kind) {
            case Turn::Kind::Message:
                totals.customer += turn.messageKind == MessageKind::Customer;
                totals.reply += turn.messageKind == MessageKind::Reply;
                totals.system += turn.messageKind == MessageKind::System;
                break;
            case Turn::Kind::ToolCall:
                ++totals.calls;
                if (registry.classOf(turn.tool) == ToolClass::Unclassified
                    && !totals.unclassified.contains(turn.tool))
                    totals.unclassified.append(turn.tool);
                if (isWrite(registry.classOf(turn.tool)))
                    ++totals.writes[turn.tool];
                break;
            case Turn::Kind::ToolResult:
                ++totals.results;
                totals.errorFlags += turn.errorFlag;
                totals.errorTexts += resultText(turn).startsWith(QLatin1String("Error: "));
                break;
            }
        }
        QHash<const Turn *, Outcome> outcomes;
        QHash<const Turn *, QString> results; // as the store keeps them
        for (const auto &[call, result] : pairedWrites(conversation, registry)) {
            results.insert(call, QString::fromStdString(result->result.dump()));
            const Outcome outcome =
                    classifyWriteResult(&result->result, registry.outcomeRules(), result->errorFlag).outcome;
            outcomes.insert(call, outcome);
            totals.performed += outcome == Outcome::Performed;
            totals.notPerformed += outcome == Outcome::NotPerformed;
            totals.otherVerdict += outcome != Outcome::Performed && outcome != Outcome::NotPerformed;
        }
        // The calls as the store would assess them: the ticket supplies its id for the transfer.
        const TicketFacts ticket{{QStringLiteral("ticket_id"), conversation.id}};
        QList<CallFacts> facts;
        for (const Turn &turn : conversation.turns) {
            if (turn.kind != Turn::Kind::ToolCall)
                continue;
            CallFacts call;
            call.id = facts.size() + 1;
            call.toolClass = registry.classOf(turn.tool);
            if (isWrite(call.toolClass)) {
                if (outcomes.contains(&turn))
                    call.outcome = outcomes.value(&turn);
                call.intentKey = writeKey(*registry.find(turn.tool), turn.arguments, ticket).key;
                noteResult(call, results.value(&turn));
            }
            facts.append(call);
        }
        const TicketAssessment assessment = assessTicket(facts);
        totals.retries += assessment.repeats.retries;
        totals.duplicateEffects += assessment.repeats.duplicateEffects;
        totals.harmless += assessment.repeats.harmless;
        totals.needingAttention += assessment.needsAttention;
    }
    return totals;
}

const Conversation *findConversation(const QList<Conversation> &conversations, const QString &id)
{
    for (const Conversation &conversation : conversations) {
        if (conversation.id == id)
            return &conversation;
    }
    return nullptr;
}

QString keyOf(const ToolRegistry &registry, const Turn &call, const TicketFacts &ticket = {})
{
    const ToolSpec *spec = registry.find(call.tool);
    if (!spec)
        return QStringLiteral("(no spec)");
    Expected<QString> key = intentKey(*spec, call.arguments, ticket);
    return key ? *key : QStringLiteral("(error) ") + key.message();
}

} // namespace

class TstTaubench : public QObject
{
    Q_OBJECT

private slots:
    void profilesLoad_data();
    void profilesLoad();
    void v1AirlineSample();
    void sameAnswerIsNoSecondEffect();
    void flightsSetAgainAfterABaggageChange();
    void tau2RetailSample();
    void tau2TelecomSample();
    void v1Details();
    void tau2Details();
    void intentKeysOfRealCalls();
    void outcomeRules();
    void badInput_data();
    void badInput();
    void looksLike();
    void notices();
    void arbitraryJsonNeverThrows();
};

void TstTaubench::profilesLoad_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("toolCount");
    QTest::addColumn<QStringList>("money");
    QTest::addColumn<QStringList>("costly");
    QTest::newRow("retail") << QStringLiteral("tau-retail.json") << 18
                            << QStringList{QStringLiteral("cancel_pending_order"),
                                           QStringLiteral("exchange_delivered_order_items"),
                                           QStringLiteral("modify_pending_order_items"),
                                           QStringLiteral("modify_pending_order_payment"),
                                           QStringLiteral("return_delivered_order_items")}
                            << QStringList{QStringLiteral("modify_pending_order_address"),
                                           QStringLiteral("modify_user_address"),
                                           QStringLiteral("modify_user_email")};
    QTest::newRow("airline") << QStringLiteral("tau-airline.json") << 15
                             << QStringList{QStringLiteral("book_reservation"),
                                            QStringLiteral("cancel_reservation"),
                                            QStringLiteral("send_certificate"),
                                            QStringLiteral("update_reservation_baggages"),
                                            QStringLiteral("update_reservation_flights")}
                             << QStringList{QStringLiteral("update_reservation_passengers")};
    QTest::newRow("telecom") << QStringLiteral("tau-telecom.json") << 13
                             << QStringList{QStringLiteral("refuel_data"),
                                            QStringLiteral("send_payment_request")}
                             << QStringList{QStringLiteral("suspend_line"), QStringLiteral("resume_line"),
                                            QStringLiteral("enable_roaming"),
                                            QStringLiteral("disable_roaming")};
}

void TstTaubench::profilesLoad()
{
    QFETCH(QString, file);
    QFETCH(int, toolCount);
    QFETCH(QStringList, money);
    QFETCH(QStringList, costly);
    Expected<ToolRegistry> registry = ToolRegistry::fromFile(registryDir + file);
    QVERIFY_OK(registry);
    QCOMPARE(registry->toolNames().size(), toolCount);
    for (const QString &tool : money)
        QCOMPARE(registry->classOf(tool), ToolClass::WriteMoney);
    for (const QString &tool : costly)
        QCOMPARE(registry->classOf(tool), ToolClass::WriteCostly);
    QCOMPARE(registry->classOf(QStringLiteral("transfer_to_human_agents")), ToolClass::WriteWasteful);
    // Everything else is a read: no τ tool is left to the "unclassified" default.
    for (const QString &tool : registry->toolNames()) {
        if (!money.contains(tool) && !costly.contains(tool)
            && tool != QLatin1String("transfer_to_human_agents"))
            QVERIFY2(registry->classOf(tool) == ToolClass::Read, qPrintable(tool));
    }
    QCOMPARE(registry->outcomeRules().notPerformed.size(), 1);
    QCOMPARE(registry->outcomeRules().unknown.size(), 6);
}

// The expected numbers below were counted once from the JSON files with a short Python script
// that walks the messages independently of this code (user/assistant/system messages with
// non-empty text, tool calls and `tool` messages; τ² calls with requestor "user" and their
// results counted apart; a write's verdict is "not performed" exactly when its result text
// begins "Error: "; repeats are write calls of one conversation whose intent fields, as the
// profile lists them, are equal).
void TstTaubench::v1AirlineSample()
{
    const QList<Conversation> conversations = readSample(v1File);
    const Totals totals = tally(conversations, profile(QStringLiteral("tau-airline.json")));
    QCOMPARE(totals.conversations, 6);
    QCOMPARE(totals.system, 6);
    QCOMPARE(totals.customer, 42);
    QCOMPARE(totals.reply, 38);
    QCOMPARE(totals.calls, 45);
    QCOMPARE(totals.results, 45);
    QCOMPARE(totals.errorFlags, 0); // v1 has no error flag
    QCOMPARE(totals.errorTexts, 5);
    QCOMPARE(totals.writes,
             (QMap<QString, int>{{QStringLiteral("update_reservation_flights"), 11},
                                 {QStringLiteral("transfer_to_human_agents"), 1}}));
    QCOMPARE(totals.unclassified, QStringList());
    QCOMPARE(totals.performed, 7);
    QCOMPARE(totals.notPerformed, 5);
    QCOMPARE(totals.otherVerdict, 0);
    // Task 3's upgrade, refused four times before it went through: four retries, no duplicate,
    // and nothing for a person (every call classified and keyed, nothing unknown).
    QCOMPARE(totals.retries, 4);
    QCOMPARE(totals.duplicateEffects, 0);
    QCOMPARE(totals.needingAttention, 0);
}

// After the airline runs' task 4: the customer only switched the payment method, the model
// sent both updates again, and the tool answered with the very reservation it had answered
// before. Nothing happened twice. The booking made twice answered with a second reservation.
void TstTaubench::sameAnswerIsNoSecondEffect()
{
    const QList<Conversation> conversations = readSample(QStringLiteral("tau-bench-v1-airline-same-answer"));
    const Totals totals = tally(conversations, profile(QStringLiteral("tau-airline.json")));
    QCOMPARE(totals.conversations, 2);
    QCOMPARE(totals.performed, 6);
    QCOMPARE(totals.harmless, 2);
    QCOMPARE(totals.duplicateEffects, 1);
    QCOMPARE(totals.needingAttention, 1);
}

// The airline run's task 4, trial 3, as published: the flights set again after a baggage change
// answer with the reservation exactly as the baggage call left it, and the baggage set again with
// it as the flights call left it. The latest state of the reservation, not the first call's
// answer: nothing happened twice.
void TstTaubench::flightsSetAgainAfterABaggageChange()
{
    const QList<Conversation> conversations =
            readSample(QStringLiteral("tau-bench-v1-gpt-4o-airline-task4-trial3"));
    const Totals totals = tally(conversations, profile(QStringLiteral("tau-airline.json")));
    QCOMPARE(totals.conversations, 1);
    QCOMPARE(totals.writes,
             (QMap<QString, int>{{QStringLiteral("update_reservation_baggages"), 2},
                                 {QStringLiteral("update_reservation_flights"), 2}}));
    QCOMPARE(totals.performed, 4);
    QCOMPARE(totals.harmless, 2);
    QCOMPARE(totals.duplicateEffects, 0);
    QCOMPARE(totals.needingAttention, 0);
}

void TstTaubench::tau2RetailSample()
{
    const QList<Conversation> conversations = readSample(retailFile);
    const Totals totals = tally(conversations, profile(QStringLiteral("tau-retail.json")));
    QCOMPARE(totals.conversations, 40);
    QCOMPARE(totals.customer, 290);
    QCOMPARE(totals.reply, 290);
    QCOMPARE(totals.system, 0);
    QCOMPARE(totals.calls, 299);
    QCOMPARE(totals.results, 299);
    QCOMPARE(totals.errorFlags, 12);
    QCOMPARE(totals.errorTexts, 12);
    QCOMPARE(totals.writes,
             (QMap<QString, int>{{QStringLiteral("cancel_pending_order"), 8},
                                 {QStringLiteral("exchange_delivered_order_items"), 9},
                                 {QStringLiteral("modify_pending_order_address"), 7},
                                 {QStringLiteral("modify_pending_order_items"), 21},
                                 {QStringLiteral("modify_pending_order_payment"), 1},
                                 {QStringLiteral("modify_user_address"), 4},
                                 {QStringLiteral("return_delivered_order_items"), 11},
                                 {QStringLiteral("transfer_to_human_agents"), 2}}));
    QCOMPARE(totals.unclassified, QStringList());
    // Each refusal begins "Error: " and was not performed; every other write was: nothing unknown.
    QCOMPARE(totals.performed, 56);
    QCOMPARE(totals.notPerformed, 7);
    QCOMPARE(totals.otherVerdict, 0);
    QCOMPARE(totals.retries, 1); // the refused return tried again with another payment method
    QCOMPARE(totals.duplicateEffects, 0);
    QCOMPARE(totals.needingAttention, 0);
}

void TstTaubench::tau2TelecomSample()
{
    const QList<Conversation> conversations = readSample(telecomFile);
    const Totals totals = tally(conversations, profile(QStringLiteral("tau-telecom.json")));
    QCOMPARE(totals.conversations, 1);
    QCOMPARE(totals.customer, 14);
    QCOMPARE(totals.reply, 12);
    QCOMPARE(totals.system, 9); // the customer's nine actions on their own phone
    QCOMPARE(totals.calls, 8);
    QCOMPARE(totals.results, 8);
    QCOMPARE(totals.errorFlags, 0);
    QCOMPARE(totals.errorTexts, 0);
    QCOMPARE(totals.writes, (QMap<QString, int>{}));
    QCOMPARE(totals.unclassified, QStringList());
    QCOMPARE(totals.needingAttention, 0);
}

void TstTaubench::v1Details()
{
    const QList<Conversation> conversations = readSample(v1File);
    QCOMPARE(conversations.size(), 6);
    const Conversation &first = conversations.first();
    // The id names the task and trial and the run's own content, never the file's name.
    QVERIFY2(first.id.startsWith(QStringLiteral("tau-bench/task-1/trial-0/")), qPrintable(first.id));
    QCOMPARE(first.id.size(), 33);
    QCOMPARE(first.task, QStringLiteral("1"));
    QCOMPARE(first.trial, QStringLiteral("0"));
    QCOMPARE(first.subject.size(), 120);
    QVERIFY(first.subject.startsWith(
            QLatin1String("Hi there! I need to change my return flight from Texas to Newark.")));
    QVERIFY(first.subject.endsWith(QStringLiteral("…")));
    QVERIFY(!first.openedAt);
    QVERIFY(first.notices.isEmpty());
    QCOMPARE(first.turns.first().messageKind, MessageKind::System);
    for (const Conversation &conversation : conversations) {
        for (const Turn &turn : conversation.turns)
            QVERIFY(!turn.at); // v1 has no times
    }

    // Task 3 reuses two call ids; both calls and both results come through in order.
    const Conversation &third = conversations.at(2);
    QVERIFY2(third.id.startsWith(QStringLiteral("tau-bench/task-3/trial-0/")), qPrintable(third.id));
    int calls = 0, results = 0;
    for (const Turn &turn : third.turns) {
        if (turn.callId == QLatin1String("call_B1wTKndCK0SgWj4uYElOR9nt")) {
            QCOMPARE(turn.kind, calls == results ? Turn::Kind::ToolCall : Turn::Kind::ToolResult);
            (turn.kind == Turn::Kind::ToolCall ? calls : results) += 1;
        }
    }
    QCOMPARE(calls, 2);
    QCOMPARE(results, 2);

    // A result stays the text the tool returned and names its tool; arguments are an object.
    const Turn &call = *std::find_if(third.turns.cbegin(), third.turns.cend(), [](const Turn &turn) {
        return turn.kind == Turn::Kind::ToolCall && turn.tool == QLatin1String("update_reservation_flights");
    });
    QVERIFY(call.arguments.is_object());
    QCOMPARE(QString::fromStdString(call.arguments.value("reservation_id", "")), QStringLiteral("OBUT9V"));
    QVERIFY(call.arguments.at("flights").is_array());
    const Turn &result = *std::find_if(third.turns.cbegin(), third.turns.cend(), [&](const Turn &turn) {
        return turn.kind == Turn::Kind::ToolResult && turn.callId == call.callId;
    });
    QCOMPARE(result.tool, QStringLiteral("update_reservation_flights"));
    QCOMPARE(resultText(result), QStringLiteral("Error: not enough seats on flight HAT229"));
    QVERIFY(!result.errorFlag);
}

void TstTaubench::tau2Details()
{
    const QList<Conversation> retail = readSample(retailFile);
    QCOMPARE(retail.size(), 40);
    const Conversation &first = retail.first();
    QCOMPARE(first.id, QStringLiteral("55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae"));
    QCOMPARE(first.openedAt, std::optional<qint64>(1754064997295)); // 2025-08-01T16:16:37.295213, UTC
    QCOMPARE(first.turns.first().messageKind, MessageKind::Reply);
    QVERIFY(first.subject.startsWith(QLatin1String("Hi, I need to check the balance on my gift card")));
    for (const Conversation &conversation : retail) {
        QVERIFY(conversation.notices.isEmpty());
        for (const Turn &turn : conversation.turns)
            QVERIFY2(turn.at.has_value(), qPrintable(conversation.id));
    }

    const QList<Conversation> telecom = readSample(telecomFile);
    QCOMPARE(telecom.size(), 1);
    const Conversation &trace = telecom.first();
    QCOMPARE(trace.id, QStringLiteral("85e11d5b-441e-455e-b6d9-02597a3a875e"));
    QCOMPARE(trace.openedAt, std::optional<qint64>(1773475430199));
    // The customer's phone actions are context, not the agent's tools.
    QVERIFY(!toolsCalled(trace).contains(QStringLiteral("toggle_roaming")));
    const auto roaming = std::find_if(trace.turns.cbegin(), trace.turns.cend(), [](const Turn &turn) {
        return turn.kind == Turn::Kind::Message && turn.text.contains(QLatin1String("toggle_roaming"));
    });
    QVERIFY(roaming != trace.turns.cend());
    QCOMPARE(roaming->messageKind, MessageKind::System);
    QCOMPARE(roaming->text, QStringLiteral("Customer's device: toggle_roaming {} → Data Roaming is now ON."));
    QCOMPARE(roaming->at, std::optional<qint64>(1773475476377)); // the result's time
    for (const Turn &turn : trace.turns) {
        if (turn.kind == Turn::Kind::Message && turn.messageKind == MessageKind::System)
            QVERIFY(turn.text.startsWith(QLatin1String("Customer's device: ")));
    }
}

void TstTaubench::intentKeysOfRealCalls()
{
    const ToolRegistry retailProfile = profile(QStringLiteral("tau-retail.json"));
    const ToolRegistry airlineProfile = profile(QStringLiteral("tau-airline.json"));
    const QList<Conversation> retail = readSample(retailFile);
    const QList<Conversation> airline = readSample(v1File);

    // Every write call in the samples can be keyed; only the transfer needs the ticket's id.
    for (const auto &[conversations, registry] :
         {std::pair{&retail, &retailProfile}, std::pair{&airline, &airlineProfile}}) {
        for (const Conversation &conversation : *conversations) {
            const TicketFacts ticket{{QStringLiteral("ticket_id"), conversation.id}};
            for (const Turn &turn : conversation.turns) {
                if (turn.kind != Turn::Kind::ToolCall || !isWrite(registry->classOf(turn.tool)))
                    continue;
                const bool transfer = turn.tool == QLatin1String("transfer_to_human_agents");
                const QString key = keyOf(*registry, turn, transfer ? ticket : TicketFacts());
                QVERIFY2(key.size() == 64, qPrintable(turn.tool + u' ' + key));
            }
        }
    }

    // The same modify_pending_order_items on order #W4219264 in two simulations: one key.
    QStringList identical;
    for (const QString &id : {QStringLiteral("2445ac5f-e2b1-4e6b-b760-4a7c230b2f2d"),
                              QStringLiteral("f7f1d960-29dc-4ca0-91c6-fd11643733c5")}) {
        const Conversation *conversation = findConversation(retail, id);
        QVERIFY(conversation);
        for (const Turn &turn : conversation->turns) {
            if (turn.kind == Turn::Kind::ToolCall && turn.tool == QLatin1String("modify_pending_order_items")
                && turn.arguments.value("order_id", "") == "#W4219264")
                identical.append(keyOf(retailProfile, turn));
        }
    }
    QCOMPARE(identical.size(), 2);
    QCOMPARE(identical.at(0), identical.at(1));

    // Four tries at modifying #W5061109's items, three refused, each with other item lists:
    // the lists are part of the intent, so four keys.
    const Conversation *tries =
            findConversation(retail, QStringLiteral("8fe11cd0-cda3-445d-943e-b4129e7d0a84"));
    QVERIFY(tries);
    QSet<QString> keys;
    for (const Turn &turn : tries->turns) {
        if (turn.kind == Turn::Kind::ToolCall && turn.tool == QLatin1String("modify_pending_order_items"))
            keys.insert(keyOf(retailProfile, turn));
    }
    QCOMPARE(keys.size(), 4);

    // Two refused returns of the same items to two payment methods: one intent, a retry.
    const Conversation *returns =
            findConversation(retail, QStringLiteral("e7d583ab-b1ad-4c6c-af1a-e32fd2d953e7"));
    QVERIFY(returns);
    QStringList returnKeys;
    for (const Turn &turn : returns->turns) {
        if (turn.kind == Turn::Kind::ToolCall && turn.tool == QLatin1String("return_delivered_order_items"))
            returnKeys.append(keyOf(retailProfile, turn));
    }
    QCOMPARE(returnKeys.size(), 2);
    QCOMPARE(returnKeys.at(0), returnKeys.at(1));

    // v1 task 3: an upgrade of OBUT9V to business tried with four payment methods before one
    // worked; the same flights and cabin, so one key (the earlier economy attempt has its own).
    QStringList upgradeKeys;
    for (const Turn &turn : airline.at(2).turns) {
        if (turn.kind == Turn::Kind::ToolCall && turn.tool == QLatin1String("update_reservation_flights"))
            upgradeKeys.append(keyOf(airlineProfile, turn));
    }
    QCOMPARE(upgradeKeys.size(), 6);
    QCOMPARE(QSet<QString>(upgradeKeys.cbegin(), upgradeKeys.cend()).size(), 2);
    QCOMPARE(upgradeKeys.count(upgradeKeys.last()), 5);

    // A list is compared in order, and another order is another intent.
    const Turn &anyCall = *std::find_if(tries->turns.cbegin(), tries->turns.cend(), [](const Turn &turn) {
        return turn.tool == QLatin1String("modify_pending_order_items");
    });
    Turn reordered = anyCall;
    reordered.arguments["item_ids"] = json::array({"2", "1"});
    Turn ordered = anyCall;
    ordered.arguments["item_ids"] = json::array({"1", "2"});
    QVERIFY(keyOf(retailProfile, reordered) != keyOf(retailProfile, ordered));
    Turn changed = anyCall;
    changed.arguments["order_id"] = "#W0000000";
    QVERIFY(keyOf(retailProfile, changed) != keyOf(retailProfile, anyCall));

    // The transfer's intent is the ticket: without one it cannot be keyed.
    const ToolSpec *transfer = retailProfile.find(QStringLiteral("transfer_to_human_agents"));
    QVERIFY(transfer);
    QVERIFY(!intentKey(*transfer, json{{"summary", "x"}}, {}).ok());

    // An empty address2 is common and must still give a key (it is hashed, not compared as text).
    const ToolSpec *address = retailProfile.find(QStringLiteral("modify_pending_order_address"));
    QVERIFY(address);
    QVERIFY(intentKey(*address,
                      json{{"order_id", "#W1"},
                           {"address1", "1 Main St"},
                           {"address2", ""},
                           {"city", "Austin"},
                           {"state", "TX"},
                           {"country", "USA"},
                           {"zip", "78701"}},
                      {})
                    .ok());
}

void TstTaubench::outcomeRules()
{
    const OutcomeRules rules = profile(QStringLiteral("tau-retail.json")).outcomeRules();
    auto verdict = [&](const json &result) { return classifyWriteResult(&result, rules).outcome; };
    QCOMPARE(verdict("Error: Non-pending order cannot be cancelled"), Outcome::NotPerformed);
    QCOMPARE(verdict("Error: upstream timeout"), Outcome::Unknown); // unknown rules come first
    QCOMPARE(verdict("Gateway timeout"), Outcome::Unknown);
    QCOMPARE(verdict(R"({"order_id": "#W1", "address": {"address1": "503 Elm Avenue"}, "price": 466.75})"),
             Outcome::Performed);
    QCOMPARE(verdict(R"({"note": "shipped from the upstream warehouse"})"), Outcome::Performed); // a record
    QCOMPARE(verdict("Transfer successful"), Outcome::Performed);
    // Amounts and street numbers are not HTTP statuses (the default registry's rules say so).
    QCOMPARE(verdict("Certificate certificate_3221322 added to user sara_doe_496 with amount 450."),
             Outcome::Performed);
    QCOMPARE(verdict("Error: Payment amount does not add up, total price is 503, but paid 400"),
             Outcome::NotPerformed);
}

void TstTaubench::badInput_data()
{
    QTest::addColumn<bool>("v1");
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("message");
    auto row = [](const char *name, bool v1, const char *input, const char *message) {
        QTest::newRow(name) << v1 << QByteArray(input) << QString::fromUtf8(message);
    };
    row("v1 not an object", true, "[1]", "the conversation: expected a τ-bench trajectory");
    row("v1 traj object", true, R"({"traj": {}})", "traj: expected an array of messages, found object {}");
    row("v1 message number", true, R"({"traj": [1]})", "traj[0]: expected a message object, found number 1");
    row("v1 role missing", true, R"({"traj": [{"content": "hi"}]})",
        "traj[0].role: expected a string, found null");
    row("v1 content number", true, R"({"traj": [{"role": "user", "content": 5}]})",
        "traj[0].content: expected a string or null, found number 5");
    row("v1 tool_calls object", true,
        R"({"traj": [{"role": "user", "content": "a"}, {"role": "assistant", "tool_calls": {}}]})",
        "traj[1].tool_calls: expected an array, found object {}");
    row("v1 function missing", true, R"({"traj": [{"role": "assistant", "tool_calls": [{"id": "c"}]}]})",
        "traj[0].tool_calls[0].function: expected an object, found null");
    row("v1 name number", true,
        R"({"traj": [{"role": "assistant", "tool_calls": [{"function": {"name": 7}}]}]})",
        "traj[0].tool_calls[0].function.name: expected a non-empty string, found number 7");
    row("v1 arguments not JSON", true,
        R"({"traj": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{bad"}}]}]})",
        R"(traj[0].tool_calls[0].function.arguments: expected a JSON object as text, found string "{bad")");
    row("v1 arguments array text", true,
        R"({"traj": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "[1, 2]"}}]}]})",
        R"(traj[0].tool_calls[0].function.arguments: expected a JSON object as text, found string "[1, 2]")");
    row("v1 arguments number", true,
        R"({"traj": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": 3}}]}]})",
        "traj[0].tool_calls[0].function.arguments: expected an object or a JSON object as text, found number "
        "3");
    row("v1 id number", true,
        R"({"traj": [{"role": "assistant", "tool_calls": [{"id": 4, "function": {"name": "f", "arguments": "{}"}}]}]})",
        "traj[0].tool_calls[0].id: expected a string, found number 4");
    row("v1 tool_call_id missing", true, R"({"traj": [{"role": "tool", "content": "x"}]})",
        "traj[0].tool_call_id: expected a string, found null");
    row("v1 task_id object", true, R"({"task_id": {}, "traj": []})",
        "task_id: expected an integer or a non-empty string, found object {}");
    row("v1 trial fraction", true, R"({"task_id": 1, "trial": 0.5, "traj": []})",
        "trial: expected an integer or a non-empty string, found number 0.5");
    row("v2 not an object", false, "null", "the conversation: expected a τ² simulation");
    row("v2 messages missing", false, R"({"id": "s", "task_id": "1"})",
        "messages: expected an array of messages, found null");
    row("v2 id number", false, R"({"id": 7, "messages": []})", "id: expected a string, found number 7");
    row("v2 arguments array", false,
        R"({"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": [1]}]}]})",
        "messages[0].tool_calls[0].arguments: expected an object or a JSON object as text, found array [1]");
    row("v2 tool_calls string", false, R"({"messages": [{"role": "assistant", "tool_calls": "call f"}]})",
        R"(messages[0].tool_calls: expected an array or null, found string "call f")");
    row("v2 error string", false,
        R"({"messages": [{"role": "tool", "id": "c", "content": "x", "error": "yes"}]})",
        R"(messages[0].error: expected true or false, found string "yes")");
    row("v2 tool id missing", false, R"({"messages": [{"role": "tool", "content": "x"}]})",
        "messages[0].id: expected a string, found null");
    row("v2 timestamp number", false, R"({"messages": [{"role": "user", "content": "x", "timestamp": 5}]})",
        "messages[0].timestamp: expected an ISO 8601 time as a string, found number 5");
    row("long excerpt", false,
        R"({"messages": [{"role": "user", "content": {"text": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}]})",
        R"(messages[0].content: expected a string or null, found object {"text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…)");
}

void TstTaubench::badInput()
{
    QFETCH(bool, v1);
    QFETCH(QByteArray, input);
    QFETCH(QString, message);
    const json value = json::parse(input.constBegin(), input.constEnd());
    const ConversationContext context{QStringLiteral("bad"), 1, QString()};
    Expected<Conversation> read =
            v1 ? readTauV1Trajectory(value, context) : readTau2Simulation(value, context);
    QVERIFY(!read.ok());
    QVERIFY2(read.message().startsWith(message), qPrintable(read.message()));
}

void TstTaubench::looksLike()
{
    const json v1 = loadJson(dataDir + v1File + QStringLiteral(".json"));
    const json tau2 = loadJson(dataDir + retailFile + QStringLiteral(".json"));
    QVERIFY(looksLikeTauV1Trajectory(v1.at(0)));
    QVERIFY(!looksLikeTau2Simulation(v1.at(0)));
    QVERIFY(looksLikeTau2Simulation(tau2.at("simulations").at(0)));
    QVERIFY(!looksLikeTauV1Trajectory(tau2.at("simulations").at(0)));
    QVERIFY(!looksLikeTau2Simulation(json::parse(R"({"messages": []})"))); // plain OpenAI chat
    QVERIFY(!looksLikeTauV1Trajectory(json::parse(R"({"traj": "x"})")));
    for (const json &other : {json(), json(1), json("traj"), json::array({1}), json::object()}) {
        QVERIFY(!looksLikeTauV1Trajectory(other));
        QVERIFY(!looksLikeTau2Simulation(other));
    }
}

void TstTaubench::notices()
{
    // Worth telling, no reason to reject: a time nobody can read, a role the format lacks.
    const ConversationContext context{QStringLiteral("odd"), 1, QString()};
    Expected<Conversation> untimed =
            readTau2Simulation(json::parse(R"({"id": "s", "task_id": "1", "messages": [
                {"role": "user", "content": "hi", "timestamp": "yesterday"},
                {"role": "assistant", "content": "hello", "timestamp": "noon"}]})"),
                               context);
    QVERIFY(untimed.ok());
    QCOMPARE(untimed->notices.size(), 1);
    QVERIFY(untimed->notices.first().startsWith(QLatin1String("messages[0].timestamp: ")));
    QVERIFY(!untimed->openedAt);
    QCOMPARE(untimed->turns.size(), 2);

    Expected<Conversation> odd =
            readTauV1Trajectory(json::parse(R"({"task_id": 9, "traj": [{"role": "function", "content": "x"},
                                                    {"role": "function", "content": "y"},
                                                    {"role": "user", "content": "hi"}]})"),
                                context);
    QVERIFY(odd.ok());
    QVERIFY2(odd->id.startsWith(QStringLiteral("tau-bench/task-9/trial-0/")), qPrintable(odd->id));
    QCOMPARE(odd->notices,
             QStringList{QStringLiteral("traj[0]: messages with role \"function\" were skipped")});
    QCOMPARE(odd->turns.size(), 1);
}

namespace {

const char *const keys[] = {"traj",      "messages",  "role",  "content",      "tool_calls", "function",
                            "name",      "arguments", "id",    "tool_call_id", "requestor",  "error",
                            "timestamp", "task_id",   "trial", "text"};
const char *const words[] = {"user",
                             "assistant",
                             "tool",
                             "system",
                             "{}",
                             "{\"a\":1}",
                             "[",
                             "",
                             "2025-08-01T16:16:37.1",
                             "Error: x",
                             "\xff\xfe not UTF-8"};

json randomJson(QRandomGenerator &random, int depth)
{
    switch (random.bounded(depth > 3 ? 6 : 9)) {
    case 0:
        return nullptr;
    case 1:
        return random.bounded(2) == 1;
    case 2:
        return random.bounded(-5, 5);
    case 3:
        return random.generateDouble() * 1e20;
    case 4:
    case 5:
        return std::string(words[random.bounded(int(std::size(words)))]);
    case 6: {
        json array = json::array();
        for (int i = random.bounded(4); i > 0; --i)
            array.push_back(randomJson(random, depth + 1));
        return array;
    }
    default: {
        json object = json::object();
        for (int i = random.bounded(6); i > 0; --i)
            object[keys[random.bounded(int(std::size(keys)))]] = randomJson(random, depth + 1);
        return object;
    }
    }
}

// Replaces one value somewhere inside `value` by random JSON.
void mutate(json &value, QRandomGenerator &random)
{
    json *node = &value;
    while ((node->is_object() || node->is_array()) && !node->empty() && random.bounded(4) != 0) {
        auto it = node->begin();
        std::advance(it, random.bounded(int(node->size())));
        node = &*it;
    }
    *node = randomJson(random, 2);
}

} // namespace

void TstTaubench::arbitraryJsonNeverThrows()
{
    QRandomGenerator random(20240617); // fixed: a failure must be reproducible
    const ConversationContext context{QStringLiteral("fuzz"), 1, QStringLiteral("not a time")};
    auto readAll = [&](const json &value) {
        try {
            (void)looksLikeTauV1Trajectory(value);
            (void)looksLikeTau2Simulation(value);
            for (Expected<Conversation> read :
                 {readTauV1Trajectory(value, context), readTau2Simulation(value, context)})
                QVERIFY(read.ok() || !read.message().isEmpty());
        } catch (const std::exception &e) {
            QFAIL(qPrintable(QStringLiteral("threw %1 on %2")
                                     .arg(QString::fromUtf8(e.what()),
                                          QString::fromStdString(value.dump(
                                                  -1, ' ', false, json::error_handler_t::replace)))));
        }
    };
    for (int i = 0; i < 3000; ++i) {
        json value = randomJson(random, 0);
        if (random.bounded(2) == 1)
            value = json{{random.bounded(2) == 1 ? "traj" : "messages",
                          json::array({value, randomJson(random, 1)})},
                         {"task_id", 1}};
        readAll(value);
        if (QTest::currentTestFailed())
            return;
    }
    // Real elements with one value broken at a time.
    const json v1 = loadJson(dataDir + v1File + QStringLiteral(".json"));
    const json tau2 = loadJson(dataDir + telecomFile + QStringLiteral(".json"));
    for (int i = 0; i < 600; ++i) {
        json value = i % 2 == 0 ? v1.at(std::size_t(i / 2) % v1.size()) : tau2.at("simulations").at(0);
        for (int n = random.bounded(1, 4); n > 0; --n)
            mutate(value, random);
        readAll(value);
        if (QTest::currentTestFailed())
            return;
    }
}

QTEST_GUILESS_MAIN(TstTaubench)
#include "tst_taubench.moc"

// What the Classify dialog first offers for a tool nobody classified, as a table: money
// arguments make a money write, an id the call created makes a costly write, no clue makes
// no suggestion, and nothing is ever suggested as a read. Then the class inferred from what an
// agent's telemetry says of a tool (its definition, MCP's hints), in each shape frameworks
// write a definition.

#include "domain/toolclasssuggestion.h"
#include "domain/toolhint.h"

#include <QTest>

#include <nlohmann/json.hpp>

using namespace verity;

namespace {

// The suggested class as the table writes it: its id, or "none" when the person chooses.
QString classText(const ToolClassSuggestion &suggestion)
{
    return suggestion.toolClass ? toolClassId(*suggestion.toolClass) : QStringLiteral("none");
}

} // namespace

class ToolClassSuggestionTest : public QObject
{
    Q_OBJECT

private slots:
    void suggestsFromArgumentsAndResult_data();
    void suggestsFromArgumentsAndResult();
    void moneyAndIdNames_data();
    void moneyAndIdNames();
    void resultsAsAPersonReadsThem_data();
    void resultsAsAPersonReadsThem();
    void infersFromWhatTheTelemetrySays_data();
    void infersFromWhatTheTelemetrySays();
    void readsEachShapeOfDefinition_data();
    void readsEachShapeOfDefinition();
    void mergesHintsOfOneTool();
};

void ToolClassSuggestionTest::suggestsFromArgumentsAndResult_data()
{
    QTest::addColumn<QString>("arguments");
    QTest::addColumn<QString>("result");
    QTest::addColumn<QString>("toolClass");
    QTest::addColumn<QString>("amountField");
    QTest::addColumn<QString>("reasonHas");

    // Money in the arguments: a money write, the whole-cents argument as its amount.
    QTest::newRow("refund in cents") << R"({"order_id":"SU-1","item_id":"A","amount_cents":11800})"
                                     << R"({"status":"refunded"})"
                                     << "write_money"
                                     << "amount_cents"
                                     << "amount_cents looks like money";
    QTest::newRow("refund with its id") << R"({"order_id":"SU-1","amount_cents":11800})"
                                        << R"({"refund_id":"re_1","status":"succeeded"})"
                                        << "write_money"
                                        << "amount_cents"
                                        << "returns refund_id";
    QTest::newRow("cents preferred to another whole number") << R"({"total":12000,"fee_cents":250})"
                                                             << ""
                                                             << "write_money"
                                                             << "fee_cents"
                                                             << "fee_cents, total look like money";
    QTest::newRow("camel case") << R"({"orderId":"SU-1","refundAmount":4500})"
                                << ""
                                << "write_money"
                                << "refundAmount"
                                << "refundAmount";
    QTest::newRow("price in dollars") << R"({"sku":"A","price":118.5})"
                                      << ""
                                      << "write_money"
                                      << ""
                                      << "not in whole cents";
    QTest::newRow("amount as decimal text") << R"({"account":"acct-9","amount":"5.00"})"
                                            << "credit applied"
                                            << "write_money"
                                            << ""
                                            << "amount looks like money";
    QTest::newRow("apply credit, cents") << R"({"account":"acct-9","cents":500})"
                                         << "credit applied"
                                         << "write_money"
                                         << "cents"
                                         << "cents";
    // An id the call made: a costly write.
    QTest::newRow("pickup id") << R"({"order_id":"SU-1","address":"1 High St"})"
                               << R"({"pickup_id":"pk_77","window":"9-12"})"
                               << "write_costly"
                               << ""
                               << "returns pickup_id";
    QTest::newRow("result as a chat message's text") << R"({"order_id":"SU-1"})"
                                                     << R"("{\"pickup_id\":\"pk_77\"}")"
                                                     << "write_costly"
                                                     << ""
                                                     << "returns pickup_id";
    QTest::newRow("bare id") << R"({"ticket_id":"T-1","text":"hello"})"
                             << R"({"id":"msg_9"})"
                             << "write_costly"
                             << ""
                             << "returns id";
    QTest::newRow("id one level down") << R"({"order_id":"SU-1"})"
                                       << R"({"shipment":{"shipmentId":"sh_1","carrier":"DHL"}})"
                                       << "write_costly"
                                       << ""
                                       << "shipment.shipmentId";
    QTest::newRow("numeric id") << R"({"order_id":"SU-1"})"
                                << R"({"return_id":90210})"
                                << "write_costly"
                                << ""
                                << "return_id";
    // An id the call was given is no clue: reads echo them.
    QTest::newRow("echoed id") << R"({"order_id":"SU-1"})"
                               << R"({"order_id":"SU-1","status":"shipped"})"
                               << "none"
                               << ""
                               << "nothing";
    QTest::newRow("echoed nested id") << R"({"user":{"id":"u-7"}})"
                                      << R"({"id":"u-7","name":"Ana"})"
                                      << "none"
                                      << ""
                                      << "nothing";
    // No clue: no suggestion, never a read.
    QTest::newRow("plain read") << R"({"order_id":"SU-1"})"
                                << R"({"status":"shipped","items":3})"
                                << "none"
                                << ""
                                << "nothing";
    QTest::newRow("no arguments, no result") << "{}"
                                             << ""
                                             << "none"
                                             << ""
                                             << "nothing";
    QTest::newRow("arguments not json") << "order SU-1"
                                        << "ok"
                                        << "none"
                                        << ""
                                        << "nothing";
    QTest::newRow("result an error text") << R"({"order_id":"SU-1"})"
                                          << "Error: not found"
                                          << "none"
                                          << ""
                                          << "nothing";
    QTest::newRow("count is no money") << R"({"order_id":"SU-1","item_count":2})"
                                       << ""
                                       << "none"
                                       << ""
                                       << "nothing";
    QTest::newRow("a money word that is not a number") << R"({"refund_reason":"damaged"})"
                                                       << ""
                                                       << "none"
                                                       << ""
                                                       << "nothing";
    QTest::newRow("an id with digits is no amount") << R"({"charge_id":"12345"})"
                                                    << ""
                                                    << "none"
                                                    << ""
                                                    << "nothing";
}

void ToolClassSuggestionTest::suggestsFromArgumentsAndResult()
{
    QFETCH(QString, arguments);
    QFETCH(QString, result);
    QFETCH(QString, toolClass);
    QFETCH(QString, amountField);
    QFETCH(QString, reasonHas);

    const ToolClassSuggestion suggestion = suggestToolClass(arguments, result);
    QCOMPARE(classText(suggestion), toolClass);
    QVERIFY(suggestion.toolClass != ToolClass::Read);
    QCOMPARE(suggestion.amountField, amountField);
    QVERIFY2(suggestion.reason.contains(reasonHas), qPrintable(suggestion.reason));
}

void ToolClassSuggestionTest::moneyAndIdNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("money");
    QTest::addColumn<bool>("id");

    QTest::newRow("amount") << "amount" << true << false;
    QTest::newRow("amount_cents") << "amount_cents" << true << false;
    QTest::newRow("refundAmount") << "refundAmount" << true << false;
    QTest::newRow("unit-price") << "unit-price" << true << false;
    QTest::newRow("order_total") << "order_total" << true << false;
    QTest::newRow("fee") << "fee" << true << false;
    QTest::newRow("amounts is another word") << "amounts" << false << false;
    QTest::newRow("item_count") << "item_count" << false << false;
    QTest::newRow("refund_id") << "refund_id" << false << true;
    QTest::newRow("pickupId") << "pickupId" << false << true;
    QTest::newRow("id") << "id" << false << true;
    QTest::newRow("ID") << "ID" << false << true;
    QTest::newRow("idempotency_key") << "idempotency_key" << false << false;
    QTest::newRow("paid") << "paid" << false << false;
}

void ToolClassSuggestionTest::moneyAndIdNames()
{
    QFETCH(QString, name);
    QFETCH(bool, money);
    QFETCH(bool, id);
    QCOMPARE(isMoneyName(name), money);
    QCOMPARE(isIdName(name), id);
}

void ToolClassSuggestionTest::resultsAsAPersonReadsThem_data()
{
    QTest::addColumn<QString>("raw");
    QTest::addColumn<QString>("shown");
    QTest::newRow("object") << R"({"pickup_id":"pk_9"})"
                            << R"({"pickup_id":"pk_9"})";
    QTest::newRow("a chat message's text") << R"("{\"pickup_id\":\"pk_9\"}")"
                                           << R"({"pickup_id":"pk_9"})";
    QTest::newRow("plain words") << R"("credit applied")"
                                 << "credit applied";
    QTest::newRow("not json") << "Error: courier down"
                              << "Error: courier down";
}

void ToolClassSuggestionTest::resultsAsAPersonReadsThem()
{
    QFETCH(QString, raw);
    QFETCH(QString, shown);
    QCOMPARE(readableResult(raw), shown);
}

void ToolClassSuggestionTest::infersFromWhatTheTelemetrySays_data()
{
    QTest::addColumn<QString>("definition"); // a tool definition's JSON; empty: no hint at all
    QTest::addColumn<QString>("arguments"); // the call's
    QTest::addColumn<QString>("toolClass");
    QTest::addColumn<QString>("amountField");
    QTest::addColumn<QString>("reasonHas");

    const QString noArguments = QStringLiteral("{}");
    // A schema's money argument: a money write, the whole-cents one as the amount.
    QTest::newRow("schema names amount_cents")
            << R"({"name":"issue_refund","inputSchema":{"properties":{"order_id":{"type":"string"},"amount_cents":{"type":"integer"}}}})"
            << noArguments << "write_money"
            << "amount_cents"
            << "names amount_cents";
    QTest::newRow("money argument beats readOnlyHint")
            << R"({"name":"pay","inputSchema":{"properties":{"total":{"type":"number"}}},"annotations":{"readOnlyHint":true}})"
            << noArguments << "write_money"
            << ""
            << "total";
    QTest::newRow("money in the call, not the schema")
            << R"({"name":"credit","description":"Apply a credit","annotations":{"readOnlyHint":true}})"
            << R"({"cents":500})"
            << "write_money"
            << "cents"
            << "in its call";
    QTest::newRow("a money word that is text in the schema is no money")
            << R"({"name":"note","parameters":{"properties":{"refund_reason":{"type":"string"}}}})"
            << noArguments << "none"
            << ""
            << "nothing";
    // MCP's hints.
    QTest::newRow("readOnlyHint makes a read")
            << R"({"name":"get_order","annotations":{"readOnlyHint":true,"idempotentHint":true}})"
            << R"({"order_id":"SU-1"})"
            << "read"
            << ""
            << "readOnlyHint";
    QTest::newRow("destructiveHint")
            << R"({"name":"delete_account","annotations":{"readOnlyHint":false,"destructiveHint":true}})"
            << noArguments << "write_irreversible"
            << ""
            << "destructiveHint";
    QTest::newRow("idempotentHint")
            << R"({"name":"set_status","annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true}})"
            << noArguments << "write_wasteful"
            << ""
            << "idempotentHint";
    QTest::newRow("readOnlyHint false alone")
            << R"({"name":"schedule_pickup","annotations":{"readOnlyHint":false}})" << noArguments
            << "write_costly"
            << ""
            << "readOnlyHint false";
    QTest::newRow("a hint that is no boolean is no hint")
            << R"({"name":"get_order","annotations":{"readOnlyHint":"yes"}})" << noArguments << "none"
            << ""
            << "nothing";
    // A description that says money moves; one that reads is no read.
    QTest::newRow("description refunds")
            << R"({"type":"function","function":{"name":"make_it_right","description":"Refund an order through the payment provider. Moves money."}})"
            << noArguments << "write_money"
            << ""
            << "says it moves money";
    QTest::newRow("description looks a refund up")
            << R"({"name":"refund_status","description":"Look up a refund's status."})" << noArguments
            << "none"
            << ""
            << "nothing";
    QTest::newRow("description with no money")
            << R"({"name":"message_seller","description":"Send a message to the seller."})" << noArguments
            << "none"
            << ""
            << "nothing";
    // Money beats a read-only hint, whatever says it; the best-named amount is the amount.
    QTest::newRow("a refund's description beats readOnlyHint")
            << R"({"name":"refund_order","description":"Refund the order in full.","annotations":{"readOnlyHint":true}})"
            << noArguments << "write_money"
            << ""
            << "says it moves money";
    QTest::newRow("a verb that also writes is no verb of reading")
            << R"({"name":"return_order","description":"Return the order and refund the customer."})"
            << noArguments << "write_money"
            << ""
            << "says it moves money";
    QTest::newRow("amount_cents is the amount, not a fee beside it")
            << R"({"name":"issue_refund","inputSchema":{"properties":{"amount_cents":{"type":"integer"},"restocking_fee_cents":{"type":"integer"}}}})"
            << noArguments << "write_money"
            << "amount_cents"
            << "amount_cents, restocking_fee_cents";
    QTest::newRow("in the call too") << ""
                                     << R"({"shipping_cents":0,"amount_cents":4599})"
                                     << "write_money"
                                     << "amount_cents"
                                     << "in its call";
    // A name that says money: a money write, unless the server says it reads.
    QTest::newRow("a name that refunds") << R"({"name":"refund_order","description":""})"
                                         << R"({"order_id":"SU-1"})"
                                         << "write_money"
                                         << ""
                                         << "its name";
    QTest::newRow("a name that refunds, marked read-only")
            << R"({"name":"refund_status","annotations":{"readOnlyHint":true}})" << noArguments << "read"
            << ""
            << "readOnlyHint";
    QTest::newRow("a name that reads a refund")
            << R"({"name":"get_refund","description":"x"})" << noArguments << "none"
            << ""
            << "nothing";
    // A read-only tool whose own words say it reads: its money filters make no money write.
    QTest::newRow("a search with a money filter, marked read-only")
            << R"({"name":"search_orders","inputSchema":{"properties":{"min_total":{"type":"number"}}},"annotations":{"readOnlyHint":true}})"
            << noArguments << "read"
            << ""
            << "says it reads";
    QTest::newRow("a description that returns what it reads")
            << R"({"name":"order_history","description":"Returns the order with its payment and refund history."})"
            << noArguments << "none"
            << ""
            << "nothing";
    QTest::newRow("check out and charge")
            << R"({"name":"checkout","description":"Check out the cart and charge the card."})" << noArguments
            << "write_money"
            << ""
            << "says it moves money";
    QTest::newRow("a name that says what it reads")
            << R"({"name":"refund_status","description":""})" << noArguments << "none"
            << ""
            << "nothing";
    QTest::newRow("a name that computes")
            << R"({"name":"calc_refund_amount","description":""})" << noArguments << "none"
            << ""
            << "nothing";
    QTest::newRow("dollars as text beat readOnlyHint")
            << R"({"name":"h_tool","annotations":{"readOnlyHint":true}})"
            << R"({"amount":"$45.99"})"
            << "write_money"
            << ""
            << "amount looks like money";
    // No hint: what the call suggests.
    QTest::newRow("no hint, money arguments") << ""
                                              << R"({"amount_cents":4599})"
                                              << "write_money"
                                              << "amount_cents"
                                              << "in its call";
    QTest::newRow("no hint, no clue") << ""
                                      << R"({"order_id":"SU-1"})"
                                      << "none"
                                      << ""
                                      << "nothing";
}

void ToolClassSuggestionTest::infersFromWhatTheTelemetrySays()
{
    QFETCH(QString, definition);
    QFETCH(QString, arguments);
    QFETCH(QString, toolClass);
    QFETCH(QString, amountField);
    QFETCH(QString, reasonHas);

    std::optional<NamedToolHint> named;
    if (!definition.isEmpty()) {
        named = readToolDefinition(nlohmann::json::parse(definition.toStdString()), QStringLiteral("test"));
        QVERIFY(named);
    }
    const ToolClassSuggestion inferred = inferToolClass(named ? named->tool : QStringLiteral("tool_9"),
                                                        named ? &named->hint : nullptr, arguments, QString());
    QCOMPARE(classText(inferred), toolClass);
    QCOMPARE(inferred.amountField, amountField);
    QVERIFY2(inferred.reason.contains(reasonHas), qPrintable(inferred.reason));
}

void ToolClassSuggestionTest::readsEachShapeOfDefinition_data()
{
    QTest::addColumn<QString>("definitions");
    QTest::addColumn<QString>("tool"); // the first definition's; empty when none is read
    QTest::addColumn<QString>("description");
    QTest::addColumn<QString>("parameters"); // name:type, joined by ","
    QTest::addColumn<QString>("readOnly"); // "true", "false" or "" when not stated

    QTest::newRow("GenAI conventions")
            << R"([{"type":"function","name":"f","description":"d","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}])"
            << "f"
            << "d"
            << "a:integer"
            << "";
    QTest::newRow("AI SDK, as JSON text")
            << R"(["{\"type\":\"function\",\"name\":\"f\",\"inputSchema\":{\"properties\":{\"a\":{\"type\":\"string\"}}}}"])"
            << "f"
            << ""
            << "a:string"
            << "";
    QTest::newRow("OpenAI function")
            << R"([{"type":"function","function":{"name":"f","description":"d","parameters":{"properties":{"a":{"type":["integer","null"]}}}}}])"
            << "f"
            << "d"
            << "a:integer"
            << "";
    QTest::newRow("Anthropic") << R"([{"name":"f","description":"d","input_schema":{"properties":{"a":{}}}}])"
                               << "f"
                               << "d"
                               << "a:"
                               << "";
    QTest::newRow("MCP tools/list answer")
            << R"({"tools":[{"name":"f","inputSchema":{},"annotations":{"readOnlyHint":false}}]})"
            << "f"
            << ""
            << ""
            << "false";
    QTest::newRow("a whole list as JSON text") << R"("[{\"name\":\"f\",\"description\":\"d\"}]")"
                                               << "f"
                                               << "d"
                                               << ""
                                               << "";
    QTest::newRow("no name") << R"([{"type":"function","description":"d"}])"
                             << ""
                             << ""
                             << ""
                             << "";
    QTest::newRow("name not text") << R"([{"name":7}])"
                                   << ""
                                   << ""
                                   << ""
                                   << "";
    QTest::newRow("not a list") << R"(42)"
                                << ""
                                << ""
                                << ""
                                << "";
    QTest::newRow("broken JSON text") << R"("[{\"name\":")"
                                      << ""
                                      << ""
                                      << ""
                                      << "";
}

void ToolClassSuggestionTest::readsEachShapeOfDefinition()
{
    QFETCH(QString, definitions);
    QFETCH(QString, tool);
    QFETCH(QString, description);
    QFETCH(QString, parameters);
    QFETCH(QString, readOnly);

    const QList<NamedToolHint> read =
            readToolDefinitions(nlohmann::json::parse(definitions.toStdString()), QStringLiteral("test"));
    if (tool.isEmpty()) {
        QVERIFY(read.isEmpty());
        return;
    }
    QCOMPARE(read.size(), 1);
    QCOMPARE(read.first().tool, tool);
    const ToolHint &hint = read.first().hint;
    QCOMPARE(hint.source, QStringLiteral("test"));
    QCOMPARE(hint.description, description);
    QStringList seen;
    for (const auto &[name, type] : hint.parameters)
        seen.append(name + u':' + type);
    QCOMPARE(seen.join(u','), parameters);
    QCOMPARE(hint.readOnly ? (*hint.readOnly ? QStringLiteral("true") : QStringLiteral("false")) : QString(),
             readOnly);
}

void ToolClassSuggestionTest::mergesHintsOfOneTool()
{
    ToolHint hint;
    hint.source = QStringLiteral("gen_ai.tool.definitions");
    hint.parameters = {{QStringLiteral("a"), QStringLiteral("string")}};
    ToolHint more;
    more.source = QStringLiteral("tools/list");
    more.description = QStringLiteral("d");
    more.parameters = {{QStringLiteral("a"), QStringLiteral("integer")}, {QStringLiteral("b"), QString()}};
    more.readOnly = true;
    mergeToolHint(hint, more);
    QCOMPARE(hint.source, QStringLiteral("gen_ai.tool.definitions")); // the first source stays
    QCOMPARE(hint.description, QStringLiteral("d"));
    QCOMPARE(hint.parameters.size(), 2);
    QCOMPARE(hint.parameters.first().second, QStringLiteral("string")); // known stays
    QCOMPARE(hint.readOnly, std::optional<bool>(true));
}

QTEST_APPLESS_MAIN(ToolClassSuggestionTest)
#include "tst_toolclasssuggestion.moc"

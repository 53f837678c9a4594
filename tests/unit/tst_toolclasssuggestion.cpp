// What the Classify dialog first offers for a tool nobody classified, as a table: money
// arguments make a money write, an id the call created makes a costly write, no clue makes
// no suggestion, and nothing is ever suggested as a read.

#include "domain/toolclasssuggestion.h"

#include <QTest>

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

QTEST_APPLESS_MAIN(ToolClassSuggestionTest)
#include "tst_toolclasssuggestion.moc"

// Redaction of a buyer's personal data: what is taken out of text and JSON, what must stay
// (amounts, dates, ids, sellers), and that one value has one placeholder everywhere, so intent
// keys stay equal where they were equal and different where they were different.

#include "domain/intentkey.h"
#include "domain/registryselection.h"
#include "replay/redaction.h"

#include <QTest>

#include <nlohmann/json.hpp>

using namespace verity;
using nlohmann::json;

namespace {

// Every row starts from a redactor that knows the ticket's customer, as an export does.
BuyerDataRedactor demoRedactor()
{
    BuyerDataRedactor redactor;
    redactor.learnBuyer(QStringLiteral("Dana Whitfield"), QStringLiteral("dana.whitfield@example.com"));
    return redactor;
}

json parsed(const QString &text)
{
    return json::parse(text.toStdString());
}

} // namespace

class TestRedaction : public QObject
{
    Q_OBJECT

private slots:
    void text_data();
    void text();
    void json_data();
    void json();
    void sameValueSamePlaceholderEverywhere();
    void namesFromArgumentsLeaveEarlierText();
    void phoneFormatsOfOneNumberShareAPlaceholder();
    void intentKeysKeepTheirEquality();
    void countsSayWhatWasTakenOut();
};

void TestRedaction::text_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");

    QTest::newRow("full name") << QStringLiteral("Hi Dana Whitfield, thanks for waiting.")
                               << QStringLiteral("Hi Buyer 1, thanks for waiting.");
    QTest::newRow("first name alone") << QStringLiteral("Thanks Dana!") << QStringLiteral("Thanks Buyer 1!");
    QTest::newRow("last name alone") << QStringLiteral("Ms. Whitfield called back.")
                                     << QStringLiteral("Ms. Buyer 1 called back.");
    QTest::newRow("name in capitals") << QStringLiteral("DANA WHITFIELD") << QStringLiteral("Buyer 1");
    QTest::newRow("customer e-mail") << QStringLiteral("Write to dana.whitfield@example.com please")
                                     << QStringLiteral("Write to buyer1@example.invalid please");
    QTest::newRow("another e-mail") << QStringLiteral("or j.doe+orders@mail.co.uk")
                                    << QStringLiteral("or buyer2@example.invalid");
    QTest::newRow("introduced name") << QStringLiteral("Sure! My name is Mei Patel and my zip is 76165.")
                                     << QStringLiteral("Sure! My name is Buyer 2 and my zip is 76165.");
    QTest::newRow("US phone, dashes") << QStringLiteral("Call 555-123-4567 today") << QStringLiteral("Call [phone 1] today");
    QTest::newRow("US phone, parentheses") << QStringLiteral("Call (555) 123-4567.") << QStringLiteral("Call [phone 1].");
    QTest::newRow("US phone, dots") << QStringLiteral("555.123.4567") << QStringLiteral("[phone 1]");
    QTest::newRow("US phone, +1") << QStringLiteral("ring +1 (555) 123-4567") << QStringLiteral("ring [phone 1]");
    QTest::newRow("toll free") << QStringLiteral("1-800-555-0199 is free") << QStringLiteral("[phone 1] is free");
    QTest::newRow("UK phone") << QStringLiteral("Tel: +44 20 7946 0958") << QStringLiteral("Tel: [phone 1]");
    QTest::newRow("E.164 phone") << QStringLiteral("+15551234567") << QStringLiteral("[phone 1]");
    QTest::newRow("street and unit") << QStringLiteral("Ship to 443 Maple Drive, Apt 4B, please.")
                                     << QStringLiteral("Ship to [address 1], [address 2], please.");
    QTest::newRow("abbreviated street") << QStringLiteral("I'm at 12 Main St. now") << QStringLiteral("I'm at [address 1] now");
    QTest::newRow("suite") << QStringLiteral("Suite 394") << QStringLiteral("[address 1]");

    // What must not be touched.
    const QStringList untouched{
        QStringLiteral("I've refunded $118.00 to your card; $150 is the ceiling."),
        QStringLiteral("Placed 2026-03-17 at 14:32:07Z, delivered 2026-03-16T12:05:00Z, 03/17/2026, 10:30."),
        QStringLiteral("Order SU-88421, item OAK-4S, quantity 1, 11800 cents."),
        QStringLiteral("Refund re_qC5HTJz9NXdvjue0N7DDR7I5 and re_B69RgwuSCddMBH are queued."),
        QStringLiteral("Idempotency-Key 611cd3de-414a-4261-88b1-e77f4b062153, trace 9b2f0c8e5d1a4c57a7f31e6b2d9c4a10."),
        QStringLiteral("Ashcombe Furniture will be told about the damage."),
        QStringLiteral("Item 7751905257 of order #W9583042, product 6858788497, card credit_card_9503061."),
        QStringLiteral("It normally shows within 3 to 5 business days; the 500-piece puzzle; a 4-shelf oak shelving unit."),
        QStringLiteral("Total 1,234.56 USD; 2 of 4 lines; version 1.2.3; line L1001 on plan P1001."),
        QStringLiteral("Call issue_refund, then get_order; escalate_to_human above $150.00."),
    };
    for (const QString &text : untouched)
        QTest::newRow(qPrintable(QStringLiteral("keeps: ") + text.left(40))) << text << text;
}

void TestRedaction::text()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    BuyerDataRedactor redactor = demoRedactor();
    redactor.learnFromText(input);
    QCOMPARE(redactor.redactText(input), expected);
}

void TestRedaction::json_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");

    QTest::newRow("τ name and zip lookup")
        << QStringLiteral(R"({"first_name":"Yusuf","last_name":"Rossi","zip":"19122"})")
        << QStringLiteral(R"({"first_name":"Buyer 2","last_name":"Buyer 2","zip":"[zip 1]"})");
    QTest::newRow("τ address change")
        << QStringLiteral(R"({"user_id":"yusuf_rossi_9620","address1":"445 Maple Drive","address2":"Suite 394",)"
                          R"("city":"Fort Worth","state":"TX","country":"USA","zip":"76165"})")
        << QStringLiteral(R"({"address1":"[address 1]","address2":"[address 2]","city":"[city 1]","country":"USA",)"
                          R"("state":"TX","user_id":"[user id 1]","zip":"[zip 1]"})");
    QTest::newRow("products keep their names")
        << QStringLiteral(R"({"order_id":"#W4082615","items":[{"name":"Jigsaw Puzzle","item_id":"9779102705","price":54.11}]})")
        << QStringLiteral(R"({"items":[{"item_id":"9779102705","name":"Jigsaw Puzzle","price":54.11}],"order_id":"#W4082615"})");
    QTest::newRow("sellers keep their names")
        << QStringLiteral(R"({"seller":{"id":"ashcombe-furniture","name":"Ashcombe Furniture"},"amount_cents":11800})")
        << QStringLiteral(R"({"amount_cents":11800,"seller":{"id":"ashcombe-furniture","name":"Ashcombe Furniture"}})");
    QTest::newRow("buyer in a result")
        << QStringLiteral(R"({"order_id":"SU-88421","buyer":"Dana Whitfield","total_cents":11800,"placed_at":"2026-03-10T20:17:09Z"})")
        << QStringLiteral(R"({"buyer":"Buyer 1","order_id":"SU-88421","placed_at":"2026-03-10T20:17:09Z","total_cents":11800})");
    QTest::newRow("τ user details")
        << QStringLiteral(R"({"user_id":"mei_patel_7272","name":{"first_name":"Mei","last_name":"Patel"},)"
                          R"("email":"mei.patel3193@example.com","payment_methods":{"credit_card_9503061":)"
                          R"({"source":"credit_card","brand":"visa","last_four":"8902","id":"credit_card_9503061"}}})")
        << QStringLiteral(R"({"email":"buyer2@example.invalid","name":{"first_name":"Buyer 2","last_name":"Buyer 2"},)"
                          R"("payment_methods":{"credit_card_9503061":{"brand":"visa","id":"credit_card_9503061",)"
                          R"("last_four":"[card 1]","source":"credit_card"}},"user_id":"[user id 1]"})");
    QTest::newRow("telecom customer")
        << QStringLiteral(R"({"customer_id":"C1001","full_name":"John Smith","date_of_birth":"1985-06-15",)"
                          R"("phone_number":"555-123-2002","address":{"street":"123 Main St","city":"Anytown",)"
                          R"("state":"CA","zip_code":"12345"}})")
        << QStringLiteral(R"({"address":{"city":"[city 1]","state":"CA","street":"[address 1]","zip_code":"[zip 1]"},)"
                          R"("customer_id":"C1001","date_of_birth":"[birth date 1]","full_name":"Buyer 2",)"
                          R"("phone_number":"[phone 1]"})");
    QTest::newRow("passengers")
        << QStringLiteral(R"({"reservation_id":"Z7GOZK","passengers":[{"first_name":"Mia","last_name":"Li","dob":"1990-04-05"}]})")
        << QStringLiteral(R"({"passengers":[{"dob":"[birth date 1]","first_name":"Buyer 2","last_name":"Buyer 2"}],)"
                          R"("reservation_id":"Z7GOZK"})");
    QTest::newRow("a named person object")
        << QStringLiteral(R"({"customer":{"name":"Dana Whitfield","email":"dana.whitfield@example.com"}})")
        << QStringLiteral(R"({"customer":{"email":"buyer1@example.invalid","name":"Buyer 1"}})");
    QTest::newRow("free text inside a result")
        << QStringLiteral(R"({"note":"Dana asked to call 555-123-4567","refund_id":"re_B69RgwuSCddMBH"})")
        << QStringLiteral(R"({"note":"Buyer 1 asked to call [phone 1]","refund_id":"re_B69RgwuSCddMBH"})");
    QTest::newRow("an id without a name stays")
        << QStringLiteral(R"({"user_id":"C1001","order_id":"SU-88421"})")
        << QStringLiteral(R"({"order_id":"SU-88421","user_id":"C1001"})");
}

void TestRedaction::json()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    BuyerDataRedactor redactor = demoRedactor();
    redactor.learnFromJsonText(input);
    QCOMPARE(QString::fromStdString(redactor.redactJson(parsed(input)).dump()), QString::fromStdString(parsed(expected).dump()));
}

void TestRedaction::sameValueSamePlaceholderEverywhere()
{
    BuyerDataRedactor redactor = demoRedactor();
    const QString arguments = QStringLiteral(
        R"({"user_id":"yusuf_rossi_9620","address1":"12 Elm Street","city":"Philadelphia","zip":"19122"})");
    const QString result = QStringLiteral(R"("yusuf_rossi_9620")");
    const QString message = QStringLiteral("Yusuf Rossi here, I moved to 12 Elm Street, Philadelphia 19122. I'm yusuf_rossi_9620.");
    redactor.learnFromText(message);
    redactor.learnFromJsonText(arguments);
    redactor.learnFromJsonText(result);

    QCOMPARE(redactor.redactText(message),
             QStringLiteral("Buyer 2 here, I moved to [address 1], [city 1] [zip 1]. I'm [user id 1]."));
    QCOMPARE(redactor.redactJsonText(arguments),
             QStringLiteral(R"({"address1":"[address 1]","city":"[city 1]","user_id":"[user id 1]","zip":"[zip 1]"})"));
    QCOMPARE(redactor.redactJsonText(result), QStringLiteral(R"("[user id 1]")"));
    QCOMPARE(redactor.redactText(QStringLiteral("Yusuf")), QStringLiteral("Buyer 2"));
    QCOMPARE(redactor.redactText(QStringLiteral("Rossi")), QStringLiteral("Buyer 2"));
    // The first buyer keeps hers.
    QCOMPARE(redactor.redactText(QStringLiteral("Dana")), QStringLiteral("Buyer 1"));
    QCOMPARE(redactor.placeholderOf(QStringLiteral("12 elm street")), QStringLiteral("[address 1]"));
}

void TestRedaction::namesFromArgumentsLeaveEarlierText()
{
    // The export learns everything before it redacts anything: a name that only a later call's
    // arguments reveal is still taken out of the first message.
    BuyerDataRedactor redactor;
    const QString early = QStringLiteral("Hello, Mei here. Patel is my surname.");
    redactor.learnFromText(early);
    redactor.learnFromJsonText(QStringLiteral(R"({"first_name":"Mei","last_name":"Patel","zip":"76165"})"));
    QCOMPARE(redactor.redactText(early), QStringLiteral("Hello, Buyer 1 here. Buyer 1 is my surname."));
}

void TestRedaction::phoneFormatsOfOneNumberShareAPlaceholder()
{
    BuyerDataRedactor redactor;
    QCOMPARE(redactor.redactText(QStringLiteral("555-123-4567")), QStringLiteral("[phone 1]"));
    QCOMPARE(redactor.redactText(QStringLiteral("(555) 123-4567")), QStringLiteral("[phone 1]"));
    QCOMPARE(redactor.redactText(QStringLiteral("+1 555 123 4567")), QStringLiteral("[phone 1]"));
    QCOMPARE(redactor.redactText(QStringLiteral("555-987-6543")), QStringLiteral("[phone 2]"));
    QCOMPARE(QString::fromStdString(redactor.redactJson(parsed(QStringLiteral(R"({"phone":"5551234567"})"))).dump()),
             QStringLiteral(R"({"phone":"[phone 1]"})"));
}

void TestRedaction::intentKeysKeepTheirEquality()
{
    Expected<ToolRegistry> retail = builtInProfile(QStringLiteral("tau-retail"));
    QVERIFY2(retail, retail ? "" : qPrintable(retail.message()));
    const ToolSpec *tool = retail->find(QStringLiteral("modify_user_address"));
    QVERIFY(tool);
    const TicketFacts facts{{QStringLiteral("ticket_id"), QStringLiteral("T-1")}};
    const QString first = QStringLiteral(R"({"user_id":"yusuf_rossi_9620","address1":"12 Elm Street","address2":"Apt 4B",)"
                                         R"("city":"Philadelphia","state":"PA","country":"USA","zip":"19122"})");
    const QString again = first; // the same intent, sent twice
    const QString other = QStringLiteral(R"({"user_id":"yusuf_rossi_9620","address1":"14 Elm Street","address2":"Apt 4B",)"
                                         R"("city":"Philadelphia","state":"PA","country":"USA","zip":"19122"})");
    BuyerDataRedactor redactor;
    for (const QString &arguments : {first, again, other})
        redactor.learnFromJsonText(arguments);
    const auto keyOf = [&](const QString &arguments) {
        Expected<QString> key = intentKey(*tool, parsed(redactor.redactJsonText(arguments)), facts);
        return key ? *key : QString();
    };
    const QString firstKey = keyOf(first);
    QVERIFY(!firstKey.isEmpty());
    QCOMPARE(keyOf(again), firstKey);
    QVERIFY(keyOf(other) != firstKey);
    QVERIFY(!redactor.redactJsonText(first).contains(QLatin1String("Elm")));
}

void TestRedaction::countsSayWhatWasTakenOut()
{
    BuyerDataRedactor redactor = demoRedactor();
    QCOMPARE(redactor.summary(), QStringLiteral("nothing"));
    (void)redactor.redactText(QStringLiteral("Dana Whitfield, dana.whitfield@example.com, Dana, 555-123-4567"));
    const QList<RedactionCount> counts = redactor.counts();
    QCOMPARE(counts.size(), 3);
    QCOMPARE(counts.at(0).kind, PersonalKind::Name);
    QCOMPARE(counts.at(0).values, 1);
    QCOMPARE(counts.at(0).occurrences, qint64(2));
    QCOMPARE(counts.at(1).kind, PersonalKind::Email);
    QCOMPARE(counts.at(2).kind, PersonalKind::Phone);
    QCOMPARE(redactor.summary(), QStringLiteral("1 name (2 places), 1 e-mail address (1 place), 1 phone number (1 place)"));
}

QTEST_GUILESS_MAIN(TestRedaction)
#include "tst_redaction.moc"

// Redaction of a buyer's personal data: what is taken out of text and JSON, what must stay
// (amounts, dates, ids, sellers), and that one value has one placeholder everywhere, so intent
// keys stay equal where they were equal and different where they were different.

#include "domain/intentkey.h"
#include "domain/registryselection.h"
#include "replay/redaction.h"
#include "replay/redactionrules.h"

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
    void nameParts_data();
    void nameParts();
    void urls_data();
    void urls();
    void identifiers_data();
    void identifiers();
    void knownValuesEncodedOrNot_data();
    void knownValuesEncodedOrNot();
    void keyNormalisation_data();
    void keyNormalisation();
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
    QTest::newRow("US phone, dashes")
            << QStringLiteral("Call 555-123-4567 today") << QStringLiteral("Call [phone 1] today");
    QTest::newRow("US phone, parentheses")
            << QStringLiteral("Call (555) 123-4567.") << QStringLiteral("Call [phone 1].");
    QTest::newRow("US phone, dots") << QStringLiteral("555.123.4567") << QStringLiteral("[phone 1]");
    QTest::newRow("US phone, +1") << QStringLiteral("ring +1 (555) 123-4567")
                                  << QStringLiteral("ring [phone 1]");
    QTest::newRow("toll free") << QStringLiteral("1-800-555-0199 is free")
                               << QStringLiteral("[phone 1] is free");
    QTest::newRow("UK phone") << QStringLiteral("Tel: +44 20 7946 0958") << QStringLiteral("Tel: [phone 1]");
    QTest::newRow("E.164 phone") << QStringLiteral("+15551234567") << QStringLiteral("[phone 1]");
    QTest::newRow("street and unit") << QStringLiteral("Ship to 443 Maple Drive, Apt 4B, please.")
                                     << QStringLiteral("Ship to [address 1], [address 2], please.");
    QTest::newRow("abbreviated street")
            << QStringLiteral("I'm at 12 Main St. now") << QStringLiteral("I'm at [address 1] now");
    QTest::newRow("suite") << QStringLiteral("Suite 394") << QStringLiteral("[address 1]");
    QTest::newRow("UK mobile") << QStringLiteral("Call me on 07700 900123 or later")
                               << QStringLiteral("Call me on [phone 1] or later");
    QTest::newRow("UK landline, parentheses")
            << QStringLiteral("(020) 7946 0958") << QStringLiteral("[phone 1]");
    QTest::newRow("UK landline") << QStringLiteral("Ring 020 7946 0958.")
                                 << QStringLiteral("Ring [phone 1].");
    QTest::newRow("UK international, same number") << QStringLiteral("020 7946 0958 or +44 20 7946 0958")
                                                   << QStringLiteral("[phone 1] or [phone 1]");
    QTest::newRow("French phone") << QStringLiteral("+33 1 42 68 53 00") << QStringLiteral("[phone 1]");
    QTest::newRow("short phone") << QStringLiteral("dial 555-1234 after six")
                                 << QStringLiteral("dial [phone 1] after six");
    QTest::newRow("encoded E.164 phone")
            << QStringLiteral("phone %2B15551234567") << QStringLiteral("phone [phone 1]");
    QTest::newRow("French street") << QStringLiteral("I live at 42 rue de Rivoli, 75001 Paris.")
                                   << QStringLiteral("I live at [address 1], [zip 1] [city 1].");
    QTest::newRow("French street, capitalised")
            << QStringLiteral("4 Rue de la Paix") << QStringLiteral("[address 1]");
    QTest::newRow("German street") << QStringLiteral("Hauptstraße 5, 10115 Berlin")
                                   << QStringLiteral("[address 1], [zip 1] [city 1]");
    QTest::newRow("Italian street") << QStringLiteral("Via Roma 5") << QStringLiteral("[address 1]");
    QTest::newRow("PO box") << QStringLiteral("Send it to PO Box 123.")
                            << QStringLiteral("Send it to [address 1].");
    QTest::newRow("P.O. box") << QStringLiteral("P.O. Box 77") << QStringLiteral("[address 1]");
    QTest::newRow("UK address and postcode")
            << QStringLiteral("We live at 221B Baker Street, London NW1 6XE.")
            << QStringLiteral("We live at [address 1], [city 1] [zip 1].");
    QTest::newRow("UK postcode alone")
            << QStringLiteral("postcode SW1A 1AA") << QStringLiteral("postcode [zip 1]");
    QTest::newRow("card, spaces") << QStringLiteral("card 4111 1111 1111 1111 expired")
                                  << QStringLiteral("card [card 1] expired");
    QTest::newRow("card, dashes, same card") << QStringLiteral("4111-1111-1111-1111 = 4111 1111 1111 1111")
                                             << QStringLiteral("[card 1] = [card 1]");
    QTest::newRow("Amex grouping") << QStringLiteral("3782 822463 10005") << QStringLiteral("[card 1]");
    QTest::newRow("name part in capitals")
            << QStringLiteral("WHITFIELD called") << QStringLiteral("Buyer 1 called");
    QTest::newRow("name part in lower case")
            << QStringLiteral("whitfield called") << QStringLiteral("Buyer 1 called");
    QTest::newRow("name between underscores")
            << QStringLiteral("see re_Dana_Whitfield") << QStringLiteral("see re_Buyer 1_Buyer 1");
    QTest::newRow("encoded e-mail") << QStringLiteral("customer_email=dana.whitfield%40example.com")
                                    << QStringLiteral("customer_email=buyer1@example.invalid");
    QTest::newRow("e-mail in capitals")
            << QStringLiteral("DANA.WHITFIELD@EXAMPLE.COM") << QStringLiteral("buyer1@example.invalid");
    QTest::newRow("plus-encoded name")
            << QStringLiteral("cust=Dana+Whitfield") << QStringLiteral("cust=Buyer 1");
    QTest::newRow("URL in text")
            << QStringLiteral("see https://psp.example/r?email=dana.whitfield%40example.com now")
            << QStringLiteral("see https://psp.example/r?email=buyer1%40example.invalid now");

    // What must not be touched.
    const QStringList untouched{
            QStringLiteral("I've refunded $118.00 to your card; $150 is the ceiling."),
            QStringLiteral(
                    "Placed 2026-03-17 at 14:32:07Z, delivered 2026-03-16T12:05:00Z, 03/17/2026, 10:30."),
            QStringLiteral("Order SU-88421, item OAK-4S, quantity 1, 11800 cents."),
            QStringLiteral("Refund re_qC5HTJz9NXdvjue0N7DDR7I5 and re_B69RgwuSCddMBH are queued."),
            QStringLiteral("Idempotency-Key 611cd3de-414a-4261-88b1-e77f4b062153, trace "
                           "9b2f0c8e5d1a4c57a7f31e6b2d9c4a10."),
            QStringLiteral("Ashcombe Furniture will be told about the damage."),
            QStringLiteral(
                    "Item 7751905257 of order #W9583042, product 6858788497, card credit_card_9503061."),
            QStringLiteral("It normally shows within 3 to 5 business days; the 500-piece puzzle; a 4-shelf "
                           "oak shelving unit."),
            QStringLiteral("Total 1,234.56 USD; 2 of 4 lines; version 1.2.3; line L1001 on plan P1001."),
            QStringLiteral("Call issue_refund, then get_order; escalate_to_human above $150.00."),
            QStringLiteral(
                    "Order #W5481803 and SU-88421 at 14:32; item 7751905257; 11800 cents; 2026-03-17."),
            QStringLiteral("Not a card: 4111-1111-1111-1112; not one either: 1234 5678 9012."),
            QStringLiteral("Timestamp 1773800000000, uuid 550e8400-e29b-41d4-a716-446655440000, key "
                           "refund-SU-88421-1."),
            QStringLiteral("Rooms 101-205, a 500-piece puzzle, 3 of 12345 points, in 2026 Paris hosted it."),
            QStringLiteral(
                    "Ashcombe Furniture shipped 12 items via UPS; refund re_B69RgwuSCddMBH on 03/17/2026."),
            QStringLiteral("Version 020 of the form; ISO 8601; page 12 of 40; RFC 7231."),
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
            << QStringLiteral(
                       R"({"user_id":"yusuf_rossi_9620","address1":"445 Maple Drive","address2":"Suite 394",)"
                       R"("city":"Fort Worth","state":"TX","country":"USA","zip":"76165"})")
            << QStringLiteral(
                       R"({"address1":"[address 1]","address2":"[address 2]","city":"[city 1]","country":"USA",)"
                       R"("state":"TX","user_id":"[user id 1]","zip":"[zip 1]"})");
    QTest::newRow("products keep their names")
            << QStringLiteral(
                       R"({"order_id":"#W4082615","items":[{"name":"Jigsaw Puzzle","item_id":"9779102705","price":54.11}]})")
            << QStringLiteral(
                       R"({"items":[{"item_id":"9779102705","name":"Jigsaw Puzzle","price":54.11}],"order_id":"#W4082615"})");
    QTest::newRow("sellers keep their names")
            << QStringLiteral(
                       R"({"seller":{"id":"ashcombe-furniture","name":"Ashcombe Furniture"},"amount_cents":11800})")
            << QStringLiteral(
                       R"({"amount_cents":11800,"seller":{"id":"ashcombe-furniture","name":"Ashcombe Furniture"}})");
    QTest::newRow("buyer in a result")
            << QStringLiteral(
                       R"({"order_id":"SU-88421","buyer":"Dana Whitfield","total_cents":11800,"placed_at":"2026-03-10T20:17:09Z"})")
            << QStringLiteral(
                       R"({"buyer":"Buyer 1","order_id":"SU-88421","placed_at":"2026-03-10T20:17:09Z","total_cents":11800})");
    QTest::newRow("τ user details")
            << QStringLiteral(
                       R"({"user_id":"mei_patel_7272","name":{"first_name":"Mei","last_name":"Patel"},)"
                       R"("email":"mei.patel3193@example.com","payment_methods":{"credit_card_9503061":)"
                       R"({"source":"credit_card","brand":"visa","last_four":"8902","id":"credit_card_9503061"}}})")
            << QStringLiteral(
                       R"({"email":"buyer2@example.invalid","name":{"first_name":"Buyer 2","last_name":"Buyer 2"},)"
                       R"("payment_methods":{"credit_card_9503061":{"brand":"visa","id":"credit_card_9503061",)"
                       R"("last_four":"[card 1]","source":"credit_card"}},"user_id":"[user id 1]"})");
    QTest::newRow("telecom customer")
            << QStringLiteral(
                       R"({"customer_id":"C1001","full_name":"John Smith","date_of_birth":"1985-06-15",)"
                       R"("phone_number":"555-123-2002","address":{"street":"123 Main St","city":"Anytown",)"
                       R"("state":"CA","zip_code":"12345"}})")
            << QStringLiteral(
                       R"({"address":{"city":"[city 1]","state":"CA","street":"[address 1]","zip_code":"[zip 1]"},)"
                       R"("customer_id":"C1001","date_of_birth":"[birth date 1]","full_name":"Buyer 2",)"
                       R"("phone_number":"[phone 1]"})");
    QTest::newRow("passengers") << QStringLiteral(
            R"({"reservation_id":"Z7GOZK","passengers":[{"first_name":"Mia","last_name":"Li","dob":"1990-04-05"}]})")
                                << QStringLiteral(
                                           R"({"passengers":[{"dob":"[birth date 1]","first_name":"Buyer 2","last_name":"Buyer 2"}],)"
                                           R"("reservation_id":"Z7GOZK"})");
    QTest::newRow("a named person object")
            << QStringLiteral(
                       R"({"customer":{"name":"Dana Whitfield","email":"dana.whitfield@example.com"}})")
            << QStringLiteral(R"({"customer":{"email":"buyer1@example.invalid","name":"Buyer 1"}})");
    QTest::newRow("free text inside a result")
            << QStringLiteral(R"({"note":"Dana asked to call 555-123-4567","refund_id":"re_B69RgwuSCddMBH"})")
            << QStringLiteral(
                       R"({"note":"Buyer 1 asked to call [phone 1]","refund_id":"re_B69RgwuSCddMBH"})");
    QTest::newRow("camelCase keys")
            << QStringLiteral(
                       R"({"customerName":"Joan Smith-Jones","recipientName":"Mary McDonald",)"
                       R"("emailAddress":"joan@example.org","mobileNumber":"07700 900123","contactNumber":"5551234567",)"
                       R"("phoneNumber":"0142960000","dateOfBirth":"1985-06-15","postalCode":"75002","zipCode":"90210",)"
                       R"("streetAddress":"4 Rue de la Paix","deliveryAddress":"1 Elm St","shippingAddress":"2 Oak St",)"
                       R"("billingAddress":"3 Ash St","orderId":"SU-88421"})")
            << QStringLiteral(
                       R"({"billingAddress":"[address 1]","contactNumber":"[phone 1]","customerName":"Buyer 2",)"
                       R"("dateOfBirth":"[birth date 1]","deliveryAddress":"[address 2]","emailAddress":"buyer2@example.invalid",)"
                       R"("mobileNumber":"[phone 2]","orderId":"SU-88421","phoneNumber":"[phone 3]","postalCode":"[zip 1]",)"
                       R"("recipientName":"Buyer 3","shippingAddress":"[address 3]","streetAddress":"[address 4]","zipCode":"[zip 2]"})");
    QTest::newRow("name where a parcel goes")
            << QStringLiteral(
                       R"({"ship_to":{"name":"Sean O\u0027Brien","line1":"1 Main St"},"shipTo":{"name":"Sean O\u0027Brien"}})")
            << QStringLiteral(
                       R"({"shipTo":{"name":"Buyer 2"},"ship_to":{"line1":"[address 1]","name":"Buyer 2"}})");
    QTest::newRow("dotted and spaced keys")
            << QStringLiteral(
                       R"({"ship_to.name":"Sean O\u0027Brien","Postal Code":"75002","e-mail":"s@example.org"})")
            << QStringLiteral(
                       R"({"Postal Code":"[zip 1]","e-mail":"buyer2@example.invalid","ship_to.name":"Buyer 2"})");
    QTest::newRow("keys that are not about a person")
            << QStringLiteral(
                       R"({"ip_address":"10.0.0.1","server_name":"api-1","product":{"name":"Rose Lamp"},)"
                       R"("shipping":{"method":"express"},"customer_id":"C1001"})")
            << QStringLiteral(
                       R"({"customer_id":"C1001","ip_address":"10.0.0.1","product":{"name":"Rose Lamp"},)"
                       R"("server_name":"api-1","shipping":{"method":"express"}})");
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
    QCOMPARE(QString::fromStdString(redactor.redactJson(parsed(input)).dump()),
             QString::fromStdString(parsed(expected).dump()));
}

void TestRedaction::nameParts_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");

    QTest::newRow("apostrophe, any case")
            << QStringLiteral("Sean O'Brien")
            << QStringLiteral("Mr O'Brien called; O'BRIEN is my surname; o'brien too.")
            << QStringLiteral("Mr Buyer 1 called; Buyer 1 is my surname; Buyer 1 too.");
    QTest::newRow("curly apostrophe") << QStringLiteral("Sean O'Brien") << QStringLiteral("Dear Mr. O’Brien,")
                                      << QStringLiteral("Dear Mr. Buyer 1,");
    QTest::newRow("inner capital") << QStringLiteral("Mary McDonald")
                                   << QStringLiteral("Mrs McDonald, MCDONALD, mcdonald.")
                                   << QStringLiteral("Mrs Buyer 1, Buyer 1, Buyer 1.");
    QTest::newRow("double-barrelled") << QStringLiteral("Joan Smith-Jones")
                                      << QStringLiteral("Ms Smith-Jones, SMITH-JONES and Ms Jones.")
                                      << QStringLiteral("Ms Buyer 1, Buyer 1 and Ms Buyer 1.");
    QTest::newRow("titles are not names")
            << QStringLiteral("Mr Sean O'Brien") << QStringLiteral("Mr Sean O'Brien; Mr Smith")
            << QStringLiteral("Mr Buyer 1; Mr Smith");
    QTest::newRow("everyday words stay")
            << QStringLiteral("Will Grant")
            << QStringLiteral("We will grant it. Will Grant agreed; Mr Grant too. WE WILL GRANT IT.")
            << QStringLiteral("We will grant it. Buyer 1 agreed; Mr Buyer 1 too. WE WILL GRANT IT.");
    QTest::newRow("may and rose") << QStringLiteral("May Rose")
                                  << QStringLiteral("You may pick a rose. May wrote; so did Rose.")
                                  << QStringLiteral("You may pick a rose. Buyer 1 wrote; so did Buyer 1.");
    QTest::newRow("bill and mark") << QStringLiteral("Bill Mark")
                                   << QStringLiteral("Mark the bill paid, Bill.")
                                   << QStringLiteral("Buyer 1 the bill paid, Buyer 1.");
    QTest::newRow("two letters only capitalised")
            << QStringLiteral("Mia Li") << QStringLiteral("li and Li and LI")
            << QStringLiteral("li and Buyer 1 and LI");
    QTest::newRow("not inside a word")
            << QStringLiteral("Dana Whitfield") << QStringLiteral("Danalyn and Whitfields")
            << QStringLiteral("Danalyn and Whitfields");
}

void TestRedaction::nameParts()
{
    QFETCH(QString, name);
    QFETCH(QString, input);
    QFETCH(QString, expected);
    BuyerDataRedactor redactor;
    redactor.learnBuyer(name, QString());
    QCOMPARE(redactor.redactText(input), expected);
}

void TestRedaction::urls_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("expected");

    QTest::newRow("encoded e-mail, plus-encoded name")
            << QStringLiteral("https://psp.example/v1/"
                              "refunds?customer_email=dana.whitfield%40example.com&cust=Dana+Whitfield")
            << QStringLiteral(
                       "https://psp.example/v1/refunds?customer_email=buyer1%40example.invalid&cust=Buyer+1");
    QTest::newRow("name under a person query")
            << QStringLiteral(
                       "/v1/"
                       "refunds?email=sean.obrien%40example.com&name=Sean%20O%27Brien&phone=%2B15551234567")
            << QStringLiteral(
                       "/v1/refunds?email=buyer2%40example.invalid&name=Buyer%202&phone=%5Bphone%201%5D");
    QTest::newRow("camelCase query key")
            << QStringLiteral("/v1/c?customerEmail=x%40example.org&zipCode=75002")
            << QStringLiteral("/v1/c?customerEmail=buyer2%40example.invalid&zipCode=%5Bzip%201%5D");
    QTest::newRow("path segments") << QStringLiteral("/v1/customers/dana.whitfield%40example.com/refunds")
                                   << QStringLiteral("/v1/customers/buyer1%40example.invalid/refunds");
    QTest::newRow("name in a path id") << QStringLiteral("/v1/customers/dana_whitfield?x=1")
                                       << QStringLiteral("/v1/customers/Buyer%201_Buyer%201?x=1");
    QTest::newRow("phone in a fragment")
            << QStringLiteral("/v1/c#tel=555-123-4567") << QStringLiteral("/v1/c#tel%3D%5Bphone%201%5D");
    QTest::newRow("keeps refund id and options")
            << QStringLiteral(
                       "https://psp.example/v1/refunds/re_qC5HTJz9NXdvjue0N7DDR7I5?expand=charge&limit=10")
            << QStringLiteral(
                       "https://psp.example/v1/refunds/re_qC5HTJz9NXdvjue0N7DDR7I5?expand=charge&limit=10");
    QTest::newRow("keeps encoding it did not change")
            << QStringLiteral("/v1/orders/SU-88421?since=2026-03-17T10%3A30%3A00Z&q=oak+shelf&amount=11800")
            << QStringLiteral("/v1/orders/SU-88421?since=2026-03-17T10%3A30%3A00Z&q=oak+shelf&amount=11800");
    QTest::newRow("keeps a product name") << QStringLiteral("/v1/products?name=Jigsaw+Puzzle")
                                          << QStringLiteral("/v1/products?name=Jigsaw+Puzzle");
}

void TestRedaction::urls()
{
    QFETCH(QString, url);
    QFETCH(QString, expected);
    BuyerDataRedactor redactor = demoRedactor();
    redactor.learnFromUrl(url);
    QCOMPARE(redactor.redactUrl(url), expected);
}

void TestRedaction::identifiers_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("expected");

    QTest::newRow("e-mail in a key") << QStringLiteral("refund-dana.whitfield@example.com-SU-1")
                                     << QStringLiteral("refund-buyer1@example.invalid-SU-1");
    QTest::newRow("encoded e-mail in a key") << QStringLiteral("refund-dana.whitfield%40example.com-SU-1")
                                             << QStringLiteral("refund-buyer1@example.invalid-SU-1");
    QTest::newRow("name in an object id")
            << QStringLiteral("re_Dana_Whitfield") << QStringLiteral("re_Buyer 1_Buyer 1");
    QTest::newRow("event naming the buyer") << QStringLiteral("refund.created for dana.whitfield@example.com")
                                            << QStringLiteral("refund.created for buyer1@example.invalid");
    for (const QString &kept :
         {QStringLiteral("611cd3de-414a-4261-88b1-e77f4b062153"), QStringLiteral("refund-SU-88421-1"),
          QStringLiteral("re_qC5HTJz9NXdvjue0N7DDR7I5"), QStringLiteral("k1"),
          QStringLiteral("idem_7751905257"), QStringLiteral("refund.created"),
          QStringLiteral("9b2f0c8e5d1a4c57a7f31e6b2d9c4a10")})
        QTest::newRow(qPrintable(QStringLiteral("keeps ") + kept)) << kept << kept;
}

void TestRedaction::identifiers()
{
    QFETCH(QString, id);
    QFETCH(QString, expected);
    BuyerDataRedactor redactor = demoRedactor();
    redactor.learnFromText(id);
    QCOMPARE(redactor.redactIdentifier(id), expected);
    QCOMPARE(redactor.redactIdentifier(id), expected); // the same key, the same redacted key
}

void TestRedaction::knownValuesEncodedOrNot_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");

    QTest::newRow("e-mail") << QStringLiteral("timeout for sean.obrien@example.com")
                            << QStringLiteral("timeout for buyer1@example.invalid");
    QTest::newRow("encoded e-mail") << QStringLiteral("timeout for sean.obrien%40example.com")
                                    << QStringLiteral("timeout for buyer1@example.invalid");
    QTest::newRow("encoded name") << QStringLiteral("to Mary%20McDonald.") << QStringLiteral("to Buyer 2.");
    QTest::newRow("plus name") << QStringLiteral("to Mary+McDonald") << QStringLiteral("to Buyer 2");
    QTest::newRow("encoded apostrophe")
            << QStringLiteral("for Sean%20O%27Brien") << QStringLiteral("for Buyer 1");
    QTest::newRow("bare phone digits")
            << QStringLiteral("call 5551234567") << QStringLiteral("call [phone 1]");
    QTest::newRow("encoded phone") << QStringLiteral("tel %2B15551234567") << QStringLiteral("tel [phone 1]");
    QTest::newRow("city and street from keys")
            << QStringLiteral("4 Rue de la Paix in PARIS") << QStringLiteral("[address 1] in [city 1]");
}

void TestRedaction::knownValuesEncodedOrNot()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    BuyerDataRedactor redactor;
    redactor.learnFromJsonText(QStringLiteral(
            R"({"customerEmail":"sean.obrien@example.com","contactNumber":"5551234567","buyer":"Sean O\u0027Brien",)"
            R"("shipTo":{"recipientName":"Mary McDonald","streetAddress":"4 Rue de la Paix","city":"Paris"}})"));
    redactor.learnFromText(input);
    QCOMPARE(redactor.redactText(input), expected);
}

void TestRedaction::keyNormalisation_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("normalised");
    QTest::newRow("camel") << QStringLiteral("customerName") << QStringLiteral("customer_name");
    QTest::newRow("acronym") << QStringLiteral("HTTPStatus") << QStringLiteral("http_status");
    QTest::newRow("dotted") << QStringLiteral("ship_to.name") << QStringLiteral("ship_to_name");
    QTest::newRow("spaced and dashed") << QStringLiteral("Postal Code") << QStringLiteral("postal_code");
    QTest::newRow("dashes") << QStringLiteral("date-of-birth") << QStringLiteral("date_of_birth");
    QTest::newRow("digits") << QStringLiteral("addressLine1") << QStringLiteral("address_line1");
    QTest::newRow("already snake") << QStringLiteral("zip_code") << QStringLiteral("zip_code");
}

void TestRedaction::keyNormalisation()
{
    QFETCH(QString, key);
    QFETCH(QString, normalised);
    QCOMPARE(redaction::normalizedKey(key), normalised);
}

void TestRedaction::sameValueSamePlaceholderEverywhere()
{
    BuyerDataRedactor redactor = demoRedactor();
    const QString arguments = QStringLiteral(
            R"({"user_id":"yusuf_rossi_9620","address1":"12 Elm Street","city":"Philadelphia","zip":"19122"})");
    const QString result = QStringLiteral(R"("yusuf_rossi_9620")");
    const QString message = QStringLiteral(
            "Yusuf Rossi here, I moved to 12 Elm Street, Philadelphia 19122. I'm yusuf_rossi_9620.");
    redactor.learnFromText(message);
    redactor.learnFromJsonText(arguments);
    redactor.learnFromJsonText(result);

    QCOMPARE(redactor.redactText(message),
             QStringLiteral("Buyer 2 here, I moved to [address 1], [city 1] [zip 1]. I'm [user id 1]."));
    QCOMPARE(
            redactor.redactJsonText(arguments),
            QStringLiteral(
                    R"({"address1":"[address 1]","city":"[city 1]","user_id":"[user id 1]","zip":"[zip 1]"})"));
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
    QCOMPARE(QString::fromStdString(
                     redactor.redactJson(parsed(QStringLiteral(R"({"phone":"5551234567"})"))).dump()),
             QStringLiteral(R"({"phone":"[phone 1]"})"));
}

void TestRedaction::intentKeysKeepTheirEquality()
{
    Expected<ToolRegistry> retail = builtInProfile(QStringLiteral("tau-retail"));
    QVERIFY2(retail, retail ? "" : qPrintable(retail.message()));
    const ToolSpec *tool = retail->find(QStringLiteral("modify_user_address"));
    QVERIFY(tool);
    const TicketFacts facts{{QStringLiteral("ticket_id"), QStringLiteral("T-1")}};
    const QString first =
            QStringLiteral(R"({"user_id":"yusuf_rossi_9620","address1":"12 Elm Street","address2":"Apt 4B",)"
                           R"("city":"Philadelphia","state":"PA","country":"USA","zip":"19122"})");
    const QString again = first; // the same intent, sent twice
    const QString other =
            QStringLiteral(R"({"user_id":"yusuf_rossi_9620","address1":"14 Elm Street","address2":"Apt 4B",)"
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
    (void)redactor.redactText(
            QStringLiteral("Dana Whitfield, dana.whitfield@example.com, Dana, 555-123-4567"));
    const QList<RedactionCount> counts = redactor.counts();
    QCOMPARE(counts.size(), 3);
    QCOMPARE(counts.at(0).kind, PersonalKind::Name);
    QCOMPARE(counts.at(0).values, 1);
    QCOMPARE(counts.at(0).occurrences, qint64(2));
    QCOMPARE(counts.at(1).kind, PersonalKind::Email);
    QCOMPARE(counts.at(2).kind, PersonalKind::Phone);
    QCOMPARE(redactor.summary(),
             QStringLiteral("1 name (2 places), 1 e-mail address (1 place), 1 phone number (1 place)"));
}

QTEST_GUILESS_MAIN(TestRedaction)
#include "tst_redaction.moc"

// Intent keys: fixed vectors computed independently (python3 hashlib over the netstring
// encoding documented in intentkey.h), plus the rules that decide when two calls share a key.

#include "domain/intentkey.h"
#include "domain/sha256.h"
#include "domain/toolregistry.h"

#include <QRegularExpression>
#include <QTest>

#include <nlohmann/json.hpp>

#include <string>

using nlohmann::json;
using namespace verity;

Q_DECLARE_METATYPE(std::string)

namespace {

const char *const ticketId = "T-20260317-0412";

// The message used by the message_seller vectors, with "arrivée" in composed (NFC) and
// decomposed (NFD) form. The literals are split so that no hex escape swallows a letter.
const std::string messageNfc = "Bonjour, la chaise OAK-4S est arriv"
                               "\xc3\xa9"
                               "e cass"
                               "\xc3\xa9"
                               "e. Pouvez-vous organiser un retour ?";
const std::string messageNfd = "Bonjour, la chaise OAK-4S est arrive"
                               "\xcc\x81"
                               "e casse"
                               "\xcc\x81"
                               "e. Pouvez-vous organiser un retour ?";

// Computed with python3: hashlib.sha256(unicodedata.normalize("NFC", text).encode()).hexdigest()
const char *const messageNfcSha256 = "18c433cbd6a8d13134c1fe3281a0f072b5e11ce903f8618b41dc6234b0e5890b";

// Expected keys, computed with python3 hashlib over the canonical bytes below.
const char *const refundKey = "f099ab96043b870dc9784feec82d89b216d2b6c64710de680de0a8dfe5cd7ca2";
const char *const refund11801Key = "ba25754fd11511a256dea213df53023e71a7a42467bd954950af792117f8f816";
const char *const pickupKey = "0a8a2237b53dedcf35ea6d076246c788edf3e0811387e727e5d27a7b5c9af88b";
const char *const messageKey = "d992212c0cf9c78ebc8dec51f055733a6d1feb7e2566345101f03b48379c697f";
const char *const escalateKey = "e829d2e25f238999c60d418ca4292dd329b466f76192987c810425904be81ef4";
const char *const injectiveAKey = "6be66d252d64bdfdaa47d5ca2cef7d2c56b62b07b3aeb6ae3150c2ec0066e3f7";
// The AI SDK agent's refund, which names no item_id: keyed from all of its arguments.
const char *const allArgumentsKey = "8db118a1ac88d619abec74976baf1f913686fe04e29f0d6fa1d91ffec3c59ad7";
const char *const injectiveBKey = "3dcaac2c3037cff95a6568ca67862c59554982539e28a31e1a80b44ec7938e76";

TicketFacts ticketFacts()
{
    TicketFacts facts;
    facts.insert(QStringLiteral("ticket_id"), QString::fromLatin1(ticketId));
    return facts;
}

json refundArguments()
{
    return json{{"order_id", "SU-88421"}, {"item_id", "OAK-4S"}, {"amount_cents", 11800}};
}

QString keyText(const char *hex)
{
    return QString::fromLatin1(hex);
}

} // namespace

class TestIntentKey : public QObject
{
    Q_OBJECT

private:
    ToolRegistry m_registry;

    const ToolSpec &tool(const char *name)
    {
        const ToolSpec *spec = m_registry.find(QString::fromLatin1(name));
        if (!spec)
            qFatal("tool %s missing from the built-in registry", name);
        return *spec;
    }

    QString keyOf(const char *toolName, const json &arguments, const TicketFacts &facts)
    {
        Expected<QString> key = intentKey(tool(toolName), arguments, facts);
        if (!key.ok()) {
            qWarning("unexpected error: %s", qPrintable(key.message()));
            return QString();
        }
        return *key;
    }

private slots:
    void initTestCase()
    {
        m_registry = ToolRegistry::builtIn();
        QVERIFY(m_registry.find(QStringLiteral("issue_refund")));
    }

    void canonicalBytesOfRefund()
    {
        Expected<QByteArray> canonical =
                canonicalIntent(tool("issue_refund"), refundArguments(), ticketFacts());
        QVERIFY2(canonical.ok(), qPrintable(canonical.ok() ? QString() : canonical.message()));
        QCOMPARE(*canonical,
                 QByteArrayLiteral("16:verity-intent-v1,12:issue_refund,"
                                   "9:ticket_id,15:T-20260317-0412,"
                                   "8:order_id,8:SU-88421,"
                                   "7:item_id,6:OAK-4S,"
                                   "12:amount_cents,5:11800,"));
        QCOMPARE(sha256Hex(*canonical), QByteArray(refundKey));
    }

    void canonicalBytesOfPickup()
    {
        const json arguments = {{"order_id", "SU-88421"}, {"item_id", "OAK-4S"}};
        Expected<QByteArray> canonical = canonicalIntent(tool("schedule_pickup"), arguments, ticketFacts());
        QVERIFY(canonical.ok());
        QCOMPARE(*canonical,
                 QByteArrayLiteral("16:verity-intent-v1,15:schedule_pickup,"
                                   "9:ticket_id,15:T-20260317-0412,"
                                   "8:order_id,8:SU-88421,"
                                   "7:item_id,6:OAK-4S,"));
    }

    void canonicalBytesOfMessageHoldTheHashNotTheText()
    {
        const json arguments = {{"seller_id", "S-1007"}, {"text", messageNfc}};
        Expected<QByteArray> canonical = canonicalIntent(tool("message_seller"), arguments, ticketFacts());
        QVERIFY(canonical.ok());
        QCOMPARE(*canonical,
                 QByteArrayLiteral(
                         "16:verity-intent-v1,14:message_seller,"
                         "9:ticket_id,15:T-20260317-0412,"
                         "9:seller_id,6:S-1007,"
                         "4:text,64:18c433cbd6a8d13134c1fe3281a0f072b5e11ce903f8618b41dc6234b0e5890b,"));
        QVERIFY(!canonical->contains("Bonjour"));
        QVERIFY(!canonical->contains("OAK-4S"));
        QVERIFY(canonical->contains(messageNfcSha256));
    }

    void vectors_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<std::string>("arguments"); // JSON text
        QTest::addColumn<QString>("expectedKey");

        QTest::newRow("issue_refund")
                << QStringLiteral("issue_refund")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S","amount_cents":11800})")
                << keyText(refundKey);
        QTest::newRow("issue_refund 11801")
                << QStringLiteral("issue_refund")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S","amount_cents":11801})")
                << keyText(refund11801Key);
        QTest::newRow("schedule_pickup")
                << QStringLiteral("schedule_pickup")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S"})") << keyText(pickupKey);
        QTest::newRow("message_seller")
                << QStringLiteral("message_seller")
                << json{{"seller_id", "S-1007"}, {"text", messageNfc}}.dump() << keyText(messageKey);
        QTest::newRow("escalate_to_human")
                << QStringLiteral("escalate_to_human") << std::string(R"({"reason":"refund state unknown"})")
                << keyText(escalateKey);
        QTest::newRow("escalate_to_human, no arguments")
                << QStringLiteral("escalate_to_human") << std::string("{}") << keyText(escalateKey);
    }

    void vectors()
    {
        QFETCH(QString, tool);
        QFETCH(std::string, arguments);
        QFETCH(QString, expectedKey);

        const ToolSpec *spec = m_registry.find(tool);
        QVERIFY(spec);
        Expected<QString> key = intentKey(*spec, json::parse(arguments), ticketFacts());
        QVERIFY2(key.ok(), qPrintable(key.ok() ? QString() : key.message()));
        QCOMPARE(*key, expectedKey);
    }

    void keysAreLowercaseHex_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<std::string>("arguments");
        QTest::newRow("issue_refund") << QStringLiteral("issue_refund") << refundArguments().dump();
        QTest::newRow("schedule_pickup")
                << QStringLiteral("schedule_pickup") << std::string(R"({"order_id":"X","item_id":"Y"})");
        QTest::newRow("message_seller")
                << QStringLiteral("message_seller") << std::string(R"({"seller_id":"S","text":"HELLO"})");
        QTest::newRow("escalate_to_human") << QStringLiteral("escalate_to_human") << std::string("{}");
    }

    void keysAreLowercaseHex()
    {
        QFETCH(QString, tool);
        QFETCH(std::string, arguments);
        const ToolSpec *spec = m_registry.find(tool);
        QVERIFY(spec);
        Expected<QString> key = intentKey(*spec, json::parse(arguments), ticketFacts());
        QVERIFY(key.ok());
        static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
        QVERIFY2(hex.match(*key).hasMatch(), qPrintable(*key));
    }

    void sameFactsSameKey()
    {
        const QString first = keyOf("issue_refund", refundArguments(), ticketFacts());
        const QString second = keyOf("issue_refund", refundArguments(), ticketFacts());
        QVERIFY(!first.isEmpty());
        QCOMPARE(first, second);
    }

    // Arguments that are not intent fields (reasons, notes, timestamps) never enter the key.
    void extraArgumentsDoNotMatter()
    {
        json arguments = refundArguments();
        arguments["reason"] = "chair arrived broken";
        arguments["attempt"] = 2;
        QCOMPARE(keyOf("issue_refund", arguments, ticketFacts()), keyText(refundKey));
    }

    void equivalentArguments_data()
    {
        QTest::addColumn<std::string>("arguments");
        QTest::newRow("reordered") << std::string(
                R"({"amount_cents":11800,"item_id":"OAK-4S","order_id":"SU-88421"})");
        QTest::newRow("amount as text")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S","amount_cents":"11800"})");
        QTest::newRow("amount as float")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S","amount_cents":11800.0})");
        QTest::newRow("ticket_id in arguments, same value") << std::string(
                R"({"ticket_id":"T-20260317-0412","order_id":"SU-88421","item_id":"OAK-4S","amount_cents":11800})");
    }

    void equivalentArguments()
    {
        QFETCH(std::string, arguments);
        QCOMPARE(keyOf("issue_refund", json::parse(arguments), ticketFacts()), keyText(refundKey));
    }

    void changedFactNewKey_data()
    {
        QTest::addColumn<std::string>("arguments");
        QTest::newRow("amount 11801")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S","amount_cents":11801})");
        QTest::newRow("another item")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-6S","amount_cents":11800})");
        QTest::newRow("another order")
                << std::string(R"({"order_id":"SU-88422","item_id":"OAK-4S","amount_cents":11800})");
        QTest::newRow("another ticket in the arguments") << std::string(
                R"({"ticket_id":"T-20260317-0413","order_id":"SU-88421","item_id":"OAK-4S","amount_cents":11800})");
    }

    void changedFactNewKey()
    {
        QFETCH(std::string, arguments);
        const QString key = keyOf("issue_refund", json::parse(arguments), ticketFacts());
        QVERIFY(!key.isEmpty());
        QVERIFY(key != keyText(refundKey));
    }

    void amount11801HasItsOwnVector()
    {
        json arguments = refundArguments();
        arguments["amount_cents"] = 11801;
        QCOMPARE(keyOf("issue_refund", arguments, ticketFacts()), keyText(refund11801Key));
    }

    void missingFieldIsAnError_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<std::string>("arguments");
        QTest::addColumn<bool>("withTicketId");
        QTest::addColumn<QString>("field");

        QTest::newRow("refund without order_id")
                << QStringLiteral("issue_refund")
                << std::string(R"({"item_id":"OAK-4S","amount_cents":11800})") << true
                << QStringLiteral("order_id");
        QTest::newRow("refund with null order_id")
                << QStringLiteral("issue_refund")
                << std::string(R"({"order_id":null,"item_id":"OAK-4S","amount_cents":11800})") << true
                << QStringLiteral("order_id");
        QTest::newRow("refund without amount") << QStringLiteral("issue_refund")
                                               << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S"})")
                                               << true << QStringLiteral("amount_cents");
        QTest::newRow("refund without any ticket_id")
                << QStringLiteral("issue_refund") << refundArguments().dump() << false
                << QStringLiteral("ticket_id");
        QTest::newRow("message without text")
                << QStringLiteral("message_seller") << std::string(R"({"seller_id":"S-1007"})") << true
                << QStringLiteral("text");
        QTest::newRow("escalation without ticket") << QStringLiteral("escalate_to_human") << std::string("{}")
                                                   << false << QStringLiteral("ticket_id");
        QTest::newRow("arguments not an object")
                << QStringLiteral("schedule_pickup") << std::string(R"(["SU-88421","OAK-4S"])") << true
                << QStringLiteral("order_id");
    }

    void missingFieldIsAnError()
    {
        QFETCH(QString, tool);
        QFETCH(std::string, arguments);
        QFETCH(bool, withTicketId);
        QFETCH(QString, field);

        const ToolSpec *spec = m_registry.find(tool);
        QVERIFY(spec);
        const TicketFacts facts = withTicketId ? ticketFacts() : TicketFacts();
        Expected<QString> key = intentKey(*spec, json::parse(arguments), facts);
        QVERIFY2(!key.ok(), qPrintable(key.ok() ? *key : QString()));
        QVERIFY2(key.message().contains(QLatin1Char('"') + field + QLatin1Char('"')),
                 qPrintable(key.message()));
        Expected<QByteArray> canonical = canonicalIntent(*spec, json::parse(arguments), facts);
        QVERIFY(!canonical.ok());
    }

    void ticketFactsSupplyMissingFields()
    {
        // order_id comes from the ticket when the arguments lack it.
        TicketFacts facts = ticketFacts();
        facts.insert(QStringLiteral("order_id"), QStringLiteral("SU-88421"));
        const json arguments = {{"item_id", "OAK-4S"}, {"amount_cents", 11800}};
        QCOMPARE(keyOf("issue_refund", arguments, facts), keyText(refundKey));
    }

    void argumentsWinOverTicketFacts()
    {
        json arguments = refundArguments();
        arguments["ticket_id"] = "T-20260317-0412";
        TicketFacts facts;
        facts.insert(QStringLiteral("ticket_id"), QStringLiteral("T-OTHER"));
        facts.insert(QStringLiteral("order_id"), QStringLiteral("SU-00000"));
        QCOMPARE(keyOf("issue_refund", arguments, facts), keyText(refundKey));
    }

    void emptyTicketFactIsMissing()
    {
        TicketFacts facts;
        facts.insert(QStringLiteral("ticket_id"), QString());
        Expected<QString> key = intentKey(tool("issue_refund"), refundArguments(), facts);
        QVERIFY(!key.ok());
        QVERIFY2(key.message().contains(QStringLiteral("\"ticket_id\"")), qPrintable(key.message()));
    }

    void badValues_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<std::string>("arguments");
        QTest::addColumn<QString>("field");

        QTest::newRow("amount 118.5")
                << QStringLiteral("issue_refund")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S","amount_cents":118.5})")
                << QStringLiteral("amount_cents");
        QTest::newRow("amount \"118.5\"")
                << QStringLiteral("issue_refund")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S","amount_cents":"118.5"})")
                << QStringLiteral("amount_cents");
        QTest::newRow("amount text")
                << QStringLiteral("issue_refund")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S","amount_cents":"lots"})")
                << QStringLiteral("amount_cents");
        QTest::newRow("amount bool")
                << QStringLiteral("issue_refund")
                << std::string(R"({"order_id":"SU-88421","item_id":"OAK-4S","amount_cents":true})")
                << QStringLiteral("amount_cents");
        QTest::newRow("order_id object")
                << QStringLiteral("issue_refund")
                << std::string(R"({"order_id":{"id":1},"item_id":"OAK-4S","amount_cents":1})")
                << QStringLiteral("order_id");
        QTest::newRow("empty item_id")
                << QStringLiteral("schedule_pickup")
                << std::string(R"({"order_id":"SU-88421","item_id":"  "})") << QStringLiteral("item_id");
        QTest::newRow("text as number")
                << QStringLiteral("message_seller") << std::string(R"({"seller_id":"S-1007","text":42})")
                << QStringLiteral("text");
    }

    void badValues()
    {
        QFETCH(QString, tool);
        QFETCH(std::string, arguments);
        QFETCH(QString, field);
        const ToolSpec *spec = m_registry.find(tool);
        QVERIFY(spec);
        Expected<QString> key = intentKey(*spec, json::parse(arguments), ticketFacts());
        QVERIFY2(!key.ok(), qPrintable(key.ok() ? *key : QString()));
        QVERIFY2(key.message().contains(QLatin1Char('"') + field + QLatin1Char('"')),
                 qPrintable(key.message()));
    }

    void messageTextIsHashed()
    {
        const json arguments = {{"seller_id", "S-1007"}, {"text", messageNfc}};
        const QString key = keyOf("message_seller", arguments, ticketFacts());
        QCOMPARE(key, keyText(messageKey));
        QVERIFY(!key.contains(QStringLiteral("Bonjour")));
        // Same text again: same key; a different text: another key.
        QCOMPARE(keyOf("message_seller", arguments, ticketFacts()), key);
        const json other = {{"seller_id", "S-1007"}, {"text", "Bonjour, autre message."}};
        const QString otherKey = keyOf("message_seller", other, ticketFacts());
        QVERIFY(!otherKey.isEmpty());
        QVERIFY(otherKey != key);
    }

    void nfcAndNfdGiveTheSameKey()
    {
        QVERIFY(messageNfc != messageNfd); // really different bytes
        const json nfc = {{"seller_id", "S-1007"}, {"text", messageNfc}};
        const json nfd = {{"seller_id", "S-1007"}, {"text", messageNfd}};
        QCOMPARE(keyOf("message_seller", nfd, ticketFacts()), keyOf("message_seller", nfc, ticketFacts()));
        QCOMPARE(keyOf("message_seller", nfd, ticketFacts()), keyText(messageKey));
    }

    void nfcAndNfdInStringFields()
    {
        // "Café" composed and decomposed in a plain string field.
        const json nfc = {{"order_id", "Caf\xc3\xa9"}, {"item_id", "OAK-4S"}};
        const json nfd = {{"order_id", "Cafe\xcc\x81"}, {"item_id", "OAK-4S"}};
        QCOMPARE(keyOf("schedule_pickup", nfd, ticketFacts()), keyOf("schedule_pickup", nfc, ticketFacts()));
    }

    void injectivity_data()
    {
        QTest::addColumn<std::string>("first");
        QTest::addColumn<std::string>("second");
        QTest::addColumn<QString>("firstKey");
        QTest::addColumn<QString>("secondKey");

        QTest::newRow("colon moves between fields") << std::string(R"({"order_id":"a:b","item_id":"c"})")
                                                    << std::string(R"({"order_id":"a","item_id":"b:c"})")
                                                    << keyText(injectiveAKey) << keyText(injectiveBKey);
        QTest::newRow("comma moves between fields")
                << std::string(R"({"order_id":"a,","item_id":"b"})")
                << std::string(R"({"order_id":"a","item_id":",b"})") << QString() << QString();
        QTest::newRow("netstring-looking value")
                << std::string(R"({"order_id":"a,7:item_id,1:b","item_id":"c"})")
                << std::string(R"({"order_id":"a","item_id":"b,7:item_id,1:c"})") << QString() << QString();
        QTest::newRow("plain concatenation")
                << std::string(R"({"order_id":"ab","item_id":"c"})")
                << std::string(R"({"order_id":"a","item_id":"bc"})") << QString() << QString();
    }

    void injectivity()
    {
        QFETCH(std::string, first);
        QFETCH(std::string, second);
        QFETCH(QString, firstKey);
        QFETCH(QString, secondKey);
        const QString a = keyOf("schedule_pickup", json::parse(first), ticketFacts());
        const QString b = keyOf("schedule_pickup", json::parse(second), ticketFacts());
        QVERIFY(!a.isEmpty());
        QVERIFY(!b.isEmpty());
        QVERIFY(a != b);
        if (!firstKey.isEmpty())
            QCOMPARE(a, firstKey);
        if (!secondKey.isEmpty())
            QCOMPARE(b, secondKey);
    }

    void differentToolsDifferentKeys()
    {
        // schedule_pickup's fields are a prefix of issue_refund's: the tool name keeps them apart.
        const json arguments = refundArguments();
        const QString refund = keyOf("issue_refund", arguments, ticketFacts());
        const QString pickup = keyOf("schedule_pickup", arguments, ticketFacts());
        QCOMPARE(pickup, keyText(pickupKey));
        QVERIFY(refund != pickup);
    }

    // A write whose profile fields are missing is still keyed, from all of its arguments, so an
    // identical retry of an unknown write is caught; with the fields, the profile's key.
    void writeKeyFromAllArguments()
    {
        const json arguments{{"order_id", "SU-55502"}, {"amount_cents", 4599}, {"reason", "damaged"}};
        QCOMPARE(QString::fromLatin1(canonicalArguments(QStringLiteral("issue_refund"), arguments)),
                 QStringLiteral("26:verity-intent-arguments-v1,12:issue_refund,62:{\"amount_cents\":4599,"
                                "\"order_id\":\"SU-55502\",\"reason\":\"damaged\"},"));
        const WriteKey key = writeKey(tool("issue_refund"), arguments, ticketFacts());
        QCOMPARE(key.key, keyText(allArgumentsKey));
        QCOMPARE(
                key.fromAllArgumentsBecause,
                QStringLiteral("intent field \"item_id\" of issue_refund: missing from the arguments and the "
                               "ticket"));
        const WriteKey profile = writeKey(tool("issue_refund"), refundArguments(), ticketFacts());
        QCOMPARE(profile.key, keyText(refundKey));
        QVERIFY(!profile.fromAllArguments());
    }

    void writeKeyNormalisesArguments_data()
    {
        QTest::addColumn<std::string>("a");
        QTest::addColumn<std::string>("b");
        QTest::addColumn<bool>("same");
        QTest::newRow("key order") << std::string(R"({"a":1,"b":"x"})") << std::string(R"({"b":"x","a":1})")
                                   << true;
        QTest::newRow("4599.0 is 4599") << std::string(R"({"amount_cents":4599.0})")
                                        << std::string(R"({"amount_cents":4599})") << true;
        QTest::newRow("null is absent")
                << std::string(R"({"a":1,"note":null})") << std::string(R"({"a":1})") << true;
        QTest::newRow("NFC and NFD") << std::string("{\"t\":\"caf\xc3\xa9\"}")
                                     << std::string("{\"t\":\"cafe\xcc\x81\"}") << true;
        QTest::newRow("nested order") << std::string(R"({"x":{"b":[1,2],"a":true}})")
                                      << std::string(R"({"x":{"a":true,"b":[1,2]}})") << true;
        QTest::newRow("another amount") << std::string(R"({"amount_cents":4599})")
                                        << std::string(R"({"amount_cents":4600})") << false;
        QTest::newRow("array order counts")
                << std::string(R"({"x":[1,2]})") << std::string(R"({"x":[2,1]})") << false;
        QTest::newRow("text is not a number")
                << std::string(R"({"a":"1"})") << std::string(R"({"a":1})") << false;
        QTest::newRow("an extra argument")
                << std::string(R"({"a":1})") << std::string(R"({"a":1,"b":2})") << false;
    }

    void writeKeyNormalisesArguments()
    {
        QFETCH(std::string, a);
        QFETCH(std::string, b);
        QFETCH(bool, same);
        const WriteKey ka = writeKey(tool("issue_refund"), json::parse(a), TicketFacts());
        const WriteKey kb = writeKey(tool("issue_refund"), json::parse(b), TicketFacts());
        QVERIFY(ka.fromAllArguments());
        QCOMPARE(ka.key == kb.key, same);
    }

    // A field present but malformed (an amount in words) is no reason to lose the retry either.
    void malformedFieldFallsBackToAllArguments()
    {
        json arguments = refundArguments();
        arguments["amount_cents"] = "forty-five";
        const WriteKey key = writeKey(tool("issue_refund"), arguments, ticketFacts());
        QVERIFY(key.fromAllArguments());
        QVERIFY2(key.fromAllArgumentsBecause.contains(QLatin1String("amount_cents")),
                 qPrintable(key.fromAllArgumentsBecause));
        QCOMPARE(key.key.size(), 64);
        // Another tool with the same arguments is another intent.
        QVERIFY(writeKey(tool("schedule_pickup"), json{{"x", 1}}, TicketFacts()).key
                != writeKey(tool("issue_refund"), json{{"x", 1}}, TicketFacts()).key);
    }
};

QTEST_GUILESS_MAIN(TestIntentKey)
#include "tst_intentkey.moc"

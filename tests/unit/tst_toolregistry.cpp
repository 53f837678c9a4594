// The tool registry: the built-in tools, the errors a broken file gives, and extending a
// registry with a user file without ever half-replacing the one in force.

#include "domain/registryselection.h"
#include "domain/toolregistry.h"
#include "domain/userregistry.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace verity;

Q_DECLARE_METATYPE(verity::ToolClass)
Q_DECLARE_METATYPE(verity::IntentField::Type)

namespace {

using FieldList = QList<QPair<QString, IntentField::Type>>;
using Filter = QList<std::pair<QString, QString>>;

const QString userSource = QStringLiteral("user-registry.json");

// Note: JSON holding an unbalanced parenthesis is written as an ordinary string literal, not a
// raw one, because moc's lexer loses track of raw strings that contain one.

bool writeFile(const QString &path, const QByteArray &contents)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(contents) == contents.size();
}

// The names of a list of rules, for one QCOMPARE.
QStringList namesOf(const QList<OutcomeRule> &rules)
{
    QStringList names;
    for (const OutcomeRule &rule : rules)
        names.append(rule.name);
    return names;
}

// A tool's intent as (name, type) pairs, for one QCOMPARE.
FieldList fieldsOf(const ToolSpec &spec)
{
    FieldList fields;
    for (const IntentField &field : spec.intent)
        fields.append({field.name, field.type});
    return fields;
}

// A registry extension that overrides issue_refund, adds cancel_subscription and a rule.
const QByteArray userExtension = R"({
  "format": "verity-tool-registry",
  "version": 1,
  "tools": {
    "issue_refund": {
      "class": "write_costly",
      "intent": ["order_id", { "name": "refund_cents", "type": "integer" }, { "name": "note", "type": "sha256" }],
      "amount": "refund_cents"
    },
    "cancel_subscription": { "class": "write_irreversible", "intent": ["ticket_id", "subscription_id"] },
    "lookup_customer": { "class": "read" }
  },
  "outcome_rules": {
    "unknown": ["still processing"],
    "not_performed": ["nothing to cancel"]
  }
})";

} // namespace

class TestToolRegistry : public QObject
{
    Q_OBJECT

private:
    ToolRegistry m_builtIn;

private slots:
    void initTestCase() { m_builtIn = ToolRegistry::builtIn(); }

    // ---- the built-in registry ------------------------------------------------------------

    void builtInClasses_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<ToolClass>("toolClass");

        QTest::newRow("get_order") << QStringLiteral("get_order") << ToolClass::Read;
        QTest::newRow("search_procedures") << QStringLiteral("search_procedures") << ToolClass::Read;
        QTest::newRow("issue_refund") << QStringLiteral("issue_refund") << ToolClass::WriteMoney;
        QTest::newRow("schedule_pickup") << QStringLiteral("schedule_pickup") << ToolClass::WriteCostly;
        QTest::newRow("message_seller") << QStringLiteral("message_seller") << ToolClass::WriteIrreversible;
        QTest::newRow("escalate_to_human") << QStringLiteral("escalate_to_human") << ToolClass::WriteWasteful;
        QTest::newRow("unknown tool") << QStringLiteral("delete_account") << ToolClass::Unclassified;
        QTest::newRow("case matters") << QStringLiteral("Get_Order") << ToolClass::Unclassified;
        QTest::newRow("empty name") << QString() << ToolClass::Unclassified;
    }

    void builtInClasses()
    {
        QFETCH(QString, tool);
        QFETCH(ToolClass, toolClass);
        QCOMPARE(m_builtIn.classOf(tool), toolClass);
        if (toolClass == ToolClass::Unclassified) {
            QVERIFY(!m_builtIn.find(tool));
            QVERIFY(m_builtIn.classOf(tool) != ToolClass::Read);
        } else {
            QVERIFY(m_builtIn.find(tool));
            QCOMPARE(m_builtIn.find(tool)->name, tool);
            QCOMPARE(m_builtIn.find(tool)->toolClass, toolClass);
        }
    }

    void builtInToolNames()
    {
        QCOMPARE(m_builtIn.toolNames(),
                 QStringList({QStringLiteral("escalate_to_human"), QStringLiteral("get_order"),
                              QStringLiteral("issue_refund"), QStringLiteral("message_seller"),
                              QStringLiteral("schedule_pickup"), QStringLiteral("search_procedures")}));
    }

    void builtInIntents_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<FieldList>("fields");
        QTest::addColumn<QString>("amountField");

        using T = IntentField::Type;
        QTest::newRow("issue_refund") << QStringLiteral("issue_refund")
                                      << FieldList{{QStringLiteral("ticket_id"), T::String},
                                                   {QStringLiteral("order_id"), T::String},
                                                   {QStringLiteral("item_id"), T::String},
                                                   {QStringLiteral("amount_cents"), T::Integer}}
                                      << QStringLiteral("amount_cents");
        QTest::newRow("schedule_pickup") << QStringLiteral("schedule_pickup")
                                         << FieldList{{QStringLiteral("ticket_id"), T::String},
                                                      {QStringLiteral("order_id"), T::String},
                                                      {QStringLiteral("item_id"), T::String}}
                                         << QString();
        QTest::newRow("message_seller") << QStringLiteral("message_seller")
                                        << FieldList{{QStringLiteral("ticket_id"), T::String},
                                                     {QStringLiteral("seller_id"), T::String},
                                                     {QStringLiteral("text"), T::Sha256}}
                                        << QString();
        QTest::newRow("escalate_to_human")
                << QStringLiteral("escalate_to_human") << FieldList{{QStringLiteral("ticket_id"), T::String}}
                << QString();
        QTest::newRow("get_order") << QStringLiteral("get_order") << FieldList{} << QString();
        QTest::newRow("search_procedures") << QStringLiteral("search_procedures") << FieldList{} << QString();
    }

    void builtInIntents()
    {
        QFETCH(QString, tool);
        QFETCH(FieldList, fields);
        QFETCH(QString, amountField);
        const ToolSpec *spec = m_builtIn.find(tool);
        QVERIFY(spec);
        QCOMPARE(fieldsOf(*spec), fields);
        QCOMPARE(spec->amountField, amountField);
    }

    void builtInRules()
    {
        const OutcomeRules &rules = m_builtIn.outcomeRules();
        QCOMPARE(namesOf(rules.unknown),
                 QStringList({QStringLiteral("timeout"), QStringLiteral("upstream error"),
                              QStringLiteral("gateway error"), QStringLiteral("connection reset"),
                              QStringLiteral("5xx gateway status"), QStringLiteral("key in use"),
                              QStringLiteral("no response")}));
        QCOMPARE(namesOf(rules.notPerformed),
                 QStringList({QStringLiteral("validation error"), QStringLiteral("invalid input"),
                              QStringLiteral("4xx status"), QStringLiteral("over a limit"),
                              QStringLiteral("exceeded limit"), QStringLiteral("refusal"),
                              QStringLiteral("rejection"), QStringLiteral("decline"),
                              QStringLiteral("not allowed"), QStringLiteral("denial"),
                              QStringLiteral("shortfall")}));
        QCOMPARE(rules.unknown.first().pattern.pattern(), QStringLiteral("time(d)? ?out"));
        for (const OutcomeRule &rule : rules.unknown + rules.notPerformed) {
            QVERIFY2(rule.pattern.isValid(), qPrintable(rule.pattern.pattern()));
            QVERIFY(rule.pattern.patternOptions().testFlag(QRegularExpression::CaseInsensitiveOption));
        }
    }

    // Every rule Verity ships has a name of its own: a support agent reads it on the card.
    void shippedRulesAreNamed_data()
    {
        QTest::addColumn<QString>("profile");
        for (const QString &profile : builtInProfileNames())
            QTest::newRow(qPrintable(profile)) << profile;
    }

    void shippedRulesAreNamed()
    {
        QFETCH(QString, profile);
        const Expected<ToolRegistry> registry = builtInProfile(profile);
        QVERIFY2(registry.ok(), qPrintable(registry.ok() ? QString() : registry.message()));
        const OutcomeRules &rules = registry->outcomeRules();
        QVERIFY(!rules.unknown.isEmpty());
        QVERIFY(!rules.notPerformed.isEmpty());
        for (const OutcomeRule &rule : rules.unknown + rules.notPerformed)
            QVERIFY2(!rule.name.isEmpty() && rule.name != QStringLiteral("unnamed"),
                     qPrintable(rule.pattern.pattern()));
    }

    // A rule may be a bare pattern, as every registry file was before rules had names: it still
    // loads, and is named by its words when it is only words, or else called unnamed.
    void barePatternRules_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("name");
        QTest::newRow("words") << QStringLiteral("still processing") << QStringLiteral("still processing");
        QTest::newRow("words with an underscore")
                << QStringLiteral("idempotency_key_in_use") << QStringLiteral("idempotency_key_in_use");
        QTest::newRow("words between word boundaries")
                << QStringLiteral("\\bnothing to cancel\\b") << QStringLiteral("nothing to cancel");
        QTest::newRow("anchored words") << QStringLiteral("^pending$") << QStringLiteral("pending");
        QTest::newRow("an apostrophe") << QStringLiteral("can't refund") << QStringLiteral("can't refund");
        QTest::newRow("accented words")
                << QStringLiteral("déjà remboursé") << QStringLiteral("déjà remboursé");
        QTest::newRow("alternatives") << QStringLiteral("time(d)? ?out") << QStringLiteral("unnamed");
        QTest::newRow("a prefix with a colon") << QStringLiteral("^Error: ") << QStringLiteral("unnamed");
        QTest::newRow("a status pattern")
                << QStringLiteral("(?<![\\w-])4\\d\\d(?![\\w-])") << QStringLiteral("unnamed");
        QTest::newRow("words too long for a name")
                << QStringLiteral("the payment provider is still working on this request")
                << QStringLiteral("unnamed");
    }

    void barePatternRules()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, name);
        const QByteArray text = QByteArray(R"({"outcome_rules":{"not_performed":[)")
                + QByteArray::fromStdString(nlohmann::json(pattern.toStdString()).dump()) + QByteArray("]}}");
        Expected<ToolRegistry> registry = ToolRegistry::fromJson(text, userSource);
        QVERIFY2(registry.ok(), qPrintable(registry.ok() ? QString() : registry.message()));
        QCOMPARE(registry->outcomeRules().notPerformed.size(), 1);
        QCOMPARE(registry->outcomeRules().notPerformed.first().name, name);
        QCOMPARE(registry->outcomeRules().notPerformed.first().pattern.pattern(), pattern);
    }

    // Named rules and bare patterns mix in one list, in order; names are trimmed to one line.
    void namedAndBareRulesMix()
    {
        Expected<ToolRegistry> registry = ToolRegistry::fromJson(
                QByteArray("{\"outcome_rules\":{\"unknown\":[\"still processing\","
                           "{\"name\":\"  queue\\nfull \",\"pattern\":\"queue (is )?full\"}]}}"),
                userSource);
        QVERIFY2(registry.ok(), qPrintable(registry.ok() ? QString() : registry.message()));
        const QList<OutcomeRule> &rules = registry->outcomeRules().unknown;
        QCOMPARE(namesOf(rules),
                 QStringList({QStringLiteral("still processing"), QStringLiteral("queue full")}));
        QCOMPARE(rules.last().pattern.pattern(), QStringLiteral("queue (is )?full"));
        QVERIFY(rules.last().pattern.patternOptions().testFlag(QRegularExpression::CaseInsensitiveOption));
        QVERIFY(registry->outcomeRules().notPerformed.isEmpty());
    }

    void defaultRegistryConstructedEmpty()
    {
        const ToolRegistry empty;
        QVERIFY(empty.toolNames().isEmpty());
        QCOMPARE(empty.classOf(QStringLiteral("get_order")), ToolClass::Unclassified);
        QVERIFY(empty.outcomeRules().unknown.isEmpty());
    }

    // ---- loading errors -------------------------------------------------------------------

    void loadErrors_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("path"); // where the message points
        QTest::addColumn<QString>("mentions"); // something else it must say

        QTest::newRow("empty input") << QByteArray() << QStringLiteral("not valid JSON") << QString();
        QTest::newRow("invalid JSON") << QByteArray("{\n  \"tools\": {,}\n}")
                                      << QStringLiteral("not valid JSON") << QStringLiteral("line 2");
        QTest::newRow("root is a list")
                << QByteArray(R"([{"tools":{}}])") << QStringLiteral("$:") << QStringLiteral("expected");
        QTest::newRow("root is a string")
                << QByteArray(R"("tools")") << QStringLiteral("$:") << QStringLiteral("expected");
        QTest::newRow("tools is a list") << QByteArray(R"({"tools":["get_order"]})")
                                         << QStringLiteral("$.tools:") << QStringLiteral("expected");
        QTest::newRow("tool is a string")
                << QByteArray(R"({"tools":{"get_order":"read"}})") << QStringLiteral("$.tools.get_order:")
                << QStringLiteral("expected");
        QTest::newRow("unknown class")
                << QByteArray(R"({"tools":{"get_order":{"class":"readonly"}}})")
                << QStringLiteral("$.tools.get_order.class") << QStringLiteral("expected");
        QTest::newRow("class unclassified")
                << QByteArray(R"({"tools":{"get_order":{"class":"unclassified"}}})")
                << QStringLiteral("$.tools.get_order.class") << QStringLiteral("expected");
        QTest::newRow("missing class")
                << QByteArray(R"({"tools":{"get_order":{}}})") << QStringLiteral("$.tools.get_order.class")
                << QStringLiteral("expected");
        QTest::newRow("write without intent")
                << QByteArray(R"({"tools":{"issue_refund":{"class":"write_money"}}})")
                << QStringLiteral("$.tools.issue_refund.intent") << QStringLiteral("expected");
        QTest::newRow("write with empty intent")
                << QByteArray(R"({"tools":{"issue_refund":{"class":"write_money","intent":[]}}})")
                << QStringLiteral("$.tools.issue_refund.intent") << QStringLiteral("expected");
        QTest::newRow("read with intent")
                << QByteArray(R"({"tools":{"get_order":{"class":"read","intent":["order_id"]}}})")
                << QStringLiteral("$.tools.get_order.intent") << QStringLiteral("expected");
        QTest::newRow("intent field bad type")
                << QByteArray(R"({"tools":{"issue_refund":{"class":"write_money",
                  "intent":["ticket_id","order_id","item_id",{"name":"amount_cents","type":"float"}]}}})")
                << QStringLiteral("$.tools.issue_refund.intent[3].type") << QStringLiteral("expected");
        QTest::newRow("intent field without name") << QByteArray(
                R"({"tools":{"issue_refund":{"class":"write_money","intent":["ticket_id",{"type":"integer"}]}}})")
                                                   << QStringLiteral("$.tools.issue_refund.intent[1].name")
                                                   << QStringLiteral("expected");
        QTest::newRow("intent field empty name")
                << QByteArray(R"({"tools":{"issue_refund":{"class":"write_money","intent":[""]}}})")
                << QStringLiteral("$.tools.issue_refund.intent[0]") << QStringLiteral("expected");
        QTest::newRow("intent field a number")
                << QByteArray(R"({"tools":{"issue_refund":{"class":"write_money","intent":[7]}}})")
                << QStringLiteral("$.tools.issue_refund.intent[0]") << QStringLiteral("expected");
        QTest::newRow("duplicated intent field")
                << QByteArray(R"({"tools":{"issue_refund":{"class":"write_money",
                  "intent":["ticket_id","order_id",{"name":"order_id","type":"string"}]}}})")
                << QStringLiteral("$.tools.issue_refund.intent[2]") << QStringLiteral("order_id");
        QTest::newRow("amount not text") << QByteArray(
                R"({"tools":{"issue_refund":{"class":"write_money","intent":["ticket_id"],"amount":5}}})")
                                         << QStringLiteral("$.tools.issue_refund.amount")
                                         << QStringLiteral("expected");
        QTest::newRow("invalid regex in unknown")
                << QByteArray("{\"outcome_rules\":{\"unknown\":[\"time(d? out\"]}}")
                << QStringLiteral("$.outcome_rules.unknown[0]") << QStringLiteral("expected");
        QTest::newRow("invalid regex in not_performed")
                << QByteArray("{\"outcome_rules\":{\"not_performed\":[\"refused\",\"[4-\"]}}")
                << QStringLiteral("$.outcome_rules.not_performed[1]") << QStringLiteral("expected");
        QTest::newRow("rule a number") << QByteArray(R"({"outcome_rules":{"unknown":[42]}})")
                                       << QStringLiteral("$.outcome_rules.unknown[0]: expected")
                                       << QStringLiteral("{\"name\": ..., \"pattern\": ...}");
        QTest::newRow("rule without a pattern")
                << QByteArray(R"({"outcome_rules":{"unknown":[{"name":"timeout"}]}})")
                << QStringLiteral("$.outcome_rules.unknown[0].pattern: expected")
                << QStringLiteral("a regular expression as a string");
        QTest::newRow("rule pattern not text")
                << QByteArray(R"({"outcome_rules":{"unknown":[{"name":"timeout","pattern":["timeout"]}]}})")
                << QStringLiteral("$.outcome_rules.unknown[0].pattern: expected")
                << QStringLiteral("a regular expression as a string");
        QTest::newRow("invalid regex in a named rule")
                << QByteArray("{\"outcome_rules\":{\"not_performed\":[\"refused\",{\"name\":\"x\","
                              "\"pattern\":\"[4-\"}]}}")
                << QStringLiteral("$.outcome_rules.not_performed[1].pattern: expected")
                << QStringLiteral("a valid regular expression");
        QTest::newRow("rule without a name")
                << QByteArray(R"({"outcome_rules":{"unknown":[{"pattern":"timeout"}]}})")
                << QStringLiteral("$.outcome_rules.unknown[0].name: expected")
                << QStringLiteral("a short name");
        QTest::newRow("rule name blank")
                << QByteArray(R"({"outcome_rules":{"unknown":[{"name":"  ","pattern":"timeout"}]}})")
                << QStringLiteral("$.outcome_rules.unknown[0].name: expected")
                << QStringLiteral("a short name");
        QTest::newRow("rule name not text")
                << QByteArray(R"({"outcome_rules":{"not_performed":[{"name":4,"pattern":"4\\d\\d"}]}})")
                << QStringLiteral("$.outcome_rules.not_performed[0].name: expected")
                << QStringLiteral("a short name");
        QTest::newRow("rule name too long") << QByteArray(
                R"({"outcome_rules":{"unknown":[{"name":"a timeout, or anything else that looks slow",)"
                R"("pattern":"slow"}]}})") << QStringLiteral("$.outcome_rules.unknown[0].name: expected")
                                            << QStringLiteral("1 to 40 characters");
        QTest::newRow("misspelt key in a rule")
                << QByteArray(R"({"outcome_rules":{"unknown":["ok",{"name":"timeout","patern":"timeout"}]}})")
                << QStringLiteral("$.outcome_rules.unknown[1].patern: expected")
                << QStringLiteral("misspelt");
        QTest::newRow("rules not a list")
                << QByteArray(R"({"outcome_rules":{"unknown":"timeout"}})")
                << QStringLiteral("$.outcome_rules.unknown") << QStringLiteral("expected");
        QTest::newRow("outcome_rules not an object")
                << QByteArray(R"({"outcome_rules":["timeout"]})") << QStringLiteral("$.outcome_rules")
                << QStringLiteral("expected");
        QTest::newRow("wrong format")
                << QByteArray(R"({"format":"some-other-format","version":1,"tools":{}})")
                << QStringLiteral("$.format") << QStringLiteral("verity-tool-registry");
        QTest::newRow("format not text") << QByteArray(R"({"format":1,"tools":{}})")
                                         << QStringLiteral("$.format") << QStringLiteral("expected");
        QTest::newRow("wrong version")
                << QByteArray(R"({"format":"verity-tool-registry","version":2,"tools":{}})")
                << QStringLiteral("$.version") << QStringLiteral("expected");
        QTest::newRow("version as text") << QByteArray(R"({"format":"verity-tool-registry","version":"1"})")
                                         << QStringLiteral("$.version") << QStringLiteral("expected");
    }

    void loadErrors()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, path);
        QFETCH(QString, mentions);

        Expected<ToolRegistry> registry = ToolRegistry::fromJson(json, userSource);
        QVERIFY(!registry.ok());
        const QString message = registry.message();
        QVERIFY2(message.startsWith(userSource + QStringLiteral(": ")), qPrintable(message));
        QVERIFY2(message.contains(path), qPrintable(message));
        if (!mentions.isEmpty())
            QVERIFY2(message.contains(mentions), qPrintable(message));

        // The same text as an extension of the built-in registry fails the same way and
        // leaves the built-in registry as it was.
        Expected<ToolRegistry> extended = m_builtIn.extendedWith(json, userSource);
        QVERIFY(!extended.ok());
        QVERIFY2(extended.message().startsWith(userSource + QStringLiteral(": ")),
                 qPrintable(extended.message()));
        QCOMPARE(m_builtIn.classOf(QStringLiteral("issue_refund")), ToolClass::WriteMoney);
        QCOMPARE(m_builtIn.toolNames().size(), 6);
    }

    // Verity's own "line L, column C" points at the offending character as an editor counts
    // it (1-based), right after the source name.
    void invalidJsonLineAndColumn_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("where");

        // The ',' is the 13th character of line 2.
        QTest::newRow("stray comma") << QByteArray("{\n  \"tools\": {,}\n}")
                                     << QStringLiteral("line 2, column 13");
        // The second '{' is the 1st character of line 2.
        QTest::newRow("trailing object")
                << QByteArray("{\"tools\": {}}\n{") << QStringLiteral("line 2, column 1");
        // The 'x' is the 6th character of line 1.
        QTest::newRow("bad literal") << QByteArray("{\"a\":x}") << QStringLiteral("line 1, column 6");
    }

    void invalidJsonLineAndColumn()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, where);
        Expected<ToolRegistry> registry = ToolRegistry::fromJson(json, userSource);
        QVERIFY(!registry.ok());
        QVERIFY2(registry.message().startsWith(userSource + QStringLiteral(": ") + where + QLatin1Char(':')),
                 qPrintable(registry.message()));
    }

    void minimalRegistries_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<int>("toolCount");
        QTest::newRow("empty object") << QByteArray("{}") << 0;
        QTest::newRow("no format, no version")
                << QByteArray(R"({"tools":{"get_order":{"class":"read"}}})") << 1;
        QTest::newRow("field object without type") << QByteArray(
                R"({"tools":{"escalate_to_human":{"class":"write_wasteful","intent":[{"name":"ticket_id"}]}}})")
                                                   << 1;
    }

    void minimalRegistries()
    {
        QFETCH(QByteArray, json);
        QFETCH(int, toolCount);
        Expected<ToolRegistry> registry = ToolRegistry::fromJson(json, userSource);
        QVERIFY2(registry.ok(), qPrintable(registry.ok() ? QString() : registry.message()));
        QCOMPARE(registry->toolNames().size(), toolCount);
    }

    // ---- extending -------------------------------------------------------------------------

    void extendedWithOverridesAndAdds()
    {
        Expected<ToolRegistry> extended = m_builtIn.extendedWith(userExtension, userSource);
        QVERIFY2(extended.ok(), qPrintable(extended.ok() ? QString() : extended.message()));

        // issue_refund is replaced as a whole.
        const ToolSpec *refund = extended->find(QStringLiteral("issue_refund"));
        QVERIFY(refund);
        QCOMPARE(refund->toolClass, ToolClass::WriteCostly);
        QCOMPARE(fieldsOf(*refund),
                 (FieldList{{QStringLiteral("order_id"), IntentField::Type::String},
                            {QStringLiteral("refund_cents"), IntentField::Type::Integer},
                            {QStringLiteral("note"), IntentField::Type::Sha256}}));
        QCOMPARE(refund->amountField, QStringLiteral("refund_cents"));

        // New tools are added; the other built-in tools are kept.
        QCOMPARE(extended->classOf(QStringLiteral("cancel_subscription")), ToolClass::WriteIrreversible);
        QCOMPARE(extended->classOf(QStringLiteral("lookup_customer")), ToolClass::Read);
        QCOMPARE(extended->classOf(QStringLiteral("schedule_pickup")), ToolClass::WriteCostly);
        QCOMPARE(extended->classOf(QStringLiteral("get_order")), ToolClass::Read);
        QCOMPARE(extended->toolNames().size(), 8);

        // Rules are added after the built-in ones.
        const OutcomeRules &rules = extended->outcomeRules();
        QCOMPARE(rules.unknown.size(), m_builtIn.outcomeRules().unknown.size() + 1);
        QCOMPARE(rules.notPerformed.size(), m_builtIn.outcomeRules().notPerformed.size() + 1);
        QCOMPARE(rules.unknown.last().pattern.pattern(), QStringLiteral("still processing"));
        QCOMPARE(rules.unknown.last().name, QStringLiteral("still processing"));
        QCOMPARE(rules.notPerformed.last().pattern.pattern(), QStringLiteral("nothing to cancel"));
        QCOMPARE(rules.notPerformed.last().name, QStringLiteral("nothing to cancel"));
        QCOMPARE(rules.unknown.first().name, m_builtIn.outcomeRules().unknown.first().name);
        QCOMPARE(rules.unknown.first().pattern.pattern(),
                 m_builtIn.outcomeRules().unknown.first().pattern.pattern());

        // The registry it was made from is unchanged.
        const ToolSpec *original = m_builtIn.find(QStringLiteral("issue_refund"));
        QVERIFY(original);
        QCOMPARE(original->toolClass, ToolClass::WriteMoney);
        QCOMPARE(original->intent.size(), 4);
        QCOMPARE(original->amountField, QStringLiteral("amount_cents"));
        QCOMPARE(m_builtIn.classOf(QStringLiteral("cancel_subscription")), ToolClass::Unclassified);
        QCOMPARE(m_builtIn.toolNames().size(), 6);
        QCOMPARE(m_builtIn.outcomeRules().unknown.size(), 7);
        QCOMPARE(m_builtIn.outcomeRules().notPerformed.size(), 11);
    }

    void extendedWithBadFileKeepsTheRegistryInForce_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("invalid JSON") << QByteArray("{\"tools\": {\"issue_refund\": ");
        // The first tool is fine, the second is not: nothing of the file may apply.
        QTest::newRow("good tool then bad tool") << QByteArray(R"({"tools":{"aaa_first":{"class":"read"},
                                       "issue_refund":{"class":"write_costly","intent":["order_id","order_id"]}}})");
        QTest::newRow("good tools then bad rule")
                << QByteArray("{\"tools\":{\"issue_refund\":{\"class\":\"read\"}},\"outcome_rules\":{"
                              "\"unknown\":[\"ok\",\"(\"]}}");
        QTest::newRow("good unknown rules then bad not_performed")
                << QByteArray("{\"outcome_rules\":{\"unknown\":[\"ok\"],\"not_performed\":[\"(\"]}}");
    }

    void extendedWithBadFileKeepsTheRegistryInForce()
    {
        QFETCH(QByteArray, json);
        const ToolRegistry inForce = m_builtIn;
        Expected<ToolRegistry> extended = inForce.extendedWith(json, userSource);
        QVERIFY(!extended.ok());
        QVERIFY2(extended.message().startsWith(userSource + QStringLiteral(": ")),
                 qPrintable(extended.message()));

        QCOMPARE(inForce.classOf(QStringLiteral("issue_refund")), ToolClass::WriteMoney);
        QCOMPARE(inForce.find(QStringLiteral("issue_refund"))->intent.size(), 4);
        QCOMPARE(inForce.classOf(QStringLiteral("aaa_first")), ToolClass::Unclassified);
        QCOMPARE(inForce.toolNames(), m_builtIn.toolNames());
        QCOMPARE(inForce.outcomeRules().unknown.size(), 7);
        QCOMPARE(inForce.outcomeRules().notPerformed.size(), 11);
    }

    void extendedTwice()
    {
        Expected<ToolRegistry> once = m_builtIn.extendedWith(userExtension, userSource);
        QVERIFY(once.ok());
        Expected<ToolRegistry> twice = once->extendedWith(
                QByteArray(R"({"tools":{"issue_refund":{"class":"write_money","intent":["ticket_id"]}}})"),
                QStringLiteral("second.json"));
        QVERIFY(twice.ok());
        QCOMPARE(twice->classOf(QStringLiteral("issue_refund")), ToolClass::WriteMoney);
        QCOMPARE(twice->find(QStringLiteral("issue_refund"))->intent.size(), 1);
        QVERIFY(twice->find(QStringLiteral("issue_refund"))->amountField.isEmpty());
        QCOMPARE(twice->classOf(QStringLiteral("cancel_subscription")), ToolClass::WriteIrreversible);
        QCOMPARE(once->classOf(QStringLiteral("issue_refund")), ToolClass::WriteCostly);
    }

    // ---- lookups ---------------------------------------------------------------------------

    void builtInLookups_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("system"); // empty: no lookup
        QTest::addColumn<QString>("path");
        QTest::addColumn<Filter>("filter");
        QTest::addColumn<QString>("key");

        const Filter byOrder{{QStringLiteral("order"), QStringLiteral("order_id")}};
        const QString intentKey = QStringLiteral("metadata.intent_key");
        QTest::newRow("schedule_pickup") << "schedule_pickup"
                                         << "courier"
                                         << "/v1/pickups" << byOrder << intentKey;
        QTest::newRow("message_seller") << "message_seller"
                                        << "messaging"
                                        << "/v1/messages" << byOrder << intentKey;
        // Refunds keep the payment provider's own lookup.
        QTest::newRow("issue_refund") << "issue_refund" << QString() << QString() << Filter{} << QString();
        QTest::newRow("escalate_to_human")
                << "escalate_to_human" << QString() << QString() << Filter{} << QString();
        QTest::newRow("get_order") << "get_order" << QString() << QString() << Filter{} << QString();
    }

    void builtInLookups()
    {
        QFETCH(QString, tool);
        QFETCH(QString, system);
        QFETCH(QString, path);
        QFETCH(Filter, filter);
        QFETCH(QString, key);
        const ToolSpec *spec = m_builtIn.find(tool);
        QVERIFY(spec);
        QCOMPARE(spec->lookup.has_value(), !system.isEmpty());
        if (!spec->lookup)
            return;
        QCOMPARE(spec->lookup->system, system);
        QCOMPARE(spec->lookup->path, path);
        QCOMPARE(spec->lookup->filter, filter);
        QCOMPARE(spec->lookup->key, key);
    }

    void lookupLoads_data()
    {
        QTest::addColumn<QByteArray>("lookup");
        QTest::addColumn<QString>("path");
        QTest::addColumn<Filter>("filter");
        QTest::addColumn<QString>("key");

        QTest::newRow("metadata key")
                << QByteArray(R"({"system":"payments","path":"/v1/transfers",
                                                         "filter":{"destination":"seller_id"},"key":"metadata.intent_key"})")
                << "/v1/transfers" << Filter{{QStringLiteral("destination"), QStringLiteral("seller_id")}}
                << "metadata.intent_key";
        // Filters in the order of their parameters' names.
        QTest::newRow("top-level key, two filters") << QByteArray(
                R"({"system":"helpdesk","path":"/api/v2/tickets","filter":{"requester":"email","order":"order_id"},
                              "key":"external_id"})")
                                                    << "/api/v2/tickets"
                                                    << Filter{{QStringLiteral("order"),
                                                               QStringLiteral("order_id")},
                                                              {QStringLiteral("requester"),
                                                               QStringLiteral("email")}}
                                                    << "external_id";
    }

    void lookupLoads()
    {
        QFETCH(QByteArray, lookup);
        QFETCH(QString, path);
        QFETCH(Filter, filter);
        QFETCH(QString, key);
        const QByteArray json = R"({"tools":{"book":{"class":"write_costly","intent":["ticket_id"],"lookup":)"
                + lookup + "}}}";
        Expected<ToolRegistry> registry = m_builtIn.extendedWith(json, userSource);
        QVERIFY2(registry.ok(), qPrintable(registry.ok() ? QString() : registry.message()));
        const ToolSpec *spec = registry->find(QStringLiteral("book"));
        QVERIFY(spec && spec->lookup);
        QCOMPARE(spec->lookup->path, path);
        QCOMPARE(spec->lookup->filter, filter);
        QCOMPARE(spec->lookup->key, key);

        // Saved to a user registry and read back, it is the same lookup.
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("registry.json"));
        QVERIFY(saveToolToUserRegistry(file, *spec));
        Expected<ToolRegistry> saved = ToolRegistry::fromFile(file);
        QVERIFY2(saved.ok(), qPrintable(saved.ok() ? QString() : saved.message()));
        const ToolSpec *reread = saved->find(QStringLiteral("book"));
        QVERIFY(reread && reread->lookup);
        QCOMPARE(reread->lookup->system, spec->lookup->system);
        QCOMPARE(reread->lookup->path, path);
        QCOMPARE(reread->lookup->filter, filter);
        QCOMPARE(reread->lookup->key, key);
    }

    void lookupErrors_data()
    {
        QTest::addColumn<QByteArray>("tool"); // the tool "book"'s object
        QTest::addColumn<QString>("path"); // where the message points
        QTest::addColumn<QString>("expected");

        const QByteArray write = R"("class":"write_costly","intent":["ticket_id"])";
        const auto lookup = [&](const QByteArray &body) {
            return "{" + write + R"(,"lookup":)" + body + "}";
        };
        const QByteArray good =
                R"("system":"courier","path":"/v1/pickups","filter":{"order":"order_id"},"key":"metadata.intent_key")";
        QTest::newRow("lookup on a read tool")
                << QByteArray(R"({"class":"read","lookup":{)" + good + "}}") << "$.tools.book.lookup"
                << "no lookup on a read tool";
        QTest::newRow("lookup not an object") << lookup(R"("/v1/pickups")") << "$.tools.book.lookup:"
                                              << "an object with";
        QTest::newRow("unknown key") << lookup("{" + good + R"(,"method":"GET"})")
                                     << "$.tools.book.lookup.method"
                                     << "one of the keys system, path, filter, key";
        QTest::newRow("no system") << lookup(
                R"({"path":"/v1/pickups","filter":{"order":"order_id"},"key":"id"})")
                                   << "$.tools.book.lookup.system"
                                   << "a short name of the system";
        QTest::newRow("system on two lines") << lookup(
                R"({"system":"cou\nrier","path":"/v1/pickups","filter":{"order":"order_id"},"key":"id"})")
                                             << "$.tools.book.lookup.system"
                                             << "at most 40 characters on one line";
        QTest::newRow("system too long")
                << lookup(R"({"system":")" + QByteArray(41, 'c')
                          + R"(","path":"/v1/pickups","filter":{"order":"order_id"},"key":"id"})")
                << "$.tools.book.lookup.system"
                << "at most 40 characters";
        QTest::newRow("path a number")
                << lookup(R"({"system":"courier","path":7,"filter":{"order":"order_id"},"key":"id"})")
                << "$.tools.book.lookup.path"
                << "the path of the list";
        QTest::newRow("path with a query") << lookup(
                R"({"system":"courier","path":"/v1/pickups?order=1","filter":{"order":"order_id"},"key":"id"})")
                                           << "$.tools.book.lookup.path"
                                           << "without a query";
        QTest::newRow("path not absolute") << lookup(
                R"({"system":"courier","path":"v1/pickups","filter":{"order":"order_id"},"key":"id"})")
                                           << "$.tools.book.lookup.path"
                                           << "without a query";
        QTest::newRow("no filter") << lookup(R"({"system":"courier","path":"/v1/pickups","key":"id"})")
                                   << "$.tools.book.lookup.filter"
                                   << "an object of query parameters";
        QTest::newRow("empty filter")
                << lookup(R"({"system":"courier","path":"/v1/pickups","filter":{},"key":"id"})")
                << "$.tools.book.lookup.filter"
                << "an object of query parameters";
        QTest::newRow("filter a list")
                << lookup(R"({"system":"courier","path":"/v1/pickups","filter":["order"],"key":"id"})")
                << "$.tools.book.lookup.filter"
                << "an object of query parameters";
        QTest::newRow("filter by a number")
                << lookup(R"({"system":"courier","path":"/v1/pickups","filter":{"order":1},"key":"id"})")
                << "$.tools.book.lookup.filter.order"
                << "the name of an argument";
        QTest::newRow("filter by limit") << lookup(
                R"({"system":"courier","path":"/v1/pickups","filter":{"limit":"order_id"},"key":"id"})")
                                         << "$.tools.book.lookup.filter.limit"
                                         << "other than limit and starting_after";
        QTest::newRow("filter by starting_after") << lookup(
                R"({"system":"courier","path":"/v1/pickups","filter":{"starting_after":"order_id"},"key":"id"})")
                                                  << "$.tools.book.lookup.filter.starting_after"
                                                  << "other than limit and starting_after";
        QTest::newRow("no key") << lookup(
                R"({"system":"courier","path":"/v1/pickups","filter":{"order":"order_id"}})")
                                << "$.tools.book.lookup.key"
                                << "metadata.<name>";
        QTest::newRow("key nested deeper") << lookup(
                R"({"system":"courier","path":"/v1/pickups","filter":{"order":"order_id"},"key":"metadata.a.b"})")
                                           << "$.tools.book.lookup.key"
                                           << "or the name of a top-level field";
        QTest::newRow("key of empty metadata") << lookup(
                R"({"system":"courier","path":"/v1/pickups","filter":{"order":"order_id"},"key":"metadata."})")
                                               << "$.tools.book.lookup.key"
                                               << "or the name of a top-level field";
    }

    void lookupErrors()
    {
        QFETCH(QByteArray, tool);
        QFETCH(QString, path);
        QFETCH(QString, expected);
        const QByteArray json = R"({"tools":{"aaa_first":{"class":"read"},"book":)" + tool + "}}";
        Expected<ToolRegistry> extended = m_builtIn.extendedWith(json, userSource);
        QVERIFY(!extended.ok());
        const QString message = extended.message();
        QVERIFY2(message.startsWith(userSource + QStringLiteral(": ") + path), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("expected ")), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
        // The registry in force is as it was: nothing of the file applies.
        QCOMPARE(m_builtIn.toolNames().size(), 6);
        QCOMPARE(m_builtIn.classOf(QStringLiteral("aaa_first")), ToolClass::Unclassified);
        QVERIFY(m_builtIn.find(QStringLiteral("schedule_pickup"))->lookup);
    }

    // ---- files ---------------------------------------------------------------------------

    void fromFileAndExtendedWithFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString base = dir.filePath(QStringLiteral("base.json"));
        const QString user = dir.filePath(QStringLiteral("user.json"));
        QVERIFY(writeFile(base, QByteArray(R"({"format":"verity-tool-registry","version":1,
            "tools":{"get_order":{"class":"read"},"issue_refund":{"class":"write_money","intent":["order_id"]}}})")));
        QVERIFY(writeFile(user, userExtension));

        Expected<ToolRegistry> registry = ToolRegistry::fromFile(base);
        QVERIFY2(registry.ok(), qPrintable(registry.ok() ? QString() : registry.message()));
        QCOMPARE(registry->toolNames(),
                 QStringList({QStringLiteral("get_order"), QStringLiteral("issue_refund")}));

        Expected<ToolRegistry> extended = registry->extendedWithFile(user);
        QVERIFY2(extended.ok(), qPrintable(extended.ok() ? QString() : extended.message()));
        QCOMPARE(extended->classOf(QStringLiteral("issue_refund")), ToolClass::WriteCostly);
        QCOMPARE(extended->classOf(QStringLiteral("cancel_subscription")), ToolClass::WriteIrreversible);
        QCOMPARE(registry->classOf(QStringLiteral("issue_refund")), ToolClass::WriteMoney);
    }

    void badFileNamesItsPath()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        QVERIFY(writeFile(
                path, QByteArray("{\n  \"tools\": {\n    \"x\": {\"class\": \"write_money\"}\n  }\n}\n")));

        Expected<ToolRegistry> loaded = ToolRegistry::fromFile(path);
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.message().startsWith(path + QStringLiteral(": ")), qPrintable(loaded.message()));
        QVERIFY2(loaded.message().contains(QStringLiteral("$.tools.x.intent")), qPrintable(loaded.message()));

        Expected<ToolRegistry> extended = m_builtIn.extendedWithFile(path);
        QVERIFY(!extended.ok());
        QVERIFY2(extended.message().startsWith(path + QStringLiteral(": ")), qPrintable(extended.message()));
        QCOMPARE(m_builtIn.classOf(QStringLiteral("issue_refund")), ToolClass::WriteMoney);
    }

    void invalidJsonFileNamesItsPathAndLine()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("invalid.json"));
        QVERIFY(writeFile(path,
                          QByteArray("{\n  \"tools\": {\n    \"x\": {\"class\": \"read\",}\n  }\n}\n")));
        Expected<ToolRegistry> loaded = ToolRegistry::fromFile(path);
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.message().startsWith(path + QStringLiteral(": line 3, column ")),
                 qPrintable(loaded.message()));
        QVERIFY2(loaded.message().contains(QStringLiteral("not valid JSON")), qPrintable(loaded.message()));
    }

    void missingFileNamesItsPath()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("no-such-registry.json"));

        Expected<ToolRegistry> loaded = ToolRegistry::fromFile(path);
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.message().startsWith(path), qPrintable(loaded.message()));

        Expected<ToolRegistry> extended = m_builtIn.extendedWithFile(path);
        QVERIFY(!extended.ok());
        QVERIFY2(extended.message().contains(path), qPrintable(extended.message()));
        QCOMPARE(m_builtIn.toolNames().size(), 6);
    }
};

QTEST_GUILESS_MAIN(TestToolRegistry)
#include "tst_toolregistry.moc"

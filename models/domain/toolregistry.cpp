#include "toolregistry.h"

#include "jsontext.h"

#include <QFile>

#include <nlohmann/json.hpp>

namespace verity {

using nlohmann::json;

namespace {

// Line and column of a byte offset, for parse errors a person can find in an editor.
QString lineColumn(const QByteArray &text, std::size_t byte)
{
    // nlohmann counts bytes from 1, up to and including the offending one.
    int line = 1;
    int column = 1;
    for (std::size_t i = 0; i + 1 < byte && i < std::size_t(text.size()); ++i) {
        if (text[qsizetype(i)] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

// A rule's name is shown on a card: a line, never a paragraph.
constexpr int maxRuleNameLength = 40;

// The name of a rule given as a bare pattern. A pattern that is only words ("still processing",
// "\\bdeclined\\b") is named by them; any other pattern says nothing a support agent could read, so
// the rule is called what it is: unnamed.
QString nameOfBarePattern(QString pattern)
{
    for (const QString &edge : {QStringLiteral("^"), QStringLiteral("\\b")}) {
        if (pattern.startsWith(edge))
            pattern.remove(0, edge.size());
    }
    for (const QString &edge : {QStringLiteral("$"), QStringLiteral("\\b")}) {
        if (pattern.endsWith(edge))
            pattern.chop(edge.size());
    }
    static const QRegularExpression words(QStringLiteral(R"(^[\w' -]*\w[\w' -]*$)"),
                                          QRegularExpression::UseUnicodePropertiesOption);
    const QString name = pattern.simplified();
    if (words.match(name).hasMatch() && name.size() <= maxRuleNameLength)
        return name;
    return QStringLiteral("unnamed");
}

struct Reader
{
    QString source;
    std::optional<Error> error;

    bool fail(const QString &path, const QString &expected)
    {
        if (!error)
            error = makeError(QStringLiteral("%1: %2: expected %3").arg(source, path, expected));
        return false;
    }

    bool readField(const json &node, const QString &path, IntentField &field)
    {
        if (node.is_string()) {
            field.name = fromUtf8String(node.get<std::string>());
            return !field.name.isEmpty() || fail(path, QStringLiteral("a field name"));
        }
        if (!node.is_object())
            return fail(path, QStringLiteral("a field name or {\"name\": ..., \"type\": ...}"));
        auto name = node.find("name");
        if (name == node.end() || !name->is_string() || name->get<std::string>().empty())
            return fail(path + QStringLiteral(".name"), QStringLiteral("a non-empty string"));
        field.name = fromUtf8String(name->get<std::string>());
        auto type = node.find("type");
        if (type == node.end())
            return true;
        const std::string typeName = type->is_string() ? type->get<std::string>() : std::string();
        if (typeName == "string")
            field.type = IntentField::Type::String;
        else if (typeName == "integer")
            field.type = IntentField::Type::Integer;
        else if (typeName == "sha256")
            field.type = IntentField::Type::Sha256;
        else if (typeName == "json")
            field.type = IntentField::Type::Json;
        else
            return fail(path + QStringLiteral(".type"),
                        QStringLiteral("one of string, integer, sha256, json"));
        return true;
    }

    bool readText(const json &node, const char *key, const QString &path, const QString &expected,
                  QString &out)
    {
        auto found = node.find(key);
        if (found == node.end() || !found->is_string() || found->get<std::string>().empty())
            return fail(QStringLiteral("%1.%2").arg(path, QLatin1String(key)), expected);
        out = fromUtf8String(found->get<std::string>());
        return true;
    }

    bool readLookup(const json &node, const QString &path, RecordLookupSpec &lookup)
    {
        if (!node.is_object())
            return fail(path, QStringLiteral("an object with \"system\", \"path\", \"filter\" and \"key\""));
        for (auto it = node.begin(); it != node.end(); ++it) {
            if (it.key() != "system" && it.key() != "path" && it.key() != "filter" && it.key() != "key")
                return fail(QStringLiteral("%1.%2").arg(path, fromUtf8String(it.key())),
                            QStringLiteral("one of the keys system, path, filter, key (is it misspelt?)"));
        }
        static const QRegularExpression systemName(QStringLiteral("^\\S(.{0,38}\\S)?$"));
        static const QRegularExpression listPath(QStringLiteral("^(/[A-Za-z0-9._~-]+)+$"));
        static const QRegularExpression fieldKey(QStringLiteral("^(metadata\\.)?[A-Za-z0-9_-]+$"));
        if (!readText(node, "system", path, QStringLiteral("a short name of the system, such as \"courier\""),
                      lookup.system))
            return false;
        if (!systemName.match(lookup.system).hasMatch())
            return fail(path + QStringLiteral(".system"),
                        QStringLiteral("a short name of at most 40 characters on one line"));
        if (!readText(node, "path", path, QStringLiteral("the path of the list, such as \"/v1/pickups\""),
                      lookup.path))
            return false;
        if (!listPath.match(lookup.path).hasMatch())
            return fail(
                    path + QStringLiteral(".path"),
                    QStringLiteral(
                            "a path such as \"/v1/pickups\": segments after '/', without a query or spaces"));
        if (!readText(node, "key", path,
                      QStringLiteral("\"metadata.<name>\" or the name of a top-level field"), lookup.key))
            return false;
        if (!fieldKey.match(lookup.key).hasMatch())
            return fail(path + QStringLiteral(".key"),
                        QStringLiteral("\"metadata.<name>\" or the name of a top-level field"));

        auto filter = node.find("filter");
        if (filter == node.end() || !filter->is_object() || filter->empty())
            return fail(path + QStringLiteral(".filter"),
                        QStringLiteral("an object of query parameters and the arguments they take, such as "
                                       "{\"order\": \"order_id\"}"));
        for (auto it = filter->begin(); it != filter->end(); ++it) {
            const QString param = fromUtf8String(it.key());
            const QString paramPath = QStringLiteral("%1.filter.%2").arg(path, param);
            // The list's own paging parameters are the lookup's to send.
            if (param.isEmpty() || param == u"limit" || param == u"starting_after")
                return fail(paramPath,
                            QStringLiteral("a query parameter other than limit and starting_after"));
            if (!it->is_string() || it->get<std::string>().empty())
                return fail(paramPath, QStringLiteral("the name of an argument"));
            lookup.filter.append({param, fromUtf8String(it->get<std::string>())});
        }
        return true;
    }

    bool readTool(const std::string &name, const json &node, ToolSpec &spec)
    {
        const QString path = QStringLiteral("$.tools.%1").arg(fromUtf8String(name));
        if (!node.is_object())
            return fail(path, QStringLiteral("an object with \"class\""));
        spec.name = fromUtf8String(name);
        auto cls = node.find("class");
        std::optional<ToolClass> toolClass;
        if (cls != node.end() && cls->is_string())
            toolClass = toolClassFromId(fromUtf8String(cls->get<std::string>()));
        if (!toolClass || *toolClass == ToolClass::Unclassified)
            return fail(path + QStringLiteral(".class"),
                        QStringLiteral("one of read, write_money, write_costly, write_irreversible, "
                                       "write_wasteful"));
        spec.toolClass = *toolClass;

        auto intent = node.find("intent");
        if (isWrite(spec.toolClass)) {
            if (intent == node.end() || !intent->is_array() || intent->empty())
                return fail(path + QStringLiteral(".intent"),
                            QStringLiteral("a non-empty list of the fields that make one intent"));
            for (std::size_t i = 0; i < intent->size(); ++i) {
                IntentField field;
                if (!readField((*intent)[i], QStringLiteral("%1.intent[%2]").arg(path).arg(i), field))
                    return false;
                for (const IntentField &seen : std::as_const(spec.intent)) {
                    if (seen.name == field.name)
                        return fail(QStringLiteral("%1.intent[%2]").arg(path).arg(i),
                                    QStringLiteral("a field not already listed (\"%1\" repeats)")
                                            .arg(field.name));
                }
                spec.intent.append(field);
            }
        } else if (intent != node.end()) {
            return fail(path + QStringLiteral(".intent"), QStringLiteral("no intent fields on a read tool"));
        }

        auto amount = node.find("amount");
        if (amount != node.end()) {
            if (!amount->is_string() || amount->get<std::string>().empty())
                return fail(path + QStringLiteral(".amount"), QStringLiteral("the name of an argument"));
            spec.amountField = fromUtf8String(amount->get<std::string>());
        }

        auto payment = node.find("payment");
        if (payment != node.end()) {
            const QString paymentPath = path + QStringLiteral(".payment");
            if (!payment->is_array())
                return fail(paymentPath,
                            QStringLiteral("a list of the places a call names a payment, such as "
                                           "[\"arguments.payment_intent\", \"result.payment.charge\"]"));
            for (std::size_t i = 0; i < payment->size(); ++i) {
                const QString itemPath = QStringLiteral("%1[%2]").arg(paymentPath).arg(i);
                const json &item = (*payment)[i];
                Expected<PaymentField> field = readPaymentField(
                        item.is_string() ? fromUtf8String(item.get<std::string>()) : QString());
                if (!field)
                    return fail(itemPath,
                                QStringLiteral("\"arguments.<name>\" or \"result.<name>\", with dots "
                                               "into objects (\"result.payment.payment_intent\")"));
                spec.payment.append(*field);
            }
        }

        auto lookup = node.find("lookup");
        if (lookup != node.end()) {
            if (!isWrite(spec.toolClass))
                return fail(path + QStringLiteral(".lookup"), QStringLiteral("no lookup on a read tool"));
            if (!readLookup(*lookup, path + QStringLiteral(".lookup"), spec.lookup.emplace()))
                return false;
        }
        return true;
    }

    // A rule is a pattern, or {"name": ..., "pattern": ...}. Files written before rules had names
    // hold bare patterns; they keep loading, and such a rule is named by what it can be called.
    bool readRule(const json &item, const QString &path, OutcomeRule &rule)
    {
        QString patternPath = path;
        const json *pattern = &item;
        if (item.is_object()) {
            for (auto it = item.begin(); it != item.end(); ++it) {
                if (it.key() != "name" && it.key() != "pattern")
                    return fail(QStringLiteral("%1.%2").arg(path, fromUtf8String(it.key())),
                                QStringLiteral("only \"name\" and \"pattern\" in a rule (is it misspelt?)"));
            }
            auto name = item.find("name");
            if (name != item.end() && name->is_string())
                rule.name = fromUtf8String(name->get<std::string>()).simplified();
            if (rule.name.isEmpty() || rule.name.size() > maxRuleNameLength)
                return fail(path + QStringLiteral(".name"),
                            QStringLiteral(
                                    "a short name a support agent reads, such as \"timeout\" (text of 1 to "
                                    "%1 characters)")
                                    .arg(maxRuleNameLength));
            patternPath = path + QStringLiteral(".pattern");
            auto found = item.find("pattern");
            if (found == item.end() || !found->is_string())
                return fail(patternPath, QStringLiteral("a regular expression as a string"));
            pattern = &*found;
        } else if (!item.is_string()) {
            return fail(
                    path,
                    QStringLiteral("a regular expression as a string, or {\"name\": ..., \"pattern\": ...}"));
        }
        const QString text = fromUtf8String(pattern->get<std::string>());
        rule.pattern = QRegularExpression(text, QRegularExpression::CaseInsensitiveOption);
        if (!rule.pattern.isValid())
            return fail(patternPath,
                        QStringLiteral("a valid regular expression (%1 at offset %2)")
                                .arg(rule.pattern.errorString())
                                .arg(rule.pattern.patternErrorOffset()));
        if (rule.name.isEmpty())
            rule.name = nameOfBarePattern(text);
        return true;
    }

    bool readRules(const json &node, const char *key, QList<OutcomeRule> &out)
    {
        auto list = node.find(key);
        if (list == node.end())
            return true;
        const QString path = QStringLiteral("$.outcome_rules.%1").arg(QLatin1String(key));
        if (!list->is_array())
            return fail(path,
                        QStringLiteral("a list of rules (patterns, or {\"name\": ..., \"pattern\": ...})"));
        for (std::size_t i = 0; i < list->size(); ++i) {
            OutcomeRule rule;
            if (!readRule((*list)[i], QStringLiteral("%1[%2]").arg(path).arg(i), rule))
                return false;
            out.append(rule);
        }
        return true;
    }
};

} // namespace

Expected<ToolRegistry> ToolRegistry::fromJson(const QByteArray &text, const QString &source)
{
    return ToolRegistry().extendedWith(text, source);
}

Expected<ToolRegistry> ToolRegistry::fromFile(const QString &path)
{
    return ToolRegistry().extendedWithFile(path);
}

ToolRegistry ToolRegistry::builtIn()
{
    QFile file(QStringLiteral(":/verity/registry/default-registry.json"));
    const bool opened = file.open(QIODevice::ReadOnly);
    Q_ASSERT_X(opened, "ToolRegistry::builtIn", "the default registry is compiled into the resources");
    Expected<ToolRegistry> registry = fromJson(file.readAll(), QStringLiteral("default-registry.json"));
    Q_ASSERT_X(registry.ok(), "ToolRegistry::builtIn",
               qPrintable(registry.ok() ? QString() : registry.message()));
    return registry.ok() ? registry.value() : ToolRegistry();
}

Expected<ToolRegistry> ToolRegistry::extendedWithFile(const QString &path) const
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("%1: cannot read the registry: %2").arg(path, file.errorString()));
    return extendedWith(file.readAll(), path);
}

Expected<ToolRegistry> ToolRegistry::extendedWith(const QByteArray &text, const QString &source) const
{
    if (jsonNestingDepth(text.constBegin(), text.constEnd()) > maxJsonNesting)
        return makeError(QStringLiteral("%1: %2").arg(source, tooDeepReason()));
    json root;
    try {
        root = json::parse(text.constBegin(), text.constEnd());
    } catch (const json::parse_error &e) {
        return makeError(QStringLiteral("%1: %2: not valid JSON (%3)")
                                 .arg(source, lineColumn(text, e.byte), jsonParseErrorReason(e.what())));
    } catch (const json::exception &e) {
        return makeError(
                QStringLiteral("%1: not valid JSON (%2)").arg(source, jsonParseErrorReason(e.what())));
    }

    Reader reader{source, {}};
    if (!root.is_object()) {
        reader.fail(QStringLiteral("$"), QStringLiteral("an object with \"tools\""));
        return *reader.error;
    }
    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string &key = it.key();
        if (key != "format" && key != "version" && key != "tools" && key != "outcome_rules"
            && key != "$comment") {
            reader.fail(QStringLiteral("$.%1").arg(fromUtf8String(key)),
                        QStringLiteral(
                                "one of the keys format, version, tools, outcome_rules (is it misspelt?)"));
            return *reader.error;
        }
    }
    auto format = root.find("format");
    if (format != root.end() && (!format->is_string() || *format != "verity-tool-registry")) {
        reader.fail(QStringLiteral("$.format"), QStringLiteral("\"verity-tool-registry\""));
        return *reader.error;
    }
    auto version = root.find("version");
    if (version != root.end() && (!version->is_number_integer() || *version != 1)) {
        reader.fail(QStringLiteral("$.version"), QStringLiteral("1"));
        return *reader.error;
    }

    ToolRegistry result = *this;
    auto tools = root.find("tools");
    if (tools != root.end()) {
        if (!tools->is_object()) {
            reader.fail(QStringLiteral("$.tools"), QStringLiteral("an object keyed by tool name"));
            return *reader.error;
        }
        for (auto it = tools->begin(); it != tools->end(); ++it) {
            ToolSpec spec;
            if (!reader.readTool(it.key(), it.value(), spec))
                return *reader.error;
            result.m_tools.insert(spec.name, spec);
        }
    }
    auto rules = root.find("outcome_rules");
    if (rules != root.end()) {
        if (!rules->is_object()) {
            reader.fail(QStringLiteral("$.outcome_rules"),
                        QStringLiteral("an object with \"unknown\" and \"not_performed\" lists"));
            return *reader.error;
        }
        if (!reader.readRules(*rules, "unknown", result.m_rules.unknown)
            || !reader.readRules(*rules, "not_performed", result.m_rules.notPerformed))
            return *reader.error;
    }
    return result;
}

const ToolSpec *ToolRegistry::find(const QString &tool) const
{
    auto it = m_tools.constFind(tool);
    return it == m_tools.constEnd() ? nullptr : &it.value();
}

ToolClass ToolRegistry::classOf(const QString &tool) const
{
    const ToolSpec *spec = find(tool);
    return spec ? spec->toolClass : ToolClass::Unclassified;
}

QStringList ToolRegistry::toolNames() const
{
    QStringList names = m_tools.keys();
    names.sort();
    return names;
}

} // namespace verity

#include "toolhint.h"

#include "jsontext.h"

namespace verity {

using nlohmann::json;

namespace {

constexpr qsizetype maxDescription = 1000; // a hint, not a document
constexpr qsizetype maxToolName = 200;

const json *member(const json &object, const char *key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

QString text(const json *value)
{
    return value && value->is_string() ? fromUtf8String(value->get_ref<const std::string &>()).trimmed()
                                       : QString();
}

std::optional<bool> flag(const json *object, const char *key)
{
    const json *value = object ? member(*object, key) : nullptr;
    if (value && value->is_boolean())
        return value->get<bool>();
    return std::nullopt;
}

// A JSON text holding a definition or a list is read as what it holds.
json unwrapped(const json &value)
{
    if (!value.is_string())
        return value;
    json parsed = json::parse(value.get_ref<const std::string &>(), nullptr, false);
    return parsed.is_discarded() ? json() : parsed;
}

QList<QPair<QString, QString>> schemaParameters(const json *schema)
{
    QList<QPair<QString, QString>> parameters;
    const json *properties = schema ? member(*schema, "properties") : nullptr;
    if (!properties || !properties->is_object())
        return parameters;
    for (auto it = properties->begin(); it != properties->end(); ++it) {
        QString type = text(member(it.value(), "type"));
        if (const json *types = member(it.value(), "type"); types && types->is_array()) {
            for (const json &one : *types) { // ["integer", "null"]: the type that is not null
                if (one.is_string() && one != "null")
                    type = fromUtf8String(one.get_ref<const std::string &>());
            }
        }
        parameters.append({fromUtf8String(it.key()), type});
    }
    return parameters;
}

} // namespace

std::optional<NamedToolHint> readToolDefinition(const json &definition, const QString &source)
{
    const json value = unwrapped(definition);
    if (!value.is_object())
        return std::nullopt;
    // OpenAI nests the function one level down; the others keep it at the top.
    const json *function = member(value, "function");
    const json &body = function && function->is_object() ? *function : value;
    const QString name = text(member(body, "name"));
    if (name.isEmpty() || name.size() > maxToolName)
        return std::nullopt;

    NamedToolHint named{name, {}};
    ToolHint &hint = named.hint;
    hint.source = source;
    hint.description = text(member(body, "description")).left(maxDescription);
    const json *schema = member(body, "parameters");
    if (!schema)
        schema = member(body, "inputSchema");
    if (!schema)
        schema = member(body, "input_schema");
    hint.parameters = schemaParameters(schema);
    const json *annotations = member(body, "annotations");
    if (!annotations)
        annotations = member(value, "annotations");
    hint.readOnly = flag(annotations, "readOnlyHint");
    hint.destructive = flag(annotations, "destructiveHint");
    hint.idempotent = flag(annotations, "idempotentHint");
    return named;
}

QList<NamedToolHint> readToolDefinitions(const json &definitions, const QString &source)
{
    json list = unwrapped(definitions);
    if (const json *tools = member(list, "tools"))
        list = *tools;
    QList<NamedToolHint> hints;
    if (!list.is_array())
        return hints;
    for (const json &definition : list) {
        if (std::optional<NamedToolHint> hint = readToolDefinition(definition, source))
            hints.append(std::move(*hint));
    }
    return hints;
}

QString toolDefinitionsProblem(const json &definitions)
{
    json list = unwrapped(definitions);
    if (const json *tools = member(list, "tools"))
        list = *tools;
    if (!list.is_array()) {
        const std::string shown = definitions.dump(-1, ' ', false, json::error_handler_t::replace);
        return QStringLiteral("expected a list of tool definitions, got %1")
                .arg(QString::fromStdString(shown.substr(0, 60))
                     + (shown.size() > 60 ? QStringLiteral("\u2026") : QString()));
    }
    const qsizetype unnamed = std::count_if(list.begin(), list.end(), [](const json &definition) {
        return !readToolDefinition(definition, QString());
    });
    if (unnamed == 0)
        return {};
    return QStringLiteral("%1 of %2 tool definitions name no tool").arg(unnamed).arg(list.size());
}

void mergeToolHint(ToolHint &hint, const ToolHint &more)
{
    if (hint.source.isEmpty())
        hint.source = more.source;
    if (hint.description.isEmpty())
        hint.description = more.description;
    for (const auto &parameter : more.parameters) {
        const bool known = std::any_of(hint.parameters.cbegin(), hint.parameters.cend(),
                                       [&parameter](const auto &p) { return p.first == parameter.first; });
        if (!known)
            hint.parameters.append(parameter);
    }
    if (!hint.readOnly)
        hint.readOnly = more.readOnly;
    if (!hint.destructive)
        hint.destructive = more.destructive;
    if (!hint.idempotent)
        hint.idempotent = more.idempotent;
}

} // namespace verity

#include "otlptoolhints.h"

#include "domain/jsontext.h"

#include <QSet>

#include <tuple>

namespace verity::otlp {

namespace {

std::optional<json> value(const AttributeMap &attributes, std::string_view key)
{
    const auto it = attributes.find(key);
    if (it == attributes.end() || !it->second)
        return std::nullopt;
    return plainValue(*it->second);
}

QString text(const AttributeMap &attributes, std::string_view key)
{
    const std::optional<json> found = value(attributes, key);
    return found && found->is_string() ? fromUtf8String(found->get_ref<const std::string &>()).trimmed()
                                       : QString();
}

// More tools than any agent has: a stream of made-up names must not grow the memory for ever.
constexpr qsizetype maxTools = 10000;

void add(QHash<QString, ToolHint> &hints, const NamedToolHint &named)
{
    if (named.hint.isEmpty())
        return;
    const auto it = hints.find(named.tool);
    if (it != hints.end())
        mergeToolHint(*it, named.hint);
    else if (hints.size() < maxTools) // a request naming more tools than that is no agent's
        hints.insert(named.tool, named.hint);
}

void addAll(QHash<QString, ToolHint> &hints, const QList<NamedToolHint> &definitions)
{
    for (const NamedToolHint &named : definitions)
        add(hints, named);
}

// "llm.tools.3.tool.json_schema": the attributes under one prefix that end in `suffix`.
template<typename Visit>
void forEachIndexed(const AttributeMap &attributes, std::string_view prefix, const Visit &visit)
{
    for (auto it = attributes.lower_bound(prefix); it != attributes.end(); ++it) {
        const std::string_view key = it->first;
        if (key.substr(0, prefix.size()) != prefix)
            break;
        const std::string_view rest = key.substr(prefix.size());
        const std::size_t dot = rest.find('.');
        if (dot == std::string_view::npos || dot == 0)
            continue;
        visit(std::string(key.substr(0, prefix.size() + dot + 1)), rest.substr(dot + 1));
    }
}

} // namespace

void addToolHints(const AttributeMap &attributes, const QString &spanName, QHash<QString, ToolHint> &hints)
{
    if (const std::optional<json> definitions = value(attributes, "gen_ai.tool.definitions"))
        addAll(hints, readToolDefinitions(*definitions, QStringLiteral("gen_ai.tool.definitions")));
    if (const std::optional<json> tools = value(attributes, "ai.prompt.tools"))
        addAll(hints, readToolDefinitions(*tools, QStringLiteral("ai.prompt.tools")));
    forEachIndexed(attributes, "llm.tools.", [&](const std::string &prefix, std::string_view rest) {
        if (rest != "tool.json_schema")
            return;
        if (const std::optional<json> schema = value(attributes, prefix + "tool.json_schema")) {
            if (std::optional<NamedToolHint> named = readToolDefinition(*schema, QStringLiteral("llm.tools")))
                add(hints, *named);
        }
    });
    // OpenLLMetry's older LLM conventions: llm.request.functions.N.name, .description, .parameters.
    QSet<std::string> functions;
    forEachIndexed(attributes, "llm.request.functions.",
                   [&functions](const std::string &prefix, std::string_view) { functions.insert(prefix); });
    for (const std::string &prefix : std::as_const(functions)) {
        json definition = json::object();
        for (const char *field : {"name", "description", "parameters"}) {
            if (std::optional<json> found = value(attributes, prefix + field))
                definition[field] = std::move(*found);
        }
        if (definition.contains("parameters") && definition["parameters"].is_string())
            definition["parameters"] =
                    json::parse(definition["parameters"].get_ref<const std::string &>(), nullptr, false);
        if (std::optional<NamedToolHint> named =
                    readToolDefinition(definition, QStringLiteral("llm.request.functions")))
            add(hints, *named);
    }

    // A tool span's own description: the GenAI conventions' and OpenInference's.
    for (const auto &[nameKey, descriptionKey, source] :
         {std::tuple{"gen_ai.tool.name", "gen_ai.tool.description", "gen_ai.tool.description"},
          std::tuple{"tool.name", "tool.description", "tool.description"}}) {
        const QString tool = text(attributes, nameKey);
        const QString description = text(attributes, descriptionKey);
        if (tool.isEmpty())
            continue;
        json definition = json::object();
        definition["name"] = tool.toStdString();
        if (!description.isEmpty())
            definition["description"] = description.toStdString();
        if (std::string_view(nameKey) == "tool.name") {
            if (std::optional<json> parameters = value(attributes, "tool.parameters")) {
                definition["parameters"] = parameters->is_string()
                        ? json::parse(parameters->get_ref<const std::string &>(), nullptr, false)
                        : *parameters;
            }
        }
        if (std::optional<NamedToolHint> named = readToolDefinition(definition, QString::fromLatin1(source)))
            add(hints, *named);
    }

    // An MCP server's tools/list answer, as OpenLLMetry's MCP instrumentation records it.
    const bool toolsList =
            text(attributes, "mcp.method.name") == u"tools/list" || spanName == u"tools/list.mcp";
    if (toolsList) {
        if (const std::optional<json> output = value(attributes, "traceloop.entity.output"))
            addAll(hints, readToolDefinitions(*output, QStringLiteral("tools/list")));
    }
}

void rememberToolHints(const QHash<QString, ToolHint> &request, QHash<QString, ToolHint> *memory)
{
    if (!memory || request.isEmpty())
        return;
    if (memory->size() + request.size() > maxTools)
        memory->clear();
    for (auto it = request.cbegin(); it != request.cend(); ++it)
        memory->insert(it.key(), it.value());
}

QStringList toolHintProblems(const AttributeMap &attributes)
{
    QStringList problems;
    for (const char *key : {"gen_ai.tool.definitions", "ai.prompt.tools"}) {
        if (const std::optional<json> definitions = value(attributes, key)) {
            if (const QString problem = toolDefinitionsProblem(*definitions); !problem.isEmpty())
                problems.append(QStringLiteral("attribute \"%1\": %2").arg(QLatin1String(key), problem));
        }
    }
    return problems;
}

} // namespace verity::otlp

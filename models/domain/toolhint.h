#pragma once
// What an agent's telemetry or an MCP server says about a tool besides its calls: what it is
// for, the arguments its schema names, and MCP's behaviour hints. Read from a tool definition in
// any of the shapes frameworks write one:
//   MCP's Tool                  {name, description, inputSchema, annotations: {readOnlyHint, …}}
//   OpenAI's function tool      {type: "function", function: {name, description, parameters}}
//   GenAI conventions, AI SDK   {type: "function", name, description, parameters | inputSchema}
//   Anthropic's tool            {name, description, input_schema}
// A hint only ever suggests a class: the registry decides, and a person confirms.

#include <QList>
#include <QPair>
#include <QString>

#include <nlohmann/json_fwd.hpp>

#include <optional>

namespace verity {

struct ToolHint
{
    QString source; // where it was read, for the person deciding: "gen_ai.tool.definitions"
    QString description; // one paragraph at most, as the tool's author wrote it
    // The arguments its input schema names, with their JSON Schema type ("integer", "number",
    // "string"…; empty when the schema gives none), in the schema's order.
    QList<QPair<QString, QString>> parameters;
    // MCP's annotations, only when the definition states them: absent is not false.
    std::optional<bool> readOnly;
    std::optional<bool> destructive;
    std::optional<bool> idempotent;

    bool isEmpty() const
    {
        return description.isEmpty() && parameters.isEmpty() && !readOnly && !destructive && !idempotent;
    }
    bool operator==(const ToolHint &) const = default;
};

struct NamedToolHint
{
    QString tool;
    ToolHint hint;
};

// A definition in one of the shapes above; nullopt when it names no tool. `definition` may also
// be a JSON text holding one (the AI SDK's ai.prompt.tools entries are).
std::optional<NamedToolHint> readToolDefinition(const nlohmann::json &definition, const QString &source);

// Every definition of a list ([…], {"tools": […]} as MCP's tools/list answers, or a JSON text of
// either); what is no definition is skipped.
QList<NamedToolHint> readToolDefinitions(const nlohmann::json &definitions, const QString &source);

// Why a list of definitions cannot be read whole, for a notice: "expected a list of tool
// definitions, got …" or "2 of 5 tool definitions name no tool"; empty when it can.
QString toolDefinitionsProblem(const nlohmann::json &definitions);

// `hint`, with what `more` says that it does not: the first description and source stay, the
// parameters are joined, and a hint stated by either is kept.
void mergeToolHint(ToolHint &hint, const ToolHint &more);

} // namespace verity

#pragma once
// MCP's CallToolResult, {content: [blocks], structuredContent?, isError?}, as a tool answered
// through an MCP server (and as `verity guard` stores it). What such a result says is read from
// its structured content when it has one, else from its content blocks; its isError marks it an
// error as a transcript's own mark does.

#include "outcome.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

namespace verity {

struct McpCallResult
{
    nlohmann::json body; // structuredContent, or the content blocks
    bool isError = false;
};

// Nullopt when `result` is not in that shape (an object of exactly those members, with a list
// of typed content blocks).
std::optional<McpCallResult> readMcpCallResult(const nlohmann::json &result);

// `verity guard` stores a call it answered itself, never sending it, as {"outcome", "guard": why,
// "answer": what the model was told}.
nlohmann::json guardAnswerRecord(Outcome outcome, const QString &why, const nlohmann::json &answer);
// Why, for such a result as stored; nullopt for any other.
std::optional<QString> guardAnswerReason(const QString &rawResult);

} // namespace verity

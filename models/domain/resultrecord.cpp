#include "resultrecord.h"

#include "mcpcallresult.h"

#include <nlohmann/json.hpp>

namespace verity {

using nlohmann::json;

namespace {

QString idIn(const json &object)
{
    if (!object.is_object())
        return {};
    for (const char *key : {"refund_id", "pickup_id", "message_id", "id"}) {
        const auto id = object.find(key);
        if (id != object.end() && id->is_string() && !id->get<std::string>().empty())
            return QString::fromStdString(id->get<std::string>());
    }
    return {};
}

} // namespace

QString recordIdInResult(const QString &rawResult)
{
    if (!rawResult.startsWith(u'{'))
        return {};
    const json result = json::parse(rawResult.toStdString(), nullptr, false);
    const std::optional<McpCallResult> mcp = readMcpCallResult(result);
    if (!mcp)
        return idIn(result);
    if (mcp->body.is_object())
        return idIn(mcp->body);
    // An MCP server without structured content writes its record as JSON text in a block.
    for (const json &block : mcp->body) {
        const auto text = block.find("text");
        if (text == block.end() || !text->is_string())
            continue;
        if (const QString id = idIn(json::parse(text->get<std::string>(), nullptr, false)); !id.isEmpty())
            return id;
    }
    return {};
}

} // namespace verity

#include "mcpcallresult.h"

namespace verity {

using nlohmann::json;

std::optional<McpCallResult> readMcpCallResult(const json &result)
{
    if (!result.is_object())
        return std::nullopt;
    const auto content = result.find("content");
    if (content == result.end() || !content->is_array())
        return std::nullopt;
    for (auto member = result.begin(); member != result.end(); ++member) {
        const std::string &key = member.key();
        if (key != "content" && key != "structuredContent" && key != "isError" && key != "_meta")
            return std::nullopt; // another object that happens to have "content"
    }
    for (const json &block : *content) {
        if (!block.is_object() || !block.contains("type") || !block["type"].is_string())
            return std::nullopt;
    }
    McpCallResult read;
    const auto isError = result.find("isError");
    read.isError = isError != result.end() && isError->is_boolean() && isError->get<bool>();
    const auto structured = result.find("structuredContent");
    read.body = structured != result.end() && structured->is_object() ? *structured : *content;
    return read;
}

json guardAnswerRecord(Outcome outcome, const QString &why, const json &answer)
{
    return json{
            {"outcome", outcomeId(outcome).toStdString()}, {"guard", why.toStdString()}, {"answer", answer}};
}

std::optional<QString> guardAnswerReason(const QString &rawResult)
{
    if (!rawResult.contains(QLatin1String("\"guard\"")))
        return std::nullopt;
    const json result = json::parse(rawResult.toStdString(), nullptr, false);
    if (!result.is_object() || result.size() != 3 || !result.contains("answer"))
        return std::nullopt;
    const auto outcome = result.find("outcome");
    const auto guard = result.find("guard");
    if (outcome == result.end() || !outcome->is_string() || guard == result.end() || !guard->is_string())
        return std::nullopt;
    return QString::fromStdString(guard->get<std::string>());
}

} // namespace verity

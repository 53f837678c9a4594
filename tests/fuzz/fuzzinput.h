#pragma once
// What every transcript harness does first, as the reader does: refuse JSON nested past the
// limit, then parse without exceptions. And the whole run for one adapter on its own.

#include "domain/jsontext.h"
#include "import/conversationevents.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace verity::fuzz {

inline std::optional<nlohmann::json> parsedInput(const uint8_t *data, size_t size)
{
    const char *text = reinterpret_cast<const char *>(data);
    if (jsonNestingDepth(text, text + size) > maxJsonNesting)
        return std::nullopt;
    nlohmann::json value = nlohmann::json::parse(data, data + size, nullptr, false);
    if (value.is_discarded())
        return std::nullopt;
    return value;
}

// One adapter on any value its format check accepts, then the conversation into a ticket's events.
inline int runAdapter(const uint8_t *data, size_t size, bool (*looksLike)(const nlohmann::json &),
                      Expected<Conversation> (*read)(const nlohmann::json &, const ConversationContext &),
                      const QString &format)
{
    const std::optional<nlohmann::json> value = parsedInput(data, size);
    if (!value || !looksLike(*value))
        return 0;
    const Expected<Conversation> conversation = read(*value, ConversationContext(QStringLiteral("fuzz"), 1));
    if (conversation)
        (void)conversationUnit(*conversation, format, 0);
    return 0;
}

} // namespace verity::fuzz

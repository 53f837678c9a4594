#pragma once
// OpenAI Chat Completions messages: assistant `tool_calls` whose arguments are a JSON string,
// answered by `role: "tool"` messages.

#include "import/conversation.h"

namespace verity {

// `{"messages": [...]}` (optionally with an id) or a bare array of messages.
bool looksLikeOpenAiChat(const nlohmann::json &value);
Expected<Conversation> readOpenAiChat(const nlohmann::json &value, const ConversationContext &context);

} // namespace verity

#pragma once
// Anthropic Messages: content blocks `text`, `tool_use` (input as an object) and
// `tool_result` (content, `is_error`) in the next user turn.

#include "import/conversation.h"

namespace verity {

// `{"messages": [...]}` (optionally with `system` and an id) or a bare array of messages,
// recognised by its content blocks.
bool looksLikeAnthropicMessages(const nlohmann::json &value);
Expected<Conversation> readAnthropicMessages(const nlohmann::json &value, const ConversationContext &context);

} // namespace verity

#pragma once
// OpenAI Responses API items: `message`, `function_call` (arguments as a JSON string) and
// `function_call_output`, matched by `call_id`.

#include "import/conversation.h"

namespace verity {

// A response object (`output`), a request/transcript (`input`, and `output` when present), or
// a bare array of items.
bool looksLikeOpenAiResponses(const nlohmann::json &value);
Expected<Conversation> readOpenAiResponses(const nlohmann::json &value, const ConversationContext &context);

} // namespace verity

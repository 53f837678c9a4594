#pragma once
// τ-bench (v1) trajectories and τ²-bench simulations, the public benchmark runs of
// customer-service agents.

#include "import/conversation.h"

namespace verity {

// v1: one element of the top-level array, `{task_id, trial, reward, info, traj}`; `traj` is
// OpenAI chat messages whose tool_call ids may repeat.
bool looksLikeTauV1Trajectory(const nlohmann::json &value);
Expected<Conversation> readTauV1Trajectory(const nlohmann::json &value, const ConversationContext &context);

// τ²: one element of `simulations`, `{id, task_id, trial, termination_reason, messages}`.
bool looksLikeTau2Simulation(const nlohmann::json &value);
Expected<Conversation> readTau2Simulation(const nlohmann::json &value, const ConversationContext &context);

} // namespace verity

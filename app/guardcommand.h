#pragma once

#include <QStringList>

namespace verity {

// verity guard: the MCP proxy between an agent and its tools that records every tools/call and
// never sends the repeat of a write whose outcome is unknown.
int runGuardCommand(const QStringList &arguments);

} // namespace verity

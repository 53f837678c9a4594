#pragma once

#include <QStringList>

namespace verity {

// verity collect: the receiver the agent's telemetry is pointed at (OTLP/HTTP and Verity JSONL).
int runCollectCommand(const QStringList &arguments);

} // namespace verity

#pragma once
// SIGINT and SIGTERM for the long-running commands (sandbox, collect): the signal only writes
// a byte to a pipe, since a handler may call almost nothing, and the event loop calls `stop`
// from there, between requests, so no answer is cut in half.

#include <QObject>

#include <functional>

namespace verity {

// False when the signals cannot be watched (the caller says so; SIGKILL still stops it).
bool watchStopSignals(QObject *context, std::function<void()> stop);

} // namespace verity

#pragma once

#include <QStringList>

namespace verity {

// `verity [--db PATH] [--registry FILE]`, `verity --demo [--db PATH] [--screenshot FILE.png]`:
// opens the console window (or renders it to a PNG and exits).
int runConsoleCommand(const QStringList &arguments);

} // namespace verity

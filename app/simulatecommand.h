#pragma once

#include <QStringList>

namespace verity {

// `verity simulate ...`: the arguments after the program name. Returns the exit code.
int runSimulateCommand(const QStringList &arguments);

} // namespace verity

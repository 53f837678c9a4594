#pragma once

#include <QStringList>

namespace verity {

int runSandboxCommand(const QStringList &arguments);

} // namespace verity

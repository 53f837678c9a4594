#pragma once

#include <QStringList>

namespace verity {

int runLookupCommand(const QStringList &arguments);

} // namespace verity

#pragma once

#include <QStringList>

namespace verity {

int runAuditCommand(const QStringList &arguments);

} // namespace verity

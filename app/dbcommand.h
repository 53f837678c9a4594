#pragma once

#include <QStringList>

namespace verity {

// verity db init|copy: setting up a team's PostgreSQL database and moving a desk's history in.
int runDbCommand(const QStringList &arguments);

} // namespace verity

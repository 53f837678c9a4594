#include "simulatecommand.h"

#include <cstdio>

namespace verity {

int runSimulateCommand(const QStringList &arguments)
{
    Q_UNUSED(arguments);
    std::fputs("verity simulate: not built yet\n", stderr);
    return 2;
}

} // namespace verity

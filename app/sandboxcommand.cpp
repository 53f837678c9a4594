#include "sandboxcommand.h"

#include <QTextStream>

namespace verity {

int runSandboxCommand(const QStringList &)
{
    QTextStream(stderr) << "verity sandbox: not available yet\n";
    return 2;
}

} // namespace verity

#include "lookupcommand.h"

#include <QTextStream>

namespace verity {

int runLookupCommand(const QStringList &)
{
    QTextStream(stderr) << "verity lookup: not available yet\n";
    return 2;
}

} // namespace verity

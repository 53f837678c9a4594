#include "auditcommand.h"

#include <QTextStream>

namespace verity {

int runAuditCommand(const QStringList &)
{
    QTextStream(stderr) << "verity audit: not available yet\n";
    return 2;
}

} // namespace verity

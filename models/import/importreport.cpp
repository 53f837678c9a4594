#include "importreport.h"

namespace verity {

QStringList ImportReport::rejectionMessages() const
{
    QStringList messages;
    for (const RejectedLine &line : rejected)
        messages << QStringLiteral("%1:%2: %3").arg(path).arg(line.line).arg(line.reason);
    return messages;
}

QString ImportReport::summary() const
{
    QString text = QStringLiteral("%1: %2 lines, %3 tickets opened, %4 events imported, %5 already present, %6 rejected")
                       .arg(path)
                       .arg(linesRead)
                       .arg(ticketsOpened)
                       .arg(eventsImported)
                       .arg(eventsUnchanged)
                       .arg(rejected.size());
    if (cancelled)
        text += QStringLiteral("; cancelled: what was read before the stop is kept, import the file again to finish");
    if (!fatal.isEmpty())
        text += QStringLiteral("; stopped: ") + fatal;
    return text;
}

} // namespace verity

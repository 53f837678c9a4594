#include "simulatedtranscript.h"

#include "store/sqlitefilelocks.h"

#include <QSaveFile>

namespace verity {

namespace {

QByteArray ticketLines(const TicketOutcome &ticket)
{
    QByteArray bytes;
    for (const SimulatedEvent &event : ticket.events) {
        const std::string line = event.line.dump();
        bytes.append(line.data(), qsizetype(line.size()));
        bytes.append('\n');
    }
    return bytes;
}

} // namespace

QByteArray nativeTranscript(const QList<TicketOutcome> &tickets)
{
    QByteArray bytes;
    for (const TicketOutcome &ticket : tickets)
        bytes.append(ticketLines(ticket));
    return bytes;
}

Expected<void> writeNativeTranscript(const QString &path, const QList<TicketOutcome> &tickets)
{
    if (Expected<void> free = refuseToOverwriteDatabase(path); !free)
        return free;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return makeError(QStringLiteral("%1: cannot write (%2)").arg(path, file.errorString()));
    for (const TicketOutcome &ticket : tickets) {
        // A ticket at a time, so the file is never held in memory whole.
        const QByteArray bytes = ticketLines(ticket);
        if (file.write(bytes) != bytes.size())
            return makeError(QStringLiteral("%1: cannot write (%2)").arg(path, file.errorString()));
    }
    if (!file.commit())
        return makeError(QStringLiteral("%1: cannot write (%2)").arg(path, file.errorString()));
    return {};
}

} // namespace verity

#include "reassessment.h"

namespace verity {

Expected<RepeatCounts> reassessTicket(AssessmentStore &store, qint64 ticketId)
{
    // The ticket first (where sessions write side by side, that locks it): the calls read next
    // are then all another session committed, and none changes until this transaction ends.
    Expected<qint64> lastSeq = store.lastSeq(ticketId);
    if (!lastSeq)
        return lastSeq.error();
    Expected<QList<CallFacts>> calls = store.callFacts(ticketId);
    if (!calls)
        return calls.error();
    return store.applyAssessment(ticketId, *lastSeq, assessTicket(*calls));
}

Expected<void> reassessAwaitingTickets(AssessmentStore &store)
{
    for (;;) {
        Expected<QList<qint64>> tickets = store.ticketsAwaitingReassessment(500);
        if (!tickets)
            return makeError(QStringLiteral("%1: %2").arg(store.location(), tickets.message()));
        if (tickets->isEmpty())
            return {};
        if (Expected<void> begun = store.begin(); !begun)
            return begun;
        for (qint64 ticket : std::as_const(*tickets)) {
            Expected<RepeatCounts> done = reassessTicket(store, ticket);
            Expected<void> taken = done ? store.markReassessed(ticket) : Expected<void>(done.error());
            if (!taken) {
                store.rollback();
                return taken;
            }
        }
        if (Expected<void> committed = store.commit(); !committed)
            return committed;
    }
}

} // namespace verity

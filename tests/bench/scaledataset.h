#pragma once
// A support history at scale, in the native format, written fast enough for a million tickets.
// The shares follow a busy marketplace: most tickets read an order and write once or twice
// (a refund, a pickup, a note to the seller); a few percent of money writes time out and are
// left unknown, and some of those the agent sends again with the same intent. Everything is
// drawn from one seed, so a run can be repeated exactly.

#include <QString>
#include <QtGlobal>

namespace verity::bench {

struct ScaleDatasetShape
{
    qint64 tickets = 0;
    qint64 lines = 0;
    qint64 toolCalls = 0;
    qint64 writes = 0;
    qint64 unknownWrites = 0; // timed out with no answer: each opens an escalation
    qint64 repeatedTickets = 0; // the same intent written twice in one ticket
    qint64 performedRefunds = 0;
    qint64 bytes = 0;
    qint64 firstOpenedMs = 0;
    qint64 lastOpenedMs = 0;
};

// Writes `tickets` tickets to `path`, numbered from `first` (to add to a history already
// imported). Returns the shape, or tickets == 0 when the file cannot be written.
ScaleDatasetShape writeScaleDataset(const QString &path, qint64 tickets, quint32 seed, qint64 first = 0);

// The order id of ticket `n` (0-based), for a search that names one.
QString scaleOrderId(qint64 n);

} // namespace verity::bench

#pragma once
// Which of the records at a system (refunds, pickups, messages) that carry one intent key
// belongs to which call of that key. Several calls may carry one key (a model that repeated
// itself), and an old tool may have made several records under it; each record is cited for
// at most one call and each call gets at most one record:
//  1. a call already known to have made a record (its ledger row, its settlement, the id its
//     result names) keeps that record;
//  2. the other calls that may have made one (performed, or unknown), in the order they were
//     made, each take the oldest record left that was created no earlier than the call (less
//     a margin for the two clocks);
//  3. a record no call takes is left over: money moved, or an effect done, that no call of
//     the ticket accounts for, a duplicate.

#include "store/records.h"

#include <QHash>
#include <QList>
#include <QString>

namespace verity {

// A record at the system that carries the key.
struct KeyedRecord
{
    QString id;
    qint64 createdMs = 0;
};

struct RecordMatch
{
    QHash<qint64, QString> recordOfCall; // call id -> record id
    QStringList leftOver; // records no call accounts for, oldest first
};

// How far a record's creation may precede its call and still be that call's: the provider
// writes whole seconds, and its clock is not the agent's.
constexpr qint64 recordClockMarginMs = 60 * 1000;

RecordMatch matchRecordsToCalls(const QList<IntentCall> &calls, const QList<KeyedRecord> &records,
                                qint64 marginMs = recordClockMarginMs);

// Whether the call may have made a record: it reported performed or unknown, and no
// settlement proved otherwise.
bool mayHaveMadeRecord(const IntentCall &call);

} // namespace verity

#include "recordmatching.h"

#include <algorithm>

namespace verity {

bool mayHaveMadeRecord(const IntentCall &call)
{
    // A person's check is not proof for matching: an attested "not performed" may still have
    // made the record a system now shows.
    if (call.resolution && !call.attested)
        return *call.resolution != Resolution::NotPerformed;
    return call.outcome == Outcome::Performed || call.outcome == Outcome::Unknown;
}

RecordMatch matchRecordsToCalls(const QList<IntentCall> &calls, const QList<KeyedRecord> &records,
                                qint64 marginMs)
{
    QList<KeyedRecord> sorted = records;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const KeyedRecord &a, const KeyedRecord &b) { return a.createdMs < b.createdMs; });
    QList<bool> taken(sorted.size(), false);
    RecordMatch match;

    // 1. Records a call is known to have made.
    QList<const IntentCall *> open;
    for (const IntentCall &call : calls) {
        if (!mayHaveMadeRecord(call))
            continue;
        if (!call.recordId.isEmpty()) {
            const auto known = std::find_if(sorted.cbegin(), sorted.cend(), [&](const KeyedRecord &record) {
                return record.id == call.recordId;
            });
            const qsizetype index = known - sorted.cbegin();
            if (known != sorted.cend() && !taken.at(index)) {
                taken[index] = true;
                match.recordOfCall.insert(call.id, call.recordId);
            }
            // A record the call names but the system does not list is still that call's: it
            // takes no other.
            continue;
        }
        open.append(&call);
    }

    // 2. The rest in the order they were made, each the oldest record it could have made.
    std::stable_sort(open.begin(), open.end(),
                     [](const IntentCall *a, const IntentCall *b) { return a->calledAt < b->calledAt; });
    for (const IntentCall *call : std::as_const(open)) {
        for (qsizetype i = 0; i < sorted.size(); ++i) {
            if (!taken.at(i) && sorted.at(i).createdMs >= call->calledAt - marginMs) {
                taken[i] = true;
                match.recordOfCall.insert(call->id, sorted.at(i).id);
                break;
            }
        }
    }

    // 3. What no call took.
    for (qsizetype i = 0; i < sorted.size(); ++i) {
        if (!taken.at(i))
            match.leftOver.append(sorted.at(i).id);
    }
    return match;
}

} // namespace verity

#pragma once
// What a ticket's calls come to, for the strip a ticket opens on: its writes by outcome, and
// the calls a person must see (duplicate effects, unknowns, repeats), each by its call id,
// and the one to bring into view first.

#include "store/records.h"

#include <QList>
#include <QMap>
#include <QStringList>

#include <optional>

namespace verity {

struct TranscriptSummary
{
    int writes = 0;
    QMap<Outcome, int> writesByOutcome; // as settled: an unknown a lookup settled counts as what it found
    QStringList duplicateEffects; // call ids, in transcript order
    QStringList unknowns; // unknown and not settled
    QStringList inFlight; // unknown so far, reported live and waiting for its result (not counted by outcome)
    QStringList unsettledRepeats;
    QStringList retries;
    QStringList harmlessRepeats;
    // Settled "not performed" with nothing of their intent that took effect: still owed.
    QStringList owed;

    // The duplicate effect, else the unknown, else the call in flight, else the repeat (unsettled, then a
    // retry), else a write still owed, to bring into view first; none when nothing needs a look.
    std::optional<QString> firstToShow() const;
};

TranscriptSummary summarizeTranscript(const QList<TranscriptEntry> &entries);

} // namespace verity

#pragma once
// The simulator's randomness: one generator per purpose and per ticket (and per attempt),
// each seeded from the run's seed and those indices, so that no number depends on the order
// in which tickets happen to run, on how many run at once, or on real time.

#include <QRandomGenerator>
#include <QString>

namespace verity {

enum class RandomStream : quint32 {
    Tickets = 1, // a ticket's contents
    Sellers, // a seller's name and margin
    Keys, // the as-shipped tool's "random" idempotency keys
    Faults, // the fault schedule
    Timing, // virtual durations in transcripts
};

QRandomGenerator seededGenerator(quint32 seed, RandomStream stream, quint32 index, quint32 sub = 0);

// 36 characters shaped like a uuid4 (version 4, variant 10xx), drawn from `random`.
QString uuid4From(QRandomGenerator &random);

} // namespace verity

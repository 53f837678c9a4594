#pragma once
// Simulated tickets as Verity's native JSONL (resources/formats/native-jsonl.md): every
// ticket's events in time order, one ticket after another, with an `http` line for every
// request the tool made and a `provider` line for what the provider recorded, so a
// simulated ticket imports with `verity import` and replays layer by layer.

#include "domain/expected.h"
#include "simulationtypes.h"

#include <QByteArray>

namespace verity {

QByteArray nativeTranscript(const QList<TicketOutcome> &tickets);
// Written whole or not at all (QSaveFile).
Expected<void> writeNativeTranscript(const QString &path, const QList<TicketOutcome> &tickets);

} // namespace verity

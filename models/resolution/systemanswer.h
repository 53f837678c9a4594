#pragma once
// What a lookup at any system said, in one shape: the payment provider's refunds and a
// courier's pickups or a messaging service's messages are settled by the same rules
// (recordmatching.h), so the resolver reads them the same way.

#include "domain/recordstatus.h"
#include "provider/providerclient.h"
#include "provider/recordlookup.h"
#include "provider/recordwrite.h"
#include "provider/safewriteruntime.h"
#include "provider/systemnames.h" // systemWords(), recordNoun(): used with every answer

#include <QList>
#include <QString>

namespace verity {

// One record at a system that carries the call's intent key.
struct SystemRecord
{
    QString id;
    qint64 createdMs = 0;
    RecordStatus status; // the system's: "succeeded", "scheduled", ...; empty when it gives none
    QString description; // "re_1 of $118.00 (succeeded, created …)": for reasons and evidence
    qint64 amountCents = 0; // refunds only
    QString currency; // refunds only
};

struct SystemAnswer
{
    LookupVerdict verdict = LookupVerdict::CouldNotTell;
    QList<SystemRecord> records; // Found: every record carrying the key, oldest first
    QString reason;
    QList<HttpExchange> exchanges;
};

// What a write sent from the console came to: one of the four outcomes, the record it made
// (or found made), and every exchange as evidence.
struct WriteOutcome
{
    Outcome outcome = Outcome::Unknown;
    std::optional<SystemRecord> record;
    QString note;
    QList<HttpExchange> exchanges;
};

SystemAnswer systemAnswerOf(const LookupAnswer &refunds);
SystemAnswer systemAnswerOf(const RecordLookupAnswer &records);
SystemRecord systemRecordOf(const ProviderRefund &refund);
SystemRecord systemRecordOf(const FoundRecord &record);
WriteOutcome writeOutcomeOf(const SafeWriteResult &refund);

// A record that carries the key but did not happen: a failed or cancelled refund or pickup.
bool didNotGoThrough(const SystemRecord &record);

} // namespace verity

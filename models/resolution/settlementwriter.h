#pragma once
// One step in settling an escalation, written in one transaction with the audit entries that
// record it: the evidence and its entry; the settlement, the ledger row it makes and the
// "settle" entry that vouches for both (settlementrecord.h); the ticket reassessed. Either
// all of it is stored or none of it. Lookups, console writes, attested checks and
// reconciliations all go through here, so the audit can check every one the same way.

#include "domain/expected.h"
#include "store/records.h"

#include <optional>

namespace verity {

class SettlementStore;

struct SettlementStep
{
    std::optional<Evidence> evidence; // recorded, with an entry of `evidenceAction`
    QString evidenceAction;
    QString evidenceDetail;
    std::optional<Settlement> settlement;
    std::optional<LedgerEntry> ledger; // made by the settlement, only if this console's claim wins
    QString settleDetail;
    QString note; // when not settled: why it stays open (empty: the note is left as it was)
};

struct SettlementWritten
{
    std::optional<Evidence> evidence; // as stored, with its id
    std::optional<ResolutionClaim> claim; // whether this console settled it, or who had
};

Expected<SettlementWritten> writeSettlement(SettlementStore &store, const QString &operatorName,
                                            const EscalationDetail &escalation, const SettlementStep &step);

// The escalation as the audit reads it back, for the hash of its "settle" entry.
EscalationSettlement settlementOf(const EscalationDetail &escalation);

} // namespace verity

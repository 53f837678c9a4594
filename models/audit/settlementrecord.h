#pragma once
// What a "settle" audit entry vouches for: how the escalation was settled and the ledger row
// its call made, if any. The entry's evidence hash is the SHA-256 of this encoding, so the
// audit can check that the escalation and the ledger still say what the entry settled.
//
//   netstring("verity-settlement-v1") netstring(escalation id) netstring(resolution)
//   netstring(basis) netstring(reference) netstring(resolved_by) netstring(resolved_at)
//   netstring(ledger refund id) netstring(ledger intent key) netstring(ledger amount cents)
//   netstring(ledger currency) netstring(ledger recorded_at) netstring(ledger source)
//
// Integers in decimal; the ledger fields are empty when the call has no ledger row.

#include "store/records.h"

#include <optional>

namespace verity {

QByteArray settlementEncoding(const EscalationSettlement &settlement,
                              const std::optional<LedgerEntry> &ledger);
QString settlementHash(const EscalationSettlement &settlement, const std::optional<LedgerEntry> &ledger);

} // namespace verity

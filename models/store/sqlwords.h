#pragma once
// The words the database stores for a state (an outcome, a resolution, a basis, a tool class, an
// escalation's state) inside the statements that filter by them. They are written into the
// statement's text, not bound: a planner uses a partial index, or a constant's statistics, only
// where the query names the word itself. The words are the domain's (outcomeId() and its kin):
// a statement names them as "{outcome:unknown}", and a name the domain does not know stops the
// program when the statement is first prepared, rather than matching no row in silence.

#include "domain/settlement.h"

#include <QString>

#include <optional>

namespace verity {

// `sql` with each "{kind:word}" (kind: outcome, resolution, basis, class, state) written as the
// quoted stored word. Other braces are left as they are.
QString withStoredWords(const QString &sql);

// payoutStanding() as a condition on a money write's reported outcome, its escalation's
// resolution and its basis (the three column expressions): true where the write moved money or
// may have (or, given `only`, where its effect is that one), a write settled "performed again"
// aside (the ledger dates that one).
QString countedPayoutCondition(const QString &outcome, const QString &resolution, const QString &basis,
                               std::optional<PayoutEffect> only = std::nullopt);

} // namespace verity

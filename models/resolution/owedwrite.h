#pragma once
// Whether one write settled "not performed" is still owed to the customer: the rule the ticket's
// assessment applies to all its calls (settledAbsent, and nothing of its intent took effect),
// asked of one escalation, for its card and for the resolver's way back.

#include "domain/expected.h"
#include "store/records.h"

namespace verity {

class EscalationStore;

// True while the write is settled "not performed" (by a lookup or by a person's check), the tool
// never said it took effect, and no other call of its intent took effect.
Expected<bool> stillOwed(EscalationStore &store, const EscalationDetail &escalation);

} // namespace verity

#pragma once
// Assessing a stored ticket again: after an escalation is settled, a call reclassified, or an
// upgrade that changed what an assessment says. The rule is the domain's (assessTicket); the
// store only reads the facts and keeps the answer.

#include "store.h"

namespace verity {

// Re-reads a ticket's calls (with verified resolutions in place of recorded unknowns) and
// stores the assessment. Returns the repeat counts as they were before.
Expected<RepeatCounts> reassessTicket(AssessmentStore &store, qint64 ticketId);
// Every ticket an upgrade left to be assessed again, a batch per transaction, each taken off
// the list as it is stored, so a process stopped half way leaves the rest for the next start.
Expected<void> reassessAwaitingTickets(AssessmentStore &store);

} // namespace verity

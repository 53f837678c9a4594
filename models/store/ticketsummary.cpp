#include "ticketsummary.h"

namespace verity {

SummaryColumns ticketSummaryColumns(qint64 lastSeq, const TicketAssessment &assessment)
{
    return {{
            {"last_seq", lastSeq},
            {"write_count", assessment.writeCount},
            {"worst_outcome", ticketSeverity(assessment)},
            {"needs_attention", assessment.needsAttention ? 1 : 0},
            {"has_unknown", assessment.hasUnknown ? 1 : 0},
            {"has_repeat", assessment.hasRepeatedIntent ? 1 : 0},
            {"duplicate_effects", assessment.repeats.duplicateEffects},
            {"retry_count", assessment.repeats.retries},
            {"harmless_repeats", assessment.repeats.harmless},
            {"unsettled_repeats", assessment.repeats.unsettled},
            {"duplicate_cents", assessment.repeats.duplicateCents},
            {"attention_rank", int(ticketState(assessment))},
            {"in_flight", assessment.unknownInFlight ? 1 : 0},
    }};
}

} // namespace verity

#pragma once
// The columns a ticket's assessment is stored in beside it, for the queue to filter and sort
// on without reading its calls; a ticket never assessed has 0 in each.

#include "domain/ticketassessment.h"

#include <array>

namespace verity {

struct SummaryColumn
{
    const char *column;
    qint64 value;
};

using SummaryColumns = std::array<SummaryColumn, 13>;
SummaryColumns ticketSummaryColumns(qint64 lastSeq, const TicketAssessment &assessment);

} // namespace verity

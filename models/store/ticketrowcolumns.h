#pragma once
// The ticket row every queue and detail query reads first: its columns, in this order, and
// the row made from them.

#include "records.h"

#include <QSqlQuery>
#include <QVariant>

namespace verity {

// The columns every ticket query selects first, in this order.
#define TICKET_ROW_COLUMNS                                                                                   \
    "t.id, t.ext_id, t.order_id, t.seller_name, t.subject, t.opened_at, t.write_count, "                     \
    "t.worst_outcome, t.needs_attention, t.has_unknown, t.has_repeat, t.retry_count, "                       \
    "t.duplicate_effects, t.harmless_repeats, t.unsettled_repeats, t.duplicate_cents, "                      \
    "t.source_format, t.task, t.origin, t.dated_by, t.attention_rank, t.in_flight"

// How many they are: a query's own columns follow them.
inline constexpr int ticketRowColumnCount = 22;

inline TicketRow ticketRow(const QSqlQuery &q)
{
    TicketRow row;
    row.id = q.value(0).toLongLong();
    row.extId = q.value(1).toString();
    row.orderId = q.value(2).toString();
    row.sellerName = q.value(3).toString();
    row.subject = q.value(4).toString();
    row.openedAt = q.value(5).toLongLong();
    row.writeCount = q.value(6).toInt();
    const int severity = q.value(7).toInt();
    row.duplicateEffect = severity == duplicateEffectSeverity;
    // A duplicate effect is a write performed twice: performed is its outcome.
    row.worstOutcome =
            row.duplicateEffect ? std::optional<Outcome>(Outcome::Performed) : outcomeFromSeverity(severity);
    row.needsAttention = q.value(8).toBool();
    row.hasUnknown = q.value(9).toBool();
    row.hasRepeatedIntent = q.value(10).toBool();
    row.repeats = RepeatCounts{q.value(11).toInt(), q.value(12).toInt(), q.value(13).toInt(),
                               q.value(14).toInt(), q.value(15).toLongLong()};
    row.sourceFormat = q.value(16).toString();
    row.task = q.value(17).toString();
    row.origin = q.value(18).toString();
    row.dating = ticketDatingFromId(q.value(19).toString());
    row.state = ticketStateFromRank(q.value(20).toInt());
    row.unknownInFlight = q.value(21).toBool();
    return row;
}

} // namespace verity

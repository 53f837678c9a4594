#pragma once
// Stored records written back as the native JSONL format (resources/formats/native-jsonl.md):
// the inverse of nativeevent.cpp, so a ticket can leave one database as a file and be read
// into another. Each function returns one line's JSON object; nativeLine() makes the text.
//
// Every event line but tool_result also carries "seq", the event's place in its ticket. The
// format keeps unknown fields out of the way, and it keeps two events that are otherwise the
// same (the same text at the same second, as in transcripts without times) two events.

#include "store/records.h"
#include "store/tracerecords.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <nlohmann/json.hpp>

namespace verity {

// RFC 3339, UTC, with milliseconds: "2026-03-17T14:32:07.412Z".
QString nativeTimestamp(qint64 msSinceEpoch);

// The ticket as it was opened: customer, order with items and payment intent, seller with its
// balance. A ticket that names no order and seller (read from a model provider's transcript)
// is written without them; the native reader requires both, so such a line only describes
// the ticket (see insertTicket for storing it).
nlohmann::json nativeTicketOpened(const TicketDetail &ticket);

// A message or reply.
nlohmann::json nativeMessage(const QString &ticketExtId, const TranscriptEntry &message);
nlohmann::json nativeToolCall(const QString &ticketExtId, qint64 seq, const ToolCallRow &call);
// The result exactly as the tool returned it (stored JSON text read back as its value), or
// null when the call has none.
nlohmann::json nativeToolResult(const QString &ticketExtId, const ToolCallRow &call);
nlohmann::json nativeTrace(const QString &ticketExtId, const TraceEvent &event);

// A ticket's events after ticket_opened, in its own order: messages, calls and trace lines by
// seq, and each result after its call, before the first later event that happened after it.
QList<nlohmann::json> nativeTicketEvents(const QString &ticketExtId, const QList<TranscriptEntry> &transcript,
                                         const QList<TraceEvent> &traces);

// One line of the file, without the newline.
QByteArray nativeLine(const nlohmann::json &event);

} // namespace verity

#pragma once
// One line of the native JSONL format (resources/formats/native-jsonl.md), parsed and
// checked. A line either becomes an event or a reason a person can act on.

#include "domain/expected.h"
#include "domain/timestamp.h"
#include "store/records.h"
#include "store/tracerecords.h"

#include <QByteArray>
#include <QString>

#include <nlohmann/json.hpp>

#include <variant>

namespace verity {

struct TicketOpenedEvent
{
    NewTicket ticket;
};

struct MessageEvent
{
    MessageKind kind = MessageKind::Customer;
    QString text;
};

struct ToolCallEvent
{
    QString callId;
    QString tool;
    nlohmann::json arguments;
    // The arguments exactly as the transcript wrote them, when it wrote them as JSON text (OpenAI,
    // τ-bench): stored as they came, so that 123456789012345678901234567890 stays those digits.
    QString argumentsText;
};

struct ToolResultEvent
{
    QString callId;
    nlohmann::json result;
    std::optional<qint64> durationMs;
    bool errorFlag = false; // the transcript marked the result an error ("is_error": true)
    QString errorType;
};

struct NativeEvent
{
    QString ticket;
    qint64 at = 0; // ms since the epoch, UTC
    QString fingerprint; // SHA-256 of the event's canonical JSON: the same event, the same print
    // The print names the event's source (a span), not its place: a call id met again under
    // another print is another call reusing the id, or this one stored under another.
    bool namedBySource = false;
    // A tool call or result read from a span's messages (Turn::carried): one the ticket has under
    // its id already is that one, and is left as it is.
    bool carried = false;
    // A span's tool call or result: the print the same call or result has when read from a span's
    // messages, so that a call first met in a message is known again when its own span comes.
    QString carriedFingerprint;
    // TraceEvent: an `http` or `provider` line; its seq is set when it is stored.
    std::variant<TicketOpenedEvent, MessageEvent, ToolCallEvent, ToolResultEvent, TraceEvent> body;
};

// Parses one non-blank line. The error says which field and what was expected; the caller
// adds the file and line.
Expected<NativeEvent> parseNativeEvent(const QByteArray &line);
// The same for a line already parsed (a reader that looked at it first), without parsing again.
Expected<NativeEvent> parseNativeEventValue(nlohmann::json root);

} // namespace verity

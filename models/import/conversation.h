#pragma once
// A conversation as a foreign transcript tells it (OpenAI, Anthropic, OpenTelemetry,
// τ-bench): the turns in order, before it becomes a ticket and its events. Each format has
// one small adapter from its JSON onto this shape; everything after it (pairing results
// with calls, keys, outcomes, the store) is shared.

#include "domain/expected.h"
#include "domain/toolhint.h"
#include "store/records.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>

namespace verity {

struct Turn
{
    enum class Kind { Message, ToolCall, ToolResult };
    Kind kind = Kind::Message;
    std::optional<qint64> at; // ms since the epoch, UTC, when the format says

    // Message: user -> Customer, the assistant's text -> Reply, system/developer -> System,
    // the agent's own notes or reasoning -> Agent.
    MessageKind messageKind = MessageKind::Customer;
    QString text;

    // ToolCall and ToolResult. A result names its call by callId; a format whose ids repeat
    // (τ-bench v1) still gives the id: a result pairs with the oldest call of that id that has
    // no result yet.
    QString callId;
    QString tool; // ToolCall; on a ToolResult only when the format says
    nlohmann::json arguments; // ToolCall: an object
    QString argumentsText; // ToolCall: the arguments as written, when the format writes them as text
    nlohmann::json result; // ToolResult: exactly what the tool returned (text or structure)
    bool errorFlag = false; // ToolResult: the transcript marks it an error (is_error,
                            // "error": true, span status ERROR)
    QString errorType; // ToolResult: the transcript's error type, when it names one
    std::optional<qint64> durationMs;
    // What names this turn wherever it is read again (OTLP: its trace and span), so that it is
    // recognised in any batch an exporter sends it in; empty: its place in the conversation.
    QString sourceId;
    // ToolCall and ToolResult: read from a span's messages, not from a tool span of its own. A
    // call the ticket has under that id already (from its tool span) is that call.
    bool carried = false;
};

struct Conversation
{
    QString id; // stable: the same conversation read again gives the same id
    QString subject; // one line; empty when nothing fits
    std::optional<qint64> openedAt;
    QString orderId; // when the conversation is about one order the format names
    // What a conversation without an order or seller says of itself, for the queue: a
    // benchmark's task and trial, and the agent's model.
    QString task;
    QString trial;
    QString model;
    // What dated it when its turns have no times but the format has a time of its own (τ²'s
    // file-level "timestamp").
    TicketDating dating = TicketDating::OwnTimes;
    QList<Turn> turns;
    QStringList notices; // worth telling the reader, but no reason to skip the conversation
    // What the source says of the tools it calls besides the calls (their definitions), by tool:
    // a tool no registry knows is classed by it until a person confirms.
    QHash<QString, ToolHint> toolHints;
    int spans = 0; // OTLP: the tool and chat spans it was read from
};

// What an adapter knows besides the JSON in front of it.
struct ConversationContext
{
    ConversationContext(QString stem = QString(), qint64 position = 0, QString timestamp = QString())
        : fileStem(std::move(stem))
        , ordinal(position)
        , fileTimestamp(std::move(timestamp))
    {}

    QString fileStem; // the file's name without folder and extension, for ids
    qint64 ordinal = 0; // 1-based position of this conversation in the file
    QString fileTimestamp; // a file-level time, when the format has one (τ² "timestamp")
    // OTLP: the conversation each trace belongs to, gathered from the whole file first, since
    // a collector may export a trace's child spans in an earlier batch than the root span that
    // names the conversation. Null when not gathered.
    const QHash<QString, QString> *traceConversations = nullptr;
    // OTLP: when given, set to the number of tool and chat spans the request holds (read or
    // refused), so a receiver can say how many of them it refused.
    int *spansRead = nullptr;
    // OTLP: tool spans read in earlier requests, by the span each sits in, with their tool and
    // call id. A tool span exported after one inside it, for the same tool (a framework's span
    // around the MCP client's), is that call again. Null when not kept; bounded by its keeper.
    QHash<QString, QPair<QString, QString>> *toolSpansWithin = nullptr;
    // ... and such an outer span's own call id, naming the call its inner span stored: the id a
    // model span's messages carry the call by.
    QHash<QString, QString> *callAliases = nullptr;
    // OTLP: what the spans read so far said of each tool (a model span's tool definitions come
    // in another request than the tool's own span). Null when not kept; bounded by its keeper.
    QHash<QString, ToolHint> *toolHints = nullptr;
    // A short hash of the conversation's JSON, for ids of conversations that carry none.
    QString contentHash;
};

// An id for a conversation that carries none of its own: from its content when the reader
// gave a hash ("conversation-3fa2c91b0e4d"), else the file's stem and its position.
QString fallbackConversationId(const ConversationContext &context);

// Every distinct tool the conversation calls, for choosing a registry profile.
QStringList toolsCalled(const Conversation &conversation);

} // namespace verity

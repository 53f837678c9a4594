#pragma once
// One MCP session through the guard, without its transport: JSON-RPC messages from the client
// and from the server, one at a time, relayed as they came (the very bytes), except tools/call.
// A read is relayed and recorded with its answer. A write is recorded before it is sent, and
// not sent when an earlier call of its intent is in flight or unknown (held) or was performed
// (answered): the client gets the guard's CallToolResult instead. Progress, cancellation,
// resources, prompts, and the server's own requests (sampling, elicitation, roots) pass as
// they are; a client's cancellation of a write in flight makes it unknown at once.

#include "domain/jsontext.h"
#include "guardrecorder.h"

#include <QByteArray>
#include <QHash>
#include <QSet>
#include <QString>
#include <QTimer>

#include <functional>
#include <optional>

namespace verity {

struct RelayOptions
{
    RegistrySelection registries; // class each tool, as the recorder will
    QString sessionId; // names the session's ticket when the client names no conversation
    QString callPrefix; // unique to this session: its calls are "<prefix>-<JSON-RPC id>"
    // Without a store, writes pass unrecorded instead of being refused (--when-store-down pass).
    bool passWhenStoreDown = false;
    std::function<qint64()> clock; // ms since the epoch; empty: the system's
    // Told when the recorder failed: the store is opened again before the next write (a team
    // database's server that went away and came back).
    std::function<void()> recorderFailed;
    // A call that comes before the guard's own tools/list is answered waits for it (up to 2 s), so
    // its tool is judged by the server's words. Only where answers may come in any order later
    // (stdio); over HTTP each request waits for its own answer.
    bool callsWaitForToolList = true;
};

class McpRelay
{
public:
    struct Sinks
    {
        std::function<void(const QByteArray &)> toServer;
        std::function<void(const QByteArray &)> toClient;
        std::function<void(const QString &)> log; // one line for a person watching
    };
    // `recorder` gives the recorder, or nullopt and why the store cannot be reached now.
    using RecorderSource = std::function<GuardRecorder *(QString &whyNot)>;

    McpRelay(RecorderSource recorder, RelayOptions options, Sinks sinks);

    // One message (a line, without its end).
    void fromClient(const QByteArray &message);
    void fromServer(const QByteArray &message);
    // A side went away: every write still awaiting its answer is unknown and escalated now.
    // The request never reached the server (its connection was refused): a call in it did not
    // happen, is recorded so, and the model is told.
    void notDelivered(const QByteArray &request, const QString &why);
    void connectionLost(const QString &why);
    // The client stopped waiting for this one request (its stream closed): a write it was is
    // unknown and escalated now; its answer, should it come, still settles it.
    void abandoned(const QByteArray &request, const QString &why);

    int callsInFlight() const { return int(m_pending.size()); }

private:
    struct ServerTool
    {
        ToolHint hint;
        QString keyField; // the input schema's idempotency key argument, if any
        bool hasOutputSchema = false;
    };
    struct Pending
    {
        nlohmann::json id; // the client's
        GuardedCall call;
        bool write = false;
        qint64 storedCallId = 0; // 0: not recorded before it was sent
        bool givenUp = false;
        // The client cancelled it: the cancel was kept from the server (a write's answer that still
        // comes settles it), and that answer is not the client's any more.
        bool cancelledByClient = false;
    };

    void callTool(const QByteArray &message, nlohmann::json request);
    void sendWaitingCalls();
    // Why a tools/call cannot be judged (no id, no tool name, arguments that are no object); empty
    // when it can.
    static QString invalidCall(const nlohmann::json &request);
    void refuse(const nlohmann::json &id, int code, const QString &why);
    bool refusedBatch(const nlohmann::json &batch);
    // A request id of this session that is still waiting for its answer (or for the tool list).
    bool idInUse(const nlohmann::json &id) const;
    void answer(const nlohmann::json &id, nlohmann::json result);
    void readToolList(const nlohmann::json &result);
    void settle(Pending pending, const nlohmann::json &response);
    void giveUp(Pending &pending, const QString &why);
    GuardedCall guardedCall(const nlohmann::json &id, const nlohmann::json &params) const;
    qint64 now() const;

    RecorderSource m_recorder;
    RelayOptions m_options;
    Sinks m_sinks;
    QString m_conversation; // named by the client in initialize's _meta
    QString m_serverName;
    QString m_initializeId; // the initialize request in flight, to read the server's name
    QHash<QString, ServerTool> m_tools;
    QStringList m_toolNames;
    QSet<QString> m_listRequests; // ids of the client's tools/list requests in flight
    // The guard's own tools/list, asked once the session is initialized and again when the
    // server says its list changed, so a client that never lists tools is still judged by
    // the server's words. Its answers are the guard's alone and never reach the client.
    int m_ownLists = 0;
    QString m_ownListId; // the one on its way, whose answer calls wait for
    QSet<QString> m_ownIds; // every one not answered yet: its answer, however late, is the guard's
    void listTools(const nlohmann::json &cursor = nullptr);
    // Calls that came while the guard's own tools/list was on its way, in order.
    QList<std::pair<QByteArray, nlohmann::json>> m_waitingCalls;
    QTimer m_listWait;
    QHash<QString, Pending> m_pending; // tools/call sent, by JSON-RPC id
};

// The conversation a request's `_meta` names ("gen_ai.conversation.id", "conversationId",
// "conversation_id", "dev.verity/conversation"); empty when none.
QString conversationInMeta(const nlohmann::json &params);

// Messages nested deeper than this are not read: reading and writing such JSON recurses, and no
// tool's arguments are anywhere near it.
constexpr int deepestJsonRead = 256;
// How deep a JSON text's arrays and objects nest (strings skipped).
inline int nestingOf(const QByteArray &text)
{
    return jsonNestingDepth(text.constBegin(), text.constEnd());
}

} // namespace verity

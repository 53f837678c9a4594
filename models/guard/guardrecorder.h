#pragma once
// What `verity guard` writes: each tools/call as it happens, into the store every console
// reads. A write is stored in flight before it is sent, in the transaction that looked for an
// earlier call of its intent, so two guards on one database never both send it; its result
// settles it; a client that gives up, or a line that drops, leaves it unknown and escalated at
// once. The calls go through the importer, as collect's do: tickets, keys, outcomes and
// escalations follow the same rules whichever way a call arrived. Answers are stored beside the
// relay, on a session of their own (AnswerWriter).

#include "answerwriter.h"
#include "import/transcriptimporter.h"
#include "repeatverdict.h"

#include <nlohmann/json.hpp>

#include <functional>

namespace verity {

// One tools/call, as the guard saw it.
struct GuardedCall
{
    QString conversation; // the ticket: the client's conversation id, else the MCP session's
    // The client named the conversation. When it did not, the ticket (a session) is no part of a
    // write's intent: a retry from another session is the same write.
    bool conversationNamed = false;
    QString callId; // unique in the ticket
    QString sourceId; // names the call wherever it is stored again (its result's unit)
    QString tool;
    QString intentKey; // a write's, once admitted
    nlohmann::json arguments = nlohmann::json::object();
    QString argumentsText; // as the client wrote them
    ToolHint hint; // what the server's tools/list says of the tool (MCP's defaults when nothing)
    QStringList serverTools; // every tool the server lists: the registry profile is chosen by them
    QString origin; // the server's name, for the queue
    qint64 at = 0; // ms since the epoch
};

// How the registry, else the server's own words, class the tool.
struct GuardedTool
{
    ToolSpec spec;
    QString inferredBecause; // empty when the registry knows it
    QString registry; // the profile that read it
};

struct WriteAdmission
{
    RepeatVerdict verdict;
    QString intentKey;
    qint64 storedCallId = 0; // Send: the row stored in flight
    nlohmann::json answer; // Hold, AnswerPerformed: what the model gets instead
    bool keyFilled = false; // Send: the intent's key was put in the tool's key field
};

// As the importer will read the call: the profile that knows most of the server's tools, else
// the class the server's own words suggest (MCP's defaults make an unannotated tool a
// destructive write), marked inferred.
GuardedTool guardedTool(const RegistrySelection &registries, const GuardedCall &call);

class GuardRecorder
{
public:
    // `deadlineMs`: how long a write sent waits for its result before it is unknown and escalated.
    // `answers` opens the session the answers are stored through, on a thread of their own; a
    // failure to store them is told to `log`.
    GuardRecorder(ImportWrites &store, AnswerWriter::Opener answers, RegistrySelection registries,
                  qint64 deadlineMs, AnswerWriter::FailureLog log, std::function<qint64()> clock = {});

    // Before a write is sent: stored in flight when nothing earlier holds it, else stored with
    // the verdict that answers it. An error: nothing was stored, and the write must not go.
    // `keyField`: the tool's idempotency key argument, if its schema has one; a repeat of what
    // did not happen gets the intent's key there when the model left it empty (then `call`'s
    // arguments are what is sent).
    Expected<WriteAdmission> admitWrite(GuardedCall &call, const QString &keyField);
    // The answer the server gave (a CallToolResult, or a JSON-RPC error object with `isError`),
    // stored with its call: a read's first record, a write's result. Stored off the path of the
    // calls behind it (AnswerWriter); the next write's verdict waits for the write answers handed
    // over before it. A write whose answer is lost (the guard killed meanwhile) stays in flight
    // and is unknown at its deadline: never the unsafe way round.
    void recordResult(const GuardedCall &call, const nlohmann::json &result, bool isError,
                      const QString &errorType, qint64 at);
    // Nobody will wait for this write's answer (the client cancelled it, or a side went away):
    // unknown and escalated now. A result that still comes settles it.
    Expected<void> giveUp(qint64 storedCallId);
    Expected<int> escalateOverdue();

private:
    ImportUnit unitOf(const GuardedCall &call, const nlohmann::json *result, bool isError,
                      const QString &errorType, qint64 at) const;
    Expected<void> stored(const ImportReport &report) const;
    qint64 now() const;

    ImportWrites &m_store;
    RegistrySelection m_registries;
    TranscriptImporter m_importer;
    std::function<qint64()> m_clock;
    AnswerWriter m_answers;
};

} // namespace verity

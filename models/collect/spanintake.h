#pragma once
// What a receiver's request holds, stored: an OTLP trace export's tool and chat spans, or lines
// of Verity's own events, become units for the importer and are committed in one transaction
// before the request is answered. The same spans sent again change nothing (each turn is named
// by its trace and span); spans of one conversation sent minutes apart grow one ticket.

#include "domain/registryselection.h"
#include "import/transcriptimporter.h"

#include <QHash>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace verity {

struct IntakeResult
{
    qint64 received = 0; // OTLP: tool and chat spans; events: lines
    qint64 refused = 0; // of those, not stored, each for a reason in `problems`
    QStringList problems; // what was refused and why, each naming its place
    QStringList notices; // what was stored but not as it came (a value kept as its text), and where
    qint64 eventsStored = 0; // new to the store
    qint64 eventsKnown = 0; // stored by an earlier request
    qint64 ticketsOpened = 0;
    QString storeError; // set: nothing of the request was stored, and the sender should try again
};

class SpanIntake
{
public:
    // `inFlightGraceMs`: how long a write reported by an event line waits for its result before
    // it is escalated. `clock` gives ms since the epoch (empty: the system's).
    SpanIntake(ImportWrites &store, RegistrySelection registries, qint64 inFlightGraceMs,
               std::function<qint64()> clock = {});
    // The registries that read the calls from the next request on.
    void setRegistries(RegistrySelection registries) { m_importer.setRegistries(std::move(registries)); }

    // One ExportTraceServiceRequest in its JSON encoding. `receivedAt` dates a conversation
    // whose spans carry no times (ms since the epoch).
    IntakeResult takeTraces(const nlohmann::json &request, qint64 receivedAt, const QString &source);
    // Lines of Verity's own JSONL events; blank lines are skipped.
    IntakeResult takeEvents(const QByteArray &lines, const QString &source);
    // Lines of a followed file: Verity's events, and OTLP trace exports (one a line, as the
    // Collector's file exporter writes them), in order; `firstLine` numbers the first.
    IntakeResult takeLines(const QList<QByteArray> &lines, qint64 firstLine, const QString &source);
    // Escalates the writes whose result has not come within the grace period; how many, or
    // why the store could not.
    Expected<int> escalateOverdue();

private:
    IntakeResult store(const QList<ImportUnit> &units, const QString &source, qint64 received,
                       const QHash<QString, int> &spansOf);
    static ImportUnit nativeUnit(const QByteArray &line, qint64 lineNumber);
    IntakeResult storeEvents(const QList<ImportUnit> &units, const QString &source, qint64 received);

    ImportWrites &m_store;
    TranscriptImporter m_importer;
    qint64 m_graceMs;
    std::function<qint64()> m_clock;
    // The conversation each trace was named by in an earlier request: a tool span may come in a
    // later batch than the root span that carries gen_ai.conversation.id. Bounded: when full it
    // starts again (a trace older than that is a conversation long over).
    QHash<QString, QString> m_traceConversations;
    // Tool spans stored, by the span they sit in (ConversationContext::toolSpansWithin).
    QHash<QString, QPair<QString, QString>> m_toolSpansWithin;
    QHash<QString, QString> m_callAliases; // ConversationContext::callAliases
    // What spans said of each tool (ConversationContext::toolHints), for tools whose own spans
    // come in later requests; bounded by the reader.
    QHash<QString, ToolHint> m_toolHints;
};

} // namespace verity

#pragma once
// Reads transcript files of every format Verity knows into a Store. Units (a native line, or a
// whole conversation) are committed in batches, each batch with the ticket summaries and
// escalations it changes, so a killed import leaves a consistent database and running it
// again completes it. A conversation is stored whole or not at all. Importing the same file
// twice changes nothing.

#include "domain/registryselection.h"
#include "importreport.h"
#include "importunit.h"

#include <QHash>
#include <QSet>

#include <functional>

namespace verity {

class Store;
class TranscriptReader;
struct TicketRef;

class TranscriptImporter
{
public:
    // Called as the file is read; return false to stop after the current batch.
    using Progress = std::function<bool(qint64 bytesRead, qint64 bytesTotal)>;

    TranscriptImporter(Store &store, RegistrySelection registries);
    // One registry for every call, as for Verity's own files.
    TranscriptImporter(Store &store, const ToolRegistry &registry);

    void setBatchSize(int units) { m_batchSize = qMax(1, units); }
    void setProgress(Progress progress) { m_progress = std::move(progress); }

    ImportReport importFile(const QString &path);

private:
    struct LineResult
    {
        bool imported = false;
        QString rejection;
    };

    // False when the store failed (the report then says why).
    bool applyUnit(const ImportUnit &unit, ImportReport &report);
    Expected<LineResult> apply(const NativeEvent &event, ImportReport &report);
    Expected<LineResult> applyTicketOpened(const NativeEvent &event, const TicketOpenedEvent &opened,
                                           ImportReport &report);
    Expected<LineResult> applyMessage(const NativeEvent &event, const MessageEvent &message);
    Expected<LineResult> applyToolCall(const NativeEvent &event, const ToolCallEvent &call);
    Expected<LineResult> applyToolResult(const NativeEvent &event, const ToolResultEvent &result);
    Expected<LineResult> applyTrace(const NativeEvent &event, const TraceEvent &trace);
    Expected<TicketRef *> ticketFor(const QString &extId);
    // Finds the event's ticket; otherwise the line's rejection (or a store error) to return.
    std::optional<Expected<LineResult>> requireOpenedTicket(const NativeEvent &event, TicketRef *&ticket);
    Expected<void> finishBatch(ImportReport &report);
    bool applyAndBatch(const ImportUnit &unit, ImportReport &report, const TranscriptReader &reader,
                       int &inBatch, bool &storeFailed);
    void keepUnitFindings(ImportReport &report, const ImportUnit &unit);

    Store &m_store;
    RegistrySelection m_registries;
    const NamedRegistry *m_registry = nullptr; // the one reading the current unit
    QString m_fileProfile;                     // the profile this file has used so far
    int m_batchSize = 2000;
    Progress m_progress;
    // Tickets seen in the current batch, with their next sequence number; cleared per batch
    // so memory stays flat however large the file.
    QHash<QString, TicketRef> m_tickets;
    QSet<QString> m_touched;
    QSet<QString> m_unclassified;
    QStringList m_unitUnclassified; // met in the unit being stored, kept only if it is
    QString m_storeError;
};

} // namespace verity

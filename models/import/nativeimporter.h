#pragma once
// Reads native JSONL files into a Store. Lines are committed in batches, each batch with the
// ticket summaries and escalations it changes, so a killed import leaves a consistent
// database and running it again completes it. Importing the same file twice changes nothing.

#include "domain/toolregistry.h"
#include "importreport.h"
#include "nativeevent.h"

#include <QHash>
#include <QSet>

#include <functional>

namespace verity {

class Store;

class NativeImporter
{
public:
    // Called after each batch; return false to stop after that batch.
    using Progress = std::function<bool(qint64 bytesRead, qint64 bytesTotal)>;

    NativeImporter(Store &store, const ToolRegistry &registry);

    void setBatchSize(int lines) { m_batchSize = qMax(1, lines); }
    void setProgress(Progress progress) { m_progress = std::move(progress); }

    ImportReport importFile(const QString &path);

private:
    struct LineResult
    {
        bool imported = false;
        QString rejection;
    };

    Expected<LineResult> apply(const NativeEvent &event, ImportReport &report);
    Expected<LineResult> applyTicketOpened(const NativeEvent &event, const TicketOpenedEvent &opened,
                                           ImportReport &report);
    Expected<LineResult> applyMessage(const NativeEvent &event, const MessageEvent &message);
    Expected<LineResult> applyToolCall(const NativeEvent &event, const ToolCallEvent &call);
    Expected<LineResult> applyToolResult(const NativeEvent &event, const ToolResultEvent &result);
    Expected<TicketRef *> ticketFor(const QString &extId);
    // Finds the event's ticket; otherwise the line's rejection (or a store error) to return.
    std::optional<Expected<LineResult>> requireOpenedTicket(const NativeEvent &event, TicketRef *&ticket);
    Expected<void> finishBatch();

    Store &m_store;
    ToolRegistry m_registry; // a copy (implicitly shared): the importer may outlive the caller's registry
    int m_batchSize = 2000;
    Progress m_progress;
    // Tickets seen in the current batch, with their next sequence number; cleared per batch
    // so memory stays flat however large the file.
    QHash<QString, TicketRef> m_tickets;
    QSet<QString> m_touched;
};

} // namespace verity

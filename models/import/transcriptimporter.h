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

class ImportWrites;
class ReadAhead;
struct TicketRef;

class TranscriptImporter
{
public:
    // Called as the file is read; return false to stop after the current batch.
    using Progress = std::function<bool(qint64 bytesRead, qint64 bytesTotal)>;

    TranscriptImporter(ImportWrites &store, RegistrySelection registries);
    // One registry for every call, as for Verity's own files.
    TranscriptImporter(ImportWrites &store, const ToolRegistry &registry);

    void setBatchSize(int units) { m_batchSize = qMax(1, units); }
    // Between imports only: the registries that read the next one.
    void setRegistries(RegistrySelection registries)
    {
        m_registries = std::move(registries);
        m_registry = &m_registries.primary();
    }
    void setProgress(Progress progress) { m_progress = std::move(progress); }
    // Reading a live stream (a receiver, a followed log): a write whose result has not come yet
    // is in flight for `graceMs` from when it is stored, escalated only if the result has not
    // come by then (Store::escalateOverdueCalls). A file read whole has no such wait: a call
    // without a result is unknown at once. `clock` gives ms since the epoch (empty: the system's).
    void setInFlightGrace(std::optional<qint64> graceMs, std::function<qint64()> clock = {})
    {
        m_inFlightGraceMs = graceMs;
        m_clock = std::move(clock);
    }
    // How long a write only a span's messages have shown so far (Turn::carried) waits for its
    // own span or its answer before it is escalated; none: unknown at once, as in a file.
    void setCarriedGrace(std::optional<qint64> graceMs) { m_carriedGraceMs = graceMs; }

    ImportReport importFile(const QString &path);
    // Units already read (a receiver's request), stored in one transaction: all of them, or
    // nothing when the store fails (the report's fatal then says why). `source` names them in
    // the report.
    ImportReport importUnits(const QList<ImportUnit> &units, const QString &source);
    // The same for units that depend on what the store holds: `decide` runs once the transaction
    // has begun, may lock and read, and gives the units to store in it; its error stores nothing.
    using Decide = std::function<Expected<QList<ImportUnit>>(ImportWrites &store)>;
    ImportReport importDecided(const Decide &decide, const QString &source);
    // A ticket as the open import knows it, asked of the store once: for a Decide that reads
    // it before the units that go into it are stored.
    Expected<std::optional<TicketRef>> batchTicket(const QString &extId);
    // The row a call of the last importDecided() was stored in, so its caller need not ask the
    // store again; 0 when that import did not store it.
    qint64 storedCallId(const QString &ticketExtId, const QString &callExtId) const;

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

    // A call as this batch knows it: made by the batch, or read once from the store.
    struct BatchCall
    {
        QString callExtId;
        ToolCallRef ref; // its id is 0 while it waits
        CallFacts facts; // what the assessment reads of it, kept for a ticket the batch opened
        // Made but not stored yet: a result that follows is stored in the same row, instead of
        // the row being written twice.
        std::optional<NewToolCall> waiting;
    };
    // A ticket as this batch knows it. One the batch opened has nothing stored from before,
    // so its calls and their facts are all here and the store need not be asked about them.
    struct BatchTicket
    {
        QString key; // ticketCacheKey() of its id
        TicketRef ref;
        bool opened = false;
        bool touched = false; // listed in m_touched
        // In the order made (or read); a ticket has few, so they are found by looking along.
        QList<BatchCall> calls;
    };

    Expected<BatchTicket *> ticketFor(const QString &extId);
    Expected<LineResult> completeLate(BatchTicket &ticket, const NewTicket &named);
    // Finds the event's ticket; otherwise the line's rejection (or a store error) to return.
    std::optional<Expected<LineResult>> requireOpenedTicket(const NativeEvent &event, BatchTicket *&ticket);
    Expected<BatchCall *> callFor(BatchTicket &ticket, const QString &callExtId);
    // The call a span made, when its id was met under another print (see NativeEvent::namedBySource):
    // the id it is stored under, or a free one for a new call.
    Expected<QString> callIdOfSpan(BatchTicket &ticket, const QString &callExtId, const QString &fingerprint,
                                   bool &stored);
    QString unitCallId(const NativeEvent &event, const QString &callExtId) const
    {
        return event.namedBySource ? m_unitCallIds.value(callExtId, callExtId) : callExtId;
    }
    Expected<void> keyWritesAgain(const TicketRef &ticket);
    // How many tickets the unit took over.
    Expected<int> absorbTraceTickets(const ImportUnit &unit);
    // Stores the waiting calls in the order they were made (so each gets the id it would have
    // had): all of them, or those made before `first`, which is then next.
    Expected<void> storeWaitingCalls(const BatchCall *first = nullptr);
    void markStored(BatchCall &call, qint64 id);
    void touch(BatchTicket &ticket);
    Expected<void> storeAssessment(BatchTicket &ticket, ImportReport &report);
    Expected<void> finishBatch(ImportReport &report);
    bool applyAndBatch(const ImportUnit &unit, ImportReport &report, const ReadAhead &reader, int &inBatch,
                       bool &storeFailed);
    void keepUnitFindings(ImportReport &report, const ImportUnit &unit);
    // The profile a line of a native file is read with: its ticket's, chosen when it is opened by
    // the tools its calls in the lines read ahead name.
    Expected<const NamedRegistry *> nativeRegistry(const ImportUnit &unit);
    // A ticket whose opening this file refused, and where: its later lines say so.
    void rememberRefusedOpening(const QString &ticket, const FilePlace &place);
    // The tickets the units read ahead name, asked of the store together rather than one by
    // one as each is met.
    void lookAhead(const QList<const ImportUnit *> &units);
    void forgetBatch();
    bool m_keepCallIds = false; // importDecided(): the batch's call rows are kept, for storedCallId()
    QHash<QString, qint64> m_decidedCalls; // "<ticket key>\n<call id>" -> row
    ImportReport failed(ImportReport report, const QString &message);

    ImportWrites &m_home; // the store itself
    // What an import reads and writes through: the batch its store handed out for it, if any,
    // else the store.
    ImportWrites *m_store = &m_home;
    RegistrySelection m_registries;
    const NamedRegistry *m_registry = nullptr; // the one reading the current unit
    // What the current unit's source says of its tools, for those no registry knows.
    const QHash<QString, ToolHint> *m_unitHints = nullptr;
    bool m_unitKeysAcrossTickets = false; // ImportUnit::keysAcrossTickets of the current unit
    QString m_fileProfile; // the profile this file has used so far
    // The tools the native lines read ahead call, by ticket cache key (lookAhead).
    QHash<QString, QStringList> m_toolsAhead;
    int m_batchSize = 2000;
    // This unit's span calls stored under another id than the span gave (callIdOfSpan).
    QHash<QString, QString> m_unitCallIds;
    std::optional<qint64> m_inFlightGraceMs;
    std::optional<qint64> m_carriedGraceMs;
    std::function<qint64()> m_clock;
    Progress m_progress;
    // Tickets seen in the current batch, with their next sequence number; cleared per batch
    // so memory stays flat however large the file.
    QHash<QString, BatchTicket> m_tickets;
    // Tickets the units read ahead name that were not stored when asked (lookAhead), until
    // this batch opens them or the next units are read.
    QSet<QString> m_absent;
    // Tickets whose opening this file refused, by cache key: where, so that their later lines say why.
    QHash<QString, QString> m_refusedOpenings;
    // Tickets the batch changed, in the order first changed, so summaries are written in it.
    QSet<QString> m_touched;
    QStringList m_touchedOrder;
    // Calls made and not yet stored (ticket key, call id), oldest first. All are stored before
    // anything reads the calls back, before a conversation's savepoint and before a commit.
    QList<std::pair<QString, QString>> m_waitingCalls;
    QSet<QString> m_unclassified;
    QStringList m_unitNotices; // said of the unit being stored, kept only if it is
    QStringList m_unitUnclassified; // met in the unit being stored, kept only if it is
    QString m_storeError;
    ImportReport m_committed; // the report as of the last commit
};

} // namespace verity

#include "transcriptimporter.h"

#include "transcriptreader.h"

#include "domain/intentkey.h"
#include "domain/jsontext.h"
#include "domain/resultclassifier.h"
#include "domain/sha256.h"
#include "domain/ticketassessment.h"
#include "store/store.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>

namespace verity {

using nlohmann::json;

namespace {

QString jsonText(const json &value)
{
    return QString::fromStdString(value.dump());
}

} // namespace

TranscriptImporter::TranscriptImporter(Store &store, RegistrySelection registries)
    : m_store(store), m_registries(std::move(registries))
{
}

TranscriptImporter::TranscriptImporter(Store &store, const ToolRegistry &registry)
    : TranscriptImporter(store, RegistrySelection::forced(NamedRegistry{QStringLiteral("default"), registry}))
{
}

namespace {

// Ticket ids match without regard to ASCII case, as the store's NOCASE column does, so
// "t-1" and "T-1" are one ticket in the cache too.
QString ticketCacheKey(const QString &extId)
{
    QString key = extId;
    for (QChar &c : key) {
        if (c >= u'A' && c <= u'Z')
            c = QChar(c.unicode() + (u'a' - u'A'));
    }
    return key;
}

} // namespace

Expected<TicketRef *> TranscriptImporter::ticketFor(const QString &extId)
{
    const QString key = ticketCacheKey(extId);
    auto cached = m_tickets.find(key);
    if (cached != m_tickets.end())
        return &cached.value();
    Expected<std::optional<TicketRef>> found = m_store.findTicket(extId);
    if (!found)
        return found.error();
    if (!*found)
        return static_cast<TicketRef *>(nullptr);
    return &m_tickets.insert(key, **found).value();
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::applyTicketOpened(const NativeEvent &event,
                                                                       const TicketOpenedEvent &opened,
                                                                       ImportReport &report)
{
    Expected<TicketRef *> existing = ticketFor(event.ticket);
    if (!existing)
        return existing.error();
    if (*existing) {
        if ((*existing)->fingerprint == event.fingerprint)
            return LineResult{};
        return LineResult{false, QStringLiteral("ticket \"%1\" was already imported with other content (another "
                                                "conversation under the same id, or a file of the same name?); "
                                                "a ticket is opened once")
                                     .arg(event.ticket)};
    }
    NewTicket ticket = opened.ticket;
    ticket.registry = m_registry->name;
    Expected<TicketRef> inserted = m_store.insertTicket(ticket);
    if (!inserted)
        return inserted.error();
    m_tickets.insert(ticketCacheKey(event.ticket), *inserted);
    m_touched.insert(ticketCacheKey(event.ticket));
    ++report.ticketsOpened;
    return LineResult{true, {}};
}

std::optional<Expected<TranscriptImporter::LineResult>> TranscriptImporter::requireOpenedTicket(const NativeEvent &event,
                                                                                       TicketRef *&ticket)
{
    Expected<TicketRef *> found = ticketFor(event.ticket);
    if (!found)
        return Expected<LineResult>(found.error());
    if (!*found)
        return Expected<LineResult>(LineResult{
            false,
            QStringLiteral("ticket \"%1\" has not been opened: a ticket_opened event must come first").arg(event.ticket)});
    ticket = *found;
    return std::nullopt;
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::applyMessage(const NativeEvent &event, const MessageEvent &message)
{
    TicketRef *ticket = nullptr;
    if (std::optional<Expected<LineResult>> refused = requireOpenedTicket(event, ticket))
        return *refused;
    NewMessage row{ticket->id, ticket->lastSeq + 1, event.at, message.kind, message.text, event.fingerprint};
    Expected<bool> inserted = m_store.insertMessage(row);
    if (!inserted)
        return inserted.error();
    if (*inserted) {
        ++ticket->lastSeq;
        m_touched.insert(ticketCacheKey(event.ticket));
    }
    return LineResult{*inserted, {}};
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::applyToolCall(const NativeEvent &event,
                                                                         const ToolCallEvent &call)
{
    TicketRef *ticket = nullptr;
    if (std::optional<Expected<LineResult>> refused = requireOpenedTicket(event, ticket))
        return *refused;
    Expected<std::optional<ToolCallRef>> existing = m_store.findToolCall(ticket->id, call.callId);
    if (!existing)
        return existing.error();
    if (*existing) {
        if ((*existing)->fingerprint == event.fingerprint)
            return LineResult{};
        return LineResult{false, QStringLiteral("call_id \"%1\" is already used in ticket \"%2\" by another call")
                                     .arg(call.callId, event.ticket)};
    }

    NewToolCall row;
    row.ticketId = ticket->id;
    row.seq = ticket->lastSeq + 1;
    row.callExtId = call.callId;
    row.tool = call.tool;
    row.argumentsJson = jsonText(call.arguments);
    row.calledAt = event.at;
    row.fingerprint = event.fingerprint;
    const ToolRegistry &registry = m_registry->registry;
    const ToolSpec *spec = registry.find(call.tool);
    row.toolClass = spec ? spec->toolClass : ToolClass::Unclassified;
    if (!spec && !m_unclassified.contains(call.tool) && !m_unitUnclassified.contains(call.tool))
        m_unitUnclassified.append(call.tool); // reported once the unit is stored
    if (spec && isWrite(spec->toolClass)) {
        Expected<QString> key = intentKey(*spec, call.arguments, ticket->facts);
        if (key)
            row.intentKey = *key;
        else
            row.intentError = key.message();
        if (!spec->amountField.isEmpty()) {
            auto amount = call.arguments.find(spec->amountField.toStdString());
            if (amount != call.arguments.end())
                row.amountCents = wholeNumber(*amount);
        }
        // Until a result arrives nobody knows whether the write happened.
        const WriteVerdict verdict = classifyWriteResult(nullptr, registry.outcomeRules());
        row.outcome = verdict.outcome;
        row.outcomeReason = verdict.reason;
    }
    Expected<qint64> inserted = m_store.insertToolCall(row);
    if (!inserted)
        return inserted.error();
    ++ticket->lastSeq;
    m_touched.insert(ticketCacheKey(event.ticket));
    return LineResult{true, {}};
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::applyToolResult(const NativeEvent &event,
                                                                     const ToolResultEvent &result)
{
    TicketRef *ticket = nullptr;
    if (std::optional<Expected<LineResult>> refused = requireOpenedTicket(event, ticket))
        return *refused;
    Expected<std::optional<ToolCallRef>> call = m_store.findToolCall(ticket->id, result.callId);
    if (!call)
        return call.error();
    if (!*call)
        return LineResult{false, QStringLiteral("tool_result for call_id \"%1\", but ticket \"%2\" has no such "
                                                "tool_call before it")
                                     .arg(result.callId, event.ticket)};
    if (!(*call)->resultFingerprint.isEmpty()) {
        if ((*call)->resultFingerprint == event.fingerprint)
            return LineResult{};
        return LineResult{false, QStringLiteral("call_id \"%1\" in ticket \"%2\" already has a different result")
                                     .arg(result.callId, event.ticket)};
    }

    ToolResultUpdate update;
    update.callId = (*call)->id;
    update.rawResult = jsonText(result.result);
    update.at = event.at;
    update.durationMs = result.durationMs;
    update.fingerprint = event.fingerprint;
    update.errorFlag = result.errorFlag;
    update.errorType = result.errorType;
    if (isWrite((*call)->toolClass)) {
        const WriteVerdict verdict =
                classifyWriteResult(&result.result, m_registry->registry.outcomeRules(), result.errorFlag);
        update.outcome = verdict.outcome;
        update.outcomeReason = verdict.reason;
    } else {
        update.readFailed = resultLooksLikeError(result.result, result.errorFlag);
    }
    if (Expected<void> done = m_store.setToolResult(update); !done)
        return done.error();
    m_touched.insert(ticketCacheKey(event.ticket));
    return LineResult{true, {}};
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::apply(const NativeEvent &event, ImportReport &report)
{
    if (const auto *opened = std::get_if<TicketOpenedEvent>(&event.body))
        return applyTicketOpened(event, *opened, report);
    if (const auto *message = std::get_if<MessageEvent>(&event.body))
        return applyMessage(event, *message);
    if (const auto *call = std::get_if<ToolCallEvent>(&event.body))
        return applyToolCall(event, *call);
    if (const auto *trace = std::get_if<TraceEvent>(&event.body))
        return applyTrace(event, *trace);
    return applyToolResult(event, std::get<ToolResultEvent>(event.body));
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::applyTrace(const NativeEvent &event, const TraceEvent &trace)
{
    TicketRef *ticket = nullptr;
    if (std::optional<Expected<LineResult>> refused = requireOpenedTicket(event, ticket))
        return *refused;
    // An HTTP request belongs to a call; a provider record may arrive without one (a webhook).
    if (!trace.callExtId.isEmpty()) {
        Expected<std::optional<ToolCallRef>> call = m_store.findToolCall(ticket->id, trace.callExtId);
        if (!call)
            return call.error();
        if (!*call)
            return LineResult{false, QStringLiteral("%1 event for call_id \"%2\", but ticket \"%3\" has no such "
                                                    "tool_call before it")
                                         .arg(traceKindId(trace.kind), trace.callExtId, event.ticket)};
    }
    NewTraceEvent row{ticket->id, trace, event.fingerprint};
    row.event.seq = ticket->lastSeq + 1;
    row.event.at = event.at;
    Expected<bool> inserted = m_store.insertTraceEvent(row);
    if (!inserted)
        return inserted.error();
    if (*inserted) {
        ++ticket->lastSeq;
        m_touched.insert(ticketCacheKey(event.ticket)); // so its last seq is stored with the batch
    }
    return LineResult{*inserted, {}};
}

Expected<void> TranscriptImporter::finishBatch(ImportReport &report)
{
    for (const QString &key : std::as_const(m_touched)) {
        Expected<TicketRef *> ticket = ticketFor(key);
        if (!ticket)
            return ticket.error();
        if (!*ticket)
            continue; // opened by a conversation that was then rolled back
        Expected<QList<CallFacts>> calls = m_store.callFacts((*ticket)->id);
        if (!calls)
            return calls.error();
        const TicketAssessment assessment = assessTicket(*calls);
        Expected<RepeatCounts> before = m_store.applyAssessment((*ticket)->id, (*ticket)->lastSeq, assessment);
        if (!before)
            return before.error();
        report.repeats += assessment.repeats - *before;
    }
    m_touched.clear();
    m_tickets.clear();
    return m_store.commit();
}

bool TranscriptImporter::applyUnit(const ImportUnit &unit, ImportReport &report)
{
    const bool conversation = !unit.conversation.isEmpty();
    auto problem = [&unit](const QString &reason) { return ImportProblem{unit.place, unit.conversation, reason}; };
    for (const QString &notice : unit.notices)
        report.notices.append(problem(notice));
    if (!unit.rejection.isEmpty()) {
        report.rejected.append(problem(unit.rejection));
        return true;
    }

    m_registry = &m_registries.primary();
    if (conversation && !m_registries.isForced())
        m_registry = &m_registries.choose(unit.tools, m_fileProfile);
    m_unitUnclassified.clear();

    // A conversation is one savepoint: any event it cannot store undoes the others.
    const bool whole = unit.events.size() > 1;
    if (whole) {
        if (Expected<void> begun = m_store.savepoint(); !begun) {
            m_storeError = begun.message();
            return false;
        }
    }
    qint64 imported = 0;
    qint64 unchanged = 0;
    const qint64 ticketsBefore = report.ticketsOpened;
    // The ticket as this batch knew it, to put back if the conversation is undone.
    const QString key = ticketCacheKey(unit.conversation);
    const std::optional<TicketRef> cachedBefore =
            m_tickets.contains(key) ? std::optional<TicketRef>(m_tickets.value(key)) : std::nullopt;
    for (const NativeEvent &event : unit.events) {
        Expected<LineResult> applied = apply(event, report);
        if (!applied) {
            m_storeError = applied.message();
            return false;
        }
        if (!applied->rejection.isEmpty()) {
            if (whole) {
                if (Expected<void> undone = m_store.rollbackToSavepoint(); !undone) {
                    m_storeError = undone.message();
                    return false;
                }
                if (cachedBefore)
                    m_tickets.insert(key, *cachedBefore);
                else
                    m_tickets.remove(key);
                report.ticketsOpened = ticketsBefore;
            }
            report.rejected.append(problem(applied->rejection));
            return true;
        }
        ++(applied->imported ? imported : unchanged);
    }
    if (whole) {
        if (Expected<void> kept = m_store.releaseSavepoint(); !kept) {
            m_storeError = kept.message();
            return false;
        }
    }
    keepUnitFindings(report, unit);
    report.eventsImported += imported;
    report.eventsUnchanged += unchanged;
    if (conversation)
        ++report.conversations;
    return true;
}

// Stores one unit, and closes the batch when it is full: commits, reports progress (which may
// cancel), and opens the next. False stops the reading.
bool TranscriptImporter::applyAndBatch(const ImportUnit &unit, ImportReport &report, const TranscriptReader &reader,
                                       int &inBatch, bool &storeFailed)
{
    if (!applyUnit(unit, report)) {
        storeFailed = true;
        return false;
    }
    inBatch += qMax<int>(1, int(unit.events.size()));
    if (inBatch < m_batchSize)
        return true;
    inBatch = 0;
    if (Expected<void> done = finishBatch(report); !done) {
        m_storeError = done.message();
        storeFailed = true;
        return false;
    }
    if (m_progress && !m_progress(reader.bytesRead(), reader.bytesTotal())) {
        report.cancelled = true;
        return false;
    }
    if (Expected<void> begun = m_store.begin(); !begun) {
        m_storeError = begun.message();
        storeFailed = true;
        return false;
    }
    return true;
}

// The unit is stored: what it taught about the file counts now.
void TranscriptImporter::keepUnitFindings(ImportReport &report, const ImportUnit &unit)
{
    for (const QString &tool : std::as_const(m_unitUnclassified)) {
        m_unclassified.insert(tool);
        report.unclassifiedTools.append(tool);
    }
    m_unitUnclassified.clear();
    if (!unit.conversation.isEmpty() && !unit.tools.isEmpty()) {
        m_fileProfile = m_registry->name;
        if (!report.registries.contains(m_registry->name))
            report.registries.append(m_registry->name);
    }
}

ImportReport TranscriptImporter::importFile(const QString &path)
{
    ImportReport report;
    report.path = path;
    m_tickets.clear();
    m_touched.clear();
    m_unclassified.clear();
    m_fileProfile.clear();
    m_storeError.clear();
    m_registry = &m_registries.primary();
    const qint64 startedAt = QDateTime::currentMSecsSinceEpoch();

    auto fail = [&](const QString &message) {
        m_store.rollback();
        m_tickets.clear();
        m_touched.clear();
        report.fatal = message;
        return report;
    };

    if (Expected<void> begun = m_store.begin(); !begun)
        return fail(begun.message());
    TranscriptReader reader(path);
    if (m_progress)
        m_progress(0, QFileInfo(path).size()); // the clock starts now, for whoever shows a rate
    int inBatch = 0;
    bool storeFailed = false;
    FilePlace lastPlace;
    Expected<void> read = reader.read([&](ImportUnit unit) {
        lastPlace = unit.place;
        // Nothing may escape into the reader mid-savepoint: a failure here rolls the batch back.
        try {
            return applyAndBatch(unit, report, reader, inBatch, storeFailed);
        } catch (const std::exception &e) {
            m_storeError = QString::fromUtf8(e.what());
            storeFailed = true;
            return false;
        }
    });
    report.format = reader.format();
    report.linesRead = reader.linesRead();
    report.bytesRead = reader.bytesRead();
    if (storeFailed)
        return fail(QStringLiteral("%1: %2")
                            .arg(lastPlace.line > 0 ? QStringLiteral("line %1").arg(lastPlace.line) : lastPlace.text(),
                                 m_storeError));
    if (report.cancelled)
        return report; // the batch before the stop was committed; no transaction is open
    if (!read) {
        // What came before the broken part is kept: commit it, and say where reading stopped.
        if (Expected<void> done = finishBatch(report); !done)
            return fail(done.message());
        report.fatal = read.message();
        return report;
    }

    ImportRecord record{QFileInfo(path).absoluteFilePath(), reader.sha256(), startedAt, reader.linesRead(),
                        qint64(report.rejected.size())};
    if (Expected<void> done = m_store.recordImport(record); !done)
        return fail(done.message());
    if (Expected<void> done = finishBatch(report); !done)
        return fail(done.message());
    if (m_progress)
        m_progress(reader.bytesTotal(), reader.bytesTotal());
    return report;
}

} // namespace verity

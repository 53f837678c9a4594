#include "nativeimporter.h"

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

NativeImporter::NativeImporter(Store &store, const ToolRegistry &registry) : m_store(store), m_registry(registry) {}

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

Expected<TicketRef *> NativeImporter::ticketFor(const QString &extId)
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

Expected<NativeImporter::LineResult> NativeImporter::applyTicketOpened(const NativeEvent &event,
                                                                       const TicketOpenedEvent &opened,
                                                                       ImportReport &report)
{
    Expected<TicketRef *> existing = ticketFor(event.ticket);
    if (!existing)
        return existing.error();
    if (*existing) {
        if ((*existing)->fingerprint == event.fingerprint)
            return LineResult{};
        return LineResult{false, QStringLiteral("ticket \"%1\" was already opened with other details; a ticket is "
                                                "opened once")
                                     .arg(event.ticket)};
    }
    Expected<TicketRef> inserted = m_store.insertTicket(opened.ticket);
    if (!inserted)
        return inserted.error();
    m_tickets.insert(ticketCacheKey(event.ticket), *inserted);
    m_touched.insert(ticketCacheKey(event.ticket));
    ++report.ticketsOpened;
    return LineResult{true, {}};
}

std::optional<Expected<NativeImporter::LineResult>> NativeImporter::requireOpenedTicket(const NativeEvent &event,
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

Expected<NativeImporter::LineResult> NativeImporter::applyMessage(const NativeEvent &event, const MessageEvent &message)
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

Expected<NativeImporter::LineResult> NativeImporter::applyToolCall(const NativeEvent &event, const ToolCallEvent &call)
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
    const ToolSpec *spec = m_registry.find(call.tool);
    row.toolClass = spec ? spec->toolClass : ToolClass::Unclassified;
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
        const WriteVerdict verdict = classifyWriteResult(nullptr, m_registry.outcomeRules());
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

Expected<NativeImporter::LineResult> NativeImporter::applyToolResult(const NativeEvent &event,
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
    if (isWrite((*call)->toolClass)) {
        const WriteVerdict verdict = classifyWriteResult(&result.result, m_registry.outcomeRules());
        update.outcome = verdict.outcome;
        update.outcomeReason = verdict.reason;
    } else {
        update.readFailed = resultLooksLikeError(result.result);
    }
    if (Expected<void> done = m_store.setToolResult(update); !done)
        return done.error();
    m_touched.insert(ticketCacheKey(event.ticket));
    return LineResult{true, {}};
}

Expected<NativeImporter::LineResult> NativeImporter::apply(const NativeEvent &event, ImportReport &report)
{
    if (const auto *opened = std::get_if<TicketOpenedEvent>(&event.body))
        return applyTicketOpened(event, *opened, report);
    if (const auto *message = std::get_if<MessageEvent>(&event.body))
        return applyMessage(event, *message);
    if (const auto *call = std::get_if<ToolCallEvent>(&event.body))
        return applyToolCall(event, *call);
    return applyToolResult(event, std::get<ToolResultEvent>(event.body));
}

Expected<void> NativeImporter::finishBatch()
{
    for (const QString &extId : std::as_const(m_touched)) {
        const TicketRef &ticket = m_tickets[extId];
        Expected<QList<CallFacts>> calls = m_store.callFacts(ticket.id);
        if (!calls)
            return calls.error();
        if (Expected<void> done = m_store.applyAssessment(ticket.id, ticket.lastSeq, assessTicket(*calls)); !done)
            return done;
    }
    m_touched.clear();
    m_tickets.clear();
    return m_store.commit();
}

ImportReport NativeImporter::importFile(const QString &path)
{
    ImportReport report;
    report.path = path;
    m_tickets.clear();
    m_touched.clear();

    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        report.fatal = QStringLiteral("cannot read the file: %1").arg(file.errorString());
        return report;
    }
    const qint64 startedAt = QDateTime::currentMSecsSinceEpoch();
    const qint64 total = file.size();
    Sha256Stream fileHash;

    auto fail = [&](const QString &message) {
        m_store.rollback();
        m_tickets.clear();
        m_touched.clear();
        report.fatal = message;
        return report;
    };

    if (Expected<void> begun = m_store.begin(); !begun)
        return fail(begun.message());
    int inBatch = 0;
    while (!file.atEnd()) {
        QByteArray line = file.readLine();
        fileHash.add(line);
        ++report.linesRead;
        if (report.linesRead == 1 && line.startsWith("\xEF\xBB\xBF"))
            line.remove(0, 3);
        if (line.trimmed().isEmpty())
            continue;

        Expected<NativeEvent> event = parseNativeEvent(line);
        if (!event) {
            report.rejected.append({report.linesRead, event.message()});
        } else {
            Expected<LineResult> applied = apply(*event, report);
            if (!applied)
                return fail(QStringLiteral("line %1: %2").arg(report.linesRead).arg(applied.message()));
            if (!applied->rejection.isEmpty())
                report.rejected.append({report.linesRead, applied->rejection});
            else if (applied->imported)
                ++report.eventsImported;
            else
                ++report.eventsUnchanged;
        }

        if (++inBatch >= m_batchSize) {
            if (Expected<void> done = finishBatch(); !done)
                return fail(done.message());
            inBatch = 0;
            if (m_progress && !m_progress(file.pos(), total)) {
                report.cancelled = true;
                return report;
            }
            if (Expected<void> begun = m_store.begin(); !begun)
                return fail(begun.message());
        }
    }
    if (file.error() != QFileDevice::NoError)
        return fail(QStringLiteral("reading stopped at line %1: %2").arg(report.linesRead).arg(file.errorString()));

    ImportRecord record{QFileInfo(path).absoluteFilePath(), QString::fromLatin1(fileHash.hexDigest()), startedAt,
                        report.linesRead, qint64(report.rejected.size())};
    if (Expected<void> done = m_store.recordImport(record); !done)
        return fail(done.message());
    if (Expected<void> done = finishBatch(); !done)
        return fail(done.message());
    if (m_progress)
        m_progress(total, total);
    return report;
}

} // namespace verity

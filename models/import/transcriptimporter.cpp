#include "transcriptimporter.h"

#include "domain/intentkey.h"
#include "domain/jsontext.h"
#include "domain/money.h"
#include "domain/resultclassifier.h"
#include "domain/sha256.h"
#include "domain/ticketassessment.h"
#include "domain/toolclasssuggestion.h"
#include "nulcharacter.h"
#include "readahead.h"
#include "store/store.h"
#include "transcriptreader.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QScopeGuard>

#include <algorithm>

namespace verity {

using nlohmann::json;

namespace {

QString jsonText(const json &value)
{
    return QString::fromStdString(value.dump());
}

} // namespace

TranscriptImporter::TranscriptImporter(ImportWrites &store, RegistrySelection registries)
    : m_home(store)
    , m_registries(std::move(registries))
{}

TranscriptImporter::TranscriptImporter(ImportWrites &store, const ToolRegistry &registry)
    : TranscriptImporter(store, RegistrySelection::forced(NamedRegistry{QStringLiteral("default"), registry}))
{}

namespace {

// Ticket ids match without regard to ASCII case, as the store's NOCASE column does, so
// "t-1" and "T-1" are one ticket in the cache too.
QString ticketCacheKey(const QString &extId)
{
    const auto upper = [](QChar c) { return c >= u'A' && c <= u'Z'; };
    if (std::none_of(extId.cbegin(), extId.cend(), upper))
        return extId; // shared rather than copied
    QString key = extId;
    for (QChar &c : key) {
        if (upper(c))
            c = QChar(c.unicode() + (u'a' - u'A'));
    }
    return key;
}

} // namespace

Expected<TranscriptImporter::BatchTicket *> TranscriptImporter::ticketFor(const QString &extId)
{
    const QString key = ticketCacheKey(extId);
    auto cached = m_tickets.find(key);
    if (cached != m_tickets.end())
        return &cached.value();
    if (m_absent.contains(key))
        return static_cast<BatchTicket *>(nullptr);
    Expected<std::optional<TicketRef>> found = m_store->findTicket(extId);
    if (!found)
        return found.error();
    if (!*found)
        return static_cast<BatchTicket *>(nullptr);
    return &m_tickets.insert(key, BatchTicket{key, **found, false, false, {}}).value();
}

Expected<std::optional<TicketRef>> TranscriptImporter::batchTicket(const QString &extId)
{
    Expected<BatchTicket *> ticket = ticketFor(extId);
    if (!ticket)
        return ticket.error();
    return *ticket ? std::optional<TicketRef>((*ticket)->ref) : std::nullopt;
}

// A call of the ticket by its id, or null when the ticket has none. A ticket this batch opened
// has only the calls the batch stored, so only other tickets' calls are looked up.
Expected<TranscriptImporter::BatchCall *> TranscriptImporter::callFor(BatchTicket &ticket,
                                                                      const QString &callExtId)
{
    const auto cached = std::find_if(ticket.calls.begin(), ticket.calls.end(),
                                     [&](const BatchCall &call) { return call.callExtId == callExtId; });
    if (cached != ticket.calls.end())
        return &*cached;
    if (ticket.opened)
        return static_cast<BatchCall *>(nullptr);
    Expected<std::optional<ToolCallRef>> found = m_store->findToolCall(ticket.ref.id, callExtId);
    if (!found)
        return found.error();
    if (!*found)
        return static_cast<BatchCall *>(nullptr);
    ticket.calls.append(BatchCall{callExtId, **found, {}, std::nullopt});
    return &ticket.calls.last();
}

Expected<QString> TranscriptImporter::callIdOfSpan(BatchTicket &ticket, const QString &callExtId,
                                                   const QString &fingerprint, bool &stored)
{
    stored = false;
    const auto same = [&fingerprint](const BatchCall &call) { return call.ref.fingerprint == fingerprint; };
    if (const auto cached = std::find_if(ticket.calls.cbegin(), ticket.calls.cend(), same);
        cached != ticket.calls.cend()) {
        stored = true;
        return cached->callExtId;
    }
    if (!ticket.opened) {
        Expected<std::optional<QString>> found = m_store->findToolCallByPrint(ticket.ref.id, fingerprint);
        if (!found)
            return found.error();
        if (*found) {
            stored = true;
            return **found;
        }
    }
    // Numbered on, as a transcript that reuses an id within one conversation is.
    for (int use = 2;; ++use) {
        const QString candidate = QStringLiteral("%1#%2").arg(callExtId).arg(use);
        Expected<BatchCall *> taken = callFor(ticket, candidate);
        if (!taken)
            return taken.error();
        if (!*taken)
            return candidate;
    }
}

Expected<void> TranscriptImporter::storeWaitingCalls(const BatchCall *first)
{
    while (!m_waitingCalls.isEmpty()) {
        // Named members, not a structured binding: clang before 16 cannot capture one in a lambda.
        const QString &key = m_waitingCalls.constFirst().first;
        const QString &callExtId = m_waitingCalls.constFirst().second;
        const auto ticket = m_tickets.find(key);
        BatchCall *call = nullptr;
        if (ticket != m_tickets.end()) {
            const auto made = std::find_if(ticket->calls.begin(), ticket->calls.end(),
                                           [&](const BatchCall &c) { return c.callExtId == callExtId; });
            call = made != ticket->calls.end() ? &*made : nullptr;
        }
        if (!call || !call->waiting)
            return makeError(QStringLiteral("call_id \"%1\" of ticket \"%2\" was lost before it was stored")
                                     .arg(callExtId, key));
        if (call == first)
            return {};
        Expected<qint64> id = m_store->insertToolCall(*call->waiting);
        if (!id)
            return id.error();
        markStored(*call, *id);
        m_waitingCalls.removeFirst();
    }
    return {};
}

void TranscriptImporter::markStored(BatchCall &call, qint64 id)
{
    call.waiting.reset();
    call.ref.id = id;
    call.facts.id = id;
}

void TranscriptImporter::touch(BatchTicket &ticket)
{
    if (ticket.touched)
        return;
    ticket.touched = true;
    // A ticket put back as it was before a conversation may be listed already.
    if (!m_touched.contains(ticket.key)) {
        m_touched.insert(ticket.key);
        m_touchedOrder.append(ticket.key);
    }
}

Expected<TranscriptImporter::LineResult>
TranscriptImporter::applyTicketOpened(const NativeEvent &event, const TicketOpenedEvent &opened,
                                      ImportReport &report)
{
    Expected<BatchTicket *> existing = ticketFor(event.ticket);
    if (!existing)
        return existing.error();
    if (*existing) {
        if ((*existing)->ref.fingerprint == event.fingerprint)
            return completeLate(**existing, opened.ticket);
        return LineResult{false,
                          QStringLiteral("ticket \"%1\" was already imported with other content (another "
                                         "conversation under the same id, or a file of the same name?); "
                                         "a ticket is opened once")
                                  .arg(event.ticket)};
    }
    NewTicket ticket = opened.ticket;
    ticket.registry = m_registry->name;
    // A benchmark's domain is the τ profile that reads it ("tau-airline": airline).
    if (!ticket.task.isEmpty() && ticket.registry.startsWith(QLatin1String("tau-"))) {
        const QString domain = ticket.registry.mid(4);
        ticket.origin = ticket.origin.isEmpty() ? domain : domain + QStringLiteral(" · ") + ticket.origin;
    }
    Expected<TicketRef> inserted = m_store->insertTicket(ticket);
    if (!inserted)
        return inserted.error();
    const QString key = ticketCacheKey(event.ticket);
    m_absent.remove(key);
    touch(m_tickets.insert(key, BatchTicket{key, *inserted, true, false, {}}).value());
    ++report.ticketsOpened;
    return LineResult{true, {}};
}

// A conversation continued in a later batch may name what its first spans did not: the order,
// its seller and payment, the customer's words for a subject.
Expected<TranscriptImporter::LineResult> TranscriptImporter::completeLate(BatchTicket &ticket,
                                                                          const NewTicket &named)
{
    const QString order = ticket.ref.facts.value(QStringLiteral("order_id"));
    // A ticket with its order and seller is whole (a native one always is): nothing is asked.
    const bool moreOfTheOrder = !named.order.id.isEmpty()
            && (order.isEmpty()
                || (order.compare(named.order.id, Qt::CaseInsensitive) == 0
                    && ticket.ref.facts.value(QStringLiteral("seller_id")).isEmpty()
                    && !named.seller.id.isEmpty()));
    // A native ticket comes whole, its subject with it; a conversation read in pieces grows.
    const bool subject = named.sourceFormat != QLatin1String("native") && !named.subject.isEmpty()
            && named.subject != named.extId && !named.subject.startsWith(QLatin1String("Trace "));
    if (!moreOfTheOrder && !subject)
        return LineResult{};
    NewTicket complete = named;
    if (!moreOfTheOrder)
        complete.order = OrderRecord{}; // only the subject
    if (Expected<void> done = m_store->completeTicket(ticket.ref.id, complete); !done)
        return done.error();
    if (moreOfTheOrder && order.isEmpty())
        ticket.ref.facts.insert(QStringLiteral("order_id"), named.order.id);
    if (moreOfTheOrder && ticket.ref.facts.value(QStringLiteral("seller_id")).isEmpty())
        ticket.ref.facts.insert(QStringLiteral("seller_id"), named.seller.id);
    touch(ticket);
    return LineResult{};
}

std::optional<Expected<TranscriptImporter::LineResult>>
TranscriptImporter::requireOpenedTicket(const NativeEvent &event, BatchTicket *&ticket)
{
    Expected<BatchTicket *> found = ticketFor(event.ticket);
    if (!found)
        return Expected<LineResult>(found.error());
    if (!*found) {
        const auto refused = m_refusedOpenings.constFind(ticketCacheKey(event.ticket));
        return Expected<LineResult>(LineResult{
                false,
                refused != m_refusedOpenings.cend()
                        ? QStringLiteral("ticket \"%1\" was not opened: its ticket_opened event (at %2) was "
                                         "refused")
                                  .arg(event.ticket, *refused)
                        : QStringLiteral("ticket \"%1\" has not been opened: a ticket_opened event must come "
                                         "first")
                                  .arg(event.ticket)});
    }
    ticket = *found;
    return std::nullopt;
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::applyMessage(const NativeEvent &event,
                                                                          const MessageEvent &message)
{
    BatchTicket *ticket = nullptr;
    if (std::optional<Expected<LineResult>> refused = requireOpenedTicket(event, ticket))
        return *refused;
    NewMessage row{ticket->ref.id, ticket->ref.lastSeq + 1, event.at, message.kind,
                   message.text,   event.fingerprint};
    Expected<bool> inserted = m_store->insertMessage(row);
    if (!inserted)
        return inserted.error();
    if (*inserted) {
        ++ticket->ref.lastSeq;
        touch(*ticket);
    }
    return LineResult{*inserted, {}};
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::applyToolCall(const NativeEvent &event,
                                                                           const ToolCallEvent &call)
{
    BatchTicket *ticket = nullptr;
    if (std::optional<Expected<LineResult>> refused = requireOpenedTicket(event, ticket))
        return *refused;
    Expected<BatchCall *> existing = callFor(*ticket, call.callId);
    if (!existing)
        return existing.error();
    QString callExtId = call.callId;
    // A call met first in a span's messages and then in its own span (or the other way round)
    // is one call: the first reading stands.
    if (*existing && (*existing)->ref.fingerprint != event.fingerprint
        && (event.carried || (*existing)->ref.fingerprint == event.carriedFingerprint)) {
        m_unitCallIds.insert(call.callId, call.callId);
        return LineResult{};
    }
    if (*existing && (*existing)->ref.fingerprint != event.fingerprint && event.namedBySource) {
        // Spans name their calls: this one is stored under another id already, or is new.
        bool stored = false;
        Expected<QString> id = callIdOfSpan(*ticket, call.callId, event.fingerprint, stored);
        if (!id)
            return id.error();
        m_unitCallIds.insert(call.callId, *id);
        if (stored)
            return LineResult{};
        callExtId = *id;
    } else if (*existing) {
        if ((*existing)->ref.fingerprint == event.fingerprint)
            return LineResult{};
        return LineResult{false,
                          QStringLiteral("call_id \"%1\" is already used in ticket \"%2\" by another call")
                                  .arg(call.callId, event.ticket)};
    }

    NewToolCall row;
    row.ticketId = ticket->ref.id;
    row.seq = ticket->ref.lastSeq + 1;
    row.callExtId = callExtId;
    row.tool = call.tool;
    // As the transcript wrote them when it wrote them as text; else as Verity reads them.
    row.argumentsJson =
            call.argumentsText.trimmed().isEmpty() ? jsonText(call.arguments) : call.argumentsText;
    row.calledAt = event.at;
    row.fingerprint = event.fingerprint;
    const ToolRegistry &registry = m_registry->registry;
    const ToolSpec *spec = registry.find(call.tool);
    if (!spec && !m_unclassified.contains(call.tool) && !m_unitUnclassified.contains(call.tool))
        m_unitUnclassified.append(call.tool); // reported once the unit is stored
    // A tool no registry knows is judged as what its source says it is, and marked so, until a
    // person confirms a class: a write the agent retried is caught even so.
    ToolSpec inferred;
    if (!spec) {
        const auto hint =
                m_unitHints ? m_unitHints->constFind(call.tool) : QHash<QString, ToolHint>::const_iterator();
        const ToolClassSuggestion guess =
                inferToolClass(call.tool, m_unitHints && hint != m_unitHints->cend() ? &*hint : nullptr,
                               row.argumentsJson, QString());
        if (guess.toolClass) {
            inferred.name = call.tool;
            inferred.toolClass = *guess.toolClass;
            inferred.amountField = guess.amountField;
            row.classInferred = guess.reason;
            spec = &inferred;
        }
    }
    row.toolClass = spec ? spec->toolClass : ToolClass::Unclassified;
    if (spec && isWrite(spec->toolClass)) {
        // An amount that is not whole, positive cents must never become money (-$118.00
        // performed), nor pass in silence: the call is kept, as the evidence of what the agent
        // did, with no amount, and the import says where and what was expected.
        const Expected<std::optional<qint64>> amount = readAmount(*spec, call.arguments);
        if (amount)
            row.amountCents = *amount;
        else
            row.amountError = amount.message();
        const WriteKey key =
                writeKey(*spec, call.arguments, m_unitKeysAcrossTickets ? TicketFacts() : ticket->ref.facts);
        row.intentKey = key.key;
        row.intentError = spec == &inferred ? QStringLiteral("no registry knows %1").arg(call.tool)
                : m_unitKeysAcrossTickets && key.fromAllArguments()
                ? QStringLiteral("its MCP session named no conversation, so the ticket is no part of its "
                                 "intent: keyed "
                                 "from its arguments alone, the same in any session (%1)")
                          .arg(key.fromAllArgumentsBecause)
                : key.fromAllArgumentsBecause;
        if (!row.amountError.isEmpty())
            m_unitNotices.append(
                    QStringLiteral("call \"%1\" (%2): %3; it is kept as the agent made it, with no "
                                   "amount, and no money is counted for it")
                            .arg(callExtId, call.tool, row.amountError));
        // Until a result arrives nobody knows whether the write happened.
        const WriteVerdict verdict = classifyWriteResult(nullptr, registry.outcomeRules());
        row.outcome = verdict.outcome;
        row.outcomeReason = verdict.reason;
        const std::optional<qint64> grace = m_inFlightGraceMs ? m_inFlightGraceMs
                : event.carried                               ? m_carriedGraceMs
                                                              : std::nullopt;
        if (grace)
            row.inFlightUntil = (m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch()) + *grace;
    }
    // For a ticket the batch opened, what the store would read back for the assessment.
    CallFacts facts;
    facts.toolClass = row.toolClass;
    facts.outcome = row.outcome;
    facts.intentKey = row.intentKey;
    facts.intentError = row.intentKey.isEmpty();
    facts.amountError = !row.amountError.isEmpty();
    facts.amountCents = row.amountCents;
    facts.inFlight = row.inFlightUntil.has_value();
    ToolCallRef ref{0, row.tool, row.toolClass, row.fingerprint, {}};
    ticket->calls.append(BatchCall{callExtId, std::move(ref), std::move(facts), std::move(row)});
    m_waitingCalls.append({ticket->key, callExtId});
    ++ticket->ref.lastSeq;
    touch(*ticket);
    return LineResult{true, {}};
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::applyToolResult(const NativeEvent &event,
                                                                             const ToolResultEvent &result)
{
    BatchTicket *ticket = nullptr;
    if (std::optional<Expected<LineResult>> refused = requireOpenedTicket(event, ticket))
        return *refused;
    const QString callExtId = unitCallId(event, result.callId);
    Expected<BatchCall *> found = callFor(*ticket, callExtId);
    if (!found)
        return found.error();
    BatchCall *const batchCall = *found;
    if (!batchCall)
        return LineResult{false,
                          QStringLiteral("tool_result for call_id \"%1\", but ticket \"%2\" has no such "
                                         "tool_call before it")
                                  .arg(callExtId, event.ticket)};
    const ToolCallRef *const call = &batchCall->ref;
    if (!call->resultFingerprint.isEmpty()) {
        if (call->resultFingerprint == event.fingerprint || event.carried
            || call->resultFingerprint == event.carriedFingerprint)
            return LineResult{}; // the same result, as a span's messages or its own span told it
        if (event.namedBySource) {
            // Spans are never one conversation's whole text: the rest of it is still stored.
            m_unitNotices.append(QStringLiteral("call \"%1\" already has a result; another one a span gives "
                                                "for it is left out")
                                         .arg(callExtId));
            return LineResult{};
        }
        return LineResult{false,
                          QStringLiteral("call_id \"%1\" in ticket \"%2\" already has a different result")
                                  .arg(callExtId, event.ticket)};
    }

    ToolResultUpdate update;
    update.callId = call->id;
    update.rawResult = jsonText(result.result);
    update.at = event.at;
    update.durationMs = result.durationMs;
    update.fingerprint = event.fingerprint;
    update.errorFlag = result.errorFlag;
    update.errorType = result.errorType;
    if (isWrite(call->toolClass)) {
        const WriteVerdict verdict =
                classifyWriteResult(&result.result, m_registry->registry.outcomeRules(), result.errorFlag);
        update.outcome = verdict.outcome;
        update.outcomeReason = verdict.reason;
    } else {
        update.readFailed = resultLooksLikeError(result.result, result.errorFlag);
    }
    if (batchCall->waiting) {
        // The calls made before it get their ids first; then it is stored with its result.
        if (Expected<void> done = storeWaitingCalls(batchCall); !done)
            return done.error();
        Expected<qint64> id = m_store->insertAnsweredToolCall(*batchCall->waiting, update);
        if (!id)
            return id.error();
        markStored(*batchCall, *id);
        m_waitingCalls.removeFirst();
    } else if (Expected<void> done = m_store->setToolResult(update); !done) {
        return done.error();
    }
    batchCall->ref.resultFingerprint = update.fingerprint;
    batchCall->facts.outcome = update.outcome;
    batchCall->facts.inFlight = false;
    if (isWrite(call->toolClass))
        noteResult(batchCall->facts, update.rawResult);
    touch(*ticket);
    return LineResult{true, {}};
}

Expected<TranscriptImporter::LineResult> TranscriptImporter::apply(const NativeEvent &event,
                                                                   ImportReport &report)
{
    if (!m_store->storesNulCharacters()) {
        if (const QString field = fieldWithNulCharacter(event); !field.isEmpty())
            return LineResult{false,
                              QStringLiteral("%1 contains the character U+0000, which a PostgreSQL "
                                             "database cannot store")
                                      .arg(field)};
    }
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

Expected<TranscriptImporter::LineResult> TranscriptImporter::applyTrace(const NativeEvent &event,
                                                                        const TraceEvent &trace)
{
    BatchTicket *ticket = nullptr;
    if (std::optional<Expected<LineResult>> refused = requireOpenedTicket(event, ticket))
        return *refused;
    // An HTTP request belongs to a call; a provider record may arrive without one (a webhook).
    NewTraceEvent row{ticket->ref.id, trace, event.fingerprint};
    row.event.callExtId = unitCallId(event, trace.callExtId);
    if (!trace.callExtId.isEmpty()) {
        Expected<BatchCall *> call = callFor(*ticket, row.event.callExtId);
        if (!call)
            return call.error();
        if (!*call)
            return LineResult{false,
                              QStringLiteral("%1 event for call_id \"%2\", but ticket \"%3\" has no such "
                                             "tool_call before it")
                                      .arg(traceKindId(trace.kind), row.event.callExtId, event.ticket)};
    }
    row.event.seq = ticket->ref.lastSeq + 1;
    row.event.at = event.at;
    Expected<bool> inserted = m_store->insertTraceEvent(row);
    if (!inserted)
        return inserted.error();
    if (*inserted) {
        ++ticket->ref.lastSeq;
        touch(*ticket); // so its last seq is stored with the batch
    }
    return LineResult{*inserted, {}};
}

Expected<void> TranscriptImporter::storeAssessment(BatchTicket &ticket, ImportReport &report)
{
    if (ticket.opened) {
        // Its calls are all in the batch, and it had no summary, marks or escalations before.
        QList<CallFacts> facts;
        facts.reserve(ticket.calls.size());
        for (const BatchCall &call : std::as_const(ticket.calls))
            facts.append(call.facts);
        const TicketAssessment assessment = assessTicket(facts);
        if (Expected<void> done =
                    m_store->applyFirstAssessment(ticket.ref.id, ticket.ref.lastSeq, assessment);
            !done)
            return done;
        report.repeats += assessment.repeats;
        return {};
    }
    Expected<QList<CallFacts>> calls = m_store->callFacts(ticket.ref.id);
    if (!calls)
        return calls.error();
    const TicketAssessment assessment = assessTicket(*calls);
    Expected<RepeatCounts> before = m_store->applyAssessment(ticket.ref.id, ticket.ref.lastSeq, assessment);
    if (!before)
        return before.error();
    report.repeats += assessment.repeats - *before;
    return {};
}

Expected<void> TranscriptImporter::finishBatch(ImportReport &report)
{
    if (Expected<void> done = storeWaitingCalls(); !done)
        return done;
    for (const QString &key : std::as_const(m_touchedOrder)) {
        Expected<BatchTicket *> ticket = ticketFor(key);
        if (!ticket)
            return ticket.error();
        if (!*ticket)
            continue; // opened by a conversation that was then rolled back
        if (Expected<void> done = storeAssessment(**ticket, report); !done)
            return done;
    }
    m_touched.clear();
    m_touchedOrder.clear();
    if (m_keepCallIds) {
        for (const BatchTicket &ticket : std::as_const(m_tickets)) {
            for (const BatchCall &call : ticket.calls)
                m_decidedCalls.insert(ticket.key + u'\n' + call.callExtId, call.ref.id);
        }
    }
    m_tickets.clear();
    if (Expected<void> done = m_store->commit(); !done)
        return done;
    m_committed = report;
    return {};
}

bool TranscriptImporter::applyUnit(const ImportUnit &unit, ImportReport &report)
{
    const bool conversation = !unit.conversation.isEmpty();
    auto problem = [&unit](const QString &reason) {
        return ImportProblem{unit.place, unit.conversation, reason};
    };
    for (const QString &notice : unit.notices)
        report.notices.append(problem(notice));
    if (!unit.rejection.isEmpty()) {
        if (!unit.refusedOpening.isEmpty())
            rememberRefusedOpening(unit.refusedOpening, unit.place);
        report.rejected.append(problem(unit.rejection));
        return true;
    }

    m_registry = &m_registries.primary();
    if (conversation && !m_registries.isForced()) {
        m_registry = &m_registries.choose(
                unit.tools, m_registries.has(unit.declaredProfile) ? unit.declaredProfile : m_fileProfile);
    } else if (!m_registries.isForced()) { // Verity's own lines: their ticket's profile
        Expected<const NamedRegistry *> native = nativeRegistry(unit);
        if (!native) {
            m_storeError = native.message();
            return false;
        }
        m_registry = *native;
    }
    m_unitHints = &unit.toolHints;
    m_unitKeysAcrossTickets = unit.keysAcrossTickets;
    m_unitUnclassified.clear();
    m_unitNotices.clear();
    m_unitCallIds.clear();

    // A conversation is one savepoint: any event it cannot store undoes the others. Calls
    // waiting from before are stored first, so that undoing it undoes only its own.
    const bool whole = unit.events.size() > 1 || !unit.absorbs.isEmpty();
    if (whole) {
        if (Expected<void> stored = storeWaitingCalls(); !stored) {
            m_storeError = stored.message();
            return false;
        }
        if (Expected<void> begun = m_store->savepoint(); !begun) {
            m_storeError = begun.message();
            return false;
        }
    }
    qint64 imported = 0;
    qint64 unchanged = 0;
    const qint64 ticketsBefore = report.ticketsOpened;
    // The ticket as this batch knew it, to put back if the conversation is undone.
    const QString key = ticketCacheKey(unit.conversation);
    const std::optional<BatchTicket> cachedBefore =
            m_tickets.contains(key) ? std::optional<BatchTicket>(m_tickets.value(key)) : std::nullopt;
    int absorbed = 0;
    if (!unit.absorbs.isEmpty()) {
        Expected<int> done = absorbTraceTickets(unit);
        if (!done) {
            m_storeError = done.message();
            return false;
        }
        absorbed = *done;
    }
    for (const NativeEvent &event : unit.events) {
        if (unit.absorbOnly && absorbed == 0)
            break;
        Expected<LineResult> applied = apply(event, report);
        if (!applied) {
            m_storeError = applied.message();
            return false;
        }
        if (!applied->rejection.isEmpty()) {
            if (whole) {
                if (Expected<void> undone = m_store->rollbackToSavepoint(); !undone) {
                    m_storeError = undone.message();
                    return false;
                }
                m_waitingCalls.clear(); // all its own
                if (!unit.absorbs.isEmpty()) {
                    // Tickets it took over are back as they were: read them again.
                    m_tickets.clear();
                    m_absent.clear();
                } else if (cachedBefore) {
                    m_tickets.insert(key, *cachedBefore);
                } else {
                    m_tickets.remove(key);
                }
                report.ticketsOpened = ticketsBefore;
            }
            if (std::holds_alternative<TicketOpenedEvent>(event.body))
                rememberRefusedOpening(event.ticket, unit.place);
            report.rejected.append(problem(applied->rejection));
            return true;
        }
        ++(applied->imported ? imported : unchanged);
    }
    if (whole) {
        if (Expected<void> stored = storeWaitingCalls(); !stored) {
            m_storeError = stored.message();
            return false;
        }
        if (Expected<void> kept = m_store->releaseSavepoint(); !kept) {
            m_storeError = kept.message();
            return false;
        }
    }
    keepUnitFindings(report, unit);
    for (const QString &notice : std::as_const(m_unitNotices))
        report.notices.append(problem(notice));
    report.eventsImported += imported;
    report.eventsUnchanged += unchanged;
    if (conversation)
        ++report.conversations;
    return true;
}

// A ticket's writes keyed with what the ticket is now: a retry in a later trace, keyed under
// that trace's ticket, is then seen as the repeat it is.
Expected<void> TranscriptImporter::keyWritesAgain(const TicketRef &ticket)
{
    Expected<QList<StoredCall>> calls = m_store->writeCalls(ticket.id);
    if (!calls)
        return calls.error();
    for (const StoredCall &call : std::as_const(*calls)) {
        const ToolSpec *spec = m_registry->registry.find(call.tool);
        if (!spec || !isWrite(spec->toolClass))
            continue;
        json arguments = json::object();
        try {
            arguments = json::parse(call.argumentsJson.toStdString());
        } catch (const json::exception &) {
            // Kept as the agent wrote them; they make no key, as when they were first read.
        }
        const WriteKey key =
                writeKey(*spec, arguments.is_object() ? arguments : json::object(), ticket.facts);
        if (Expected<void> done = m_store->setIntentKey(call.id, key.key, key.fromAllArgumentsBecause); !done)
            return done;
    }
    return {};
}

Expected<int> TranscriptImporter::absorbTraceTickets(const ImportUnit &unit)
{
    const auto *opened = std::get_if<TicketOpenedEvent>(&unit.events.constFirst().body);
    if (!opened || (!m_store->storesNulCharacters() && unit.conversation.contains(QChar(u'\0'))))
        return 0; // a name the store cannot hold is refused with the unit's events
    int absorbed = 0;
    for (const QString &name : unit.absorbs) {
        Expected<BatchTicket *> from = ticketFor(name);
        if (!from)
            return from.error();
        if (!*from || ticketCacheKey(name) == ticketCacheKey(unit.conversation))
            continue;
        const qint64 fromId = (*from)->ref.id;
        Expected<BatchTicket *> into = ticketFor(unit.conversation);
        if (!into)
            return into.error();
        Expected<void> done = *into ? m_store->mergeTicket(fromId, (*into)->ref.id)
                                    : m_store->renameTicket(fromId, opened->ticket);
        if (!done)
            return done.error();
        ++absorbed;
        // Both as the store has them now; the conversation's is assessed again with the batch.
        m_tickets.remove(ticketCacheKey(name));
        m_tickets.remove(ticketCacheKey(unit.conversation));
        m_absent.remove(ticketCacheKey(unit.conversation));
        Expected<BatchTicket *> now = ticketFor(unit.conversation);
        if (!now)
            return now.error();
        if (*now) {
            if (Expected<void> keyed = keyWritesAgain((*now)->ref); !keyed)
                return keyed.error();
            touch(**now);
        }
    }
    return absorbed;
}

// Stores one unit, and closes the batch when it is full: commits, reports progress (which may
// cancel), and opens the next. False stops the reading.
bool TranscriptImporter::applyAndBatch(const ImportUnit &unit, ImportReport &report, const ReadAhead &reader,
                                       int &inBatch, bool &storeFailed)
{
    if (!applyUnit(unit, report)) {
        storeFailed = true;
        return false;
    }
    inBatch += qMax<int>(1, int(unit.events.size()));
    if (inBatch < m_batchSize || !unit.settled)
        return true; // a batch never ends inside a conversation that goes on further down
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
    if (Expected<void> begun = m_store->begin(); !begun) {
        m_storeError = begun.message();
        storeFailed = true;
        return false;
    }
    return true;
}

void TranscriptImporter::rememberRefusedOpening(const QString &ticket, const FilePlace &place)
{
    m_refusedOpenings.insert(ticketCacheKey(ticket),
                             place.line > 0 ? QStringLiteral("line %1").arg(place.line) : place.text());
}

Expected<const NamedRegistry *> TranscriptImporter::nativeRegistry(const ImportUnit &unit)
{
    if (unit.events.isEmpty())
        return &m_registries.primary();
    const NativeEvent &event = unit.events.first();
    if (std::holds_alternative<TicketOpenedEvent>(event.body)) {
        const QStringList tools = m_toolsAhead.value(ticketCacheKey(event.ticket));
        const NamedRegistry &chosen = m_registries.choose(tools, m_fileProfile);
        if (!tools.isEmpty())
            m_fileProfile = chosen.name; // the next ticket whose calls come later is read alike
        return &chosen;
    }
    Expected<BatchTicket *> ticket = ticketFor(event.ticket);
    if (!ticket)
        return ticket.error();
    if (*ticket && m_registries.has((*ticket)->ref.registry))
        return &m_registries.byName((*ticket)->ref.registry);
    return &m_registries.primary();
}

void TranscriptImporter::lookAhead(const QList<const ImportUnit *> &units)
{
    m_absent.clear();
    m_toolsAhead.clear();
    for (const ImportUnit *unit : units) {
        if (!unit->conversation.isEmpty())
            continue;
        for (const NativeEvent &event : unit->events) {
            if (const auto *call = std::get_if<ToolCallEvent>(&event.body)) {
                QStringList &tools = m_toolsAhead[ticketCacheKey(event.ticket)];
                if (!tools.contains(call->tool))
                    tools.append(call->tool);
            }
        }
    }
    QStringList names;
    QSet<QString> asked;
    const auto ask = [&](const QString &name) {
        // A name no store can hold is refused where it is met; asked for here, it would fail
        // the whole batch's statement (and PostgreSQL's transaction with it).
        if (!m_store->storesNulCharacters() && name.contains(QChar(u'\0')))
            return;
        const QString key = ticketCacheKey(name);
        if (!m_tickets.contains(key) && !asked.contains(key)) {
            asked.insert(key);
            names.append(name);
        }
    };
    for (const ImportUnit *unit : units) {
        for (const NativeEvent &event : unit->events)
            ask(event.ticket);
        for (const QString &absorbed : unit->absorbs)
            ask(absorbed);
    }
    if (names.size() < 2)
        return; // one ticket is asked for when it is met
    Expected<QList<TicketRef>> found = m_store->findTickets(names);
    if (!found)
        return; // each is asked for again when it is met, where a failure stops the import
    // Matched as the store matched them, whatever the case (its CITEXT, roughly).
    QHash<QString, TicketRef> byName;
    for (const TicketRef &ticket : std::as_const(*found))
        byName.insert(ticket.facts.value(QStringLiteral("ticket_id")).toLower(), ticket);
    for (const QString &name : std::as_const(names)) {
        const QString key = ticketCacheKey(name);
        const auto stored = byName.constFind(name.toLower());
        if (stored == byName.cend())
            m_absent.insert(key);
        else
            m_tickets.insert(key, BatchTicket{key, *stored, false, false, {}});
    }
}

// The unit is stored: what it taught about the file counts now.
void TranscriptImporter::keepUnitFindings(ImportReport &report, const ImportUnit &unit)
{
    for (const QString &tool : std::as_const(m_unitUnclassified)) {
        m_unclassified.insert(tool);
        report.unclassifiedTools.append(tool);
    }
    m_unitUnclassified.clear();
    if (!unit.conversation.isEmpty() && !unit.tools.isEmpty())
        m_fileProfile = m_registry->name;
    const bool calls = !unit.tools.isEmpty()
            || std::any_of(unit.events.cbegin(), unit.events.cend(), [](const NativeEvent &event) {
                   return std::holds_alternative<ToolCallEvent>(event.body);
               });
    if (calls && !report.registries.contains(m_registry->name))
        report.registries.append(m_registry->name);
}

namespace {

// New tickets' rows may wait in a batch the store hands out until each commit: while it lasts,
// the import reads and writes through it alone.
class Batching
{
public:
    Batching(ImportWrites &home, ImportWrites *&through)
        : m_home(home)
        , m_through(through)
        , m_batch(home.openImportBatch())
    {
        if (m_batch)
            m_through = m_batch.get();
    }
    ~Batching() { m_through = &m_home; }
    Batching(const Batching &) = delete;
    Batching &operator=(const Batching &) = delete;

private:
    ImportWrites &m_home;
    ImportWrites *&m_through;
    std::unique_ptr<ImportBatch> m_batch;
};

} // namespace

qint64 TranscriptImporter::storedCallId(const QString &ticketExtId, const QString &callExtId) const
{
    return m_decidedCalls.value(ticketCacheKey(ticketExtId) + u'\n' + callExtId);
}

void TranscriptImporter::forgetBatch()
{
    m_decidedCalls.clear();
    m_tickets.clear();
    m_absent.clear();
    m_touched.clear();
    m_touchedOrder.clear();
    m_waitingCalls.clear();
}

// Rolls the open batch back: the report then gives the figures of what is stored (the batch that
// failed is not: its lines are read again, and said again, by the next import of the file).
ImportReport TranscriptImporter::failed(ImportReport report, const QString &message)
{
    m_store->rollback();
    report.conversations = m_committed.conversations;
    report.eventsImported = m_committed.eventsImported;
    report.eventsUnchanged = m_committed.eventsUnchanged;
    report.ticketsOpened = m_committed.ticketsOpened;
    report.repeats = m_committed.repeats;
    report.unclassifiedTools = m_committed.unclassifiedTools;
    report.registries = m_committed.registries;
    report.rejected = m_committed.rejected;
    report.notices = m_committed.notices;
    forgetBatch();
    report.fatal = message;
    return report;
}

ImportReport TranscriptImporter::importUnits(const QList<ImportUnit> &units, const QString &source)
{
    return importDecided([&units](ImportWrites &) -> Expected<QList<ImportUnit>> { return units; }, source);
}

ImportReport TranscriptImporter::importDecided(const Decide &decide, const QString &source)
{
    ImportReport report;
    report.path = source;
    forgetBatch();
    m_refusedOpenings.clear();
    // A decided import is a call or two: their rows are kept for storedCallId().
    m_keepCallIds = true;
    const auto stopKeeping = qScopeGuard([this] { m_keepCallIds = false; });
    m_storeError.clear();
    m_registry = &m_registries.primary();
    m_committed = report;
    // New tickets' rows are held back and written together (PostgreSQL's COPY, a round trip
    // instead of one a row), except where calls may be in flight, which held rows do not carry.
    std::optional<Batching> batching;
    if (!m_inFlightGraceMs && !m_carriedGraceMs)
        batching.emplace(m_home, m_store);
    if (Expected<void> begun = m_store->begin(); !begun)
        return failed(report, begun.message());
    const Expected<QList<ImportUnit>> decided = decide(*m_store);
    if (!decided)
        return failed(report, decided.message());
    const QList<ImportUnit> &units = *decided;
    QList<const ImportUnit *> all;
    for (const ImportUnit &unit : units)
        all.append(&unit);
    lookAhead(all);
    for (const ImportUnit &unit : units) {
        if (report.format.isEmpty())
            report.format = unit.format;
        try {
            if (!applyUnit(unit, report))
                return failed(report, QStringLiteral("%1: %2").arg(unit.place.text(), m_storeError));
        } catch (const std::exception &e) {
            return failed(report,
                          QStringLiteral("%1: %2").arg(unit.place.text(), QString::fromUtf8(e.what())));
        }
    }
    if (Expected<void> done = finishBatch(report); !done)
        return failed(report, done.message());
    return report;
}

ImportReport TranscriptImporter::importFile(const QString &path)
{
    ImportReport report;
    report.path = path;
    forgetBatch();
    m_refusedOpenings.clear();
    m_unclassified.clear();
    m_fileProfile.clear();
    m_storeError.clear();
    m_registry = &m_registries.primary();
    const qint64 startedAt = QDateTime::currentMSecsSinceEpoch();

    m_committed = report;
    auto fail = [&](const QString &message) { return failed(report, message); };
    const Batching batching(m_home, m_store);

    if (Expected<void> begun = m_store->begin(); !begun)
        return fail(begun.message());
    // Lines are parsed on a thread of their own while the ones before them are stored.
    TranscriptReader transcript(path);
    ReadAhead reader(transcript);
    if (m_progress)
        m_progress(0, QFileInfo(path).size()); // the clock starts now, for whoever shows a rate
    int inBatch = 0;
    bool storeFailed = false;
    FilePlace lastPlace;
    const auto preview = [this](const QList<const ImportUnit *> &units) { lookAhead(units); };
    Expected<void> read = reader.read(
            [&](const ImportUnit &unit) {
                lastPlace = unit.place;
                // Nothing may escape into the reader mid-savepoint: a failure here rolls the batch back.
                try {
                    return applyAndBatch(unit, report, reader, inBatch, storeFailed);
                } catch (const std::exception &e) {
                    m_storeError = QString::fromUtf8(e.what());
                    storeFailed = true;
                    return false;
                }
            },
            preview);
    report.format = reader.format();
    report.linesRead = reader.linesRead();
    report.bytesRead = reader.bytesRead();
    if (storeFailed)
        return fail(QStringLiteral("%1: %2").arg(
                lastPlace.line > 0 ? QStringLiteral("line %1").arg(lastPlace.line) : lastPlace.text(),
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

    ImportRecord record{QFileInfo(path).absoluteFilePath(), transcript.sha256(), startedAt,
                        reader.linesRead(), qint64(report.rejected.size())};
    if (Expected<void> done = m_store->recordImport(record); !done)
        return fail(done.message());
    if (Expected<void> done = finishBatch(report); !done)
        return fail(done.message());
    if (m_progress)
        m_progress(reader.bytesTotal(), reader.bytesTotal());
    return report;
}

} // namespace verity

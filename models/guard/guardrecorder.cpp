#include "guardrecorder.h"

#include "domain/intentkey.h"
#include "domain/mcpcallresult.h"
#include "domain/toolclasssuggestion.h"
#include "import/conversationevents.h"
#include "import/namedorder.h"
#include "store/store.h"

#include <QDateTime>

#include <algorithm>

namespace verity {

using nlohmann::json;

namespace {

// The newest calls of one intent a verdict reads: more than any real retry loop makes.
constexpr int earlierCallsRead = 50;

const QString guardFormat = QStringLiteral("mcp");

QString jsonText(const json &value)
{
    return QString::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

QString argumentsTextOf(const GuardedCall &call)
{
    return call.argumentsText.trimmed().isEmpty() ? jsonText(call.arguments) : call.argumentsText;
}

// What a write's intent key is made with, as the importer keys it: the ticket's facts, unless
// the ticket is only a session (ImportUnit::keysAcrossTickets); a ticket the call opens has the
// facts it will be stored with.
TicketFacts keyFacts(const GuardedCall &call, const std::optional<TicketRef> &ticket)
{
    if (!call.conversationNamed)
        return {};
    if (ticket)
        return ticket->facts;
    Conversation opening;
    opening.id = call.conversation;
    Turn made;
    made.kind = Turn::Kind::ToolCall;
    made.tool = call.tool;
    made.arguments = call.arguments;
    opening.turns.append(made);
    return TicketFacts{{QStringLiteral("ticket_id"), call.conversation},
                       {QStringLiteral("order_id"), orderNamedByCalls(opening).orderId},
                       {QStringLiteral("seller_id"), QString()}};
}

} // namespace

GuardRecorder::GuardRecorder(ImportWrites &store, AnswerWriter::Opener answers, RegistrySelection registries,
                             qint64 deadlineMs, AnswerWriter::FailureLog log, std::function<qint64()> clock)
    : m_store(store)
    , m_registries(registries)
    , m_importer(store, registries)
    , m_clock(clock)
    , m_answers(std::move(answers), registries, deadlineMs, clock, std::move(log),
                !store.writesAlongsideOthers())
{
    m_importer.setInFlightGrace(deadlineMs, m_clock);
}

qint64 GuardRecorder::now() const
{
    return m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch();
}

namespace {

// The profile that knows most of the server's tools (the importer chooses by the same list).
const NamedRegistry &profileFor(const RegistrySelection &registries, const GuardedCall &call)
{
    return registries.isForced()
            ? registries.primary()
            : registries.choose(call.serverTools.isEmpty() ? QStringList{call.tool} : call.serverTools);
}

} // namespace

GuardedTool guardedTool(const RegistrySelection &registries, const GuardedCall &call)
{
    const NamedRegistry &registry = profileFor(registries, call);
    GuardedTool tool;
    tool.registry = registry.name;
    if (const ToolSpec *spec = registry.registry.find(call.tool)) {
        tool.spec = *spec;
        return tool;
    }
    const ToolClassSuggestion guess = inferToolClass(call.tool, &call.hint, argumentsTextOf(call), QString());
    tool.spec.name = call.tool;
    // MCP's defaults make an unannotated tool a destructive write, so a guess always names one.
    tool.spec.toolClass = guess.toolClass.value_or(ToolClass::WriteIrreversible);
    tool.spec.amountField = guess.amountField;
    tool.inferredBecause = guess.reason;
    return tool;
}

ImportUnit GuardRecorder::unitOf(const GuardedCall &call, const json *result, bool isError,
                                 const QString &errorType, qint64 at) const
{
    Conversation conversation;
    conversation.id = call.conversation;
    conversation.model = call.origin;
    Turn made;
    made.kind = Turn::Kind::ToolCall;
    made.at = call.at;
    made.callId = call.callId;
    made.tool = call.tool;
    made.arguments = call.arguments;
    made.argumentsText = call.argumentsText;
    made.sourceId = call.sourceId + QStringLiteral(" call");
    conversation.turns.append(made);
    if (result) {
        Turn answered;
        answered.kind = Turn::Kind::ToolResult;
        answered.at = at;
        answered.callId = call.callId;
        answered.tool = call.tool;
        answered.result = *result;
        answered.errorFlag = isError;
        answered.errorType = errorType;
        answered.durationMs = at - call.at;
        answered.sourceId = call.sourceId + QStringLiteral(" result");
        conversation.turns.append(answered);
    }
    conversation.toolHints.insert(call.tool, call.hint);
    ImportUnit unit = conversationUnit(conversation, guardFormat, call.at, QString(), TicketDating::OwnTimes,
                                       TurnNaming::BySource);
    // Every unit of a session is read by one profile: the one the server's tools choose.
    if (!call.serverTools.isEmpty())
        unit.tools = call.serverTools;
    unit.declaredProfile = profileFor(m_registries, call).name;
    unit.keysAcrossTickets = !call.conversationNamed;
    unit.notices.clear(); // a call stored before its result says nothing a person needs
    return unit;
}

Expected<void> GuardRecorder::stored(const ImportReport &report) const
{
    if (!report.fatal.isEmpty())
        return makeError(report.fatal);
    if (!report.rejected.isEmpty())
        return makeError(report.rejected.first().reason);
    return {};
}

Expected<WriteAdmission> GuardRecorder::admitWrite(GuardedCall &call, const QString &keyField)
{
    const GuardedTool tool = guardedTool(m_registries, call);
    WriteAdmission admission;
    bool answersFirst = false; // the verdict waits for an answer of its intent
    // A try that is given up leaves the call as the model sent it (the key a repeat gets is
    // filled again, and so sent, by the try that stores it).
    const nlohmann::json sentArguments = call.arguments;
    const QString sentArgumentsText = call.argumentsText;
    const auto decide = [&](ImportWrites &store) -> Expected<QList<ImportUnit>> {
        call.arguments = sentArguments;
        call.argumentsText = sentArgumentsText;
        // The key is made from the ticket as read; the intent is locked before the ticket, in the
        // order every admission takes them (the answers' session locks only tickets).
        Expected<std::optional<TicketRef>> seen = store.readTicket(call.conversation);
        if (!seen)
            return seen.error();
        admission.intentKey = writeKey(tool.spec, call.arguments, keyFacts(call, *seen)).key;
        // An answer of this intent on its way to the store may settle the call this repeats:
        // the transaction is given up, the answer awaited, and the verdict taken again.
        if (!answersFirst && m_answers.waiting(admission.intentKey)) {
            answersFirst = true;
            return makeError(QStringLiteral("an answer of this intent is being stored"));
        }
        if (Expected<void> locked = store.lockIntent(admission.intentKey); !locked)
            return locked.error();
        Expected<std::optional<TicketRef>> ticket = m_importer.batchTicket(call.conversation);
        if (!ticket)
            return ticket.error();
        // Opened (or named otherwise) by another session meanwhile: keyed as it is now.
        if (const QString key = writeKey(tool.spec, call.arguments, keyFacts(call, *ticket)).key;
            key != admission.intentKey) {
            admission.intentKey = key;
            if (Expected<void> locked = store.lockIntent(key); !locked)
                return locked.error();
        }
        Expected<QList<IntentCall>> earlier = store.callsOfIntent(admission.intentKey, earlierCallsRead);
        if (!earlier)
            return earlier.error();
        // A write whose deadline passed while no guard was running (one killed) is unknown now,
        // and escalated, before a repeat of it is judged (the answer names the escalation).
        const qint64 at = now();
        if (std::any_of(earlier->cbegin(), earlier->cend(),
                        [at](const IntentCall &c) { return c.inFlightUntil && *c.inFlightUntil <= at; })) {
            if (Expected<int> overdue = store.escalateOverdueCalls(at); !overdue)
                return overdue.error();
            earlier = store.callsOfIntent(admission.intentKey, earlierCallsRead);
            if (!earlier)
                return earlier.error();
        }
        admission.verdict = judgeRepeat(*earlier);
        if (admission.verdict.kind == RepeatVerdict::Kind::Send) {
            // A repeat of what did not happen carries the intent's key, so the tool can refuse a
            // second effect too; what the model sent is kept.
            const std::string field = keyField.toStdString();
            if (admission.verdict.repeatsNotPerformed && !field.empty() && call.arguments.is_object()) {
                const auto given = call.arguments.find(field);
                if (given == call.arguments.end() || given->is_null()
                    || (given->is_string() && given->get<std::string>().empty())) {
                    call.arguments[field] = admission.intentKey.toStdString();
                    call.argumentsText = jsonText(call.arguments);
                    admission.keyFilled = true;
                }
            }
            return QList<ImportUnit>{unitOf(call, nullptr, false, QString(), call.at)};
        }
        admission.answer = verdictAnswer(admission.verdict, call.tool);
        const bool held = admission.verdict.kind == RepeatVerdict::Kind::Hold;
        const json answered = guardAnswerRecord(held ? Outcome::NotPerformed : Outcome::AlreadyPerformed,
                                                verdictReason(admission.verdict), admission.answer);
        return QList<ImportUnit>{unitOf(call, &answered, false, QString(), call.at)};
    };
    // In a transaction of its own, in turn with the answers' where the sessions take turns.
    const auto decided = [&] {
        QMutexLocker turn(m_answers.storeTurn());
        return stored(m_importer.importDecided(decide, QStringLiteral("verity guard")));
    };
    Expected<void> done = decided();
    if (answersFirst)
        m_answers.waitForWrites(admission.intentKey);
    // Taken once more when the first try waited for an answer, or failed: another guard may have
    // opened the same ticket meanwhile, or a server chose this transaction to end a deadlock.
    // Nothing was sent either way.
    if (answersFirst || !done) {
        admission = WriteAdmission();
        done = decided();
    }
    if (!done)
        return done.error();
    call.intentKey = admission.intentKey;
    if (admission.verdict.kind != RepeatVerdict::Kind::Send)
        return admission;
    admission.storedCallId = m_importer.storedCallId(call.conversation, call.callId);
    if (admission.storedCallId != 0)
        return admission;
    // Not found in the importer's batch as named: asked of the store.
    Expected<std::optional<TicketRef>> ticket = m_store.findTicket(call.conversation);
    if (!ticket)
        return ticket.error();
    if (!*ticket)
        return makeError(QStringLiteral("the ticket %1 was not stored").arg(call.conversation));
    Expected<std::optional<ToolCallRef>> row = m_store.findToolCall((*ticket)->id, call.callId);
    if (!row)
        return row.error();
    if (!*row)
        return makeError(QStringLiteral("call %1 was not stored").arg(call.callId));
    admission.storedCallId = (*row)->id;
    return admission;
}

void GuardRecorder::recordResult(const GuardedCall &call, const json &result, bool isError,
                                 const QString &errorType, qint64 at)
{
    // A write's answer is known by its intent (a read has none), whose next verdict waits for it.
    m_answers.post(unitOf(call, &result, isError, errorType, at), call.intentKey);
}

Expected<void> GuardRecorder::giveUp(qint64 storedCallId)
{
    m_answers.waitForWrites(); // its answer, should one have come after all, is stored first
    QMutexLocker turn(m_answers.storeTurn());
    if (Expected<void> begun = m_store.begin(); !begun)
        return begun;
    const qint64 at = now();
    Expected<bool> ended = m_store.endWaitForResult(storedCallId, at);
    Expected<int> escalated = ended ? m_store.escalateOverdueCalls(at) : Expected<int>(ended.error());
    if (!escalated) {
        m_store.rollback();
        return escalated.error();
    }
    return m_store.commit();
}

Expected<int> GuardRecorder::escalateOverdue()
{
    // An answer waiting to be stored is no overdue write.
    m_answers.waitForWrites();
    QMutexLocker turn(m_answers.storeTurn());
    return m_store.escalateOverdueCallsAlone(now());
}

} // namespace verity

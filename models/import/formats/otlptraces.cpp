#include "otlptraces.h"

#include "domain/jsontext.h"
#include "domain/sha256.h"
#include "otlpattributes.h"
#include "otlpcarriedtools.h"
#include "otlptoolhints.h"
#include "otlptoolspans.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

namespace verity {

namespace {

using namespace otlp;

struct MessageState
{
    QSet<QString> systemTexts;
    QString lastUser;
    qsizetype lastUserCount = 0;
};

// LLM spans repeat the history, so from each one only what is new: system prompts not seen yet,
// the last user message unless the previous span already ended with it, and the reply.
void readChatSpan(const Span &span, MessageState &state, QList<Turn> &turns, bool &unreadable)
{
    const ChatMessages messages = chatMessages(span.attributes, span.chat);
    unreadable = unreadable || messages.unreadable;
    if (!span.start.ns) {
        unreadable = unreadable || messages.input || messages.output;
        return;
    }
    const qint64 startMs = *span.start.ns / nanosPerMs;
    const qint64 endMs = span.end.ns && *span.end.ns >= *span.start.ns ? *span.end.ns / nanosPerMs : startMs;
    int added = 0;
    // What the history repeats (the system prompt, the customer's n-th message) is named by its
    // place in the history, so that every span of the trace that repeats it, in any request,
    // names the same message; a reply is its span's own.
    const auto add = [&turns, &span, &added](MessageKind kind, qint64 at, const QString &text,
                                             const QString &inHistory = QString()) {
        Turn turn;
        turn.at = at;
        turn.messageKind = kind;
        turn.text = text;
        const QString digest = QString::fromLatin1(sha256Hex(text.toUtf8()).left(16));
        if (!inHistory.isEmpty() && !span.traceId.isEmpty())
            turn.sourceId = QStringLiteral("%1/%2 %3").arg(span.traceId, inHistory, digest);
        else if (!span.spanId.isEmpty())
            turn.sourceId = QStringLiteral("%1/%2 message %3").arg(span.traceId, span.spanId).arg(++added);
        turns.append(turn);
    };
    QStringList users;
    for (const ChatMessage &message : messages.input.value_or(QList<ChatMessage>())) {
        const bool system =
                message.role == QLatin1String("system") || message.role == QLatin1String("developer");
        if (system && !message.text.isEmpty() && !state.systemTexts.contains(message.text)) {
            state.systemTexts.insert(message.text);
            add(MessageKind::System, startMs, message.text, QStringLiteral("system"));
        } else if ((message.role == QLatin1String("user") || message.role == QLatin1String("human"))
                   && !message.text.isEmpty()) {
            users.append(message.text);
        }
    }
    if (!users.isEmpty() && (users.last() != state.lastUser || users.size() > state.lastUserCount))
        add(MessageKind::Customer, startMs, users.last(), QStringLiteral("customer %1").arg(users.size()));
    if (!users.isEmpty()) {
        state.lastUser = users.last();
        state.lastUserCount = users.size();
    }
    // An agent's own span holds the whole run's reply, which its model spans tell in turn: only
    // what it was asked is read from it (the customer's words, where no model span records them).
    if (span.role == Role::Agent)
        return;
    for (const ChatMessage &message : messages.output.value_or(QList<ChatMessage>())) {
        if (!message.text.isEmpty() && (message.role.isEmpty() || message.role == QLatin1String("assistant")))
            add(MessageKind::Reply, endMs, message.text);
    }
}

struct Group
{
    QString id;
    QString traceId; // when grouped by its trace, for the subject
    std::optional<qint64> openedNs;
    std::vector<Span *> spans; // its tool, chat and agent spans that can be read
    QStringList refused; // its spans that cannot, each with why
};

// A tool span inside another tool span of the same tool (a framework's execute_tool around the
// MCP client's tools/call) is that same call: the outer one is read, filled in from the inner.
void foldNestedCalls(std::vector<Span *> &spans, const QHash<QString, Span *> &byId)
{
    std::vector<Span *> kept;
    for (Span *span : spans) {
        Span *outer = nullptr;
        QSet<QString> seen;
        for (Span *up = byId.value(span->parentId); up && !seen.contains(up->spanId);
             up = byId.value(up->parentId)) {
            seen.insert(up->spanId);
            if (span->role == Role::Tool && up->role == Role::Tool && up != span)
                outer = up;
        }
        if (!outer) {
            kept.push_back(span);
            continue;
        }
        // What the outer span did not record, the inner one may have.
        const ToolKeys inner = keysOf(span->tool);
        const ToolKeys keys = keysOf(outer->tool);
        for (const auto &[from, to] :
             {std::pair{inner.arguments, keys.arguments}, std::pair{inner.result, keys.result}}) {
            const auto value = span->attributes.find(from);
            if (value != span->attributes.end() && !outer->attributes.contains(to))
                outer->attributes.emplace(to, value->second);
        }
    }
    spans = std::move(kept);
}

// Calls that only the messages of chat and agent spans carry (an agent whose tools are not
// traced): each once, at the span that first carries it, its response at the first that
// answers it. A call a tool span of the conversation records is left to that span.
void addCarriedCalls(const std::vector<Span *> &spans, const QList<Turn> &spanTurns, QList<Turn> &turns,
                     const QHash<QString, QString> *aliases)
{
    // A call its inner span stored under another id is carried under that one.
    // Aliases are the trace's own: another conversation's model may use the same ids.
    const auto stored = [aliases](const Span &span, const QString &id) {
        return aliases ? aliases->value(span.traceId + u'/' + id, id) : id;
    };
    QSet<QString> known;
    for (const Turn &turn : spanTurns) {
        if (turn.kind == Turn::Kind::ToolCall)
            known.insert(turn.callId);
    }
    QSet<QString> answered;
    for (const Span *span : spans) {
        if (span->role != Role::Chat && span->role != Role::Agent)
            continue;
        const CarriedTools carried = carriedTools(span->attributes, *span->raw);
        const std::optional<qint64> at =
                span->start.ns ? std::optional<qint64>(*span->start.ns / nanosPerMs) : std::nullopt;
        for (const CarriedCall &call : carried.calls) {
            const QString id = stored(*span, call.id);
            if (known.contains(id) || known.contains(call.id))
                continue;
            known.insert(id);
            Turn turn;
            turn.kind = Turn::Kind::ToolCall;
            turn.at = at;
            turn.callId = id;
            turn.tool = call.tool;
            turn.arguments = call.arguments;
            turn.carried = true;
            turn.sourceId = QStringLiteral("carried %1 call").arg(id);
            turns.append(turn);
        }
        for (const CarriedResponse &response : carried.responses) {
            const QString id = stored(*span, response.id);
            if (answered.contains(id) || !known.contains(id))
                continue;
            const auto call = std::find_if(turns.cbegin(), turns.cend(), [&](const Turn &turn) {
                return turn.carried && turn.kind == Turn::Kind::ToolCall && turn.callId == id;
            });
            if (call == turns.cend())
                continue; // a tool span's own call: its span tells the result
            answered.insert(id);
            Turn turn;
            turn.kind = Turn::Kind::ToolResult;
            turn.at = at;
            turn.callId = id;
            turn.tool = call->tool;
            turn.result = response.response;
            turn.errorFlag = response.error;
            turn.carried = true;
            turn.sourceId = QStringLiteral("carried %1 result").arg(id);
            turns.append(turn);
        }
    }
}

Conversation buildConversation(Group &group, const QHash<QString, Span *> &byId,
                               const QHash<QString, QString> *aliases)
{
    std::stable_sort(group.spans.begin(), group.spans.end(), [](const Span *a, const Span *b) {
        return a->start.ns.value_or(a->end.ns.value_or(never))
                < b->start.ns.value_or(b->end.ns.value_or(never));
    });
    foldNestedCalls(group.spans, byId);
    Conversation conversation;
    conversation.id = group.id;
    if (group.openedNs)
        conversation.openedAt = *group.openedNs / nanosPerMs;
    MessageState state;
    int calls = 0;
    int unrecordedArguments = 0;
    bool unreadableMessages = false;
    QList<Turn> spanTurns;
    // What Verity could not read as it came is said in the ticket too, beside the call, where the
    // person reading it is: the report and partial_success reach only whoever sent the spans.
    const auto note = [&spanTurns](const Span &span, const QString &text) {
        Turn turn;
        turn.messageKind = MessageKind::System;
        turn.text = text;
        if (const std::optional<qint64> at = span.start.ns ? span.start.ns : span.end.ns)
            turn.at = *at / nanosPerMs;
        if (!span.spanId.isEmpty())
            turn.sourceId = QStringLiteral("%1/%2 notice").arg(span.traceId, span.spanId);
        spanTurns.append(turn);
    };
    for (Span *span : group.spans) {
        if (span->role == Role::Tool) {
            const qsizetype before = spanTurns.size();
            readToolSpan(*span, spanTurns, unrecordedArguments);
            if (!span->problem.isEmpty()) {
                group.refused.append(spanError(*span));
                note(*span,
                     QStringLiteral("Verity could not read a tool span of this conversation (%1), so the "
                                    "call it recorded is not shown. If it was a write, its outcome is "
                                    "unknown: do not retry it; check it where it went.")
                             .arg(spanError(*span)));
                continue;
            }
            ++calls;
            const QString call = spanTurns.at(before).callId;
            const QString tool = spanTurns.at(before).tool;
            for (const QString &notice : std::as_const(span->notices))
                conversation.notices.append(
                        QStringLiteral("call \"%1\" (%2), %3: %4").arg(call, tool, spanPlace(*span), notice));
            if (!span->notices.isEmpty())
                note(*span,
                     QStringLiteral("Call %1 (%2) was not recorded as expected, and is shown as it came: %3")
                             .arg(call, tool, span->notices.join(QStringLiteral("; "))));
            ++conversation.spans;
        } else if (span->role == Role::Chat) {
            readChatSpan(*span, state, spanTurns, unreadableMessages);
            ++conversation.spans;
        } else {
            bool ignored = false; // an agent span's messages are best effort
            readChatSpan(*span, state, spanTurns, ignored);
        }
    }
    conversation.turns = spanTurns;
    addCarriedCalls(group.spans, spanTurns, conversation.turns, aliases);
    std::stable_sort(conversation.turns.begin(), conversation.turns.end(), [](const Turn &a, const Turn &b) {
        return a.at.value_or(never) < b.at.value_or(never);
    });

    const auto customer =
            std::find_if(conversation.turns.cbegin(), conversation.turns.cend(), [](const Turn &turn) {
                return turn.kind == Turn::Kind::Message && turn.messageKind == MessageKind::Customer;
            });
    if (customer != conversation.turns.cend()) {
        conversation.subject = customer->text.section(u'\n', 0, 0).trimmed();
        if (conversation.subject.size() > 120)
            conversation.subject = conversation.subject.left(119) + QChar(u'\u2026');
    } else {
        conversation.subject =
                group.traceId.isEmpty() ? group.id : QStringLiteral("Trace ") + group.traceId.left(8);
    }
    if (unrecordedArguments > 0)
        conversation.notices.append(
                QStringLiteral("%1 of %2 tool calls have no recorded arguments (the instrumentation "
                               "did not capture them); they read as {}")
                        .arg(unrecordedArguments)
                        .arg(calls));
    if (unreadableMessages)
        conversation.notices.append(
                QStringLiteral("Some chat messages in the trace could not be read and are left out"));
    return conversation;
}

const char *scopeListKey(const json &resource)
{
    return member(resource, "scopeSpans") ? "scopeSpans" : "instrumentationLibrarySpans";
}

// Every span object in the request, in order; structure too broken to reach a span goes to
// `orphans`, since no conversation can own it.
std::vector<Span> collectSpans(const json &resourceSpans, QStringList &orphans)
{
    std::vector<Span> spans;
    const auto expected = [&orphans](const QString &where, const char *what, const json *got) {
        orphans.append(
                QStringLiteral("%1: expected %2, got %3").arg(where, QLatin1String(what), excerpt(got)));
    };
    for (std::size_t r = 0; r < resourceSpans.size(); ++r) {
        const json &resource = resourceSpans[r];
        const QString resourceWhere = QStringLiteral("resourceSpans[%1]").arg(r);
        const char *scopesKey = scopeListKey(resource);
        const json *scopes = member(resource, scopesKey);
        if (!resource.is_object())
            expected(resourceWhere, "an object", &resource);
        else if (scopes && !scopes->is_null() && !scopes->is_array())
            expected(resourceWhere + u'.' + QLatin1String(scopesKey), "an array", scopes);
        for (std::size_t s = 0; s < elements(scopes).size(); ++s) {
            const json &scope = (*scopes)[s];
            const QString scopeWhere =
                    QStringLiteral("%1.%2[%3]").arg(resourceWhere, QLatin1String(scopesKey)).arg(s);
            const json *list = member(scope, "spans");
            if (!scope.is_object())
                expected(scopeWhere, "an object", &scope);
            else if (list && !list->is_null() && !list->is_array())
                expected(scopeWhere + QStringLiteral(".spans"), "an array", list);
            for (std::size_t i = 0; i < elements(list).size(); ++i) {
                const QString where = QStringLiteral("%1.spans[%2]").arg(scopeWhere).arg(i);
                if ((*list)[i].is_object())
                    spans.push_back(readSpan((*list)[i], where));
                else
                    expected(where, "a span object", &(*list)[i]);
            }
        }
    }
    return spans;
}

// Names the conversation of each span: its own id, else one another span of its trace carries in
// this request, else (the root span may have come in another batch) the file's first pass.
class TraceNames
{
public:
    TraceNames(const std::vector<Span> &spans, const QHash<QString, QString> *fileTraces)
        : m_fileTraces(fileTraces)
    {
        for (const Span &span : spans) {
            if (!span.conversationId.isEmpty() && !m_conversations.contains(span.traceId))
                m_conversations.insert(span.traceId, span.conversationId);
            if (!span.sessionId.isEmpty() && !m_sessions.contains(span.traceId))
                m_sessions.insert(span.traceId, span.sessionId);
        }
        m_conversations.remove(QString());
        m_sessions.remove(QString());
    }

    // Empty when nothing names it and it has no trace either.
    QString idOf(const Span &span, bool &byTrace) const
    {
        QString id = span.conversationId;
        id = id.isEmpty() && !span.traceId.isEmpty() ? m_conversations.value(span.traceId) : id;
        id = id.isEmpty() ? span.sessionId : id;
        id = id.isEmpty() && !span.traceId.isEmpty() ? m_sessions.value(span.traceId) : id;
        if (id.isEmpty() && m_fileTraces && !span.traceId.isEmpty())
            id = m_fileTraces->value(span.traceId);
        byTrace = id.isEmpty() && !span.traceId.isEmpty();
        return byTrace ? QStringLiteral("trace:") + span.traceId : id;
    }

private:
    // A conversation or session id on any span of a trace names the whole trace: often only the
    // root agent span carries it.
    QHash<QString, QString> m_conversations;
    QHash<QString, QString> m_sessions;
    const QHash<QString, QString> *m_fileTraces;
};

// Links tool spans to the ones inside them read in earlier requests, and remembers this
// request's for the requests after it.
void linkNestedCalls(std::vector<Span> &spans, QHash<QString, QPair<QString, QString>> *within,
                     QHash<QString, QString> *aliases)
{
    if (!within || !aliases)
        return;
    if (within->size() > 100000 || aliases->size() > 100000) {
        within->clear(); // a bound: a span older than that is long exported
        aliases->clear();
    }
    for (Span &span : spans) {
        if (span.role != Role::Tool || span.spanId.isEmpty())
            continue;
        const auto inner = within->constFind(span.traceId + u'/' + span.spanId);
        const ToolKeys keys = keysOf(span.tool);
        if (inner == within->cend() || inner->first != toolName(span, keys))
            continue;
        span.sameCallAs = inner->second;
        const QString own = keys.callId ? quietString(span.attributes, keys.callId) : QString();
        if (!own.isEmpty() && own != inner->second)
            aliases->insert(span.traceId + u'/' + own, inner->second);
    }
    for (Span &span : spans) {
        if (span.role != Role::Tool || span.parentId.isEmpty())
            continue;
        const ToolKeys keys = keysOf(span.tool);
        QString callId = keys.callId ? quietString(span.attributes, keys.callId) : QString();
        callId = !span.sameCallAs.isEmpty() ? span.sameCallAs : callId.isEmpty() ? span.spanId : callId;
        within->insert(span.traceId + u'/' + span.parentId, {toolName(span, keys), callId});
    }
}

// A request's spans by the conversation each belongs to, oldest conversation first; HTTP and
// database spans (`others`) open none, but may date one.
struct SpanGroups
{
    std::vector<Group> groups;
    std::vector<std::pair<const Span *, QString>> others;
};

SpanGroups groupSpans(std::vector<Span> &spans, const TraceNames &names, int *spansRead, QStringList &orphans)
{
    SpanGroups grouped;
    std::vector<Group> &groups = grouped.groups;
    QHash<QString, std::size_t> groupIndex;
    for (Span &span : spans) {
        const bool relevant = span.role == Role::Tool || span.role == Role::Chat;
        if ((relevant || !span.problem.isEmpty()) && spansRead)
            ++*spansRead;
        if (span.role == Role::Other && !span.problem.isEmpty()) {
            orphans.append(spanError(span));
            continue;
        }
        bool byTrace = false;
        const QString id = names.idOf(span, byTrace);
        if (id.isEmpty()) {
            // Nothing ties it to a conversation: no trace, and no conversation of its own.
            if (span.role == Role::Tool) {
                fail(span,
                     QStringLiteral("traceId: expected 32 hex digits, got %1 (and the span names no "
                                    "conversation)")
                             .arg(excerpt(member(*span.raw, "traceId"))));
                orphans.append(spanError(span));
            }
            continue;
        }
        if (span.role == Role::Other) {
            grouped.others.push_back({&span, id});
            continue; // an HTTP or database span opens no conversation: it may date one
        }
        if (!groupIndex.contains(id)) {
            groupIndex.insert(id, groups.size());
            groups.push_back(Group{id, byTrace ? span.traceId : QString(), {}, {}, {}});
        }
        Group &group = groups[groupIndex.value(id)];
        // Every span of the conversation dates it, the root agent's too.
        const std::optional<qint64> at = span.start.ns ? span.start.ns : span.end.ns;
        if (at)
            group.openedNs = std::min(group.openedNs.value_or(never), *at);
        group.spans.push_back(&span);
    }
    for (const auto &[span, id] : grouped.others) {
        const std::optional<qint64> at = span->start.ns ? span->start.ns : span->end.ns;
        if (at && groupIndex.contains(id)) {
            Group &group = groups[groupIndex.value(id)];
            group.openedNs = std::min(group.openedNs.value_or(never), *at);
        }
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Group &a, const Group &b) {
        return a.openedNs.value_or(never) < b.openedNs.value_or(never);
    });
    return grouped;
}

// One group's conversation, with what its spans, the request and earlier requests say of its
// tools, in that order: another agent may call a tool of the same name.
Conversation conversationOfGroup(Group &group, const SpanGroups &grouped, const QHash<QString, Span *> &byId,
                                 const QHash<QString, ToolHint> &requestHints,
                                 const ConversationContext &context)
{
    // An agent's span alone (its tools and model calls in another batch) still says what the
    // customer asked, where it records that.
    QHash<QString, ToolHint> own;
    QStringList unreadHints;
    for (const Span *span : group.spans) {
        addToolHints(span->attributes, span->name, own);
        for (const QString &problem : toolHintProblems(span->attributes))
            unreadHints.append(QStringLiteral("%1: %2; its tools are judged without them")
                                       .arg(spanPlace(*span), problem));
    }
    for (const auto &[span, id] : grouped.others) {
        if (id == group.id)
            addToolHints(span->attributes, span->name, own);
    }
    Conversation conversation = buildConversation(group, byId, context.callAliases);
    if (!conversation.turns.isEmpty()) // never a ticket for nothing but this
        conversation.notices.append(unreadHints);
    const QHash<QString, ToolHint> remembered =
            context.toolHints ? *context.toolHints : QHash<QString, ToolHint>();
    for (const QString &tool : toolsCalled(conversation)) {
        for (const QHash<QString, ToolHint> *known :
             std::initializer_list<const QHash<QString, ToolHint> *>{&own, &requestHints, &remembered}) {
            if (const auto hint = known->constFind(tool); hint != known->cend()) {
                conversation.toolHints.insert(tool, *hint);
                break;
            }
        }
    }
    return conversation;
}

QList<Expected<Conversation>> readRequest(const json &value, const ConversationContext &context)
{
    int *spansRead = context.spansRead;
    const json *resourceSpans = member(value, "resourceSpans");
    if (!value.is_object())
        return {makeError(
                QStringLiteral("expected an OTLP trace export {\"resourceSpans\": [\u2026]}, got %1")
                        .arg(excerpt(&value)))};
    if (!resourceSpans || !resourceSpans->is_array())
        return {makeError(
                QStringLiteral("resourceSpans: expected an array, got %1").arg(excerpt(resourceSpans)))};
    QStringList orphans;
    std::vector<Span> spans = collectSpans(*resourceSpans, orphans);
    linkNestedCalls(spans, context.toolSpansWithin, context.callAliases);
    QHash<QString, ToolHint> requestHints;
    for (const Span &span : spans)
        addToolHints(span.attributes, span.name, requestHints);
    rememberToolHints(requestHints, context.toolHints);
    const TraceNames names(spans, context.traceConversations);
    QHash<QString, Span *> byId; // every span of the request, for the nesting of tool spans
    for (Span &span : spans) {
        if (!span.spanId.isEmpty())
            byId.insert(span.spanId, &span);
    }
    SpanGroups grouped = groupSpans(spans, names, spansRead, orphans);
    QList<Expected<Conversation>> out;
    for (Group &group : grouped.groups) {
        Conversation conversation = conversationOfGroup(group, grouped, byId, requestHints, context);
        // Chat spans whose messages were not recorded make no conversation either; they were
        // read, and nothing of them is refused.
        if (!conversation.turns.isEmpty() || !conversation.notices.isEmpty())
            out.append(std::move(conversation));
        else if (spansRead)
            *spansRead -= conversation.spans;
        // A span that cannot be read is refused alone; its conversation is stored without it.
        for (const QString &refused : std::as_const(group.refused))
            out.append(makeError(QStringLiteral("conversation \"%1\": %2").arg(group.id, refused)));
    }
    for (const QString &orphan : std::as_const(orphans))
        out.append(makeError(orphan));
    return out;
}

} // namespace

bool looksLikeOtlpTraces(const nlohmann::json &value)
{
    const json *resourceSpans = member(value, "resourceSpans");
    return resourceSpans && resourceSpans->is_array();
}

QList<Expected<Conversation>> readOtlpTraces(const nlohmann::json &value, const ConversationContext &context)
{
    // OTLP trace and span ids are global, so conversations are named by them, not by the file's
    // stem or position.
    try {
        if (context.spansRead)
            *context.spansRead = 0;
        return readRequest(value, context);
    } catch (const std::exception &error) {
        // Every access above is guarded; this only keeps a bug here from taking the import down.
        return {makeError(
                QStringLiteral("could not read the trace export: %1").arg(QString::fromUtf8(error.what())))};
    }
}

namespace {

// Every span object of a request, in order, stepping past anything malformed.
template<typename Visit>
void forEachSpan(const json &request, const Visit &visit)
{
    for (const json &resource : elements(member(request, "resourceSpans"))) {
        for (const json &scope : elements(member(resource, scopeListKey(resource)))) {
            for (const json &span : elements(member(scope, "spans")))
                visit(span);
        }
    }
}

} // namespace

void collectTraceConversations(const nlohmann::json &request, QHash<QString, QString> &traceToConversation)
{
    try {
        // This request's names, the first of each kind per trace; a conversation id outranks a
        // session id, as in readRequest.
        QHash<QString, QString> conversations;
        QHash<QString, QString> sessions;
        forEachSpan(request, [&conversations, &sessions](const json &span) {
            const QString traceId = hexId(member(span, "traceId"), 32);
            const AttributeMap attributes = attributeMap(member(span, "attributes")).values;
            const QString conversation = conversationOf(attributes);
            const QString session = sessionOf(attributes);
            if (!traceId.isEmpty() && !conversation.isEmpty() && !conversations.contains(traceId))
                conversations.insert(traceId, conversation);
            if (!traceId.isEmpty() && !session.isEmpty() && !sessions.contains(traceId))
                sessions.insert(traceId, session);
        });
        for (auto it = sessions.cbegin(); it != sessions.cend(); ++it) {
            if (!conversations.contains(it.key()))
                conversations.insert(it.key(), it.value());
        }
        for (auto it = conversations.cbegin(); it != conversations.cend(); ++it) {
            if (!traceToConversation.contains(it.key()))
                traceToConversation.insert(it.key(), it.value());
        }
    } catch (const std::exception &) {
        // Every access above is guarded; a first pass that stops early only leaves traces unnamed.
    }
}

void collectToolHints(const nlohmann::json &request, QHash<QString, ToolHint> &hints)
{
    try {
        forEachSpan(request, [&hints](const json &span) {
            const json *name = member(span, "name");
            otlp::addToolHints(attributeMap(member(span, "attributes")).values,
                               name && name->is_string()
                                       ? fromUtf8String(name->get_ref<const std::string &>())
                                       : QString(),
                               hints);
        });
    } catch (const std::exception &) {
        // Every access is guarded; a first pass that stops early only leaves tools undescribed.
    }
}

} // namespace verity

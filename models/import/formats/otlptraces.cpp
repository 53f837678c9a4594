#include "otlptraces.h"

#include "domain/jsontext.h"
#include "otlpattributes.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <limits>
#include <vector>

namespace verity {

namespace {

using namespace otlp;

constexpr qint64 nanosPerMs = 1000000;
constexpr qint64 never = std::numeric_limits<qint64>::max(); // sorts spans without a time last

enum class Role { Other, GenAiTool, OpenInferenceTool, GenAiChat, OpenInferenceLlm };

struct Span
{
    const json *raw = nullptr;
    QString where; // "resourceSpans[0].scopeSpans[1].spans[3]"
    QString traceId; // empty when missing or invalid
    QString spanId;
    AttributeMap attributes;
    UnixNanos start;
    UnixNanos end;
    Role role = Role::Other;
    QString conversationId; // its own gen_ai.conversation.id
    QString sessionId; // its own session.id (OpenInference)
    QString problem; // the first reason it cannot be read; empty when it can
};

bool isTool(const Span &span)
{
    return span.role == Role::GenAiTool || span.role == Role::OpenInferenceTool;
}

// "resourceSpans[0].scopeSpans[1].spans[3] (span 5f2a90c1…): <problem>"
QString spanError(const Span &span)
{
    const QString place = span.spanId.isEmpty()
            ? span.where
            : QStringLiteral("%1 (span %2\u2026)").arg(span.where, span.spanId.left(8));
    return place + QStringLiteral(": ") + span.problem;
}

void fail(Span &span, const QString &problem)
{
    if (span.problem.isEmpty())
        span.problem = problem;
}

QString attributeName(const char *key)
{
    return QStringLiteral("attribute \"%1\"").arg(QLatin1String(key));
}

// An attribute as plain JSON; nullopt when absent or null. One that is no AnyValue makes the span
// unreadable: skipping it could hide a failed refund.
std::optional<json> attribute(Span &span, const char *key)
{
    const auto it = span.attributes.find(key);
    if (it == span.attributes.end())
        return std::nullopt;
    std::optional<json> plain = plainValue(*it->second);
    if (!plain)
        fail(span,
             QStringLiteral("%1: expected an OTLP AnyValue such as {\"stringValue\": \u2026}, got %2")
                     .arg(attributeName(key), excerpt(it->second)));
    return plain && !plain->is_null() ? plain : std::nullopt;
}

QString stringAttribute(Span &span, const char *key)
{
    const std::optional<json> value = attribute(span, key);
    if (value && !value->is_string())
        fail(span, QStringLiteral("%1: expected a string, got %2").arg(attributeName(key), excerpt(&*value)));
    return value && value->is_string() ? fromUtf8String(value->get<std::string>()) : QString();
}

Span readSpan(const json &raw, const QString &where)
{
    Span span;
    span.raw = &raw;
    span.where = where;
    span.traceId = hexId(member(raw, "traceId"), 32);
    span.spanId = hexId(member(raw, "spanId"), 16);
    span.start = unixNanos(raw, "startTimeUnixNano");
    span.end = unixNanos(raw, "endTimeUnixNano");
    Attributes attributes = attributeMap(member(raw, "attributes"));
    span.attributes = std::move(attributes.values);
    fail(span, attributes.problem);
    const QString operation = stringAttribute(span, "gen_ai.operation.name");
    const QString kind = stringAttribute(span, "openinference.span.kind").toUpper();
    if (operation == QLatin1String("execute_tool"))
        span.role = Role::GenAiTool;
    else if (kind == QLatin1String("TOOL"))
        span.role = Role::OpenInferenceTool;
    else if (operation == QLatin1String("chat") || operation == QLatin1String("generate_content")
             || operation == QLatin1String("text_completion"))
        span.role = Role::GenAiChat;
    else if (kind == QLatin1String("LLM"))
        span.role = Role::OpenInferenceLlm;
    // A span that is none of these (HTTP, database) is ignored, broken grouping attributes and all.
    const bool relevant = span.role != Role::Other || !span.problem.isEmpty();
    span.conversationId = stringAttribute(span, "gen_ai.conversation.id");
    span.sessionId = stringAttribute(span, "session.id");
    if (!relevant)
        span.problem.clear();
    return span;
}

struct ToolKeys
{
    const char *name;
    const char *callId;
    const char *arguments;
    const char *result;
};
constexpr ToolKeys genAiTool{"gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.call.arguments",
                             "gen_ai.tool.call.result"};
constexpr ToolKeys openInferenceTool{"tool.name", "tool_call.id", "input.value", "output.value"};

// The arguments as an object: structured, or a JSON object encoded as a string. nullopt when not
// recorded (GenAI makes them opt-in) or unreadable (then the span's problem says why).
std::optional<json> toolArguments(Span &span, const char *key)
{
    const std::optional<json> value = attribute(span, key);
    if (!value || value->is_object())
        return value;
    const QString expectation =
            attributeName(key) + QStringLiteral(": expected a JSON object encoded as a string, got ");
    if (!value->is_string()) {
        fail(span, expectation + excerpt(&*value));
        return std::nullopt;
    }
    const std::string &text = value->get_ref<const std::string &>();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        return std::nullopt;
    try {
        json parsed = json::parse(text);
        if (parsed.is_object() && tooDeep(parsed)) {
            fail(span,
                 expectation + excerpt(&*value) + QStringLiteral(" (nested deeper than any real arguments)"));
            return std::nullopt;
        }
        if (parsed.is_object())
            return parsed;
        fail(span,
             expectation + excerpt(&*value)
                     + QStringLiteral(" (a JSON %1)").arg(QLatin1String(parsed.type_name())));
    } catch (const json::exception &error) {
        fail(span, expectation + excerpt(&*value) + QStringLiteral(" (%1)").arg(parseReason(error)));
    }
    return std::nullopt;
}

// One tool span: the call at its start and, when it has an outcome, the result at its end.
void readToolSpan(Span &span, QList<Turn> &turns, int &unrecordedArguments)
{
    const ToolKeys &keys = span.role == Role::GenAiTool ? genAiTool : openInferenceTool;
    const QString tool = stringAttribute(span, keys.name).trimmed();
    if (tool.isEmpty())
        fail(span, attributeName(keys.name) + QStringLiteral(": expected the tool's name, got nothing"));
    const QString callId = stringAttribute(span, keys.callId);
    if (callId.isEmpty() && span.spanId.isEmpty())
        fail(span,
             QStringLiteral("spanId: expected 16 hex digits (the call has no %1), got %2")
                     .arg(QLatin1String(keys.callId), excerpt(member(*span.raw, "spanId"))));
    const std::optional<json> arguments = toolArguments(span, keys.arguments);
    const std::optional<json> result = attribute(span, keys.result);
    const Status status = spanStatus(*span.raw);
    fail(span, status.problem);
    const QString errorType = stringAttribute(span, "error.type").trimmed();
    if (!span.problem.isEmpty())
        return;

    Turn call;
    call.kind = Turn::Kind::ToolCall;
    call.at = *span.start.ns / nanosPerMs;
    call.callId = callId.isEmpty() ? span.spanId : callId;
    call.tool = tool;
    call.arguments = arguments.value_or(json::object());
    if (!span.spanId.isEmpty())
        call.sourceId = QStringLiteral("%1/%2 call").arg(span.traceId, span.spanId);
    unrecordedArguments += arguments ? 0 : 1;
    turns.append(call);

    const bool failed = status.error || !errorType.isEmpty();
    if (!result && !failed)
        return; // no outcome recorded: the tool may never have answered
    const auto [exceptionType, exceptionMessage] = exceptionEvent(*span.raw);
    Turn answer = call;
    answer.kind = Turn::Kind::ToolResult;
    answer.arguments = json();
    if (!span.spanId.isEmpty())
        answer.sourceId = QStringLiteral("%1/%2 result").arg(span.traceId, span.spanId);
    if (span.end.ns && *span.end.ns >= *span.start.ns) {
        answer.at = *span.end.ns / nanosPerMs;
        answer.durationMs = (*span.end.ns - *span.start.ns) / nanosPerMs;
    }
    answer.errorFlag = failed;
    answer.errorType = failed && errorType.isEmpty() ? exceptionType : errorType;
    // As given (a string stays a string); without one, what the status says went wrong, so that
    // the outcome rules have something to read.
    const QString said = !status.message.isEmpty() ? status.message
            : !exceptionMessage.isEmpty()          ? exceptionMessage
            : !answer.errorType.isEmpty()          ? answer.errorType
                                                   : QStringLiteral("STATUS_CODE_ERROR");
    answer.result = result ? *result : json(said.toStdString());
    turns.append(answer);
}

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
    const ChatMessages messages = chatMessages(span.attributes, span.role == Role::OpenInferenceLlm);
    unreadable = unreadable || messages.unreadable;
    if (!span.start.ns) {
        unreadable = unreadable || messages.input || messages.output;
        return;
    }
    const qint64 startMs = *span.start.ns / nanosPerMs;
    const qint64 endMs = span.end.ns && *span.end.ns >= *span.start.ns ? *span.end.ns / nanosPerMs : startMs;
    int added = 0;
    const auto add = [&turns, &span, &added](MessageKind kind, qint64 at, const QString &text) {
        Turn turn;
        turn.at = at;
        turn.messageKind = kind;
        turn.text = text;
        if (!span.spanId.isEmpty())
            turn.sourceId = QStringLiteral("%1/%2 message %3").arg(span.traceId, span.spanId).arg(++added);
        turns.append(turn);
    };
    QStringList users;
    for (const ChatMessage &message : messages.input.value_or(QList<ChatMessage>())) {
        const bool system =
                message.role == QLatin1String("system") || message.role == QLatin1String("developer");
        if (system && !message.text.isEmpty() && !state.systemTexts.contains(message.text)) {
            state.systemTexts.insert(message.text);
            add(MessageKind::System, startMs, message.text);
        } else if ((message.role == QLatin1String("user") || message.role == QLatin1String("human"))
                   && !message.text.isEmpty()) {
            users.append(message.text);
        }
    }
    if (!users.isEmpty() && (users.last() != state.lastUser || users.size() > state.lastUserCount))
        add(MessageKind::Customer, startMs, users.last());
    if (!users.isEmpty()) {
        state.lastUser = users.last();
        state.lastUserCount = users.size();
    }
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
    std::vector<Span *> spans; // its readable tool and chat spans
    QStringList errors;
    bool relevant = false; // has a tool or chat span; a trace of HTTP calls is no conversation
};

Expected<Conversation> buildConversation(Group &group)
{
    std::stable_sort(group.spans.begin(), group.spans.end(), [](const Span *a, const Span *b) {
        return a->start.ns.value_or(never) < b->start.ns.value_or(never);
    });
    Conversation conversation;
    conversation.id = group.id;
    conversation.spans = int(group.spans.size());
    if (group.openedNs)
        conversation.openedAt = *group.openedNs / nanosPerMs;
    MessageState state;
    int calls = 0;
    int unrecordedArguments = 0;
    bool unreadableMessages = false;
    for (Span *span : group.spans) {
        calls += isTool(*span) ? 1 : 0;
        if (isTool(*span))
            readToolSpan(*span, conversation.turns, unrecordedArguments);
        else
            readChatSpan(*span, state, conversation.turns, unreadableMessages);
        if (!span->problem.isEmpty())
            group.errors.append(spanError(*span));
    }
    if (!group.errors.isEmpty()) {
        QString message = QStringLiteral("conversation \"%1\": %2").arg(group.id, group.errors.first());
        if (group.errors.size() > 1)
            message += QStringLiteral(" (and %1 more problems)").arg(group.errors.size() - 1);
        return makeError(message);
    }
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

// OTLP before 0.15 (2022) called scopes instrumentation libraries.
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

// The checks a tool span needs before it is read; chat spans are best effort.
void checkToolSpan(Span &span)
{
    if (span.traceId.isEmpty())
        fail(span,
             QStringLiteral("traceId: expected 32 hex digits, got %1")
                     .arg(excerpt(member(*span.raw, "traceId"))));
    if (!span.start.ns)
        fail(span,
             !span.start.problem.isEmpty()
                     ? span.start.problem
                     : QStringLiteral("startTimeUnixNano: expected the tool call's start time, got nothing"));
    fail(span, span.end.problem);
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
        id = id.isEmpty() ? m_conversations.value(span.traceId) : id;
        id = id.isEmpty() ? span.sessionId : id;
        id = id.isEmpty() ? m_sessions.value(span.traceId) : id;
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

QList<Expected<Conversation>> readRequest(const json &value, const QHash<QString, QString> *fileTraces,
                                          int *spansRead)
{
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
    const TraceNames names(spans, fileTraces);

    std::vector<Group> groups;
    QHash<QString, std::size_t> groupIndex;
    for (Span &span : spans) {
        if (isTool(span))
            checkToolSpan(span);
        const bool relevant = span.role != Role::Other || !span.problem.isEmpty();
        if (relevant && spansRead)
            ++*spansRead;
        bool byTrace = false;
        const QString id = names.idOf(span, byTrace);
        if (id.isEmpty()) {
            if (relevant && !span.problem.isEmpty())
                orphans.append(spanError(span));
            continue;
        }
        if (!groupIndex.contains(id)) {
            groupIndex.insert(id, groups.size());
            groups.push_back(Group{id, byTrace ? span.traceId : QString(), {}, {}, {}, false});
        }
        Group &group = groups[groupIndex.value(id)];
        if (span.start.ns)
            group.openedNs = std::min(group.openedNs.value_or(never), *span.start.ns);
        group.relevant = group.relevant || relevant;
        if (relevant && !span.problem.isEmpty())
            group.errors.append(spanError(span));
        else if (relevant)
            group.spans.push_back(&span);
    }

    std::stable_sort(groups.begin(), groups.end(), [](const Group &a, const Group &b) {
        return a.openedNs.value_or(never) < b.openedNs.value_or(never);
    });
    QList<Expected<Conversation>> out;
    for (Group &group : groups) {
        Expected<Conversation> conversation = buildConversation(group);
        // Chat spans whose messages were not recorded make no conversation either.
        if (group.relevant
            && (!conversation || !conversation->turns.isEmpty() || !conversation->notices.isEmpty()))
            out.append(std::move(conversation));
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
        return readRequest(value, context.traceConversations, context.spansRead);
    } catch (const std::exception &error) {
        // Every access above is guarded; this only keeps a bug here from taking the import down.
        return {makeError(
                QStringLiteral("could not read the trace export: %1").arg(QString::fromUtf8(error.what())))};
    }
}

namespace {

// A grouping attribute as readSpan reads it: the first of a repeated key, a string AnyValue.
QString stringValue(const AttributeMap &attributes, const char *key)
{
    const auto it = attributes.find(key);
    const std::optional<json> value = it == attributes.end() ? std::nullopt : plainValue(*it->second);
    return value && value->is_string() ? fromUtf8String(value->get<std::string>()) : QString();
}

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
            const QString conversation = stringValue(attributes, "gen_ai.conversation.id");
            const QString session = stringValue(attributes, "session.id");
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

} // namespace verity

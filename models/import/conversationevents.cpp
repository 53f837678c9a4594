#include "conversationevents.h"

#include "domain/sha256.h"
#include "namedorder.h"

#include <QHash>

#include <algorithm>
#include <deque>

namespace verity {

using nlohmann::json;

namespace {

// A turn is named by its place in the conversation, or by its source when the format gives one
// (a span, which an exporter may send again in another batch). A source is unique on its own:
// a span keeps its print when the ticket it went to takes its conversation's name later.
QString fingerprintOf(const QString &ticket, qsizetype ordinal, const json &content,
                      const QString &source = QString())
{
    json printed{{"event", content}};
    if (source.isEmpty()) {
        printed["conversation"] = ticket.toStdString();
        printed["ordinal"] = ordinal;
    } else {
        printed["source"] = source.toStdString();
    }
    return QString::fromLatin1(sha256Hex(
            QByteArray::fromStdString(printed.dump(-1, ' ', false, json::error_handler_t::replace))));
}

// The source a call or result read from a span's messages has (otlptraces.cpp names them so).
QString carriedSource(const QString &callId, bool call)
{
    return QStringLiteral("carried %1 %2")
            .arg(callId, call ? QStringLiteral("call") : QStringLiteral("result"));
}

QString shortText(const QString &text)
{
    return text.size() > 60 ? text.left(59) + u'…' : text;
}

// When the conversation opened and what dates it: its own time, else its first turn's, else the
// fallback.
std::pair<qint64, TicketDating> openingOf(const Conversation &conversation, qint64 fallbackAt,
                                          TicketDating fallbackDating)
{
    qint64 openedAt = conversation.openedAt.value_or(0);
    TicketDating dating = conversation.dating;
    if (!conversation.openedAt) {
        openedAt = fallbackAt;
        dating = fallbackDating;
        for (const Turn &turn : conversation.turns) {
            if (turn.at) {
                openedAt = *turn.at;
                dating = TicketDating::OwnTimes;
                break;
            }
        }
    }

    return {openedAt, dating};
}

// The ticket_opened event: the ticket as the conversation names it, and the order its calls name.
NativeEvent ticketOpened(const Conversation &conversation, const QString &format, const QString &contentHash,
                         qint64 openedAt, TicketDating dating)
{
    NativeEvent opened;
    opened.ticket = conversation.id;
    opened.at = openedAt;
    // The conversation's id and format name the ticket; a later file that continues it (a trace
    // exported in several batches) opens the same ticket again and changes nothing.
    json identity{{"format", format.toStdString()}};
    if (!contentHash.isEmpty())
        identity["content"] = contentHash.toStdString();
    opened.fingerprint = fingerprintOf(conversation.id, 0, identity);
    TicketOpenedEvent ticket;
    ticket.ticket.extId = conversation.id;
    ticket.ticket.openedAt = openedAt;
    ticket.ticket.subject = conversation.subject;
    ticket.ticket.fingerprint = opened.fingerprint;
    ticket.ticket.sourceFormat = format;
    ticket.ticket.dating = dating;
    if (!conversation.task.isEmpty())
        ticket.ticket.task = conversation.trial.isEmpty()
                ? QStringLiteral("task %1").arg(conversation.task)
                : QStringLiteral("task %1 · trial %2").arg(conversation.task, conversation.trial);
    ticket.ticket.origin = conversation.model;
    // The order its calls name, when the format names none: queued, searched and looked up by it.
    const NamedOrder named = orderNamedByCalls(conversation);
    ticket.ticket.order.id = named.orderId;
    ticket.ticket.order.paymentIntent = named.paymentIntent;
    ticket.ticket.order.currency = named.currency;
    ticket.ticket.seller.id = named.sellerId;
    ticket.ticket.seller.name = named.sellerName;
    opened.body = ticket;
    return opened;
}

// The unit of a conversation before its events: what it is, the tools it calls and what its
// source says of them, its notices.
ImportUnit emptyUnit(const Conversation &conversation, const QString &format)
{
    ImportUnit unit;
    unit.format = format;
    unit.conversation = conversation.id;
    unit.notices = conversation.notices;
    unit.tools = toolsCalled(conversation);
    for (const QString &tool : std::as_const(unit.tools)) {
        if (const auto hint = conversation.toolHints.constFind(tool); hint != conversation.toolHints.cend())
            unit.toolHints.insert(tool, *hint);
    }
    return unit;
}

} // namespace

ImportUnit conversationUnit(const Conversation &conversation, const QString &format, qint64 fallbackAt,
                            const QString &contentHash, TicketDating fallbackDating, TurnNaming naming)
{
    ImportUnit unit = emptyUnit(conversation, format);
    auto reject = [&unit](const QString &reason) {
        unit.events.clear();
        unit.rejection = reason;
        return unit;
    };
    if (conversation.id.trimmed().isEmpty())
        return reject(QStringLiteral("the conversation has no id"));

    const auto [openedAt, dating] = openingOf(conversation, fallbackAt, fallbackDating);
    unit.events.append(ticketOpened(conversation, format, contentHash, openedAt, dating));

    // Calls waiting for their result, by the id the transcript gave them: the oldest first,
    // since τ-bench v1 reuses ids and pairs each call with the result that follows it.
    QHash<QString, std::deque<QString>> waiting;
    QHash<QString, int> idUses;
    QHash<QString, QString> toolOfCall;
    QHash<QString, qsizetype> order;
    qint64 at = openedAt;
    qsizetype ordinal = 0;
    // A call a span's messages carry is named by its id in any file: it is the same call when met
    // again, in whichever line or request, and must be known by the call's own span.
    const auto source = [naming](const Turn &turn) {
        return naming == TurnNaming::BySource || turn.carried ? turn.sourceId : QString();
    };
    for (const Turn &turn : conversation.turns) {
        ++ordinal;
        if (turn.at)
            at = *turn.at;
        NativeEvent event;
        event.ticket = conversation.id;
        event.at = at;
        switch (turn.kind) {
        case Turn::Kind::Message: {
            if (turn.text.trimmed().isEmpty())
                continue;
            event.body = MessageEvent{turn.messageKind, turn.text};
            event.fingerprint = fingerprintOf(conversation.id, ordinal,
                                              json{{"message", messageKindId(turn.messageKind).toStdString()},
                                                   {"text", turn.text.toStdString()}},
                                              source(turn));
            break;
        }
        case Turn::Kind::ToolCall: {
            if (turn.callId.isEmpty() || turn.tool.isEmpty())
                return reject(
                        QStringLiteral("turn %1: a tool call needs an id and a tool name").arg(ordinal));
            const int use = ++idUses[turn.callId];
            const QString extId = use == 1 ? turn.callId : QStringLiteral("%1#%2").arg(turn.callId).arg(use);
            waiting[turn.callId].push_back(extId);
            if (!turn.carried) // one a message carries may have its answer in its own span
                toolOfCall.insert(extId, turn.tool);
            order.insert(extId, ordinal);
            event.body = ToolCallEvent{extId, turn.tool,
                                       turn.arguments.is_object() ? turn.arguments : json::object(),
                                       turn.arguments.is_object() ? turn.argumentsText : QString()};
            const json content{{"call", extId.toStdString()},
                               {"tool", turn.tool.toStdString()},
                               {"arguments", turn.arguments}};
            event.fingerprint = fingerprintOf(conversation.id, ordinal, content, source(turn));
            event.carriedFingerprint =
                    fingerprintOf(conversation.id, ordinal, content, carriedSource(turn.callId, true));
            break;
        }
        case Turn::Kind::ToolResult: {
            auto queue = waiting.find(turn.callId);
            if (queue == waiting.end() || queue->empty()) {
                return reject(QStringLiteral(
                                      "turn %1: a tool result for call \"%2\"%3, but no call with that id is "
                                      "waiting for a result before it")
                                      .arg(ordinal)
                                      .arg(shortText(turn.callId),
                                           turn.tool.isEmpty() ? QString()
                                                               : QStringLiteral(" (%1)").arg(turn.tool)));
            }
            const QString extId = queue->front();
            queue->pop_front();
            ToolResultEvent result;
            result.callId = extId;
            result.result = turn.result;
            result.durationMs = turn.durationMs;
            result.errorFlag = turn.errorFlag;
            result.errorType = turn.errorType;
            event.body = result;
            const json content{
                    {"result", extId.toStdString()}, {"value", turn.result}, {"error", turn.errorFlag}};
            event.fingerprint = fingerprintOf(conversation.id, ordinal, content, source(turn));
            event.carriedFingerprint =
                    fingerprintOf(conversation.id, ordinal, content, carriedSource(turn.callId, false));
            break;
        }
        }
        event.namedBySource = !source(turn).isEmpty();
        event.carried = turn.carried;
        unit.events.append(event);
    }

    QStringList unanswered; // in call order, whatever order the hash keeps
    for (auto queue = waiting.cbegin(); queue != waiting.cend(); ++queue)
        unanswered += QStringList(queue.value().cbegin(), queue.value().cend());
    std::sort(unanswered.begin(), unanswered.end(),
              [&order](const QString &a, const QString &b) { return order.value(a) < order.value(b); });
    for (const QString &extId : std::as_const(unanswered)) {
        if (!toolOfCall.contains(extId))
            continue;
        unit.notices.append(
                QStringLiteral("call \"%1\" (%2) has no result; if it writes, its outcome is unknown")
                        .arg(shortText(extId), toolOfCall.value(extId)));
    }
    return unit;
}

} // namespace verity

#include "ticketrun.h"

#include "domain/jsontext.h"
#include "domain/money.h"
#include "import/nativewriter.h"
#include "sandbox/sandboxstate.h"
#include "seededrandom.h"

#include <QHash>

#include <algorithm>

namespace verity {

namespace {

std::string utf8(const QString &text)
{
    return text.toStdString();
}

std::string timeText(qint64 ms)
{
    return utf8(nativeTimestamp(ms));
}

const char *typeOf(SimulatedEvent::Kind kind)
{
    switch (kind) {
    case SimulatedEvent::Kind::TicketOpened:
        return "ticket_opened";
    case SimulatedEvent::Kind::Message:
        return "message";
    case SimulatedEvent::Kind::ToolCall:
        return "tool_call";
    case SimulatedEvent::Kind::ToolResult:
        return "tool_result";
    case SimulatedEvent::Kind::Http:
        return "http";
    case SimulatedEvent::Kind::Provider:
        return "provider";
    case SimulatedEvent::Kind::Reply:
        return "reply";
    }
    return "message";
}

QString compact(const SimJson &json)
{
    return fromUtf8String(json.dump());
}

// How a request that got no answer failed, as a transcript writes it; empty when it was answered.
QString failureText(const ToolHttpRequest &request)
{
    return request.failure ? transportFailureId(*request.failure) : QString();
}

QString answerText(const ToolHttpRequest &request)
{
    return request.status ? QStringLiteral("HTTP %1").arg(*request.status) : failureText(request);
}

// Empty when a refund POST met exactly what the fault schedule called for: a stalled one no
// answer before the client's timeout, any other a 2xx. Anything else (a sandbox with faults
// of its own, a slow machine) changes the numbers, so the ticket says so.
QString unscheduledPostAnswer(const ToolHttpRequest &request, bool stalled)
{
    const bool timedOut = request.failure == TransportFailure::Timeout;
    if (stalled) {
        return timedOut
                ? QString()
                : QStringLiteral("a stalled refund POST was answered (%1) before the client's timeout")
                          .arg(answerText(request));
    }
    if (timedOut)
        return QStringLiteral(
                "a refund POST that no fault of the schedule stalled got no answer in time: the "
                "provider stalls of its own, or the machine was too slow for the compressed timing");
    if (!request.status || *request.status < 200 || *request.status >= 300)
        return QStringLiteral(
                       "a refund POST that the fault schedule did not fault was answered %1: the provider "
                       "injects faults of its own")
                .arg(answerText(request));
    return {};
}

} // namespace

TicketRun::TicketRun(SimTicket ticket, const TicketRunContext &context, QObject *parent)
    : QObject(parent)
    , m_ticket(std::move(ticket))
    , m_context(context)
    , m_timing(seededGenerator(context.seed, RandomStream::Timing, quint32(m_ticket.index)))
{
    m_outcome.index = m_ticket.index;
    m_outcome.ticketId = m_ticket.ticketId;
    m_outcome.sellerId = m_ticket.seller.id;
    m_outcome.firstPostStalled = context.faults.postStalls(m_ticket.index, 1);
    m_outcome.readsDown = context.faults.readsDown(m_ticket.index);
}

QUrl TicketRun::faultedUrl(const QUrl &sandboxUrl, const QString &faults)
{
    if (faults.isEmpty())
        return sandboxUrl;
    QUrl url = sandboxUrl;
    QString path = url.path();
    while (path.endsWith(u'/'))
        path.chop(1);
    url.setPath(path + QStringLiteral("/sandbox-fault/") + faults);
    return url;
}

QString TicketRun::amountText() const
{
    return formatMoney(m_ticket.amountCents, m_ticket.currency);
}

void TicketRun::add(SimulatedEvent::Kind kind, qint64 at, const QString &callId, const QString &summary,
                    SimJson fields)
{
    if (!m_context.keepEvents)
        return;
    SimJson line = SimJson::object();
    line["type"] = typeOf(kind);
    line["ticket"] = utf8(m_ticket.ticketId);
    line["at"] = timeText(at);
    for (auto it = fields.begin(); it != fields.end(); ++it)
        line[it.key()] = it.value();
    m_outcome.events.append(SimulatedEvent{kind, at, callId, summary, std::move(line)});
}

void TicketRun::start()
{
    using Kind = SimulatedEvent::Kind;
    const SimTicket &t = m_ticket;
    m_clock = t.openedAt;
    SimJson item{{"id", utf8(t.itemId)},
                 {"title", utf8(t.itemTitle)},
                 {"quantity", 1},
                 {"amount_cents", t.amountCents}};
    SimJson order{{"id", utf8(t.orderId)}, {"currency", utf8(t.currency)}, {"items", SimJson::array({item})}};
    if (t.paymentIntent != QStringLiteral("pi_") + t.orderId)
        order["payment_intent"] = utf8(t.paymentIntent);
    add(Kind::TicketOpened, m_clock, {}, QStringLiteral("Ticket opened: %1").arg(t.subject),
        SimJson{{"subject", utf8(t.subject)},
                {"customer", {{"name", utf8(t.customerName)}, {"email", utf8(t.customerEmail)}}},
                {"order", order},
                {"seller",
                 {{"id", utf8(t.seller.id)},
                  {"name", utf8(t.seller.name)},
                  {"balance_cents", t.seller.openingBalanceCents},
                  {"balance_as_of", timeText(t.seller.balanceAsOf)}}}});
    add(Kind::Message, m_clock, {}, QStringLiteral("Customer: %1").arg(t.customerText),
        SimJson{{"from", "customer"}, {"text", utf8(t.customerText)}});

    m_clock += think();
    const QString checking = QStringLiteral(
            "Damage in transit, and the buyer wants a refund, not a replacement. Checking the order.");
    add(Kind::Message, m_clock, {}, QStringLiteral("Agent: %1").arg(checking),
        SimJson{{"from", "agent"}, {"text", utf8(checking)}});
    m_clock += think();
    const QString orderCall = nextCallId();
    add(Kind::ToolCall, m_clock, orderCall, QStringLiteral("get_order %1").arg(t.orderId),
        SimJson{{"call_id", utf8(orderCall)},
                {"tool", "get_order"},
                {"arguments", {{"order_id", utf8(t.orderId)}}}});
    const qint64 readMs = 300 + qint64(m_timing.bounded(200));
    m_clock += readMs;
    SimJson orderResult{{"order_id", utf8(t.orderId)},    {"status", "delivered"},
                        {"currency", utf8(t.currency)},   {"buyer", utf8(t.customerName)},
                        {"seller_id", utf8(t.seller.id)}, {"items", SimJson::array({item})},
                        {"total_cents", t.amountCents},   {"refunded_cents", 0}};
    add(Kind::ToolResult, m_clock, orderCall,
        QStringLiteral("get_order answered: delivered, nothing refunded yet"),
        SimJson{{"call_id", utf8(orderCall)}, {"result", orderResult}, {"duration_ms", readMs}});
    m_clock += think();
    const QString decision =
            QStringLiteral("The buyer declined a replacement: refund the item price, %1, under the "
                           "$150.00 ceiling.")
                    .arg(amountText());
    add(Kind::Message, m_clock, {}, QStringLiteral("Agent: %1").arg(decision),
        SimJson{{"from", "agent"}, {"text", utf8(decision)}});
    m_clock += think();
    if (t.firstRefundAt > m_clock) // a replayed incident: the refund at the moment it was asked for
        m_clock = t.firstRefundAt;
    callRefund();
}

void TicketRun::callRefund()
{
    const int attempt = ++m_outcome.refundCalls;
    if (m_sawUnknown)
        m_outcome.retriedAfterUnknown = true;
    const QString callId = nextCallId();
    const qint64 calledAt = m_clock;
    add(SimulatedEvent::Kind::ToolCall, calledAt, callId,
        QStringLiteral("issue_refund %1 of %2 (attempt %3)").arg(amountText(), m_ticket.orderId).arg(attempt),
        SimJson{{"call_id", utf8(callId)},
                {"tool", "issue_refund"},
                {"arguments", refundArguments(m_ticket)}});
    const QString faults = m_context.faults.faultsFor(m_ticket.index, attempt, m_context.timing.stallMs);
    m_context.tool->issue(RefundToolCall{&m_ticket, attempt, faultedUrl(m_context.sandboxUrl, faults)},
                          [this, attempt, callId, calledAt](const RefundToolAnswer &answer) {
                              refundAnswered(answer, attempt, callId, calledAt);
                          });
}

void TicketRun::refundAnswered(const RefundToolAnswer &answer, int attempt, const QString &callId,
                               qint64 calledAt)
{
    using Kind = SimulatedEvent::Kind;
    const bool stalled = m_context.faults.postStalls(m_ticket.index, attempt);
    const bool readsDown = m_context.faults.readsDown(m_ticket.index);
    qint64 t = calledAt + 20;
    int gets = 0;
    QHash<QString, int> readAttempts; // by URL
    for (const ToolHttpRequest &request : answer.requests) {
        const bool post = request.method == u"POST";
        const bool timedOut = request.failure == TransportFailure::Timeout;
        qint64 duration = 0;
        if (post) {
            ++m_outcome.postsSent;
            if (m_outcome.problem.isEmpty())
                m_outcome.problem = unscheduledPostAnswer(request, stalled);
            duration = timedOut ? virtualClientTimeoutMs : 350 + qint64(m_timing.bounded(550));
            const qint64 commitAt = timedOut ? t + 380 + qint64(m_timing.bounded(80)) : t + duration - 30;
            m_posts.append(PostRecord{callId, request.idempotencyKey, commitAt, request.status,
                                      answer.replayed,
                                      fromUtf8String(answer.result.value("refund_id", std::string()))});
        } else {
            t += gets == 0 ? 10 : qint64(200) << (gets - 1);
            ++gets;
            duration = timedOut ? virtualClientTimeoutMs : 120 + qint64(m_timing.bounded(80));
            const bool expected = readsDown ? request.status == 503 : request.status == 200;
            if (!expected && m_outcome.problem.isEmpty()) {
                m_outcome.problem =
                        QStringLiteral("a lookup was answered %1, which the fault schedule did not call for")
                                .arg(request.status ? QString::number(*request.status)
                                                    : failureText(request));
            }
        }
        SimJson fields{
                {"call_id", utf8(callId)}, {"method", utf8(request.method)}, {"url", utf8(request.url)}};
        if (!request.idempotencyKey.isEmpty())
            fields["idempotency_key"] = utf8(request.idempotencyKey);
        // A POST is never re-sent; a lookup's read is, and each try of the same page is the
        // client's next attempt at it.
        fields["attempt"] = request.method == u"POST" ? 1 : ++readAttempts[request.url];
        if (request.status)
            fields["status"] = *request.status;
        else
            fields["error"] = utf8(failureText(request));
        fields["duration_ms"] = duration;
        add(Kind::Http, t, callId,
            QStringLiteral("%1 %2: %3")
                    .arg(request.method, request.url,
                         request.status ? QStringLiteral("HTTP %1").arg(*request.status)
                                        : failureText(request)),
            std::move(fields));
        t += duration;
    }
    const qint64 resultAt = (answer.requests.isEmpty() ? calledAt + 15 : t) + 5;
    add(Kind::ToolResult, resultAt, callId,
        QStringLiteral("issue_refund answered %1").arg(compact(answer.result)),
        SimJson{{"call_id", utf8(callId)}, {"result", answer.result}, {"duration_ms", resultAt - calledAt}});
    if (answer.outcome == Outcome::Unknown) {
        ++m_outcome.unknownAnswers;
        m_sawUnknown = true;
    }

    const ToolReading reading = ModelPolicy::read(answer.result);
    const ModelMove move = ModelPolicy::nextMove(reading, m_outcome.refundCalls);
    m_clock = resultAt + think();
    if (const QString note = ModelPolicy::agentNote(reading, move); !note.isEmpty()) {
        add(Kind::Message, m_clock, {}, QStringLiteral("Agent: %1").arg(note),
            SimJson{{"from", "agent"}, {"text", utf8(note)}});
        m_clock += think();
    }
    if (ModelPolicy::retries(move)) {
        callRefund();
        return;
    }
    if (ModelPolicy::escalates(move))
        escalate(move);
    reply(move);
}

void TicketRun::escalate(ModelMove move)
{
    using Kind = SimulatedEvent::Kind;
    const QString callId = nextCallId();
    const QString reason = ModelPolicy::escalationReason(move);
    add(Kind::ToolCall, m_clock, callId, QStringLiteral("escalate_to_human: %1").arg(reason),
        SimJson{{"call_id", utf8(callId)},
                {"tool", "escalate_to_human"},
                {"arguments",
                 {{"reason", utf8(reason)},
                  {"order_id", utf8(m_ticket.orderId)},
                  {"amount_cents", m_ticket.amountCents}}}});
    const qint64 duration = 200 + qint64(m_timing.bounded(100));
    m_clock += duration;
    const QString escalationId = derivedSandboxId(QStringLiteral("esc_"), m_ticket.ticketId + u'|' + callId);
    add(Kind::ToolResult, m_clock, callId,
        QStringLiteral("escalate_to_human answered: queued as %1").arg(escalationId),
        SimJson{{"call_id", utf8(callId)},
                {"result", {{"escalation_id", utf8(escalationId)}, {"status", "queued"}}},
                {"duration_ms", duration}});
    m_outcome.escalation = SimEscalation{callId, reason};
    m_clock += think();
}

void TicketRun::reply(ModelMove move)
{
    const QString text = ModelPolicy::replyText(move, amountText());
    add(SimulatedEvent::Kind::Reply, m_clock, {}, QStringLiteral("Reply: %1").arg(text),
        SimJson{{"text", utf8(text)}});
    m_outcome.finalReply = text;
    emit finished();
}

QStringList TicketRun::postKeys() const
{
    QStringList keys;
    keys.reserve(m_posts.size());
    for (const PostRecord &post : m_posts)
        keys.append(post.key);
    return keys;
}

void TicketRun::orderByPosts(QList<AuditedRefund> &refunds, const QStringList &postKeys)
{
    const auto postIndex = [&postKeys](const QString &key) {
        const qsizetype index = postKeys.indexOf(key);
        return index < 0 ? postKeys.size() : index;
    };
    std::stable_sort(refunds.begin(), refunds.end(), [&](const AuditedRefund &a, const AuditedRefund &b) {
        const qsizetype left = postIndex(a.key), right = postIndex(b.key);
        return left != right ? left < right : a.id < b.id;
    });
}

void TicketRun::providerRefunds(QList<AuditedRefund> refunds)
{
    using Kind = SimulatedEvent::Kind;
    orderByPosts(refunds, postKeys());
    const auto postIndex = [this](const QString &key) {
        for (qsizetype i = 0; i < m_posts.size(); ++i) {
            if (m_posts.at(i).key == key)
                return i;
        }
        return m_posts.size();
    };
    for (const AuditedRefund &refund : std::as_const(refunds)) {
        const qsizetype index = postIndex(refund.key);
        const bool known = index < m_posts.size();
        SimJson fields = SimJson::object();
        fields["event"] = "refund.created";
        if (known)
            fields["call_id"] = utf8(m_posts.at(index).callId);
        fields["object_id"] = utf8(refund.id);
        fields["idempotency_key"] = utf8(refund.key);
        fields["amount_cents"] = refund.amountCents;
        add(Kind::Provider, known ? m_posts.at(index).commitAt : m_clock,
            known ? m_posts.at(index).callId : QString(),
            QStringLiteral("Provider: refund %1 of %2 created")
                    .arg(refund.id, formatMoney(refund.amountCents, m_ticket.currency)),
            std::move(fields));
    }
    for (qsizetype i = 0; i < m_posts.size(); ++i) {
        const PostRecord &post = m_posts.at(i);
        const bool madeRefund = postIndex(post.key) == i
                && std::any_of(refunds.cbegin(), refunds.cend(),
                               [&](const AuditedRefund &refund) { return refund.key == post.key; });
        if (post.replayed) {
            add(Kind::Provider, post.commitAt, post.callId,
                QStringLiteral("Provider: replayed the stored answer for key %1; no money moved")
                        .arg(post.key),
                SimJson{{"event", "idempotent_replay"},
                        {"call_id", utf8(post.callId)},
                        {"object_id", utf8(post.refundId)},
                        {"idempotency_key", utf8(post.key)},
                        {"replayed", true}});
        } else if (!madeRefund && post.status && *post.status >= 400) {
            add(Kind::Provider, post.commitAt, post.callId,
                QStringLiteral("Provider: refused the request with key %1").arg(post.key),
                SimJson{{"event", "request.refused"},
                        {"call_id", utf8(post.callId)},
                        {"idempotency_key", utf8(post.key)}});
        }
    }
    m_outcome.refunds = std::move(refunds);
    std::stable_sort(m_outcome.events.begin(), m_outcome.events.end(),
                     [](const SimulatedEvent &a, const SimulatedEvent &b) { return a.at < b.at; });
}

} // namespace verity

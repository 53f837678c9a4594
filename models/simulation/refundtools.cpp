#include "refundtools.h"

#include "domain/intentkey.h"
#include "domain/jsontext.h"
#include "domain/sha256.h"
#include "provider/safewriteruntime.h"
#include "seededrandom.h"

#include <QTimer>

namespace verity {

QString transportFailureId(TransportFailure failure)
{
    switch (failure) {
    case TransportFailure::Timeout:
        return QStringLiteral("timeout");
    case TransportFailure::ConnectionRefused:
        return QStringLiteral("connection_refused");
    case TransportFailure::ConnectionReset:
        return QStringLiteral("connection_reset");
    }
    return QStringLiteral("timeout");
}

namespace {

std::string utf8(const QString &text)
{
    return text.toStdString();
}

// "/sandbox-fault/<faults>/v1/refunds" -> "/v1/refunds": the fault travels in the path only
// because ProviderClient takes a base URL and no extra headers; a transcript shows the API.
QString apiPath(const QUrl &url)
{
    QString path = url.path();
    const QString prefix = QStringLiteral("/sandbox-fault/");
    if (const qsizetype at = path.indexOf(prefix); at >= 0) {
        const qsizetype end = path.indexOf(u'/', at + prefix.size());
        path = path.left(at) + (end < 0 ? QString() : path.mid(end));
    }
    return url.hasQuery() ? path + u'?' + url.query(QUrl::FullyEncoded) : path;
}

} // namespace

SimJson refundArguments(const SimTicket &ticket)
{
    SimJson arguments = SimJson::object();
    arguments["order_id"] = utf8(ticket.orderId);
    arguments["item_id"] = utf8(ticket.itemId);
    arguments["amount_cents"] = ticket.amountCents;
    return arguments;
}

RefundIntent RefundTool::intentFor(const RefundToolCall &call, const QString &key) const
{
    RefundIntent intent;
    intent.intentKey = key;
    intent.paymentIntent = call.ticket->paymentIntent;
    intent.amountCents = call.ticket->amountCents;
    intent.currency = call.ticket->currency;
    intent.reason = QStringLiteral("requested_by_customer");
    intent.metadata.insert(QStringLiteral("ticket_id"), call.ticket->ticketId);
    intent.metadata.insert(QStringLiteral("order_id"), call.ticket->orderId);
    intent.metadata.insert(QStringLiteral("item_id"), call.ticket->itemId);
    return intent;
}

ProviderClient &RefundTool::clientFor(const RefundToolCall &call)
{
    ProviderClient *&client = m_clients[call.baseUrl];
    if (!client) {
        ProviderSettings settings = m_settings;
        settings.baseUrl = call.baseUrl;
        client = new ProviderClient(settings, this);
    }
    return *client;
}

QList<ToolHttpRequest> RefundTool::requestsOf(const QList<HttpExchange> &exchanges)
{
    QList<ToolHttpRequest> requests;
    for (const HttpExchange &exchange : exchanges) {
        ToolHttpRequest request;
        const QStringList lines = exchange.request.split(u'\n');
        const QString first = lines.value(0);
        request.method = first.section(u' ', 0, 0);
        request.url = apiPath(QUrl(first.section(u' ', 1)));
        for (const QString &line : lines) {
            if (line.startsWith(QStringLiteral("Idempotency-Key: ")))
                request.idempotencyKey = line.mid(17).trimmed();
        }
        // describeResponse writes "HTTP <status> <reason>" or "no HTTP answer: <why>".
        if (exchange.response.startsWith(QStringLiteral("HTTP "))) {
            request.status = exchange.response.section(u' ', 1, 1).toInt();
        } else if (exchange.response.contains(QStringLiteral("timed out"))) {
            request.failure = TransportFailure::Timeout;
        } else if (exchange.response.contains(QStringLiteral("refused"))) {
            request.failure = TransportFailure::ConnectionRefused;
        } else {
            request.failure = TransportFailure::ConnectionReset;
        }
        requests.append(request);
    }
    return requests;
}

// ---- as shipped ----

AsShippedRefundTool::AsShippedRefundTool(ProviderSettings settings, quint32 seed, QObject *parent)
    : RefundTool(parent)
    , m_seed(seed)
{
    m_settings = std::move(settings);
}

QString AsShippedRefundTool::keyFor(quint32 seed, const SimTicket &ticket, int attempt)
{
    const quint32 payment = sha256Hex(ticket.paymentIntent.toUtf8()).left(8).toUInt(nullptr, 16);
    QRandomGenerator random = seededGenerator(seed, RandomStream::Keys, quint32(ticket.index),
                                              quint32(attempt) ^ (payment << 8));
    return uuid4From(random);
}

void AsShippedRefundTool::issue(const RefundToolCall &call, Done done)
{
    const QString key = keyFor(m_seed, *call.ticket, call.attempt);
    RefundOperation *post = clientFor(call).refund(intentFor(call, key));
    connect(post, &RefundOperation::finished, this, [post, key, done](const RefundAttempt &attempt) {
        RefundToolAnswer answer;
        answer.key = key;
        answer.requests = requestsOf(attempt.exchanges);
        answer.replayed = attempt.replayed;
        SimJson result = SimJson::object();
        if (attempt.kind == RefundAttempt::Kind::Accepted && attempt.refund) {
            result["refund_id"] = utf8(attempt.refund->id);
            result["status"] = "queued";
            result["amount_cents"] = attempt.refund->amountCents;
        } else if (attempt.httpStatus == 0) {
            const bool timedOut = !answer.requests.isEmpty()
                    && answer.requests.constLast().failure == TransportFailure::Timeout;
            result["error"] =
                    timedOut ? "refund failed: upstream timeout" : "refund failed: connection error";
        } else if (attempt.httpStatus >= 500) {
            result["error"] =
                    utf8(QStringLiteral("refund failed: upstream error %1").arg(attempt.httpStatus));
        } else {
            result["error"] = utf8(QStringLiteral("refund failed: HTTP %1").arg(attempt.httpStatus));
        }
        answer.result = result;
        post->deleteLater();
        done(answer);
    });
}

// ---- intent key ----

IntentKeyRefundTool::IntentKeyRefundTool(ProviderSettings settings, LedgerStore &ledger,
                                         ToolRegistry registry, QObject *parent)
    : RefundTool(parent)
    , m_ledger(ledger)
    , m_registry(std::move(registry))
{
    m_settings = std::move(settings);
}

Expected<QString> IntentKeyRefundTool::keyFor(const SimTicket &ticket) const
{
    const ToolSpec *spec = m_registry.find(QStringLiteral("issue_refund"));
    if (!spec)
        return makeError(QStringLiteral("the tool registry has no issue_refund"));
    const TicketFacts facts{{QStringLiteral("ticket_id"), ticket.ticketId},
                            {QStringLiteral("order_id"), ticket.orderId},
                            {QStringLiteral("seller_id"), ticket.seller.id}};
    const nlohmann::json arguments = nlohmann::json::parse(refundArguments(ticket).dump());
    return intentKey(*spec, arguments, facts);
}

void IntentKeyRefundTool::issue(const RefundToolCall &call, Done done)
{
    Expected<QString> key = keyFor(*call.ticket);
    if (!key) {
        // No key, no request: the runtime would refuse to send a refund it cannot recognise.
        RefundToolAnswer answer;
        answer.outcome = Outcome::NotPerformed;
        answer.result = SimJson{{"outcome", "not_performed"},
                                {"note", utf8(QStringLiteral("not sent: %1").arg(key.message()))}};
        QTimer::singleShot(0, this, [answer, done] { done(answer); });
        return;
    }
    ProviderClient &client = clientFor(call);
    SafeWriteRuntime *&runtime = m_runtimes[&client];
    if (!runtime)
        runtime = new SafeWriteRuntime(m_ledger, client, &client);
    SafeRefundOperation *operation = runtime->refund(
            intentFor(call, *key),
            LedgerContext{std::nullopt, call.ticket->seller.id, QStringLiteral("simulation")});
    const QString intentKeyText = *key;
    connect(operation, &SafeRefundOperation::finished, this,
            [operation, intentKeyText, done](const SafeWriteResult &result) {
                RefundToolAnswer answer;
                answer.key = intentKeyText;
                answer.outcome = result.outcome;
                answer.requests = requestsOf(result.exchanges);
                const bool looked = result.lookupVerdict.has_value();
                answer.replayed = result.outcome == Outcome::AlreadyPerformed && !answer.requests.isEmpty();
                SimJson json = SimJson::object();
                json["outcome"] = utf8(outcomeId(result.outcome));
                switch (result.outcome) {
                case Outcome::Performed:
                case Outcome::AlreadyPerformed:
                    json["refund_id"] = utf8(result.refund ? result.refund->id : QString());
                    json["amount_cents"] = result.refund ? result.refund->amountCents : 0;
                    if (looked)
                        json["note"] = "the provider did not answer in time; a lookup found the refund under "
                                       "this intent key";
                    else if (result.outcome == Outcome::AlreadyPerformed)
                        json["note"] = "this intent key had already paid out; nothing new was sent";
                    break;
                case Outcome::NotPerformed:
                    if (result.lookupVerdict == LookupVerdict::NotFound) {
                        json["retry"] = "same_key";
                        json["note"] =
                                "no refund carries this intent key; safe to try once more with the same key";
                    } else {
                        json["note"] = utf8(QStringLiteral("the provider refused the refund (HTTP %1)")
                                                    .arg(result.postStatus));
                    }
                    break;
                case Outcome::Unknown:
                    json["retry"] = "never";
                    json["escalate"] = true;
                    json["note"] = looked
                            ? "the provider did not answer in time and the lookup could not tell whether the "
                              "refund was made; do not retry, escalate"
                            : "whether the refund was made is unknown; do not retry, escalate";
                    break;
                }
                answer.result = json;
                operation->deleteLater();
                done(answer);
            });
}

} // namespace verity

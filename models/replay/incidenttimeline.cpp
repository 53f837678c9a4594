#include "incidenttimeline.h"

#include "domain/jsontext.h"
#include "domain/money.h"
#include "domain/toolclass.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <limits>

namespace verity {

QString replayLayerName(ReplayLayer layer)
{
    switch (layer) {
    case ReplayLayer::Customer:
        return QStringLiteral("Customer");
    case ReplayLayer::Model:
        return QStringLiteral("Model");
    case ReplayLayer::ToolFramework:
        return QStringLiteral("Tool framework");
    case ReplayLayer::HttpClient:
        return QStringLiteral("HTTP client");
    case ReplayLayer::Provider:
        return QStringLiteral("Provider");
    }
    Q_UNREACHABLE();
}

QString retryMechanismName(RetryMechanism mechanism)
{
    switch (mechanism) {
    case RetryMechanism::HttpClient:
        return QStringLiteral("HTTP client");
    case RetryMechanism::ToolFramework:
        return QStringLiteral("Tool framework");
    case RetryMechanism::Model:
        return QStringLiteral("Model");
    }
    Q_UNREACHABLE();
}

namespace {

// A result that is one JSON string (as τ-bench's are) reads as its text, not as escaped JSON.
QString unquoted(const QString &rawResult)
{
    const nlohmann::json value = nlohmann::json::parse(rawResult.toStdString(), nullptr, false);
    return value.is_string() ? fromUtf8String(value.get_ref<const std::string &>()) : rawResult;
}

// Steps at the same moment (or in formats that give no time per event) keep the order of the
// transcript: a step's position is ten times the seq of the line it comes from, plus its place
// among that line's steps. A call's result and what the model read of it sit just before the
// next transcript line, after every HTTP and provider line logged for the call.
enum Place { PlaceCall = 0, PlaceRequest = 1, PlaceRequestEnd = 2, PlaceResult = -3, PlaceRead = -2 };

struct Draft
{
    TimelineStep step;
    qint64 position = 0;
    // What the step teaches the layers and mechanisms, applied in time order.
    std::function<void(TimelineStep &)> apply;
};

QString clipped(QString text, int length = 160)
{
    text = text.simplified();
    return text.size() <= length ? text : text.left(length - 1) + QChar(0x2026);
}

QString shortKey(const QString &key)
{
    return key.size() <= 12 ? key : key.left(8) + QChar(0x2026);
}

QString argumentsText(const QString &json)
{
    const QJsonObject arguments = QJsonDocument::fromJson(json.toUtf8()).object();
    QStringList parts;
    for (auto it = arguments.begin(); it != arguments.end(); ++it) {
        const QJsonValue value = it.value();
        QString text;
        if (value.isObject())
            text = QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
        else if (value.isArray())
            text = QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
        else
            text = value.toVariant().toString();
        parts.append(it.key() + u'=' + text);
    }
    return clipped(parts.join(QStringLiteral(", ")), 120);
}

bool hasStatedOutcome(const QString &rawResult)
{
    return QJsonDocument::fromJson(rawResult.toUtf8()).object().contains(QStringLiteral("outcome"));
}

// What a model makes of a write's result: the words it reads, not the truth beneath them.
QString modelBelief(const ToolCallRow &call)
{
    const QString what = call.tool + u' ' + call.callExtId;
    if (!call.hasResult)
        return QStringLiteral("never read a result for %1").arg(what);
    if (!call.outcome)
        return QStringLiteral("read the result of %1").arg(what);
    switch (*call.outcome) {
    case Outcome::Performed:
        return QStringLiteral("believes %1 was done").arg(what);
    case Outcome::AlreadyPerformed:
        return QStringLiteral("knows %1 had been done before").arg(what);
    case Outcome::NotPerformed:
        return QStringLiteral("believes %1 did not happen").arg(what);
    case Outcome::Unknown:
        if (hasStatedOutcome(call.rawResult))
            return QStringLiteral("was told %1 is unknown: not to retry, a person will check").arg(what);
        return QStringLiteral("read \"%1\" and takes %2 as failed: trying again looks right")
                .arg(clipped(call.rawResult, 80), what);
    }
    Q_UNREACHABLE();
}

class TimelineBuilder
{
public:
    TimelineBuilder(const TicketDetail &ticket, const QList<TranscriptEntry> &transcript,
                    const QList<TraceEvent> &traces)
        : m_ticket(ticket)
    {
        QList<qint64> seqs;
        for (const TranscriptEntry &entry : transcript) {
            seqs.append(entry.seq);
            if (entry.isToolCall)
                m_calls.insert(entry.call.callExtId, entry.call);
        }
        std::sort(seqs.begin(), seqs.end());
        for (const TranscriptEntry &entry : transcript) {
            if (!entry.isToolCall)
                continue;
            const auto next = std::upper_bound(seqs.cbegin(), seqs.cend(), entry.seq);
            m_nextSeq.insert(entry.call.callExtId,
                             next == seqs.cend() ? std::numeric_limits<qint64>::max() / 20 : *next);
        }
        for (const TraceEvent &trace : traces) {
            if (trace.kind == TraceKind::Http)
                m_httpByCall[trace.callExtId].append(trace);
        }
        for (const TranscriptEntry &entry : transcript)
            entry.isToolCall ? addCall(entry) : addMessage(entry);
        for (const TraceEvent &trace : traces)
            trace.kind == TraceKind::Http ? addHttp(trace) : addProvider(trace);
        m_timeline.ticketExtId = ticket.row.extId;
        m_timeline.hasLowerLayers = !traces.isEmpty();
    }

    IncidentTimeline build()
    {
        std::stable_sort(m_drafts.begin(), m_drafts.end(), [](const Draft &a, const Draft &b) {
            if (a.step.at != b.step.at)
                return a.step.at < b.step.at;
            return a.position < b.position;
        });
        initialState();
        for (Draft &draft : m_drafts) {
            const QHash<ReplayLayer, QString> before = m_knows;
            if (draft.apply)
                draft.apply(draft.step);
            for (ReplayLayer layer : allReplayLayers)
                draft.step.knowledge.append(
                        {layer, m_knows.value(layer), m_knows.value(layer) != before.value(layer)});
            for (RetryMechanism mechanism : allRetryMechanisms)
                draft.step.retries.append(m_retries.value(int(mechanism)));
            m_timeline.steps.append(std::move(draft.step));
        }
        return m_timeline;
    }

private:
    Draft &add(QString key, qint64 at, ReplayLayer layer, QString kind, qint64 position)
    {
        Draft draft;
        draft.step.key = std::move(key);
        draft.step.at = at;
        draft.step.layer = layer;
        draft.step.kind = std::move(kind);
        draft.position = position;
        m_drafts.append(std::move(draft));
        return m_drafts.last();
    }

    void initialState()
    {
        m_knows[ReplayLayer::Customer] = QStringLiteral("Nothing asked yet");
        m_knows[ReplayLayer::Model] = QStringLiteral("Nothing read yet");
        m_knows[ReplayLayer::ToolFramework] = QStringLiteral("No call yet");
        m_knows[ReplayLayer::HttpClient] = m_timeline.hasLowerLayers
                ? QStringLiteral("No request yet")
                : QStringLiteral("Not logged for this ticket");
        m_knows[ReplayLayer::Provider] = m_timeline.hasLowerLayers
                ? QStringLiteral("Nothing recorded for this ticket yet")
                : QStringLiteral("Not logged: a lookup would tell");
        const QString none = QStringLiteral("Nothing sent yet");
        m_retries.insert(
                int(RetryMechanism::HttpClient),
                {RetryMechanism::HttpClient, m_timeline.hasLowerLayers ? none : QStringLiteral("Not logged"),
                 QStringLiteral(
                         "the tool's choice of key or the model's repeat: it sees one request at a time"),
                 false});
        m_retries.insert(int(RetryMechanism::ToolFramework),
                         {RetryMechanism::ToolFramework, none,
                          QStringLiteral("the model's repeat: each call is a new call to it"), false});
        m_retries.insert(
                int(RetryMechanism::Model),
                {RetryMechanism::Model, QStringLiteral("No write repeated"),
                 QStringLiteral("the HTTP timeout or the provider's record: it reads only the tool's words"),
                 false});
    }

    void addMessage(const TranscriptEntry &entry)
    {
        const QString key = QStringLiteral("m%1").arg(entry.seq);
        const QString text = entry.text;
        const qint64 position = entry.seq * 10;
        switch (entry.kind) {
        case MessageKind::Customer: {
            Draft &d =
                    add(key, entry.at, ReplayLayer::Customer, QStringLiteral("customer_message"), position);
            d.step.title = QStringLiteral("Customer writes: %1").arg(clipped(text, 90));
            d.step.detail = text;
            d.apply = [this, text](TimelineStep &) {
                m_knows[ReplayLayer::Customer] = QStringLiteral("Asked: %1").arg(clipped(text, 100));
            };
            break;
        }
        case MessageKind::Agent: {
            Draft &d = add(key, entry.at, ReplayLayer::Model, QStringLiteral("model_decision"), position);
            d.step.title = QStringLiteral("Model decides: %1").arg(clipped(text, 90));
            d.step.detail = text;
            d.apply = [this, text](TimelineStep &) {
                m_knows[ReplayLayer::Model] = QStringLiteral("Decided: %1").arg(clipped(text, 100));
            };
            break;
        }
        case MessageKind::System: {
            Draft &d = add(key, entry.at, ReplayLayer::ToolFramework, QStringLiteral("system"), position);
            d.step.title = QStringLiteral("System: %1").arg(clipped(text, 90));
            d.step.detail = text;
            break;
        }
        case MessageKind::Reply: {
            Draft &d = add(key, entry.at, ReplayLayer::Model, QStringLiteral("reply"), position);
            d.step.title = QStringLiteral("Reply to the customer: %1").arg(clipped(text, 90));
            d.step.detail = text;
            d.apply = [this, text](TimelineStep &) {
                m_knows[ReplayLayer::Customer] = QStringLiteral("Was told: %1").arg(clipped(text, 100));
                m_knows[ReplayLayer::Model] = QStringLiteral("Told the customer: %1").arg(clipped(text, 100));
            };
            break;
        }
        }
    }

    // The key an earlier call of the same intent sent, when it differs from this call's.
    QString earlierDifferentKey(const ToolCallRow &call, const QString &key) const
    {
        if (call.repeatOfCallId.isEmpty() || key.isEmpty())
            return {};
        for (const TraceEvent &earlier : m_httpByCall.value(call.repeatOfCallId)) {
            if (!earlier.http.idempotencyKey.isEmpty() && earlier.http.idempotencyKey != key)
                return earlier.http.idempotencyKey;
        }
        return {};
    }

    void addCall(const TranscriptEntry &entry)
    {
        const ToolCallRow call = entry.call;
        const bool write = isWrite(call.toolClass);
        const QString id = call.callExtId;
        const QString money =
                call.amountCents ? formatMoney(*call.amountCents, m_ticket.order.currency) : QString();

        const qint64 resultPosition = m_nextSeq.value(id) * 10;
        Draft &asked = add(id + QStringLiteral(".call"), call.calledAt, ReplayLayer::Model,
                           QStringLiteral("tool_call"), entry.seq * 10 + PlaceCall);
        asked.step.callExtId = id;
        asked.step.title = QStringLiteral("Model calls %1 (%2)").arg(call.tool, id)
                + (money.isEmpty() ? QString() : u' ' + money);
        asked.step.detail = QStringLiteral("%1(%2)").arg(call.tool, argumentsText(call.argumentsJson));
        if (!call.repeatOfCallId.isEmpty())
            asked.step.detail += QStringLiteral("\nThe same intent as %1: the model is asking again.")
                                         .arg(call.repeatOfCallId);
        const bool logged = m_httpByCall.contains(id);
        asked.apply = [this, call, write, logged](TimelineStep &) {
            m_knows[ReplayLayer::Model] = QStringLiteral("Asked for %1 %2").arg(call.tool, call.callExtId);
            m_knows[ReplayLayer::ToolFramework] =
                    QStringLiteral("Running %1 %2").arg(call.tool, call.callExtId);
            RetryStanding &tool = m_retries[int(RetryMechanism::ToolFramework)];
            if (write && !logged && !tool.retried)
                tool.standing = QStringLiteral("Ran %1 %2; its requests were not logged")
                                        .arg(call.tool, call.callExtId);
            if (write && !call.repeatOfCallId.isEmpty()) {
                RetryStanding &model = m_retries[int(RetryMechanism::Model)];
                model.retried = true;
                model.standing =
                        QStringLiteral(
                                "%1 repeats %2, the same intent; no retry counter saw it: to every other "
                                "layer it is a new call")
                                .arg(call.callExtId, call.repeatOfCallId);
            }
        };

        if (!call.hasResult || !call.resultAt)
            return;
        const qint64 resultAt = *call.resultAt;
        Draft &result = add(id + QStringLiteral(".result"), resultAt, ReplayLayer::ToolFramework,
                            QStringLiteral("tool_result"), resultPosition + PlaceResult);
        result.step.callExtId = id;
        const QString returned = unquoted(call.rawResult);
        result.step.title = QStringLiteral("Tool returns for %1: %2").arg(id, clipped(returned, 100));
        result.step.detail = returned;
        if (write && call.outcome)
            result.step.detail +=
                    QStringLiteral("\nVerity reads this as: %1").arg(outcomeLabel(*call.outcome));
        result.apply = [this, call](TimelineStep &) {
            m_knows[ReplayLayer::ToolFramework] =
                    QStringLiteral("Returned for %1: %2").arg(call.callExtId, clipped(call.rawResult, 90));
        };

        // An inferred timeout: the result names one and no HTTP line says otherwise.
        const bool mentionsTimeout = call.rawResult.contains(QStringLiteral("timeout"), Qt::CaseInsensitive)
                || call.rawResult.contains(QStringLiteral("timed out"), Qt::CaseInsensitive);
        if (write && mentionsTimeout && !m_httpByCall.contains(id)) {
            Draft &timeout = add(id + QStringLiteral(".timeout"), resultAt, ReplayLayer::HttpClient,
                                 QStringLiteral("client_timeout"), resultPosition + PlaceResult - 1);
            timeout.step.callExtId = id;
            timeout.step.inferred = true;
            timeout.step.title =
                    QStringLiteral("HTTP client times out for %1 (inferred from the result)").arg(id);
            timeout.step.detail = QStringLiteral(
                    "No HTTP line was logged for this call; the result names a timeout, so the "
                    "request most likely got no answer. Whether the provider acted is not "
                    "known from this ticket.");
            timeout.apply = [this, id](TimelineStep &) {
                m_knows[ReplayLayer::HttpClient] =
                        QStringLiteral("Gave up on %1 with no answer (inferred)").arg(id);
            };
        }

        Draft &read = add(id + QStringLiteral(".read"), resultAt, ReplayLayer::Model,
                          QStringLiteral("model_read"), resultPosition + PlaceRead);
        read.step.callExtId = id;
        const QString belief = write ? modelBelief(call)
                : call.readFailed    ? QStringLiteral("read an error from %1 %2: %3")
                                            .arg(call.tool, id, clipped(call.rawResult, 80))
                                  : QStringLiteral("read what %1 %2 returned: %3")
                                            .arg(call.tool, id, clipped(call.rawResult, 80));
        read.step.title = QStringLiteral("Model reads the result of %1").arg(id);
        read.step.detail = QStringLiteral("The model %1.").arg(belief);
        read.apply = [this, belief, id](TimelineStep &step) {
            m_knows[ReplayLayer::Model] = QStringLiteral("%1%2").arg(belief.at(0).toUpper(), belief.mid(1));
            // What the layers above could not see: the provider had acted.
            const QStringList accepted = m_acceptedByCall.value(id);
            if (!accepted.isEmpty())
                step.detail +=
                        QStringLiteral("\nMeanwhile the provider had accepted %1; no layer above it knew.")
                                .arg(accepted.join(QStringLiteral(", ")));
        };
    }

    void addHttp(const TraceEvent &trace)
    {
        const HttpTrace http = trace.http;
        const QString id = trace.callExtId;
        const QString key = QStringLiteral("t%1").arg(trace.seq);
        const ToolCallRow call = m_calls.value(id);
        const QString earlierKey = earlierDifferentKey(call, http.idempotencyKey);

        Draft &sent = add(key, trace.at, ReplayLayer::HttpClient, QStringLiteral("http_request"),
                          trace.seq * 10 + PlaceRequest);
        sent.step.callExtId = id;
        sent.step.title = QStringLiteral("HTTP client sends %1 %2 for %3").arg(http.method, http.url, id)
                + (http.attempt > 1 ? QStringLiteral(" (attempt %1)").arg(http.attempt) : QString());
        sent.step.detail = http.idempotencyKey.isEmpty()
                ? QStringLiteral(
                        "No Idempotency-Key: the provider cannot recognise a repeat of this request.")
                : QStringLiteral("Idempotency-Key: %1").arg(http.idempotencyKey);
        if (!earlierKey.isEmpty())
            sent.step.detail +=
                    QStringLiteral("\nA fresh key: %1 sent %2 for the same refund, so the provider will take "
                                   "this as a new one.")
                            .arg(call.repeatOfCallId, earlierKey);
        sent.apply = [this, http, id, earlierKey](TimelineStep &) {
            m_knows[ReplayLayer::HttpClient] =
                    QStringLiteral("Sent %1 %2 for %3; waiting").arg(http.method, http.url, id);
            m_knows[ReplayLayer::ToolFramework] =
                    QStringLiteral("Waiting on %1 %2 for %3 (key %4)")
                            .arg(http.method, http.url, id,
                                 http.idempotencyKey.isEmpty() ? QStringLiteral("none")
                                                               : shortKey(http.idempotencyKey));
            // A read may be repeated freely; only a repeated write is a retry that can do harm.
            const bool read = http.method.compare(QStringLiteral("GET"), Qt::CaseInsensitive) == 0;
            RetryStanding &client = m_retries[int(RetryMechanism::HttpClient)];
            if (http.attempt > 1 && read) {
                if (!client.retried)
                    client.standing =
                            QStringLiteral("Re-sent a read for %1 (attempt %2): reads are safe to repeat")
                                    .arg(id)
                                    .arg(http.attempt);
            } else if (http.attempt > 1) {
                client.retried = true;
                client.standing = QStringLiteral("Re-sent %1's %2 by itself (attempt %3)")
                                          .arg(id, http.method)
                                          .arg(http.attempt);
            } else if (!client.retried && !read) {
                client.standing = QStringLiteral("Sent %1's %2 once; never re-sent").arg(id, http.method);
            }
            RetryStanding &tool = m_retries[int(RetryMechanism::ToolFramework)];
            if (read) {
                if (!tool.retried)
                    tool.standing =
                            QStringLiteral("Looked up %1 at the provider after an unclear answer, instead of "
                                           "sending it again")
                                    .arg(id);
                return;
            }
            const int writes = ++m_writesByCall[id];
            if (writes > 1 && http.attempt == 1) {
                tool.retried = true;
                tool.standing =
                        QStringLiteral("Sent %1 again within the call (%2 requests)").arg(id).arg(writes);
            } else if (!tool.retried) {
                tool.standing = earlierKey.isEmpty()
                        ? QStringLiteral("One request for %1").arg(id)
                        : QStringLiteral("One request for %1, with a fresh key: it cannot tell %1 repeats an "
                                         "earlier call")
                                  .arg(id);
            }
        };

        if (!http.durationMs)
            return;
        const bool timedOut = !http.status;
        Draft &ended = add(key + QStringLiteral(".end"), trace.at + *http.durationMs, ReplayLayer::HttpClient,
                           timedOut ? QStringLiteral("client_timeout") : QStringLiteral("http_answer"),
                           trace.seq * 10 + PlaceRequestEnd);
        ended.step.callExtId = id;
        const QString after = QString::number(double(*http.durationMs) / 1000.0, 'f', 1);
        ended.step.title = timedOut
                ? QStringLiteral("HTTP client gives up on %1 after %2 s: %3").arg(id, after, http.error)
                : QStringLiteral("HTTP client gets %1 for %2 after %3 s").arg(*http.status).arg(id, after);
        if (timedOut)
            ended.step.detail =
                    QStringLiteral("No answer came. The client cannot know whether the provider acted.");
        else if (*http.status >= 500)
            ended.step.detail = QStringLiteral(
                    "A server error says nothing certain: the provider may have acted before it.");
        ended.apply = [this, id, timedOut, after, http](TimelineStep &) {
            m_knows[ReplayLayer::HttpClient] = timedOut
                    ? QStringLiteral("Gave up on %1 after %2 s (%3): does not know whether it was accepted")
                              .arg(id, after, http.error)
                    : QStringLiteral("Got %1 for %2 after %3 s").arg(*http.status).arg(id, after);
        };
    }

    void addProvider(const TraceEvent &trace)
    {
        const ProviderTrace provider = trace.provider;
        const QString id = trace.callExtId;
        Draft &d = add(QStringLiteral("t%1").arg(trace.seq), trace.at, ReplayLayer::Provider,
                       QStringLiteral("provider_record"), trace.seq * 10 + PlaceRequest);
        d.step.callExtId = id;
        const QString money = provider.amountCents
                ? formatMoney(*provider.amountCents, m_ticket.order.currency)
                : QString();
        const bool created = provider.event == u"refund.created" && !provider.replayed;
        d.step.title = created
                ? QStringLiteral("Provider accepts refund %1 %2%3")
                          .arg(provider.objectId, money,
                               id.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(id))
                : QStringLiteral("Provider records %1 %2").arg(provider.event, provider.objectId);
        d.step.detail = QStringLiteral("Key seen: %1")
                                .arg(provider.idempotencyKey.isEmpty() ? QStringLiteral("none")
                                                                       : provider.idempotencyKey);
        if (provider.replayed)
            d.step.detail += QStringLiteral("\nA stored answer sent again: no new money moved.");
        else if (created)
            d.step.detail += QStringLiteral("\nMoney moves now, whether or not anyone hears the answer.");
        d.apply = [this, created, provider, id](TimelineStep &) {
            if (!created)
                return;
            ++m_refunds;
            m_refundedCents += provider.amountCents.value_or(0);
            m_acceptedByCall[id].append(provider.objectId);
            m_knows[ReplayLayer::Provider] =
                    QStringLiteral("Accepted %1 refund%2 for order %3, %4 in all; latest %5 (key %6)")
                            .arg(m_refunds)
                            .arg(m_refunds == 1 ? QString() : QStringLiteral("s"))
                            .arg(m_ticket.order.id, formatMoney(m_refundedCents, m_ticket.order.currency),
                                 provider.objectId,
                                 provider.idempotencyKey.isEmpty() ? QStringLiteral("none")
                                                                   : shortKey(provider.idempotencyKey));
        };
    }

    const TicketDetail &m_ticket;
    QHash<QString, ToolCallRow> m_calls;
    QHash<QString, QList<TraceEvent>> m_httpByCall;
    QHash<QString, qint64> m_nextSeq; // by call: the seq of the transcript line after it
    QHash<QString, int> m_writesByCall;
    QHash<QString, QStringList> m_acceptedByCall;
    QList<Draft> m_drafts;
    QHash<ReplayLayer, QString> m_knows;
    QHash<int, RetryStanding> m_retries;
    int m_refunds = 0;
    qint64 m_refundedCents = 0;
    IncidentTimeline m_timeline;
};

} // namespace

IncidentTimeline buildIncidentTimeline(const TicketDetail &ticket, const QList<TranscriptEntry> &transcript,
                                       const QList<TraceEvent> &traces)
{
    return TimelineBuilder(ticket, transcript, traces).build();
}

} // namespace verity

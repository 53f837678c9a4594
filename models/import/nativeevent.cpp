#include "nativeevent.h"

#include "domain/jsontext.h"
#include "domain/money.h"
#include "domain/sha256.h"
#include "domain/timestamp.h"

#include <QRegularExpression>

#include <limits>
#include <string_view>
#include <utility>

namespace verity {

using nlohmann::json;

namespace {

QString typeName(const json &value)
{
    return QString::fromLatin1(value.type_name());
}

// Reads fields of one JSON object and remembers the first problem, naming the field.
class Fields
{
public:
    Fields(const json &object, QString prefix)
        : m_object(object)
        , m_prefix(std::move(prefix))
    {}

    const std::optional<Error> &error() const { return m_error; }

    QString text(const char *key, bool required = true)
    {
        auto it = m_object.find(key);
        if (it == m_object.end() || it->is_null()) {
            if (required)
                fail(key, QStringLiteral("is missing"));
            return {};
        }
        if (!it->is_string()) {
            fail(key, QStringLiteral("expected a string, got %1").arg(typeName(*it)));
            return {};
        }
        const QString value = fromUtf8String(it->get_ref<const std::string &>());
        if (required && value.trimmed().isEmpty())
            fail(key, QStringLiteral("must not be empty"));
        return value;
    }

    std::optional<qint64> integer(const char *key, bool required = true)
    {
        auto it = m_object.find(key);
        if (it == m_object.end() || it->is_null()) {
            if (required)
                fail(key, QStringLiteral("is missing"));
            return std::nullopt;
        }
        if (!it->is_number_integer()) {
            fail(key,
                 QStringLiteral("expected a whole number (money is integer cents), got %1")
                         .arg(fromUtf8String(it->dump())));
            return std::nullopt;
        }
        if (it->is_number_unsigned() && it->get<quint64>() > quint64(std::numeric_limits<qint64>::max())) {
            fail(key, QStringLiteral("is too large: %1").arg(fromUtf8String(it->dump())));
            return std::nullopt;
        }
        return it->get<qint64>();
    }

    // A whole number from `least` to `most`: money no sum of it can overflow.
    std::optional<qint64> integerWithin(const char *key, qint64 least, qint64 most, bool required = true)
    {
        const auto range = [&](const QString &got) {
            fail(key,
                 QStringLiteral("expected a whole number from %1 to %2, got %3")
                         .arg(least)
                         .arg(most)
                         .arg(got));
        };
        if (auto it = m_object.find(key); it != m_object.end() && it->is_number_unsigned()
            && it->get<quint64>() > quint64(std::numeric_limits<qint64>::max())) {
            range(fromUtf8String(it->dump()));
            return std::nullopt;
        }
        std::optional<qint64> value = integer(key, required);
        if (value && (*value < least || *value > most)) {
            range(QString::number(*value));
            return std::nullopt;
        }
        return value;
    }

    qint64 time(const char *key, bool required = true)
    {
        // The common time is read from the line's bytes; any other text as below.
        if (auto it = m_object.find(key); it != m_object.end() && it->is_string()) {
            if (std::optional<qint64> plain = parseCommonTimestamp(it->get_ref<const std::string &>()))
                return *plain;
        }
        const QString value = text(key, required);
        if (value.isEmpty())
            return 0;
        std::optional<qint64> parsed = parseTimestamp(value);
        if (!parsed) {
            fail(key,
                 QStringLiteral(
                         "expected an RFC 3339 time with a zone, like 2026-03-17T14:32:07Z, got \"%1\"")
                         .arg(value));
            return 0;
        }
        return *parsed;
    }

    const json *object(const char *key, bool required = true)
    {
        auto it = m_object.find(key);
        if (it == m_object.end() || it->is_null()) {
            if (required)
                fail(key, QStringLiteral("is missing"));
            return nullptr;
        }
        if (!it->is_object()) {
            fail(key, QStringLiteral("expected an object, got %1").arg(typeName(*it)));
            return nullptr;
        }
        return &*it;
    }

    const json *value(const char *key)
    {
        auto it = m_object.find(key);
        if (it == m_object.end()) {
            fail(key, QStringLiteral("is missing"));
            return nullptr;
        }
        return &*it;
    }

    QString path(const char *key) const { return m_prefix + QLatin1String(key); }

    void fail(const char *key, const QString &what)
    {
        if (!m_error)
            m_error = makeError(QStringLiteral("field \"%1\" %2").arg(path(key), what));
    }

    void failWith(const Error &error)
    {
        if (!m_error)
            m_error = error;
    }

private:
    const json &m_object;
    QString m_prefix;
    std::optional<Error> m_error;
};

std::optional<bool> optionalFlag(const json &root, const char *key, Fields &fields)
{
    auto flag = root.find(key);
    if (flag == root.end() || flag->is_null())
        return std::nullopt;
    if (!flag->is_boolean()) {
        fields.fail(key, QStringLiteral("expected true or false, got %1").arg(fromUtf8String(flag->dump())));
        return std::nullopt;
    }
    return flag->get<bool>();
}

// Bounds that no real request or refund comes near; beyond them a line is broken, and its
// numbers would overflow the replay's arithmetic.
constexpr qint64 maxTraceDurationMs = 24 * 3600 * 1000;
constexpr qint64 maxTraceAmountCents = maxAmountCents;

TraceEvent readHttpTrace(Fields &fields)
{
    TraceEvent event;
    event.kind = TraceKind::Http;
    event.callExtId = fields.text("call_id");
    HttpTrace &http = event.http;
    http.method = fields.text("method");
    http.url = fields.text("url");
    http.idempotencyKey = fields.text("idempotency_key", false);
    if (std::optional<qint64> attempt = fields.integer("attempt", false)) {
        if (*attempt < 1 || *attempt > 1000)
            fields.fail("attempt",
                        QStringLiteral("expected the client's attempt number, 1 for the first, got %1")
                                .arg(*attempt));
        else
            http.attempt = int(*attempt);
    }
    if (std::optional<qint64> status = fields.integer("status", false)) {
        if (*status < 100 || *status > 599)
            fields.fail("status",
                        QStringLiteral("expected an HTTP status from 100 to 599, got %1").arg(*status));
        else
            http.status = int(*status);
    }
    http.error = fields.text("error", false);
    if (!http.error.isNull() && http.error.trimmed().isEmpty())
        fields.fail("error",
                    QStringLiteral("must not be empty: name what ended the request, such as \"timeout\""));
    http.durationMs = fields.integer("duration_ms", false);
    if (http.durationMs && (*http.durationMs < 0 || *http.durationMs > maxTraceDurationMs))
        fields.fail("duration_ms",
                    QStringLiteral("expected milliseconds from 0 to %1 (a day), got %2")
                            .arg(maxTraceDurationMs)
                            .arg(*http.durationMs));
    if (http.status && !http.error.isEmpty())
        fields.fail("error",
                    QStringLiteral("is given with \"status\": a request either got an answer (status) or "
                                   "did not (error), not both"));
    if (!http.status && http.error.isEmpty() && !fields.error())
        fields.fail("status",
                    QStringLiteral("is missing: an http event says the status answered, or the \"error\" "
                                   "that ended the request (such as \"timeout\")"));
    return event;
}

TraceEvent readProviderTrace(const json &root, Fields &fields)
{
    TraceEvent event;
    event.kind = TraceKind::Provider;
    event.callExtId = fields.text("call_id", false);
    ProviderTrace &provider = event.provider;
    provider.event = fields.text("event");
    provider.objectId = fields.text("object_id", false);
    provider.idempotencyKey = fields.text("idempotency_key", false);
    provider.amountCents = fields.integer("amount_cents", false);
    if (provider.amountCents && (*provider.amountCents < 0 || *provider.amountCents > maxTraceAmountCents))
        fields.fail("amount_cents",
                    QStringLiteral("expected whole cents from 0 to %1, got %2")
                            .arg(maxTraceAmountCents)
                            .arg(*provider.amountCents));
    provider.replayed = optionalFlag(root, "replayed", fields).value_or(false);
    return event;
}

std::optional<TicketOpenedEvent> readTicketOpened(const json &, const QString &ticketId, qint64 at,
                                                  Fields &fields)
{
    TicketOpenedEvent event;
    NewTicket &ticket = event.ticket;
    ticket.extId = ticketId;
    ticket.openedAt = at;
    ticket.subject = fields.text("subject", false);

    if (const json *customer = fields.object("customer", false)) {
        Fields c(*customer, QStringLiteral("customer."));
        ticket.order.customerName = c.text("name", false);
        ticket.order.customerEmail = c.text("email", false);
        if (c.error())
            fields.failWith(*c.error());
    }
    if (const json *order = fields.object("order")) {
        Fields o(*order, QStringLiteral("order."));
        ticket.order.id = o.text("id");
        ticket.order.paymentIntent = o.text("payment_intent", false);
        const QString currency = o.text("currency", false);
        if (!currency.isEmpty()) {
            static const QRegularExpression iso(QStringLiteral("^[A-Z]{3}$"));
            if (!iso.match(currency).hasMatch())
                o.fail("currency",
                       QStringLiteral("expected an ISO 4217 code like USD, got \"%1\"").arg(currency));
            ticket.order.currency = currency;
        }
        auto items = order->find("items");
        if (items != order->end() && !items->is_array()) {
            o.fail("items", QStringLiteral("expected a list, got %1").arg(typeName(*items)));
        } else if (items != order->end()) {
            for (std::size_t i = 0; i < items->size(); ++i) {
                const QString prefix = QStringLiteral("order.items[%1].").arg(i);
                if (!(*items)[i].is_object()) {
                    o.failWith(
                            makeError(QStringLiteral("field \"order.items[%1]\" expected an object").arg(i)));
                    break;
                }
                Fields item((*items)[i], prefix);
                OrderItemRecord record;
                record.id = item.text("id");
                record.title = item.text("title", false);
                record.quantity = item.integerWithin("quantity", 0, 1'000'000, false).value_or(1);
                record.amountCents = item.integerWithin("amount_cents", 0, maxAmountCents).value_or(0);
                if (item.error())
                    o.failWith(*item.error());
                ticket.order.items.append(record);
            }
        }
        if (o.error())
            fields.failWith(*o.error());
    }
    if (const json *seller = fields.object("seller")) {
        Fields s(*seller, QStringLiteral("seller."));
        ticket.seller.id = s.text("id");
        ticket.seller.name = s.text("name");
        ticket.seller.balanceCents = s.integerWithin("balance_cents", -maxAmountCents, maxAmountCents, false);
        ticket.seller.balanceAsOf = s.time("balance_as_of", false);
        if (ticket.seller.balanceAsOf == 0)
            ticket.seller.balanceAsOf = at;
        if (s.error())
            fields.failWith(*s.error());
    }
    if (fields.error())
        return std::nullopt;
    return event;
}

// The event's type when it is one of the known words, as a literal rather than a copy of the
// line's text; otherwise null, and the field is read (and checked) as any other.
QString knownType(const json &root)
{
    auto it = root.find("type");
    if (it == root.end() || !it->is_string())
        return {};
    static const std::pair<std::string_view, QString> types[] = {
            {"ticket_opened", QStringLiteral("ticket_opened")},
            {"message", QStringLiteral("message")},
            {"reply", QStringLiteral("reply")},
            {"tool_call", QStringLiteral("tool_call")},
            {"tool_result", QStringLiteral("tool_result")},
            {"http", QStringLiteral("http")},
            {"provider", QStringLiteral("provider")},
    };
    const std::string &text = it->get_ref<const std::string &>();
    for (const auto &[name, literal] : types) {
        if (text == name)
            return literal;
    }
    return {};
}

} // namespace

Expected<NativeEvent> parseNativeEvent(const QByteArray &line)
{
    if (jsonNestingDepth(line.constBegin(), line.constEnd()) > maxJsonNesting)
        return makeError(tooDeepReason());
    json root;
    try {
        root = json::parse(line.constBegin(), line.constEnd());
    } catch (const json::parse_error &e) {
        return makeError(jsonLineError(e, line));
    } catch (const json::exception &e) {
        // A number beyond what a double holds (1e400) is out of range, not a parse error.
        return makeError(QStringLiteral("not valid JSON: %1").arg(jsonParseErrorReason(e.what())));
    }
    return parseNativeEventValue(std::move(root));
}

Expected<NativeEvent> parseNativeEventValue(json root)
{
    if (!root.is_object())
        return makeError(QStringLiteral("expected a JSON object with \"type\", \"ticket\" and \"at\", got %1")
                                 .arg(typeName(root)));

    Fields fields(root, QString());
    NativeEvent event;
    const QString known = knownType(root);
    const QString type = known.isNull() ? fields.text("type") : known;
    event.ticket = fields.text("ticket");
    event.at = fields.time("at");
    if (fields.error())
        return *fields.error();

    if (type == u"ticket_opened") {
        std::optional<TicketOpenedEvent> opened = readTicketOpened(root, event.ticket, event.at, fields);
        if (!opened)
            return *fields.error();
        event.body = std::move(*opened);
    } else if (type == u"message" || type == u"reply") {
        MessageEvent message;
        if (type == u"reply") {
            message.kind = MessageKind::Reply;
        } else {
            const QString from = fields.text("from");
            std::optional<MessageKind> kind = messageKindFromId(from);
            if (!from.isEmpty() && (!kind || *kind == MessageKind::Reply))
                fields.fail("from",
                            QStringLiteral("expected customer, agent or system, got \"%1\"").arg(from));
            message.kind = kind.value_or(MessageKind::Customer);
        }
        message.text = fields.text("text");
        event.body = std::move(message);
    } else if (type == u"tool_call") {
        ToolCallEvent call;
        call.callId = fields.text("call_id");
        call.tool = fields.text("tool");
        fields.object("arguments"); // moved in below, once the line is printed
        event.body = std::move(call);
    } else if (type == u"tool_result") {
        ToolResultEvent result;
        result.callId = fields.text("call_id");
        fields.value("result"); // moved in below, once the line is printed
        result.durationMs = fields.integer("duration_ms", false);
        result.errorType = fields.text("error_type", false);
        if (auto flag = root.find("is_error"); flag != root.end() && !flag->is_null()) {
            if (flag->is_boolean())
                result.errorFlag = flag->get<bool>();
            else
                fields.fail(
                        "is_error",
                        QStringLiteral("expected true or false, got %1").arg(fromUtf8String(flag->dump())));
        }
        event.body = std::move(result);
    } else if (type == u"http") {
        event.body = readHttpTrace(fields);
    } else if (type == u"provider") {
        event.body = readProviderTrace(root, fields);
    } else {
        return makeError(
                QStringLiteral("field \"type\" expected ticket_opened, message, tool_call, tool_result, "
                               "reply, http or provider, got \"%1\"")
                        .arg(type));
    }
    if (fields.error())
        return *fields.error();
    // As root.dump() prints it, into room made once instead of grown a character at a time.
    std::string printed;
    printed.reserve(1024);
    nlohmann::detail::serializer<json>(nlohmann::detail::output_adapter<char>(printed), ' ')
            .dump(root, false, false, 0);
    event.fingerprint = QString::fromLatin1(sha256Hex(printed.data(), qsizetype(printed.size())));
    // Nothing reads the line's tree after this: its values move instead of being copied.
    if (auto *call = std::get_if<ToolCallEvent>(&event.body))
        call->arguments = std::move(root.at("arguments"));
    else if (auto *result = std::get_if<ToolResultEvent>(&event.body))
        result->result = std::move(root.at("result"));
    if (auto *opened = std::get_if<TicketOpenedEvent>(&event.body))
        opened->ticket.fingerprint = event.fingerprint;
    return event;
}

} // namespace verity

#include "scaledataset.h"

#include <QFile>
#include <QRandomGenerator>

#include <array>

namespace verity::bench {

namespace {

// 2025-12-01T00:00:00Z: a year of history follows.
constexpr qint64 historyStartMs = 1764547200000LL;
constexpr qint64 historyLengthMs = 365LL * 24 * 3600 * 1000;
constexpr int sellerCount = 2000;

const std::array<const char *, 40> sellerFirst = {
        "Ashcombe", "Birchwood",  "Cobalt",   "Dunmore",  "Elmstead",    "Fairlight", "Glenrock",
        "Harbour",  "Ironbridge", "Juniper",  "Kestrel",  "Larchmont",   "Millbrook", "Northgate",
        "Oakhurst", "Pemberton",  "Quayside", "Redfern",  "Stonebridge", "Thornbury", "Upland",
        "Vale",     "Westbury",   "Yarrow",   "Alder",    "Bramble",     "Cedar",     "Driftwood",
        "Ember",    "Foxglove",   "Granite",  "Hawthorn", "Indigo",      "Jasper",    "Kingsley",
        "Linden",   "Marlow",     "Nettle",   "Orchard",  "Primrose"};
const std::array<const char *, 50> sellerSecond = {
        "Furniture", "Home",     "Goods",    "Outfitters", "Supply",    "Lighting",   "Textiles", "Kitchen",
        "Garden",    "Studio",   "Workshop", "Living",     "Interiors", "Ceramics",   "Rugs",     "Beds",
        "Office",    "Tools",    "Audio",    "Bikes",      "Books",     "Toys",       "Pets",     "Sports",
        "Outdoor",   "Crafts",   "Linen",    "Glass",      "Timber",    "Metalworks", "Prints",   "Frames",
        "Candles",   "Baskets",  "Tiles",    "Paints",     "Hardware",  "Storage",    "Mirrors",  "Clocks",
        "Blinds",    "Cushions", "Mattress", "Shelving",   "Desks",     "Chairs",     "Tables",   "Lamps",
        "Vases",     "Bedding"};
const std::array<const char *, 8> firstNames = {"Dana", "Sam", "Priya", "Tom", "Ana", "Lee", "Maya", "Chris"};
const std::array<const char *, 8> lastNames = {"Whitfield", "Okafor", "Lindqvist", "Moreau",
                                               "Tanaka",    "Reyes",  "Novak",     "Brennan"};
struct Item
{
    const char *id;
    const char *title;
    qint64 cents;
};
const std::array<Item, 8> items = {
        Item{"OAK-4S", "4-shelf oak unit", 11800},  Item{"LMP-02", "Brass desk lamp", 4500},
        Item{"RUG-7X", "Wool rug 7x5", 23900},      Item{"CHR-11", "Dining chair", 8900},
        Item{"MUG-S4", "Stoneware mugs (4)", 3200}, Item{"MIR-60", "Round mirror", 6400},
        Item{"BED-Q", "Queen bed frame", 45900},    Item{"VAS-L", "Glass vase", 2700}};

// RFC 3339 in UTC, to the second, without a date library: ten million of these must be cheap.
QByteArray timeText(qint64 ms)
{
    const qint64 seconds = ms / 1000;
    qint64 days = seconds / 86400;
    const qint64 rest = seconds % 86400;
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    days += 719468;
    const qint64 era = days / 146097;
    const qint64 doe = days - era * 146097;
    const qint64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const qint64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const qint64 mp = (5 * doy + 2) / 153;
    const qint64 day = doy - (153 * mp + 2) / 5 + 1;
    const qint64 month = mp < 10 ? mp + 3 : mp - 9;
    const qint64 year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    char text[64];
    std::snprintf(text, sizeof text, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                  static_cast<long long>(year), static_cast<long long>(month), static_cast<long long>(day),
                  static_cast<long long>(rest / 3600), static_cast<long long>(rest / 60 % 60),
                  static_cast<long long>(rest % 60));
    return QByteArray(text, 20);
}

QByteArray number(qint64 value)
{
    return QByteArray::number(value);
}

// One ticket's lines, its clock advancing a few seconds an event.
class TicketWriter
{
public:
    TicketWriter(QByteArray &out, QByteArray ticket, qint64 openedMs, ScaleDatasetShape &shape)
        : m_out(out)
        , m_ticket(std::move(ticket))
        , m_at(openedMs)
        , m_shape(shape)
    {}

    void line(const char *type, const QByteArray &fields, qint64 advanceMs = 4000)
    {
        m_out += R"({"type":")";
        m_out += type;
        m_out += R"(","ticket":")";
        m_out += m_ticket;
        m_out += R"(","at":")";
        m_out += timeText(m_at);
        m_out += "\",";
        m_out += fields;
        m_out += "}\n";
        m_at += advanceMs;
        ++m_shape.lines;
    }

    // A call and its result; an empty result leaves the call unanswered.
    void call(const char *tool, const QByteArray &arguments, const QByteArray &resultFields, bool write)
    {
        const QByteArray id = "c" + number(++m_calls);
        line("tool_call", R"("call_id":")" + id + R"(","tool":")" + tool + R"(","arguments":)" + arguments,
             1500);
        line("tool_result", R"("call_id":")" + id + "\"," + resultFields, 2500);
        ++m_shape.toolCalls;
        if (write)
            ++m_shape.writes;
    }

private:
    QByteArray &m_out;
    QByteArray m_ticket;
    qint64 m_at;
    ScaleDatasetShape &m_shape;
    int m_calls = 0;
};

QByteArray refundResult(QRandomGenerator &random, qint64 cents)
{
    return R"("result":{"id":"re_)" + QByteArray::number(random.generate64(), 36)
            + R"(","status":"succeeded","amount":)" + number(cents) + "}";
}

void writeTicket(QByteArray &out, qint64 n, QRandomGenerator &random, qint64 openedMs,
                 ScaleDatasetShape &shape)
{
    const QByteArray ticket = "T-" + QByteArray::number(n + 1).rightJustified(8, '0');
    const QByteArray order = scaleOrderId(n).toLatin1();
    const int seller = int(random.bounded(sellerCount));
    const QByteArray sellerId = "seller-" + QByteArray::number(seller).rightJustified(4, '0');
    const QByteArray sellerName = QByteArray(sellerFirst[std::size_t(seller % 40)]) + ' '
            + sellerSecond[std::size_t(seller / 40 % 50)];
    const Item &item = items[random.bounded(int(items.size()))];
    const QByteArray first = firstNames[random.bounded(int(firstNames.size()))];
    const QByteArray last = lastNames[random.bounded(int(lastNames.size()))];
    const QByteArray orderArgs = R"({"order_id":")" + order + R"("})";
    const QByteArray refundArgs = R"({"order_id":")" + order + R"(","item_id":")" + item.id
            + R"(","amount_cents":)" + number(item.cents) + "}";

    TicketWriter w(out, ticket, openedMs, shape);
    w.line("ticket_opened",
           R"("subject":")" + QByteArray(item.title) + R"( arrived damaged","customer":{"name":")" + first
                   + ' ' + last + R"(","email":")" + first.toLower() + '.' + last.toLower()
                   + R"(@example.com"},"order":{"id":")" + order + R"(","currency":"USD","items":[{"id":")"
                   + item.id + R"(","title":")" + item.title + R"(","quantity":1,"amount_cents":)"
                   + number(item.cents) + R"(}]},"seller":{"id":")" + sellerId + R"(","name":")" + sellerName
                   + R"(","balance_cents":)" + number(50000 + random.bounded(400000)) + "}");
    w.line("message",
           R"("from":"customer","text":"My )" + QByteArray(item.title) + R"( arrived damaged. Order )" + order
                   + R"(. Can you help?")");
    w.call("get_order", orderArgs,
           R"("result":{"order_id":")" + order + R"(","status":"delivered","total_cents":)"
                   + number(item.cents) + "}",
           false);
    w.call("search_procedures", R"({"query":"damaged on arrival"})",
           R"("result":{"procedure":"refund or return, seller informed"})", false);

    const auto refund = [&] {
        const int roll = int(random.bounded(1000));
        if (roll < 25) { // accepted or not, nobody heard: unknown
            w.call("issue_refund", refundArgs,
                   R"("result":{"error":"upstream timeout"},"is_error":true,"error_type":"TimeoutError")",
                   true);
            ++shape.unknownWrites;
            if (random.bounded(100) < 40) { // sent again with the same intent
                w.call("issue_refund", refundArgs, refundResult(random, item.cents), true);
                ++shape.repeatedTickets;
                ++shape.performedRefunds;
            }
        } else if (roll < 30) {
            w.call("issue_refund", refundArgs,
                   R"("result":{"error":"amount exceeds the refundable balance","status":400},"is_error":true)",
                   true);
        } else {
            w.call("issue_refund", refundArgs, refundResult(random, item.cents), true);
            ++shape.performedRefunds;
        }
    };
    const auto tellSeller = [&] {
        w.call("message_seller",
               R"({"seller_id":")" + sellerId + R"(","text":"Refund issued for order )" + order
                       + R"( (damaged)."})",
               R"("result":{"status":"sent"})", true);
    };

    const int path = int(random.bounded(100));
    if (path < 50) { // refund
        w.call("get_order", orderArgs,
               R"("result":{"order_id":")" + order + R"(","refundable_cents":)" + number(item.cents) + "}",
               false);
        refund();
        w.call("get_order", orderArgs, R"("result":{"order_id":")" + order + R"(","status":"refunded"})",
               false);
        tellSeller();
        w.line("reply", R"("text":"I've refunded your order. It can take 5 to 10 days to show.")");
    } else if (path < 75) { // return with a pickup, then the refund
        if (random.bounded(100) == 0) {
            w.call("schedule_pickup", refundArgs,
                   R"("result":{"error":"gateway timeout","status":504},"is_error":true)", true);
            ++shape.unknownWrites;
        } else {
            w.call("schedule_pickup", R"({"order_id":")" + order + R"(","item_id":")" + item.id + R"("})",
                   R"("result":{"pickup_id":"pu_)" + QByteArray::number(random.generate(), 36)
                           + R"(","status":"scheduled"})",
                   true);
        }
        refund();
        w.call("get_order", orderArgs,
               R"("result":{"order_id":")" + order + R"(","status":"return_scheduled"})", false);
        tellSeller();
        w.line("reply", R"("text":"A courier will collect the item, and your refund is on its way.")");
    } else if (path < 90) { // questions only
        w.call("get_order", orderArgs, R"("result":{"order_id":")" + order + R"(","carrier":"DPD"})", false);
        w.call("search_procedures", R"({"query":"delivery times"})",
               R"("result":{"procedure":"3 to 5 days"})", false);
        w.line("reply", R"("text":"Your order was delivered; here is what to do next.")");
    } else { // a person takes over
        w.call("get_order", orderArgs, R"("result":{"order_id":")" + order + R"(","status":"disputed"})",
               false);
        w.call("escalate_to_human", R"({"reason":"customer disputes the delivery"})",
               R"("result":{"status":"escalated"})", true);
        w.line("reply", R"("text":"I've passed this to a colleague who will reply today.")");
    }
}

} // namespace

QString scaleOrderId(qint64 n)
{
    return QStringLiteral("SO-%1").arg(1000000 + n);
}

ScaleDatasetShape writeScaleDataset(const QString &path, qint64 tickets, quint32 seed, qint64 first)
{
    ScaleDatasetShape shape;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return shape;
    QRandomGenerator random(seed);
    const qint64 spacingMs = qMax<qint64>(1000, historyLengthMs / qMax<qint64>(1, tickets));
    shape.firstOpenedMs = historyStartMs + first * spacingMs;
    QByteArray buffer;
    buffer.reserve(1 << 21);
    for (qint64 n = first; n < first + tickets; ++n) {
        const qint64 opened = historyStartMs + n * spacingMs
                + qint64(random.bounded(int(qMin<qint64>(spacingMs, 1 << 30))));
        shape.lastOpenedMs = opened;
        writeTicket(buffer, n, random, opened, shape);
        if (buffer.size() > (1 << 20)) {
            if (file.write(buffer) != buffer.size())
                return {};
            shape.bytes += buffer.size();
            buffer.clear();
        }
    }
    if (file.write(buffer) != buffer.size())
        return {};
    shape.bytes += buffer.size();
    shape.tickets = tickets;
    return shape;
}

} // namespace verity::bench

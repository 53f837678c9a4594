#pragma once
// Plain records that cross the store interface. They carry no SQL and no Qt models, so a
// second backend fills the same shapes.

#include "domain/intentkey.h"
#include "domain/outcome.h"
#include "domain/toolclass.h"

#include <QList>
#include <QString>

#include <optional>

namespace verity {

enum class MessageKind { Customer, Agent, System, Reply };
QString messageKindId(MessageKind kind); // "customer", "agent", "system", "reply"
std::optional<MessageKind> messageKindFromId(QStringView id);

struct SellerRecord
{
    QString id;
    QString name;
    std::optional<qint64> balanceCents;
    qint64 balanceAsOf = 0; // ms since the epoch, UTC
};

struct OrderItemRecord
{
    QString id;
    QString title;
    qint64 quantity = 1;
    qint64 amountCents = 0;
};

struct OrderRecord
{
    QString id;
    QString currency = QStringLiteral("USD");
    QString customerName;
    QString customerEmail;
    QList<OrderItemRecord> items;
};

// ---- what the importer writes ----

struct NewTicket
{
    QString extId;
    qint64 openedAt = 0;
    QString subject;
    OrderRecord order;
    SellerRecord seller;
    QString fingerprint; // of the ticket_opened event, to tell a re-import from a conflict
};

struct TicketRef
{
    qint64 id = 0;
    QString fingerprint;
    TicketFacts facts; // ticket_id, order_id, seller_id for intent keys
    qint64 lastSeq = 0;
};

struct NewMessage
{
    qint64 ticketId = 0;
    qint64 seq = 0;
    qint64 at = 0;
    MessageKind kind = MessageKind::Customer;
    QString text;
    QString fingerprint;
};

struct NewToolCall
{
    qint64 ticketId = 0;
    qint64 seq = 0;
    QString callExtId;
    QString tool;
    ToolClass toolClass = ToolClass::Unclassified;
    QString argumentsJson;
    qint64 calledAt = 0;
    QString intentKey;
    QString intentError;
    std::optional<qint64> amountCents;
    std::optional<Outcome> outcome; // a write starts Unknown until its result says otherwise
    QString outcomeReason;
    QString fingerprint;
};

struct ToolCallRef
{
    qint64 id = 0;
    QString tool;
    ToolClass toolClass = ToolClass::Unclassified;
    QString fingerprint;
    QString resultFingerprint; // empty while the call has no result
};

struct ToolResultUpdate
{
    qint64 callId = 0;
    QString rawResult;
    qint64 at = 0;
    std::optional<qint64> durationMs;
    std::optional<Outcome> outcome; // writes only
    QString outcomeReason;
    bool readFailed = false;
    QString fingerprint;
};

struct ImportRecord
{
    QString path;
    QString sha256;
    qint64 startedAt = 0;
    qint64 linesRead = 0;
    qint64 linesRejected = 0;
};

// ---- what the console reads ----

enum class TicketFilter { All, NeedsAttention, Unknown, RepeatedIntent };
enum class TicketSortKey { Opened, Ticket, Order, Seller, Writes, WorstOutcome };

struct TicketQuery
{
    TicketFilter filter = TicketFilter::All;
    QString search; // prefix of a ticket, order or seller name
    TicketSortKey sortKey = TicketSortKey::Opened;
    bool descending = true;
};

struct TicketRow
{
    qint64 id = 0;
    QString extId;
    QString orderId;
    QString sellerName;
    QString subject;
    qint64 openedAt = 0;
    int writeCount = 0;
    std::optional<Outcome> worstOutcome;
    bool needsAttention = false;
    bool hasUnknown = false;
    bool hasRepeatedIntent = false;
};

struct TicketDetail
{
    TicketRow row;
    QString sellerId;
    std::optional<qint64> sellerBalanceCents;
    qint64 sellerBalanceAsOf = 0;
    OrderRecord order;
};

struct ToolCallRow
{
    qint64 id = 0;
    QString callExtId;
    QString tool;
    ToolClass toolClass = ToolClass::Unclassified;
    QString argumentsJson;
    qint64 calledAt = 0;
    bool hasResult = false;
    QString rawResult;
    std::optional<qint64> resultAt;
    std::optional<qint64> durationMs;
    QString intentKey;
    QString intentError;
    std::optional<Outcome> outcome;
    QString outcomeReason;
    bool readFailed = false;
    bool repeated = false;
    QStringList repeatedWith; // call ids of the other calls with the same intent key
    std::optional<qint64> amountCents;
    std::optional<qint64> escalationId;
};

struct TranscriptEntry
{
    qint64 seq = 0;
    qint64 at = 0;
    bool isToolCall = false;
    MessageKind kind = MessageKind::Customer; // messages
    QString text;                             // messages
    ToolCallRow call;                         // tool calls
};

struct EscalationRow
{
    qint64 id = 0;
    qint64 ticketId = 0;
    QString ticketExtId;
    qint64 callId = 0;
    QString callExtId;
    QString tool;
    qint64 openedAt = 0;
    std::optional<qint64> amountCents;
    QString currency;
    QString state;
};

} // namespace verity

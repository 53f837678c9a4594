#include "records.h"

namespace verity {

QString messageKindId(MessageKind kind)
{
    switch (kind) {
    case MessageKind::Customer: return QStringLiteral("customer");
    case MessageKind::Agent: return QStringLiteral("agent");
    case MessageKind::System: return QStringLiteral("system");
    case MessageKind::Reply: return QStringLiteral("reply");
    }
    Q_UNREACHABLE();
}

std::optional<MessageKind> messageKindFromId(QStringView id)
{
    for (MessageKind kind : {MessageKind::Customer, MessageKind::Agent, MessageKind::System, MessageKind::Reply}) {
        if (id == messageKindId(kind))
            return kind;
    }
    return std::nullopt;
}

QString lookupVerdictId(LookupVerdict verdict)
{
    switch (verdict) {
    case LookupVerdict::Found: return QStringLiteral("found");
    case LookupVerdict::NotFound: return QStringLiteral("not_found");
    case LookupVerdict::CouldNotTell: return QStringLiteral("could_not_tell");
    }
    Q_UNREACHABLE();
}

std::optional<LookupVerdict> lookupVerdictFromId(QStringView id)
{
    for (LookupVerdict verdict : {LookupVerdict::Found, LookupVerdict::NotFound, LookupVerdict::CouldNotTell}) {
        if (id == lookupVerdictId(verdict))
            return verdict;
    }
    return std::nullopt;
}

QString resolutionId(Resolution resolution)
{
    switch (resolution) {
    case Resolution::Performed: return QStringLiteral("performed");
    case Resolution::NotPerformed: return QStringLiteral("not_performed");
    case Resolution::PerformedAgain: return QStringLiteral("performed_again");
    }
    Q_UNREACHABLE();
}

std::optional<Resolution> resolutionFromId(QStringView id)
{
    for (Resolution resolution : {Resolution::Performed, Resolution::NotPerformed, Resolution::PerformedAgain}) {
        if (id == resolutionId(resolution))
            return resolution;
    }
    return std::nullopt;
}

bool anchorsOrder(TicketSortKey key)
{
    // Tickets of other formats may name no order or seller: those columns hold NULLs, which no
    // comparison can step past, so their orders are entered by position instead.
    return key != TicketSortKey::Order && key != TicketSortKey::Seller;
}

QVariant ticketSortValue(const TicketRow &row, TicketSortKey key)
{
    switch (key) {
    case TicketSortKey::Opened: return row.openedAt;
    case TicketSortKey::Attention: return int(row.needsAttention);
    case TicketSortKey::Ticket: return row.extId;
    case TicketSortKey::Order: return row.orderId;
    case TicketSortKey::Seller: return row.sellerName;
    case TicketSortKey::Writes: return row.writeCount;
    case TicketSortKey::WorstOutcome: return row.worstOutcome ? outcomeSeverity(*row.worstOutcome) : 0;
    }
    return {};
}

} // namespace verity

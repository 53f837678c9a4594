#include "records.h"

#include "domain/sha256.h"

namespace verity {

bool settlementContradicted(const ToolCallRow &call)
{
    return call.resolution == Resolution::NotPerformed && tookEffect(call.outcome);
}

std::optional<Outcome> knownOutcome(const ToolCallRow &call)
{
    if (settlementContradicted(call))
        return call.outcome;
    if (call.resolution)
        return *call.resolution == Resolution::NotPerformed ? Outcome::NotPerformed : Outcome::Performed;
    // A repeat whose result shows nothing new found its effect already there.
    if (call.repeatKind == RepeatKind::Harmless && call.outcome == Outcome::Performed)
        return Outcome::AlreadyPerformed;
    return call.outcome;
}

QString ticketDatingId(TicketDating dating)
{
    switch (dating) {
    case TicketDating::OwnTimes:
        return QString();
    case TicketDating::FileDate:
        return QStringLiteral("file");
    case TicketDating::FileModified:
        return QStringLiteral("file_modified");
    }
    return QString();
}

TicketDating ticketDatingFromId(QStringView id)
{
    if (id == u"file")
        return TicketDating::FileDate;
    if (id == u"file_modified")
        return TicketDating::FileModified;
    return TicketDating::OwnTimes;
}

QString messageKindId(MessageKind kind)
{
    switch (kind) {
    case MessageKind::Customer:
        return QStringLiteral("customer");
    case MessageKind::Agent:
        return QStringLiteral("agent");
    case MessageKind::System:
        return QStringLiteral("system");
    case MessageKind::Reply:
        return QStringLiteral("reply");
    }
    Q_UNREACHABLE();
}

std::optional<MessageKind> messageKindFromId(QStringView id)
{
    for (MessageKind kind :
         {MessageKind::Customer, MessageKind::Agent, MessageKind::System, MessageKind::Reply}) {
        if (id == messageKindId(kind))
            return kind;
    }
    return std::nullopt;
}

QString lookupVerdictId(LookupVerdict verdict)
{
    switch (verdict) {
    case LookupVerdict::Found:
        return QStringLiteral("found");
    case LookupVerdict::NotFound:
        return QStringLiteral("not_found");
    case LookupVerdict::CouldNotTell:
        return QStringLiteral("could_not_tell");
    }
    Q_UNREACHABLE();
}

std::optional<LookupVerdict> lookupVerdictFromId(QStringView id)
{
    for (LookupVerdict verdict :
         {LookupVerdict::Found, LookupVerdict::NotFound, LookupVerdict::CouldNotTell}) {
        if (id == lookupVerdictId(verdict))
            return verdict;
    }
    return std::nullopt;
}

QString escalationStateId(EscalationState state)
{
    return state == EscalationState::Resolved ? QStringLiteral("resolved") : QStringLiteral("open");
}

EscalationState escalationStateFromId(QStringView id)
{
    return id == u"resolved" ? EscalationState::Resolved : EscalationState::Open;
}

QString evidenceKindId(EvidenceKind kind)
{
    switch (kind) {
    case EvidenceKind::Lookup:
        return QStringLiteral("lookup");
    case EvidenceKind::Write:
        return QStringLiteral("write");
    case EvidenceKind::Attestation:
        return QStringLiteral("attestation");
    case EvidenceKind::Reconciliation:
        return QStringLiteral("reconciliation");
    }
    Q_UNREACHABLE();
}

std::optional<EvidenceKind> evidenceKindFromId(QStringView id)
{
    for (EvidenceKind kind : {EvidenceKind::Lookup, EvidenceKind::Write, EvidenceKind::Attestation,
                              EvidenceKind::Reconciliation}) {
        if (id == evidenceKindId(kind))
            return kind;
    }
    return std::nullopt;
}

QString evidenceHash(const Evidence &evidence)
{
    QByteArray out;
    appendNetstring(out, QByteArrayLiteral("verity-evidence-v1"));
    appendNetstring(out, QByteArray::number(evidence.escalationId));
    appendNetstring(out, evidenceKindId(evidence.kind).toUtf8());
    appendNetstring(out, evidence.operatorName.toUtf8());
    appendNetstring(out, QByteArray::number(evidence.startedAt));
    appendNetstring(out, QByteArray::number(evidence.finishedAt));
    appendNetstring(out, lookupVerdictId(evidence.verdict).toUtf8());
    appendNetstring(out, evidence.recordId.toUtf8());
    appendNetstring(out, evidence.reason.toUtf8());
    appendNetstring(out, evidence.request.toUtf8());
    appendNetstring(out, evidence.response.toUtf8());
    return QString::fromLatin1(sha256Hex(out));
}

QString legacyEvidenceHash(const Evidence &evidence)
{
    return QString::fromLatin1(
            sha256Hex((evidence.request + QStringLiteral("\n\n") + evidence.response).toUtf8()));
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
    case TicketSortKey::Opened:
        return row.openedAt;
    case TicketSortKey::Attention:
        return int(row.state);
    case TicketSortKey::Ticket:
        return row.extId;
    case TicketSortKey::Order:
        return row.orderId;
    case TicketSortKey::Seller:
        return row.sellerName;
    case TicketSortKey::Writes:
        return row.writeCount;
    case TicketSortKey::WorstOutcome:
        if (row.duplicateEffect)
            return duplicateEffectSeverity;
        return row.worstOutcome ? outcomeSeverity(*row.worstOutcome) : 0;
    }
    return {};
}

QString ticketName(const QString &extId, const QString &orderId)
{
    return extId.startsWith(QLatin1String("trace:")) && !orderId.isEmpty() ? orderId : extId;
}

} // namespace verity

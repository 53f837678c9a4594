#pragma once
// What one step of settling an escalation came to, for the person who took it: settled, still
// unknown, settled by someone else first, not possible, or failed, in one sentence each.

#include "domain/expected.h"
#include "store/records.h"

#include <QString>

#include <optional>

namespace verity {

struct ResolutionReport
{
    enum class Kind {
        Resolved, // settled now by this operator (see resolution)
        StillUnknown, // the evidence could not tell; the escalation stays open with the reason
        ResolvedElsewhere, // another console settled it first (see resolvedBy)
        NotPossible, // this step cannot be taken for this escalation (see message)
        Failed, // the store failed; nothing was settled
    };
    Kind kind = Kind::Failed;
    std::optional<Resolution> resolution;
    SettlementBasis basis = SettlementBasis::Lookup;
    QString reference; // the refund, pickup or message that settled it
    QString resolvedBy;
    qint64 resolvedAt = 0;
    QString message; // one sentence for the operator
    QString customerDraft; // what the customer should now be told
    std::optional<Evidence> evidence;
    // A verified "not performed" with nothing of its intent performed: the console may send it
    // once more, with the same key.
    bool mayPerformAgain = false;
    // Why it was not possible or failed, for a caller that decides by it (another person's
    // claim: StoreErrc::ClaimedByOther); Errc::Failed when nothing more is known.
    std::error_code cause = Errc::Failed;
};

// "resolved", "still_unknown", "resolved_elsewhere", "not_possible", "failed": what scripts read.
QString resolutionReportKindId(ResolutionReport::Kind kind);

ResolutionReport failedReport(const QString &message);
ResolutionReport notPossibleReport(const QString &message);
// Not possible now: another person's claim holds the escalation.
ResolutionReport heldByClaimReport(const QString &message);
// Someone settled it first: who, when and how.
ResolutionReport settledBeforeReport(const EscalationDetail &escalation);

} // namespace verity

#include "resolutionreport.h"

#include "escalationtext.h"

namespace verity {

QString resolutionReportKindId(ResolutionReport::Kind kind)
{
    switch (kind) {
    case ResolutionReport::Kind::Resolved:
        return QStringLiteral("resolved");
    case ResolutionReport::Kind::StillUnknown:
        return QStringLiteral("still_unknown");
    case ResolutionReport::Kind::ResolvedElsewhere:
        return QStringLiteral("resolved_elsewhere");
    case ResolutionReport::Kind::NotPossible:
        return QStringLiteral("not_possible");
    case ResolutionReport::Kind::Failed:
        return QStringLiteral("failed");
    }
    Q_UNREACHABLE();
}

ResolutionReport failedReport(const QString &message)
{
    ResolutionReport report;
    report.kind = ResolutionReport::Kind::Failed;
    report.message = message;
    return report;
}

ResolutionReport notPossibleReport(const QString &message)
{
    ResolutionReport report;
    report.kind = ResolutionReport::Kind::NotPossible;
    report.message = message;
    return report;
}

ResolutionReport heldByClaimReport(const QString &message)
{
    ResolutionReport report = notPossibleReport(message);
    report.cause = StoreErrc::ClaimedByOther;
    return report;
}

ResolutionReport settledBeforeReport(const EscalationDetail &escalation)
{
    ResolutionReport report;
    report.kind = ResolutionReport::Kind::ResolvedElsewhere;
    report.resolution = escalation.resolution;
    report.basis = escalation.basis;
    report.reference = escalation.reference;
    report.resolvedBy = escalation.resolvedBy;
    report.resolvedAt = escalation.resolvedAt;
    report.message = settledByText(escalation.resolvedBy, escalation.resolvedAt,
                                   escalation.resolution.value_or(Resolution::Performed), escalation.basis);
    return report;
}

} // namespace verity

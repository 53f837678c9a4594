#include "auditaction.h"

#include "store/financerecords.h"

namespace verity::auditaction {

QString words(const QString &action)
{
    static const std::pair<const QString &, const char *> known[] = {
            {lookup, "Looked up"},
            {attest, "Attested"},
            {reconciliation, "Reconciled"},
            {writeStarted, "Sending"},
            {refundSent, "Refund sent"},
            {recordSent, "Write sent"},
            {settle, "Settled"},
            {legacyResolve, "Settled"},
            {legacyWrite, "Refund sent"},
            {paymentEntered, "Payment entered"},
            {claim, "Claimed"},
            {release, "Claim released"},
    };
    for (const auto &[id, text] : known) {
        if (action == id)
            return QString::fromLatin1(text);
    }
    // Finance's marks on duplicate payouts are recorded under their state's id.
    if (action == recoveryStateId(RecoveryState::RecoveryRequested))
        return QStringLiteral("Recovery requested");
    if (action == recoveryStateId(RecoveryState::Recovered))
        return QStringLiteral("Recovered");
    return action;
}

bool citesEvidence(const QString &action)
{
    // A legacy "resolve" entry carried its lookup's hash; a legacy "write" entry's evidence was
    // never stored, so it cites nothing that can be checked. A write started before its plan was
    // kept as evidence cites nothing either; the caller skips entries with no hash.
    return action == lookup || action == attest || action == reconciliation || action == refundSent
            || action == recordSent || action == writeStarted || action == legacyResolve;
}

} // namespace verity::auditaction

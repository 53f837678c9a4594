#include "settlement.h"

namespace verity {

QString resolutionId(Resolution resolution)
{
    switch (resolution) {
    case Resolution::Performed:
        return QStringLiteral("performed");
    case Resolution::NotPerformed:
        return QStringLiteral("not_performed");
    case Resolution::PerformedAgain:
        return QStringLiteral("performed_again");
    }
    Q_UNREACHABLE();
}

std::optional<Resolution> resolutionFromId(QStringView id)
{
    for (Resolution resolution :
         {Resolution::Performed, Resolution::NotPerformed, Resolution::PerformedAgain}) {
        if (id == resolutionId(resolution))
            return resolution;
    }
    return std::nullopt;
}

QString settlementBasisId(SettlementBasis basis)
{
    switch (basis) {
    case SettlementBasis::Lookup:
        return QStringLiteral("lookup");
    case SettlementBasis::Attestation:
        return QStringLiteral("attestation");
    case SettlementBasis::Reconciliation:
        return QStringLiteral("reconciliation");
    }
    Q_UNREACHABLE();
}

std::optional<SettlementBasis> settlementBasisFromId(QStringView id)
{
    for (SettlementBasis basis :
         {SettlementBasis::Lookup, SettlementBasis::Attestation, SettlementBasis::Reconciliation}) {
        if (id == settlementBasisId(basis))
            return basis;
    }
    return std::nullopt;
}

QString settlementText(Resolution resolution, SettlementBasis basis)
{
    if (resolution == Resolution::PerformedAgain)
        return QStringLiteral("performed again with the same key");
    const QString what = resolution == Resolution::Performed ? QStringLiteral("performed")
                                                             : QStringLiteral("not performed");
    switch (basis) {
    case SettlementBasis::Lookup:
        return what + QStringLiteral(" (verified)");
    case SettlementBasis::Attestation:
        return what + QStringLiteral(" (attested)");
    case SettlementBasis::Reconciliation:
        return what + QStringLiteral(" (verified by reconciliation)");
    }
    Q_UNREACHABLE();
}

std::optional<Outcome> settledOutcome(const std::optional<Outcome> &reported,
                                      const std::optional<Resolution> &resolution)
{
    if (!resolution)
        return reported;
    if (*resolution == Resolution::NotPerformed)
        return tookEffect(reported) ? reported : std::optional<Outcome>(Outcome::NotPerformed);
    return Outcome::Performed;
}

bool provedAbsent(const std::optional<Outcome> &reported, const std::optional<Resolution> &resolution,
                  const std::optional<SettlementBasis> &basis)
{
    return basis == SettlementBasis::Lookup && settledAbsent(reported, resolution);
}

bool settledAbsent(const std::optional<Outcome> &reported, const std::optional<Resolution> &resolution)
{
    return resolution == Resolution::NotPerformed && !tookEffect(reported);
}

QString payoutEffectId(PayoutEffect effect)
{
    return effect == PayoutEffect::Performed ? QStringLiteral("performed") : QStringLiteral("unknown");
}

PayoutStanding payoutStanding(Outcome reported, const std::optional<Resolution> &resolution,
                              const std::optional<SettlementBasis> &basis)
{
    if (resolution == Resolution::NotPerformed)
        return basis == SettlementBasis::Attestation ? PayoutStanding{PayoutEffect::Unknown, true}
                                                     : PayoutStanding{std::nullopt, false};
    if (reported == Outcome::Performed || resolution)
        return {PayoutEffect::Performed, false};
    return {PayoutEffect::Unknown, false};
}

} // namespace verity

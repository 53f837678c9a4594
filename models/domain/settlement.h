#pragma once
// How an unknown write was settled, and what the settlement makes of the write: the rules the
// ticket's assessment, the console and finance all follow. The store only spells them.

#include "domain/outcome.h"
#include "domain/toolclass.h"

#include <QString>
#include <QStringView>

#include <optional>

namespace verity {

// How an escalation was settled: the write happened, it did not, or it did not and was then
// performed from the console with the same key.
enum class Resolution { Performed, NotPerformed, PerformedAgain };
QString resolutionId(Resolution resolution); // "performed", "not_performed", "performed_again"
std::optional<Resolution> resolutionFromId(QStringView id);

// What a settlement rests on. A lookup and a reconciliation are the system's own records, so
// they verify; an attestation is a person's word about a system Verity cannot ask, and is
// never shown as verified.
enum class SettlementBasis { Lookup, Attestation, Reconciliation };
QString settlementBasisId(SettlementBasis basis); // "lookup", "attestation", "reconciliation"
std::optional<SettlementBasis> settlementBasisFromId(QStringView id);
// "performed (verified)", "not performed (attested)", "performed (verified by reconciliation)",
// "performed again with the same key": the words every view uses for a settled write.
QString settlementText(Resolution resolution, SettlementBasis basis);

// What a write counts as once its escalation is settled. The evidence (a lookup, a
// reconciliation) stands in for the unknown the tool reported. But the tool's own answer that
// the write took effect (one that came after the settlement) outranks a "not performed": the
// write happened, and a repeat of it is a second effect.
std::optional<Outcome> settledOutcome(const std::optional<Outcome> &reported,
                                      const std::optional<Resolution> &resolution);

// Whether a write is proved not to have happened, so that sending it again with the same key is
// the way forward. A lookup proves it; so does a person's word for a refund, because the
// provider can always be asked again before it is sent. Never when the tool said it took effect.
bool provedAbsent(ToolClass toolClass, const std::optional<Outcome> &reported,
                  const std::optional<Resolution> &resolution, const std::optional<SettlementBasis> &basis);

// What a money write adds to finance's sums.
enum class PayoutEffect {
    Performed, // the result said so, or a lookup or a console write proved it
    Unknown, // may have moved: awaiting a lookup (an escalation is open)
};
QString payoutEffectId(PayoutEffect effect); // "performed", "unknown"

struct PayoutStanding
{
    std::optional<PayoutEffect> effect; // nullopt: the write moved nothing
    bool attestedAbsent = false; // Unknown only because a person's check says it was not made
};
// A money write the tool reported as performed or unknown, after its settlement if it has one.
// A person's word that money did not move is not the provider's: finance keeps such a refund
// as one that may have moved, so a provider record of it still finds its call. The provider's
// own records (a lookup, a reconciliation) that it did not happen outrank what the tool said.
PayoutStanding payoutStanding(Outcome reported, const std::optional<Resolution> &resolution,
                              const std::optional<SettlementBasis> &basis);

} // namespace verity

#pragma once
// How an unknown write was settled, and what the settlement makes of the write: the rules the
// ticket's assessment, the console and finance all follow. The store only spells them.

#include "domain/outcome.h"

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

// Whether a lookup proved that a write did not happen: the only settlement after which it may be
// sent again with the same key. A person's check is their word, not the system's: a write they
// found absent is asked about again before it is sent. Never when the tool said it took effect.
bool provedAbsent(const std::optional<Outcome> &reported, const std::optional<Resolution> &resolution,
                  const std::optional<SettlementBasis> &basis);

// Whether a write's own settlement leaves it owed to the customer: settled "not performed",
// whichever way (a lookup, or a person's check of any class), and never said by the tool to have
// taken effect. Unless another call of its intent took effect, the ticket needs a look until it
// is performed or the customer is told (TicketAssessment::owesWrite).
bool settledAbsent(const std::optional<Outcome> &reported, const std::optional<Resolution> &resolution);

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

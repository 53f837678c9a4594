#pragma once
// Claims on escalations, as an operator makes them: one person at a time works on an
// escalation. A claim is a lease (15 minutes unless told otherwise) that the console renews
// while its dialog is open and gives back when it closes; a claim that lapses (a console
// killed) frees the escalation by itself. Taking a claim and giving one back are audited;
// renewing one is not (it changes nobody's rights).

#include "domain/expected.h"
#include "store/records.h"

#include <functional>

namespace verity {

class ClaimStore;

class EscalationClaims
{
public:
    static constexpr qint64 defaultLeaseMs = 15 * 60 * 1000;
    using Clock = std::function<qint64()>; // ms since the epoch, UTC

    EscalationClaims(ClaimStore &store, QString operatorName, Clock clock = {});

    void setLease(qint64 ms) { m_leaseMs = ms; }
    // How often the holder renews the claims taken here (a console, while its dialog is open);
    // kept with each claim, so that one that stopped being renewed can be told apart.
    void setRenewal(qint64 everyMs) { m_renewsEveryMs = everyMs; }
    qint64 lease() const { return m_leaseMs; }
    const QString &operatorName() const { return m_operator; }

    // Takes the escalation, or renews this operator's claim. Not taken (claim.taken false) when
    // another holds it: `holder` and `until` say who and how long.
    Expected<EscalationClaim> claim(qint64 escalationId);
    // Extends this operator's claim while they still hold it; not taken (and nothing claimed)
    // when it lapsed or was released, so a dialog left open never takes back a released claim.
    Expected<EscalationClaim> renew(qint64 escalationId);
    // The oldest open escalation nobody holds, taken; nullopt when every one is settled or held.
    Expected<std::optional<EscalationClaim>> claimNext();
    // Gives this operator's claim back; false when they held none.
    Expected<bool> release(qint64 escalationId);
    // Takes anyone's claim off an escalation (an admin's release), saying whose it was.
    Expected<bool> releaseAnyone(qint64 escalationId);

    // Why this operator may not act on `escalation` now, or empty when they may: another
    // operator's claim holds it.
    QString refusal(const EscalationDetail &escalation) const;

private:
    Expected<bool> releaseAs(qint64 escalationId, const QString &whose);

    ClaimStore &m_store;
    QString m_operator;
    Clock m_clock;
    qint64 m_leaseMs = defaultLeaseMs;
    qint64 m_renewsEveryMs = 0;
};

// "ben, until 14:32" as a person reads a claim, in local time (with the date when not today).
QString claimWords(const QString &holder, qint64 until);
QString claimEndWords(qint64 until); // "14:32"

} // namespace verity

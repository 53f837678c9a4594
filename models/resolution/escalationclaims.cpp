#include "escalationclaims.h"

#include "audit/auditaction.h"
#include "audit/auditlog.h"
#include "store/store.h"

#include <QDateTime>

namespace verity {

EscalationClaims::EscalationClaims(ClaimStore &store, QString operatorName, Clock clock)
    : m_store(store)
    , m_operator(std::move(operatorName))
    , m_clock(clock ? std::move(clock) : Clock([] { return QDateTime::currentMSecsSinceEpoch(); }))
{}

namespace {

// The audit keeps times as UTC, whatever the console's time zone.
QString utcText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODate);
}

Expected<EscalationDetail> existingEscalation(ClaimStore &store, qint64 escalationId)
{
    Expected<std::optional<EscalationDetail>> found = store.escalation(escalationId);
    if (!found)
        return found.error();
    if (!*found)
        return makeError(InputErrc::Missing,
                         QStringLiteral("escalation %1 does not exist").arg(escalationId));
    return **found;
}

// One claim change and its audit entry, together or not at all.
template<typename Change>
auto auditedChange(ClaimStore &store, Change change) -> decltype(change())
{
    if (Expected<void> begun = store.begin(); !begun)
        return begun.error();
    auto done = change();
    if (!done) {
        store.rollback();
        return done;
    }
    if (Expected<void> committed = store.commit(); !committed)
        return committed.error();
    return done;
}

} // namespace

Expected<EscalationClaim> EscalationClaims::renew(qint64 escalationId)
{
    Expected<EscalationDetail> current = existingEscalation(m_store, escalationId);
    if (!current)
        return current.error();
    if (current->claimedBy != m_operator || !claimHeld(current->claimedBy, current->claimedUntil, m_clock()))
        return EscalationClaim{escalationId, current->claimedBy, current->claimedUntil, false};
    return claim(escalationId);
}

Expected<EscalationClaim> EscalationClaims::claim(qint64 escalationId)
{
    if (m_operator.trimmed().isEmpty())
        return makeError(InputErrc::Invalid, QStringLiteral("claiming needs an operator name"));
    return auditedChange(m_store, [&]() -> Expected<EscalationClaim> {
        const qint64 now = m_clock();
        Expected<EscalationDetail> before = existingEscalation(m_store, escalationId);
        if (!before)
            return before.error();
        const bool renewal =
                before->claimedBy == m_operator && claimHeld(before->claimedBy, before->claimedUntil, now);
        Expected<EscalationClaim> claimed =
                m_store.claimEscalation(escalationId, m_operator, now, now + m_leaseMs, m_renewsEveryMs);
        if (!claimed || !claimed->taken || renewal)
            return claimed;
        Expected<AuditEntry> entry = AuditLog(m_store).append(
                m_operator, auditaction::claim, escalationId,
                QStringLiteral("claimed %1 of %2 until %3")
                        .arg(before->callExtId, before->ticketExtId, utcText(claimed->until)),
                QString(), now);
        if (!entry)
            return entry.error();
        return claimed;
    });
}

Expected<std::optional<EscalationClaim>> EscalationClaims::claimNext()
{
    if (m_operator.trimmed().isEmpty())
        return makeError(InputErrc::Invalid, QStringLiteral("claiming needs an operator name"));
    return auditedChange(m_store, [&]() -> Expected<std::optional<EscalationClaim>> {
        const qint64 now = m_clock();
        Expected<std::optional<EscalationClaim>> claimed =
                m_store.claimNextEscalation(m_operator, now, now + m_leaseMs, m_renewsEveryMs);
        if (!claimed || !*claimed)
            return claimed;
        Expected<AuditEntry> entry = AuditLog(m_store).append(
                m_operator, auditaction::claim, (*claimed)->escalationId,
                QStringLiteral("claimed as the next in the queue, until %1").arg(utcText((*claimed)->until)),
                QString(), now);
        if (!entry)
            return entry.error();
        return claimed;
    });
}

Expected<bool> EscalationClaims::release(qint64 escalationId)
{
    return releaseAs(escalationId, m_operator);
}

Expected<bool> EscalationClaims::releaseAnyone(qint64 escalationId)
{
    return releaseAs(escalationId, QString());
}

Expected<bool> EscalationClaims::releaseAs(qint64 escalationId, const QString &whose)
{
    return auditedChange(m_store, [&]() -> Expected<bool> {
        const qint64 now = m_clock();
        Expected<EscalationDetail> before = existingEscalation(m_store, escalationId);
        if (!before)
            return before.error();
        const QString holder = before->claimedBy;
        const bool held = claimHeld(holder, before->claimedUntil, now);
        Expected<bool> released = m_store.releaseEscalationClaim(escalationId, whose);
        // A lapsed claim given back changes nobody's rights: nothing to audit.
        if (!released || !*released || !held)
            return released;
        const QString call = QStringLiteral("%1 of %2").arg(before->callExtId, before->ticketExtId);
        const QString detail = holder == m_operator
                ? QStringLiteral("gave back %1").arg(call)
                : QStringLiteral("released %1's claim on %2").arg(holder, call);
        Expected<AuditEntry> entry = AuditLog(m_store).append(m_operator, auditaction::release, escalationId,
                                                              detail, QString(), now);
        if (!entry)
            return entry.error();
        return released;
    });
}

QString EscalationClaims::refusal(const EscalationDetail &escalation) const
{
    if (!claimHeld(escalation.claimedBy, escalation.claimedUntil, m_clock())
        || escalation.claimedBy == m_operator)
        return QString();
    return QStringLiteral(
                   "%1 has claimed this escalation until %2 and is working on it; ask them, or an admin "
                   "to release the claim")
            .arg(escalation.claimedBy, claimEndWords(escalation.claimedUntil));
}

QString claimEndWords(qint64 until)
{
    const QDateTime end = QDateTime::fromMSecsSinceEpoch(until).toLocalTime();
    const bool today = end.date() == QDate::currentDate();
    return end.toString(today ? QStringLiteral("HH:mm") : QStringLiteral("yyyy-MM-dd HH:mm"));
}

QString claimWords(const QString &holder, qint64 until)
{
    return QStringLiteral("%1, until %2").arg(holder, claimEndWords(until));
}

} // namespace verity

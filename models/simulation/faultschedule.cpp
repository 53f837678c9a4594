#include "faultschedule.h"

#include "seededrandom.h"

namespace verity {

FaultSchedule::FaultSchedule(quint32 seed, double rate)
    : m_seed(seed)
    , m_rate(qBound(0.0, rate, 1.0))
{}

FaultSchedule FaultSchedule::fixed(QList<int> stalledAttempts, bool readsDown)
{
    FaultSchedule schedule;
    schedule.m_fixedStalls = std::move(stalledAttempts);
    schedule.m_fixedReadsDown = readsDown;
    return schedule;
}

bool FaultSchedule::postStalls(int ticket, int attempt) const
{
    if (m_fixedStalls)
        return ticket == 0 && m_fixedStalls->contains(attempt);
    if (m_rate <= 0)
        return false;
    QRandomGenerator random =
            seededGenerator(m_seed, RandomStream::Faults, quint32(ticket), quint32(attempt));
    return random.generateDouble() < m_rate;
}

bool FaultSchedule::readsDown(int ticket) const
{
    if (m_fixedStalls)
        return ticket == 0 && m_fixedReadsDown;
    if (m_rate <= 0)
        return false;
    // Sub-stream 0: attempts count from 1, so this never shares a generator with a POST.
    QRandomGenerator random = seededGenerator(m_seed, RandomStream::Faults, quint32(ticket), 0);
    return random.generateDouble() < m_rate;
}

QString FaultSchedule::faultsFor(int ticket, int attempt, int stallMs) const
{
    if (!postStalls(ticket, attempt))
        return {};
    QString faults = QStringLiteral("accept-then-stall=%1ms").arg(stallMs);
    if (readsDown(ticket))
        faults += QStringLiteral(",fail-before-accept=503");
    return faults;
}

} // namespace verity

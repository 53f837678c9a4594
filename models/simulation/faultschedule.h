#pragma once
// The faults a simulated run meets, owned by the simulator and decided by the seed and by
// where a request stands in its ticket (ticket index, attempt number), never by when it
// arrives at the provider. Each request carries its fault to the sandbox itself (the
// Sandbox-Fault grammar of sandboxfault.h), so the sandbox needs no plan of its own.
//
// With fault rate P:
//  - each refund POST (ticket t, attempt a) meets accept-then-stall with probability P: the
//    provider commits the refund and holds its answer past the client's timeout, as in the
//    March incident;
//  - independently, with the same probability P, the provider's read API is down for ticket t:
//    every lookup GET after an ambiguous POST of that ticket is answered 503, so the safe
//    runtime cannot tell what happened (unknown: escalate). It never strikes a POST.

#include <QList>
#include <QString>

#include <optional>

namespace verity {

class FaultSchedule
{
public:
    FaultSchedule() = default; // no faults at all
    FaultSchedule(quint32 seed, double rate);
    // A replayed incident: exactly these attempts (1-based) of ticket 0 stall; reads as given.
    static FaultSchedule fixed(QList<int> stalledAttempts, bool readsDown = false);

    double rate() const { return m_rate; }
    bool postStalls(int ticket, int attempt) const;
    bool readsDown(int ticket) const;

    // The Sandbox-Fault value for the requests of one refund attempt, empty for none:
    // "accept-then-stall=<stallMs>ms", followed by ",fail-before-accept=503" when the reads
    // are down (a POST meets the first fault, a lookup GET the second).
    QString faultsFor(int ticket, int attempt, int stallMs) const;

private:
    quint32 m_seed = 0;
    double m_rate = 0;
    std::optional<QList<int>> m_fixedStalls;
    bool m_fixedReadsDown = false;
};

} // namespace verity

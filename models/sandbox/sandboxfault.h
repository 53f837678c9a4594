#pragma once
// The faults the sandbox can inject into a write (a refund, a pickup, a message), named by
// where they strike relative to the commit. Asked per request with the `Sandbox-Fault` header, or server-wide
// with a probability and a seed, so a demo or a test can produce exactly the timeout that started the March
// incident, and a random schedule can be replayed.

#include <QList>
#include <QRandomGenerator>
#include <QString>

#include <optional>

namespace verity {

struct SandboxFault
{
    enum class Kind {
        AcceptThenStall, // commit the write, then hold the answer (the client times out)
        FailBeforeAccept, // answer an error status; nothing is committed or stored for the key
        AcceptThenError, // commit the write, then answer 500
    };
    Kind kind = Kind::FailBeforeAccept;
    int stallSeconds = 0; // AcceptThenStall, written in seconds
    int status = 503; // FailBeforeAccept
    int stallMilliseconds = 0; // AcceptThenStall, written in milliseconds (0: see stallSeconds)

    // Exactly "accept-then-stall=<N>s" (N whole seconds, at most 3600),
    // "accept-then-stall=<N>ms" (N milliseconds, at most 3600000: a simulator compresses time),
    // "fail-before-accept=<status>" (a 4xx or 5xx of failureStatuses()) or "accept-then-500".
    static std::optional<SandboxFault> parse(const QString &text);
    // One fault, or several separated by commas ("accept-then-stall=600ms,fail-before-accept=503"):
    // a request then meets the first one that applies to it (see appliesTo), so one value can
    // name what a write POST meets and what the lookups after it meet. nullopt: a bad entry.
    static std::optional<QList<SandboxFault>> parseList(const QString &text);
    static const QList<int> &failureStatuses();
    static QString forms();
    QString text() const;
    bool strikesAfterCommit() const { return kind != Kind::FailBeforeAccept; }
    // accept-then-* strike the POSTs that write (refunds, pickups, messages) only;
    // fail-before-accept strikes any request.
    bool appliesTo(bool writePost) const { return writePost || !strikesAfterCommit(); }
    int stallMs() const { return stallMilliseconds > 0 ? stallMilliseconds : stallSeconds * 1000; }
};

// The server-wide fault: each write POST draws once from a generator seeded with the given
// seed, so the same seed and the same requests give the same faults.
class SandboxFaultPlan
{
public:
    SandboxFaultPlan() = default;
    SandboxFaultPlan(double rate, SandboxFault mode, quint32 seed);

    std::optional<SandboxFault> draw();

private:
    double m_rate = 0;
    std::optional<SandboxFault> m_mode;
    QRandomGenerator m_random;
};

} // namespace verity

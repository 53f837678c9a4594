#pragma once
// The faults the sandbox can inject into a refund, named by where they strike relative to
// the commit. Asked per request with the `Sandbox-Fault` header, or server-wide with a
// probability and a seed, so a demo or a test can produce exactly the timeout that started
// the March incident, and a random schedule can be replayed.

#include <QList>
#include <QRandomGenerator>
#include <QString>

#include <optional>

namespace verity {

struct SandboxFault
{
    enum class Kind {
        AcceptThenStall,  // commit the refund, then hold the answer (the client times out)
        FailBeforeAccept, // answer an error status; nothing is committed or stored for the key
        AcceptThenError,  // commit the refund, then answer 500
    };
    Kind kind = Kind::FailBeforeAccept;
    int stallSeconds = 0; // AcceptThenStall
    int status = 503;     // FailBeforeAccept

    // Exactly "accept-then-stall=<N>s" (N whole seconds, at most 3600),
    // "fail-before-accept=<status>" (a 4xx or 5xx of failureStatuses()) or "accept-then-500".
    static std::optional<SandboxFault> parse(const QString &text);
    static const QList<int> &failureStatuses();
    static QString forms();
    QString text() const;
    bool strikesAfterCommit() const { return kind != Kind::FailBeforeAccept; }
};

// The server-wide fault: each refund request draws once from a generator seeded with the
// given seed, so the same seed and the same requests give the same faults.
class SandboxFaultPlan
{
public:
    SandboxFaultPlan() = default;
    SandboxFaultPlan(double rate, SandboxFault mode, quint32 seed);

    bool active() const { return m_mode.has_value() && m_rate > 0; }
    std::optional<SandboxFault> draw();

private:
    double m_rate = 0;
    std::optional<SandboxFault> m_mode;
    QRandomGenerator m_random;
};

} // namespace verity

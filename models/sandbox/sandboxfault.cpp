#include "sandboxfault.h"

#include <QRegularExpression>
#include <QStringList>

namespace verity {

std::optional<SandboxFault> SandboxFault::parse(const QString &text)
{
    static const QRegularExpression stall(QStringLiteral("^accept-then-stall=([0-9]{1,4})s$"));
    static const QRegularExpression stallMs(QStringLiteral("^accept-then-stall=([0-9]{1,7})ms$"));
    static const QRegularExpression fail(QStringLiteral("^fail-before-accept=([0-9]{3})$"));
    if (text == u"accept-then-500")
        return SandboxFault{Kind::AcceptThenError, 0, 500};
    if (const QRegularExpressionMatch match = stall.match(text); match.hasMatch()) {
        const int seconds = match.captured(1).toInt();
        if (seconds > 3600)
            return std::nullopt;
        return SandboxFault{Kind::AcceptThenStall, seconds, 0};
    }
    if (const QRegularExpressionMatch match = stallMs.match(text); match.hasMatch()) {
        const int milliseconds = match.captured(1).toInt();
        if (milliseconds < 1 || milliseconds > 3600 * 1000)
            return std::nullopt;
        SandboxFault fault{Kind::AcceptThenStall, 0, 0};
        fault.stallMilliseconds = milliseconds;
        return fault;
    }
    if (const QRegularExpressionMatch match = fail.match(text); match.hasMatch()) {
        const int status = match.captured(1).toInt();
        if (!failureStatuses().contains(status))
            return std::nullopt;
        return SandboxFault{Kind::FailBeforeAccept, 0, status};
    }
    return std::nullopt;
}

std::optional<QList<SandboxFault>> SandboxFault::parseList(const QString &text)
{
    QList<SandboxFault> faults;
    for (const QString &entry : text.split(u',')) {
        const std::optional<SandboxFault> fault = parse(entry.trimmed());
        if (!fault)
            return std::nullopt;
        faults.append(*fault);
    }
    return faults;
}

const QList<int> &SandboxFault::failureStatuses()
{
    // The statuses Qt HttpServer can write a reason phrase for, and a client can meet.
    static const QList<int> statuses = {400, 401, 402, 403, 404, 405, 408, 409, 410,
                                        413, 415, 422, 429, 500, 501, 502, 503, 504};
    return statuses;
}

QString SandboxFault::forms()
{
    QStringList statuses;
    for (int status : failureStatuses())
        statuses.append(QString::number(status));
    return QStringLiteral("accept-then-stall=<N>s (N whole seconds up to 3600), accept-then-stall=<N>ms "
                          "(N milliseconds up to 3600000), fail-before-accept=<status> (one of %1) or "
                          "accept-then-500")
            .arg(statuses.join(QStringLiteral(", ")));
}

QString SandboxFault::text() const
{
    switch (kind) {
    case Kind::AcceptThenStall:
        return stallMilliseconds > 0 ? QStringLiteral("accept-then-stall=%1ms").arg(stallMilliseconds)
                                     : QStringLiteral("accept-then-stall=%1s").arg(stallSeconds);
    case Kind::FailBeforeAccept:
        return QStringLiteral("fail-before-accept=%1").arg(status);
    case Kind::AcceptThenError:
        return QStringLiteral("accept-then-500");
    }
    return {};
}

SandboxFaultPlan::SandboxFaultPlan(double rate, SandboxFault mode, quint32 seed)
    : m_rate(rate)
    , m_mode(mode)
    , m_random(seed)
{}

std::optional<SandboxFault> SandboxFaultPlan::draw()
{
    if (!m_mode)
        return std::nullopt;
    // Draw even at rate 0 or 1, so the sequence depends on the seed and the requests alone.
    const double roll = m_random.generateDouble();
    return roll < m_rate ? m_mode : std::nullopt;
}

} // namespace verity

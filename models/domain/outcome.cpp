#include "outcome.h"

namespace verity {

QString outcomeId(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Performed:
        return QStringLiteral("performed");
    case Outcome::AlreadyPerformed:
        return QStringLiteral("already_performed");
    case Outcome::NotPerformed:
        return QStringLiteral("not_performed");
    case Outcome::Unknown:
        return QStringLiteral("unknown");
    }
    Q_UNREACHABLE();
}

std::optional<Outcome> outcomeFromId(QStringView id)
{
    for (Outcome outcome : allOutcomes) {
        if (id == outcomeId(outcome))
            return outcome;
    }
    return std::nullopt;
}

QString outcomeLabel(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Performed:
        return QStringLiteral("Performed");
    case Outcome::AlreadyPerformed:
        return QStringLiteral("Already performed");
    case Outcome::NotPerformed:
        return QStringLiteral("Not performed");
    case Outcome::Unknown:
        return QStringLiteral("Unknown: do not retry");
    }
    Q_UNREACHABLE();
}

int outcomeSeverity(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Performed:
        return 1;
    case Outcome::AlreadyPerformed:
        return 2;
    case Outcome::NotPerformed:
        return 3;
    case Outcome::Unknown:
        return 4;
    }
    Q_UNREACHABLE();
}

std::optional<Outcome> outcomeFromSeverity(int severity)
{
    for (Outcome outcome : allOutcomes) {
        if (outcomeSeverity(outcome) == severity)
            return outcome;
    }
    return std::nullopt;
}

bool tookEffect(const std::optional<Outcome> &outcome)
{
    return outcome == Outcome::Performed || outcome == Outcome::AlreadyPerformed;
}

bool outcomeNeedsEscalation(Outcome outcome)
{
    return outcome == Outcome::Unknown;
}

bool outcomeAllowsRepeatWithSameKey(Outcome outcome)
{
    return outcome == Outcome::NotPerformed;
}

} // namespace verity

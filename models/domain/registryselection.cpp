#include "registryselection.h"

#include <QFile>

#include <algorithm>

namespace verity {

QStringList builtInProfileNames()
{
    return {QStringLiteral("default"), QStringLiteral("tau-retail"), QStringLiteral("tau-airline"),
            QStringLiteral("tau-telecom")};
}

Expected<ToolRegistry> builtInProfile(const QString &name)
{
    if (!builtInProfileNames().contains(name))
        return makeError(QStringLiteral("no registry profile named \"%1\"; the profiles are %2")
                                 .arg(name, builtInProfileNames().join(QStringLiteral(", "))));
    if (name == QLatin1String("default"))
        return ToolRegistry::builtIn();
    QFile file(QStringLiteral(":/verity/registry/%1.json").arg(name));
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("the registry profile \"%1\" is missing from this build").arg(name));
    return ToolRegistry::fromJson(file.readAll(), name + QStringLiteral(".json"));
}

RegistrySelection RegistrySelection::automatic(QList<NamedRegistry> profiles)
{
    RegistrySelection selection;
    if (!profiles.isEmpty())
        selection.m_profiles = std::move(profiles);
    return selection;
}

RegistrySelection RegistrySelection::forced(NamedRegistry registry)
{
    RegistrySelection selection;
    selection.m_profiles = {std::move(registry)};
    selection.m_forced = true;
    return selection;
}

const NamedRegistry &RegistrySelection::choose(const QStringList &tools, const QString &preferred) const
{
    if (tools.isEmpty() && !preferred.isEmpty())
        return byName(preferred); // a conversation without calls says nothing about its domain
    const NamedRegistry *best = &m_profiles.first();
    int bestScore = -1;
    for (const NamedRegistry &profile : m_profiles) {
        int score = 0;
        for (const QString &tool : tools)
            score += profile.registry.find(tool) ? 1 : 0;
        if (score > bestScore || (score == bestScore && score > 0 && profile.name == preferred)) {
            best = &profile;
            bestScore = score;
        }
    }
    return bestScore > 0 ? *best : m_profiles.first();
}

bool RegistrySelection::has(const QString &name) const
{
    return std::any_of(m_profiles.cbegin(), m_profiles.cend(),
                       [&name](const NamedRegistry &profile) { return profile.name == name; });
}

const NamedRegistry &RegistrySelection::byName(const QString &name) const
{
    for (const NamedRegistry &profile : m_profiles) {
        if (profile.name == name)
            return profile;
    }
    return m_profiles.first();
}

} // namespace verity

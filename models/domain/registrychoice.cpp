#include "registrychoice.h"

#include <QFileInfo>
#include <QStandardPaths>

namespace verity {

QString defaultUserRegistryPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation)
            + QStringLiteral("/registry.json");
}

namespace {

// The user's file on top of `base`; a bad user file is a warning and `base` stays.
ToolRegistry withUserFile(const ToolRegistry &base, const QString &userFile, QStringList &warnings)
{
    if (userFile.isEmpty() || !QFileInfo::exists(userFile))
        return base;
    Expected<ToolRegistry> extended = base.extendedWithFile(userFile);
    if (extended)
        return *extended;
    const QString warning =
            extended.message() + QStringLiteral(" (ignored; the registry before it stays in force)");
    if (!warnings.contains(warning))
        warnings << warning;
    return base;
}

} // namespace

Expected<RegistryChoice> chooseRegistry(const RegistrySource &source)
{
    RegistryChoice choice;
    if (source.forced.isEmpty()) {
        QList<NamedRegistry> profiles;
        for (const QString &name : builtInProfileNames()) {
            Expected<ToolRegistry> profile = builtInProfile(name);
            if (!profile) {
                choice.warnings << profile.message();
                continue;
            }
            profiles.append({name, withUserFile(*profile, source.userFile, choice.warnings)});
        }
        choice.selection = RegistrySelection::automatic(profiles);
        return choice;
    }

    if (builtInProfileNames().contains(source.forced)) {
        Expected<ToolRegistry> profile = builtInProfile(source.forced);
        if (!profile)
            return profile.error();
        choice.selection = RegistrySelection::forced(
                {source.forced, withUserFile(*profile, source.userFile, choice.warnings)});
        return choice;
    }
    if (!QFileInfo::exists(source.forced))
        return makeError(
                InputErrc::Missing,
                QStringLiteral("--registry %1: neither a registry profile (%2) nor a file that exists")
                        .arg(source.forced, builtInProfileNames().join(QStringLiteral(", "))));
    // Asked for by name: going on without it would mislead, so a bad file is an error.
    const ToolRegistry base = withUserFile(ToolRegistry::builtIn(), source.userFile, choice.warnings);
    Expected<ToolRegistry> extended = base.extendedWithFile(source.forced);
    if (!extended)
        return makeError(InputErrc::Invalid, extended.message());
    choice.selection = RegistrySelection::forced({QFileInfo(source.forced).fileName(), *extended});
    return choice;
}

RegistrySelection automaticRegistries(const QString &userFile)
{
    Expected<RegistryChoice> choice = chooseRegistry(RegistrySource{QString(), userFile});
    return choice->selection;
}

} // namespace verity

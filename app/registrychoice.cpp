#include "registrychoice.h"

#include <QFileInfo>
#include <QStandardPaths>

namespace verity {

QString userRegistryPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + QStringLiteral("/registry.json");
}

RegistryChoice chooseRegistry(const QString &extraFile)
{
    RegistryChoice choice{ToolRegistry::builtIn(), {}, {}};
    QStringList files;
    if (QFileInfo::exists(userRegistryPath()))
        files << userRegistryPath();
    if (!extraFile.isEmpty())
        files << extraFile;
    for (const QString &file : std::as_const(files)) {
        Expected<ToolRegistry> extended = choice.registry.extendedWithFile(file);
        if (extended)
            choice.registry = *extended;
        else if (file == extraFile)
            choice.error = extended.message(); // asked for by name: going on without it would mislead
        else
            choice.warnings << extended.message() + QStringLiteral(" (ignored; the registry before it stays in force)");
    }
    return choice;
}

} // namespace verity

#pragma once
// Which tool registry is in force: the built-in one, extended by the user's file when there
// is one, or by a file named on the command line.

#include "domain/toolregistry.h"

#include <QStringList>

namespace verity {

struct RegistryChoice
{
    ToolRegistry registry;
    QStringList warnings; // a bad user file is named here and the registry before it stays
    QString error;        // the file named on the command line could not be used
};

QString userRegistryPath();
RegistryChoice chooseRegistry(const QString &extraFile);

} // namespace verity

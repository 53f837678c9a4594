#pragma once
// Which tool registries are in force: the built-in profiles, each extended by the user's file
// when there is one; or one forced by name (`--registry tau-retail`) or by file
// (`--registry my-tools.json`, which extends the built-in default).

#include "expected.h"
#include "registryselection.h"

#include <QStringList>

namespace verity {

struct RegistrySource
{
    QString forced; // a profile name or a registry file; empty: choose per conversation
    QString userFile; // the user's own registry, where the console saves classifications
};

struct RegistryChoice
{
    RegistrySelection selection;
    QStringList warnings; // a bad user file is named here and the registry before it stays
};

// ~/.config/Verity/verity/registry.json on Linux.
QString defaultUserRegistryPath();
// Fails only for what `forced` names: a profile that does not exist (InputErrc::Missing) or a
// file that cannot be used (InputErrc::Invalid). Choosing per conversation always succeeds.
Expected<RegistryChoice> chooseRegistry(const RegistrySource &source);
// The registries chosen per conversation, with the user's file where it can be read.
RegistrySelection automaticRegistries(const QString &userFile);

} // namespace verity

#pragma once

#include "domain/expected.h"
#include "domain/registryselection.h"

namespace verity {

// Builds a fresh database from the shipped demo data through the real importer and returns
// its path. Without `path`, the demo database under the app-data folder is rebuilt; a file
// the user names is never overwritten.
Expected<QString> buildDemoDatabase(const QString &path, const RegistrySelection &registries);

} // namespace verity

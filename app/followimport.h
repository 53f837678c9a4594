#pragma once

#include "domain/registryselection.h"

#include <QString>
#include <QTextStream>

namespace verity {

class ImportWrites;

// verity import --follow FILE: reads the file as an agent runtime appends to it, and across log
// rotation, storing each read's lines before the next, until SIGINT or SIGTERM.
int followImport(ImportWrites &store, const RegistrySelection &registries, const QString &path,
                 qint64 graceMs, QTextStream &out, QTextStream &err);

} // namespace verity

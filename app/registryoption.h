#pragma once
// The --registry option, the same for the console and for `verity import`.

#include "domain/registryselection.h"

#include <QCommandLineOption>

namespace verity {

inline QCommandLineOption registryOption()
{
    return QCommandLineOption(
            QStringLiteral("registry"),
            QStringLiteral("Read every call with this registry: a profile (%1) or a registry file extending the "
                           "default. Without it, each conversation is read by the profile that knows its tools.")
                    .arg(builtInProfileNames().join(QStringLiteral(", "))),
            QStringLiteral("NAME|FILE"));
}

} // namespace verity

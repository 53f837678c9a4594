#pragma once
// The --registry option, the same for the console and for `verity import`.

#include "domain/registryselection.h"

#include <QCommandLineOption>

namespace verity {

inline QCommandLineOption registryOption()
{
    return QCommandLineOption(
            QStringLiteral("registry"),
            QStringLiteral(
                    "The tool registry that reads every call: a built-in profile (%1), or a file of your "
                    "own that adds to the default one. Without it, each conversation is read by the profile "
                    "that knows most of its tools.")
                    .arg(builtInProfileNames().join(QStringLiteral(", "))),
            QStringLiteral("NAME|FILE"));
}

} // namespace verity

#pragma once

#include <QStringList>

namespace verity {

// `verity import [--db PATH] [--registry FILE] [--json] FILE...`: prints a summary per file
// and every rejected line as FILE:LINE: reason; exits 1 when any line was rejected.
int runImportCommand(const QStringList &arguments);

} // namespace verity

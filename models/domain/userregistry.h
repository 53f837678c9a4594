#pragma once
// The user's own registry file: where a classification made in the console is kept, so the
// next import and the next start know the tool too.

#include "toolregistry.h"

namespace verity {

// Adds `spec` to the registry file at `path` (created when missing), replacing a tool of the
// same name and keeping everything else in the file. The file is replaced whole or not at all.
Expected<void> saveToolToUserRegistry(const QString &path, const ToolSpec &spec);

// Every argument of a sample call as a possible intent field, typed by its value: a whole
// number is an integer, a list or object is json, long text is kept as its sha256.
QList<IntentField> suggestIntentFields(const QString &argumentsJson);

} // namespace verity

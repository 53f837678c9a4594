#pragma once
// The SQLite schema, as the numbered steps of the schema manifest (schemamanifest.h). PRAGMA
// user_version holds the version; each step runs in its own transaction, so a database is always
// at one version or the next, never between.

#include "domain/expected.h"

#include <QSqlDatabase>

namespace verity::sqlite {

int currentSchemaVersion();
Expected<int> schemaVersion(QSqlDatabase &db);
// Fails when `db` is at a schema version newer than this program understands. Reads only.
Expected<void> checkVersionSupported(QSqlDatabase &db);
// Brings `db` up to `target` (the current version by default). Refuses a database newer
// than this program understands rather than guessing at it.
Expected<void> migrate(QSqlDatabase &db, int target = -1);

} // namespace verity::sqlite

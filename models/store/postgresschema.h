#pragma once
// The PostgreSQL schema, as the numbered steps of the schema manifest (schemamanifest.h) in
// Verity's own schema (`verity`), its version in verity.schema_version. The steps run in one
// transaction after an advisory lock, so consoles that open a new database at once never migrate
// it twice.

#include "domain/expected.h"

#include <QSqlDatabase>

namespace verity::postgres {

int currentSchemaVersion();
// 0 for a database Verity has not set up yet.
Expected<int> schemaVersion(QSqlDatabase &db);
// Fails when `db` is at a schema version newer than this program understands. Reads only.
Expected<void> checkVersionSupported(QSqlDatabase &db);
// Brings `db` up to `target` (the current version by default); refuses a newer one.
Expected<void> migrate(QSqlDatabase &db, int target = -1);

} // namespace verity::postgres

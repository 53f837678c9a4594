#pragma once
// Verity's schema as one list for both backends (schemamanifest.cpp): every change to the tables
// in the order it was made, each naming what it does and carrying its SQLite form, its
// PostgreSQL form or both. The backends number their versions apart, as users' databases
// already hold them: SQLite's PRAGMA user_version counts the changes with a SQLite form,
// verity.schema_version those with a PostgreSQL form, so each change carries its version on each
// backend it runs on. sqliteschema.cpp and postgresschema.cpp run the steps.

#include <QList>
#include <QString>

namespace verity::schema {

enum class Backend { Sqlite, Postgres };

// One change as one backend runs it.
struct Step
{
    int version = 0; // the backend's schema version once the step has run
    QString what; // what the change does, in a few words
    QString sql; // the statements, in the backend's own types
    bool rebuildsReferencedTable = false; // SQLite: runs with foreign keys off (sqliteschema.cpp)
    bool grantsToTeamRoles = false; // PostgreSQL: the team's roles are made first (postgresroles.h)
};

// The backend's steps in order: the one at index i brings a database to version i + 1.
const QList<Step> &steps(Backend backend);
// The version a database of `backend` is at once every step has run.
int latestVersion(Backend backend);

} // namespace verity::schema

#include "postgresschema.h"

#include "postgresroles.h"
#include "schemamanifest.h"
#include "sqlerror.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

namespace verity::postgres {

namespace {

using schema::Backend;

// Two consoles that open a new database at once: one migrates, the other waits here and then
// finds nothing left to do. The number is any constant of Verity's own.
constexpr const char *schemaLock = "SELECT pg_advisory_xact_lock(7378726956)";

Expected<void> exec(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql))
        return makeError(sqlErrorText(query.lastError()));
    return {};
}

void rollback(QSqlDatabase &db)
{
    QSqlQuery query(db);
    query.exec(QStringLiteral("ROLLBACK"));
}

// Whether Verity's schema is there; its version, or 0 when it is not.
Expected<int> readVersion(QSqlDatabase &db)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT to_regclass('verity.schema_version') IS NOT NULL"))
        || !query.next())
        return makeError(
                QStringLiteral("cannot read the schema version: %1").arg(sqlErrorText(query.lastError())));
    if (!query.value(0).toBool())
        return 0;
    if (!query.exec(QStringLiteral("SELECT max(version) FROM verity.schema_version")) || !query.next())
        return makeError(
                QStringLiteral("cannot read the schema version: %1").arg(sqlErrorText(query.lastError())));
    return query.value(0).toInt();
}

// Whether a step after `version`, up to `target`, grants to the team's roles.
bool grantsToTeamRoles(int version, int target)
{
    const QList<schema::Step> &steps = schema::steps(Backend::Postgres);
    for (int next = version + 1; next <= target; ++next) {
        if (steps.at(next - 1).grantsToTeamRoles)
            return true;
    }
    return false;
}

// Verity's schema belongs to the database's owner, whoever of its members sets it up: a team
// whose operators are members of that role all reach the same tables.
Expected<void> actAsOwner(QSqlDatabase &db)
{
    if (Expected<void> owner =
                exec(db,
                     QStringLiteral("DO $$ DECLARE owner name := (SELECT pg_get_userbyid(datdba) FROM "
                                    "pg_database WHERE datname = current_database()); BEGIN IF owner <> "
                                    "current_user AND pg_has_role(current_user, owner, 'MEMBER') THEN "
                                    "EXECUTE format('SET LOCAL ROLE %I', owner); END IF; END $$"));
        !owner)
        return makeError(QStringLiteral("cannot act as the database's owner: %1").arg(owner.message()));
    return {};
}

// Whether this user may bring the database up from `version`, said plainly when not; Verity's
// schema and its version table are made here for a database that has neither.
Expected<void> prepareToMigrate(QSqlDatabase &db, int version)
{
    if (version > 0) {
        // An upgrade is the owner's to make: an operator who connects first is told so.
        QSqlQuery may(db);
        if (may.exec(QStringLiteral("SELECT has_schema_privilege('verity', 'CREATE')")) && may.next()
            && !may.value(0).toBool())
            return makeError(StoreErrc::OlderSchema,
                             QStringLiteral("the database is at schema version %1 and this Verity needs "
                                            "version %2: its owner brings it up to date once with `verity "
                                            "db init`")
                                     .arg(version)
                                     .arg(currentSchemaVersion()));
        return {};
    }
    // Said plainly to the operator who connects first, before the owner has set it up.
    QSqlQuery may(db);
    if (may.exec(QStringLiteral("SELECT has_database_privilege(current_database(), 'CREATE'), current_user"))
        && may.next() && !may.value(0).toBool())
        return makeError(StoreErrc::NotADatabase,
                         QStringLiteral("Verity's tables are not in this database yet, and %1 may not create "
                                        "them: its owner sets it up once with `verity db init`")
                                 .arg(may.value(1).toString()));
    if (Expected<void> made = exec(db,
                                   QStringLiteral("CREATE SCHEMA IF NOT EXISTS verity; CREATE TABLE "
                                                  "verity.schema_version (version INTEGER PRIMARY "
                                                  "KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT "
                                                  "now())"));
        !made)
        return makeError(QStringLiteral("cannot create Verity's schema: %1 (the user needs the CREATE "
                                        "privilege on the database: see `verity db init`)")
                                 .arg(made.message()));
    return {};
}

// The manifest's steps after `version` up to `target` (schemamanifest.h), each recorded in
// verity.schema_version, inside the caller's transaction.
Expected<void> runSteps(QSqlDatabase &db, int version, int target)
{
    const QList<schema::Step> &steps = schema::steps(Backend::Postgres);
    for (int next = version + 1; next <= target; ++next) {
        Expected<void> done = exec(db, steps.at(next - 1).sql);
        if (done)
            done = exec(db,
                        QStringLiteral("INSERT INTO verity.schema_version (version) VALUES (%1)").arg(next));
        if (!done)
            return makeError(QStringLiteral("migration to schema version %1 failed, nothing changed: %2")
                                     .arg(next)
                                     .arg(done.message()));
    }
    return {};
}

} // namespace

int currentSchemaVersion()
{
    return schema::latestVersion(Backend::Postgres);
}

Expected<int> schemaVersion(QSqlDatabase &db)
{
    return readVersion(db);
}

Expected<void> checkVersionSupported(QSqlDatabase &db)
{
    Expected<int> version = readVersion(db);
    if (!version)
        return version.error();
    if (*version > currentSchemaVersion())
        return makeError(StoreErrc::NewerSchema,
                         QStringLiteral("the database is at schema version %1, newer than this Verity "
                                        "understands (%2); use a newer Verity")
                                 .arg(*version)
                                 .arg(currentSchemaVersion()));
    return {};
}

Expected<void> migrate(QSqlDatabase &db, int target)
{
    if (target < 0 || target > currentSchemaVersion())
        target = currentSchemaVersion();
    if (Expected<void> supported = checkVersionSupported(db); !supported)
        return supported;
    Expected<int> before = readVersion(db);
    if (!before)
        return before.error();
    if (*before >= target)
        return {};
    if (Expected<void> begun = exec(db, QStringLiteral("BEGIN")); !begun)
        return makeError(QStringLiteral("cannot start a migration: %1").arg(begun.message()));
    if (Expected<void> locked = exec(db, QString::fromLatin1(schemaLock)); !locked) {
        rollback(db);
        return makeError(QStringLiteral("cannot take the schema lock: %1").arg(locked.message()));
    }
    // The team's roles come first: they belong to the cluster, and the grants name them.
    if (grantsToTeamRoles(*before, target)) {
        if (Expected<void> roles = ensureTeamRoles(db); !roles) {
            rollback(db);
            return roles;
        }
    }
    if (Expected<void> owner = actAsOwner(db); !owner) {
        rollback(db);
        return owner;
    }
    // Read again under the lock: another console may have migrated in between.
    Expected<int> version = readVersion(db);
    if (!version) {
        rollback(db);
        return version.error();
    }
    Expected<void> done = prepareToMigrate(db, *version);
    if (done)
        done = runSteps(db, *version, target);
    if (!done) {
        rollback(db);
        return done;
    }
    if (Expected<void> committed = exec(db, QStringLiteral("COMMIT")); !committed)
        return makeError(QStringLiteral("the migration could not commit: %1").arg(committed.message()));
    return {};
}

} // namespace verity::postgres

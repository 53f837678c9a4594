#include "sqliteschema.h"

#include "schemamanifest.h"
#include "sqlerror.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

namespace verity::sqlite {

namespace {

using schema::Backend;

const schema::Step &stepTo(int version)
{
    return schema::steps(Backend::Sqlite).at(version - 1);
}

// A step's statements: split on ';', except inside CREATE TRIGGER ... BEGIN ... END, whose body
// is kept whole (its pieces joined again up to the piece that is just END).
QStringList statementsOf(const QString &migration)
{
    QStringList statements;
    QString trigger;
    const QStringList pieces = migration.split(u';', Qt::SkipEmptyParts);
    for (const QString &piece : pieces) {
        if (!trigger.isEmpty()) {
            trigger += u';' + piece;
            if (piece.trimmed() == QLatin1String("END")) {
                statements << trigger;
                trigger.clear();
            }
        } else if (piece.trimmed().startsWith(QLatin1String("CREATE TRIGGER"))) {
            trigger = piece;
        } else {
            statements << piece;
        }
    }
    if (!trigger.isEmpty())
        statements << trigger; // unterminated: SQLite says what is wrong with it
    return statements;
}

void rollback(QSqlDatabase &db)
{
    QSqlQuery query(db);
    query.exec(QStringLiteral("ROLLBACK")); // nothing to do if it fails: the transaction is gone
}

Expected<void> exec(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql))
        return makeError(sqlErrorText(query.lastError()));
    return {};
}

// One step of the manifest (schemamanifest.h) in its own transaction: all of it or none of it.
Expected<void> migrateOne(QSqlDatabase &db, int next)
{
    // The write lock first, then the version again: another process may have migrated the
    // file between our read and now.
    if (Expected<void> locked = exec(db, QStringLiteral("BEGIN IMMEDIATE")); !locked)
        return makeError(QStringLiteral("cannot start migration %1: %2").arg(next).arg(locked.message()));
    Expected<int> current = schemaVersion(db);
    if (!current) {
        rollback(db);
        return current.error();
    }
    if (*current >= next) {
        rollback(db);
        return {};
    }
    const schema::Step &step = stepTo(next);
    for (const QString &statement : statementsOf(step.sql)) {
        if (statement.trimmed().isEmpty())
            continue;
        if (Expected<void> done = exec(db, statement); !done) {
            rollback(db);
            return makeError(QStringLiteral("migration to schema version %1 failed, nothing changed: %2")
                                     .arg(next)
                                     .arg(done.message()));
        }
    }
    if (step.rebuildsReferencedTable) {
        QSqlQuery check(db);
        if (!check.exec(QStringLiteral("PRAGMA foreign_key_check")) || check.next()) {
            rollback(db);
            return makeError(QStringLiteral("migration to schema version %1 would break a reference between "
                                            "tables; nothing changed")
                                     .arg(next));
        }
    }
    if (Expected<void> done = exec(db, QStringLiteral("PRAGMA user_version = %1").arg(next)); !done) {
        rollback(db);
        return makeError(
                QStringLiteral("migration to schema version %1 failed: %2").arg(next).arg(done.message()));
    }
    if (Expected<void> committed = exec(db, QStringLiteral("COMMIT")); !committed)
        return makeError(QStringLiteral("migration to schema version %1 could not commit: %2")
                                 .arg(next)
                                 .arg(committed.message()));
    return {};
}

} // namespace

int currentSchemaVersion()
{
    return schema::latestVersion(Backend::Sqlite);
}

Expected<int> schemaVersion(QSqlDatabase &db)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next())
        return makeError(
                QStringLiteral("cannot read the schema version: %1").arg(sqlErrorText(query.lastError())));
    return query.value(0).toInt();
}

Expected<void> checkVersionSupported(QSqlDatabase &db)
{
    // The first read of the file: a file that is not SQLite fails here.
    Expected<int> version = schemaVersion(db);
    if (!version)
        return makeError(StoreErrc::NotADatabase, version.message());
    // Another program's database is refused untouched: Verity's tables are never added to it.
    // A Verity database of any version has its tool calls; a new one has no tables at all.
    QSqlQuery tables(db);
    if (!tables.exec(QStringLiteral(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                "ORDER BY name")))
        return makeError(
                StoreErrc::NotADatabase,
                QStringLiteral("not a usable SQLite database (%1)").arg(sqlErrorText(tables.lastError())));
    QStringList names;
    while (tables.next())
        names << tables.value(0).toString();
    if (!names.isEmpty() && !names.contains(QStringLiteral("tool_calls")))
        return makeError(
                StoreErrc::NotADatabase,
                QStringLiteral("a SQLite database of another program (it holds %1%2, not Verity's tables); "
                               "it was left untouched: give a new file, or a Verity database")
                        .arg(QStringList(names.mid(0, 5)).join(QStringLiteral(", ")),
                             names.size() > 5 ? QStringLiteral(" and %1 more").arg(names.size() - 5)
                                              : QString()));
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
    Expected<int> version = schemaVersion(db);
    if (!version)
        return version.error();
    for (int next = *version + 1; next <= target; ++next) {
        // A step that rebuilds a table other tables point at runs with foreign keys off (SQLite's
        // documented procedure for changing a table), checked again before it commits.
        const bool rebuild = stepTo(next).rebuildsReferencedTable;
        if (rebuild) {
            // Only outside a transaction does this pragma take effect.
            if (Expected<void> off = exec(db, QStringLiteral("PRAGMA foreign_keys = OFF")); !off)
                return off;
        }
        Expected<void> done = migrateOne(db, next);
        if (rebuild) {
            // Back as the store opened the connection, whatever happened.
            if (Expected<void> on = exec(db, QStringLiteral("PRAGMA foreign_keys = ON")); !on && done)
                return on;
        }
        if (!done)
            return done;
    }
    return {};
}

} // namespace verity::sqlite

#include "storefactory.h"

#include "postgresschema.h"
#include "postgresstore.h"
#include "reassessment.h"
#include "serverwatch.h"
#include "sqliteschema.h"
#include "sqlitestore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace verity {

namespace {

Expected<std::unique_ptr<Store>> openPostgres(const QString &location, PostgresStore::Access access)
{
    Expected<PostgresTarget> target = parsePostgresLocation(location);
    if (!target)
        return target.error();
    Expected<std::unique_ptr<PostgresStore>> postgres = PostgresStore::open(*target, access);
    if (!postgres)
        return postgres.error();
    if (access == PostgresStore::Access::ReadWrite) {
        if (Expected<void> caughtUp = reassessAwaitingTickets(**postgres); !caughtUp)
            return caughtUp.error();
    }
    return std::unique_ptr<Store>(std::move(*postgres));
}

} // namespace

Expected<std::unique_ptr<Store>> openStore(const QString &location)
{
    if (isPostgresLocation(location))
        return openPostgres(location, PostgresStore::Access::ReadWrite);
    // Said before SQLite is asked: its own words for this are "attempt to write a readonly database".
    if (Expected<void> writable = checkWritable(location); !writable)
        return makeError(
                StoreErrc::Unwritable,
                QStringLiteral("%1: cannot write this database: %2 (the console can still open it to read)")
                        .arg(QDir::toNativeSeparators(location), writable.message()));
    Expected<std::unique_ptr<SqliteStore>> sqlite = SqliteStore::open(location);
    if (!sqlite)
        return sqlite.error();
    if (Expected<void> caughtUp = reassessAwaitingTickets(**sqlite); !caughtUp)
        return caughtUp.error();
    return std::unique_ptr<Store>(std::move(*sqlite));
}

Expected<std::unique_ptr<Store>> openExistingStore(const QString &location)
{
    if (isFileLocation(location) && !QFileInfo::exists(location))
        return makeError(QStringLiteral("%1: no such database file").arg(location));
    return openStore(location);
}

Expected<std::unique_ptr<Store>> openStoreReadOnly(const QString &location)
{
    if (isPostgresLocation(location))
        return openPostgres(location, PostgresStore::Access::ReadOnly);
    Expected<std::unique_ptr<SqliteStore>> sqlite = SqliteStore::openReadOnly(location);
    if (!sqlite)
        return sqlite.error();
    return std::unique_ptr<Store>(std::move(*sqlite));
}

Expected<void> checkWritable(const QString &location)
{
    // What a database user may change, the database itself says (see the roles).
    if (isPostgresLocation(location))
        return {};
    const QFileInfo file(location);
    if (!file.exists())
        return {};
    if (!file.isWritable())
        return makeError(StoreErrc::Unwritable, QStringLiteral("this user may not write the file"));
    if (!QFileInfo(file.absolutePath()).isWritable())
        return makeError(
                StoreErrc::Unwritable,
                QStringLiteral(
                        "this user may not write its folder %1, where SQLite keeps the database's journal")
                        .arg(QDir::toNativeSeparators(file.absolutePath())));
    return {};
}

QString unreachableServer(const QString &location)
{
    if (!isPostgresLocation(location))
        return QString();
    const Expected<PostgresTarget> target = parsePostgresLocation(location);
    return target ? serverUnreachable(PostgresStore::pingInfo(*target)) : QString();
}

bool isFileLocation(const QString &location)
{
    return !isPostgresLocation(location);
}

QString storeDisplayName(const QString &location)
{
    if (!isPostgresLocation(location))
        return QDir::toNativeSeparators(location);
    Expected<PostgresTarget> target = parsePostgresLocation(location);
    return target ? target->display() : location;
}

QString defaultStoreLocation()
{
    return SqliteStore::defaultLocation();
}

Expected<StoreFileHeader> readStoreFileHeader(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(InputErrc::Unreadable,
                         QStringLiteral("%1: cannot read the file: %2").arg(path, file.errorString()));
    // The magic, and the schema version Verity keeps in user_version (offset 60, big-endian).
    const QByteArray header = file.read(100);
    StoreFileHeader read;
    if (header.size() < 100 || !header.startsWith(QByteArrayLiteral("SQLite format 3\0")))
        return read;
    const auto byte = [&header](int at) { return quint32(quint8(header.at(at))); };
    read.isDatabase = true;
    read.schemaVersion = int((byte(60) << 24) | (byte(61) << 16) | (byte(62) << 8) | byte(63));
    read.headerCurrent = !(byte(18) == 2 && QFileInfo::exists(path + QStringLiteral("-wal")));
    return read;
}

int currentStoreSchemaVersion()
{
    return sqlite::currentSchemaVersion();
}

int currentStoreSchemaVersion(const QString &location)
{
    return isPostgresLocation(location) ? postgres::currentSchemaVersion() : sqlite::currentSchemaVersion();
}

bool reopeningCannotMend(const std::error_code &code)
{
    return code == StoreErrc::NotADatabase || code == StoreErrc::NewerSchema || code == StoreErrc::Unwritable
            || code == StoreErrc::RefusedByRole;
}

} // namespace verity

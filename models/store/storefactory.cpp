#include "storefactory.h"

#include "reassessment.h"
#include "sqliteschema.h"
#include "sqlitestore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace verity {

Expected<std::unique_ptr<Store>> openStore(const QString &location)
{
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

Expected<std::unique_ptr<Store>> openStoreReadOnly(const QString &location)
{
    Expected<std::unique_ptr<SqliteStore>> sqlite = SqliteStore::openReadOnly(location);
    if (!sqlite)
        return sqlite.error();
    return std::unique_ptr<Store>(std::move(*sqlite));
}

Expected<void> checkWritable(const QString &location)
{
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

} // namespace verity

#include "storefactory.h"

#include "sqlitestore.h"

#include <QDir>
#include <QFileInfo>

namespace verity {

Expected<std::unique_ptr<Store>> openStore(const QString &location)
{
    // Said before SQLite is asked: its own words for this are "attempt to write a readonly database".
    if (const QString why = whyUnwritable(location); !why.isEmpty())
        return makeError(
                QStringLiteral("%1: cannot write this database: %2 (the console can still open it to read)")
                        .arg(QDir::toNativeSeparators(location), why));
    Expected<std::unique_ptr<SqliteStore>> sqlite = SqliteStore::open(location);
    if (!sqlite)
        return sqlite.error();
    return std::unique_ptr<Store>(std::move(*sqlite));
}

Expected<std::unique_ptr<Store>> openStoreReadOnly(const QString &location)
{
    Expected<std::unique_ptr<SqliteStore>> sqlite = SqliteStore::openReadOnly(location);
    if (!sqlite)
        return sqlite.error();
    return std::unique_ptr<Store>(std::move(*sqlite));
}

QString whyUnwritable(const QString &location)
{
    const QFileInfo file(location);
    if (!file.exists())
        return {};
    if (!file.isWritable())
        return QStringLiteral("this user may not write the file");
    if (!QFileInfo(file.absolutePath()).isWritable())
        return QStringLiteral(
                       "this user may not write its folder %1, where SQLite keeps the database's journal")
                .arg(QDir::toNativeSeparators(file.absolutePath()));
    return {};
}

QString defaultStoreLocation()
{
    return SqliteStore::defaultLocation();
}

} // namespace verity

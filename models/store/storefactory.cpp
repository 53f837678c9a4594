#include "storefactory.h"

#include "sqlitestore.h"

namespace verity {

Expected<std::unique_ptr<Store>> openStore(const QString &location)
{
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

QString defaultStoreLocation()
{
    return SqliteStore::defaultLocation();
}

} // namespace verity

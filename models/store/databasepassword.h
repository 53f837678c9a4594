#pragma once
// A team database's password kept in the desktop's keychain, for an operator who keeps neither
// a ~/.pgpass nor PGPASSWORD. It is filed under the database's address without any password
// (user, host, port, database), so it is only ever offered to the server it was saved for.

#include "domain/expected.h"
#include "storelocation.h"

#include <optional>

namespace verity {

// The saved password, none when nothing is saved for `target`, or an error when the keychain
// cannot be asked (no keychain service on this desktop, say).
Expected<std::optional<QString>> keychainDatabasePassword(const PostgresTarget &target);
Expected<void> saveKeychainDatabasePassword(const PostgresTarget &target, const QString &password);

} // namespace verity

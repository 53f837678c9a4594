#pragma once
// The one place that knows which backend a location names. Today every location is an
// SQLite file; a second backend (a PostgreSQL URL, say) is chosen here and nowhere else.

#include "domain/expected.h"
#include "store.h"

#include <memory>

namespace verity {

Expected<std::unique_ptr<Store>> openStore(const QString &location);
// For reports and checks that must change nothing: an existing database, read only.
Expected<std::unique_ptr<Store>> openStoreReadOnly(const QString &location);
// Why this user cannot change the existing database at `location` (the file, or the folder
// SQLite keeps its journal in, is not theirs to write), or empty when they can.
QString whyUnwritable(const QString &location);
// The default database under the platform's application-data location.
QString defaultStoreLocation();

} // namespace verity

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
// Whether this user can change the existing database at `location`: StoreErrc::Unwritable,
// saying why, when the file or the folder SQLite keeps its journal in is not theirs to write.
Expected<void> checkWritable(const QString &location);
// The default database under the platform's application-data location.
QString defaultStoreLocation();

// What a file is, as its first bytes say, read before any driver touches it: a check that
// must not change the file (or create files beside it) can refuse what is not Verity's.
struct StoreFileHeader
{
    bool isDatabase = false; // an SQLite database at all
    int schemaVersion = 0; // Verity's schema version; 0 in a database of another program
    // False when a write-ahead log beside the file may hold a newer header: opening decides then.
    bool headerCurrent = true;
};
Expected<StoreFileHeader> readStoreFileHeader(const QString &path);
// The schema version this build reads and writes.
int currentStoreSchemaVersion();

} // namespace verity

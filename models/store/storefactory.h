#pragma once
// The one place that knows which backend a location names: an SQLite file, or a PostgreSQL
// database (a postgresql:// URI or a libpq keyword string, see storelocation.h).

#include "domain/expected.h"
#include "store.h"

#include <memory>

namespace verity {

Expected<std::unique_ptr<Store>> openStore(const QString &location);
// The same, for a command that works on what is there: a file that does not exist is refused
// ("PATH: no such database file"), so a mistyped path never becomes an empty database.
Expected<std::unique_ptr<Store>> openExistingStore(const QString &location);
// For reports and checks that must change nothing: an existing database, read only.
Expected<std::unique_ptr<Store>> openStoreReadOnly(const QString &location);
// Whether this user can change the existing database at `location`: StoreErrc::Unwritable,
// saying why, when the file or the folder SQLite keeps its journal in is not theirs to write.
Expected<void> checkWritable(const QString &location);
// Why the database server `location` names does not take connections now (it does not answer,
// or is starting up); empty when it does, and for a file. Waits for the server: not on the GUI
// thread.
QString unreachableServer(const QString &location);
// Whether `location` is a file on this machine (SQLite) rather than a database server's.
bool isFileLocation(const QString &location);
// The location as messages and titles show it: a file's path, or the database's URI without
// any password.
QString storeDisplayName(const QString &location);
// A failure that opening the database again cannot mend: what the location names is not a
// database this program reads, or this user may not change it (its files, or their role). A lost
// connection, a conflict or a deadlock may go on in a new session.
bool reopeningCannotMend(const std::error_code &code);
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
// The schema version this build reads and writes: of SQLite files, or of the backend
// `location` names.
int currentStoreSchemaVersion();
int currentStoreSchemaVersion(const QString &location);

} // namespace verity

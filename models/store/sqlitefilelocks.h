#pragma once
// SQLite's own Unix file system layer locks a database with POSIX record locks. The kernel ties
// those to the process, not to a descriptor: when any part of the process closes any descriptor of
// the database or of its -shm file (a file dialog reading it to pick an icon, a header check),
// every lock the process holds there is dropped. Another process then sees no reader, checkpoints
// and deletes the live -wal and -shm under the open console.
//
// Verity's SQLite connections lock with open file description locks instead (Linux's
// F_OFD_SETLK): each belongs to a descriptor the lock layer opened for itself and holds until it
// closes it, so no other open or close in the process can drop it. They take the same bytes with
// the same read and write modes as SQLite's POSIX locks, and the kernel makes the two kinds
// conflict, so the sqlite3 shell and other SQLite programs share the file safely.

#include "domain/expected.h"

namespace verity {

// Makes the lock layer the process's default for SQLite (once; later calls return the first
// answer). Every SQLite database of the process must be opened after it.
Expected<void> useDescriptionLocksForSqlite();

// The name the layer is registered under ("unix-ofd").
const char *sqliteLockLayerName();

// Refused when `path` is a database file this process has open through the layer, or its -wal,
// -shm or -journal file (the same file by any name: links and relative paths too), or any other
// SQLite database or journal file another process may have open. Every place that saves a file a
// person named asks first: saving a report over a database would replace it under the console
// that has it open, which would then write into a deleted file.
Expected<void> refuseToOverwriteDatabase(const QString &path);
// Only the first part: a database, or journal file, this process has open.
Expected<void> refuseToOverwriteOpenDatabase(const QString &path);

} // namespace verity

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

} // namespace verity

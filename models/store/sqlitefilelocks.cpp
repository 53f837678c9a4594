#include "sqlitefilelocks.h"

#include <QFile>
#include <QFileInfo>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace verity {

namespace {

// The bytes SQLite locks on a database file (its os.h): every program on the file must agree.
constexpr off_t pendingByte = 0x40000000;
constexpr off_t reservedByte = pendingByte + 1;
constexpr off_t sharedFirst = pendingByte + 2;
constexpr off_t sharedSize = 510;
// On the -shm file (os_unix.c): the eight WAL locks from byte 120, then the byte every user of
// the -shm file holds shared; whoever finds it free is the first and starts the file afresh.
constexpr off_t shmLockBase = 120;
constexpr off_t shmInUseByte = shmLockBase + SQLITE_SHM_NLOCK;
// The -shm file's WAL read marks, whose holders are readers of the WAL.
constexpr int shmFirstReadLock = 3;

sqlite3_vfs *g_unix = nullptr; // SQLite's own layer: all the file work but locks and -shm
sqlite3_vfs g_layer{};

// The main database files open through the layer, by name, as many times as they are open.
std::mutex g_openMutex;
std::multiset<std::string> g_open;

// One connection's -shm file: a descriptor of its own, its locks, the regions it mapped.
struct SharedMemory
{
    int fd = -1;
    bool readOnly = false;
    int regionSize = 0;
    std::vector<void *> regions;
};

// What SQLite holds for a main database file: the Unix layer's file follows it in the same
// allocation (g_layer.szOsFile); SQLite zeroes nothing, so open() sets every field.
struct LockedFile
{
    sqlite3_file base;
    sqlite3_file *below;
    const char *path; // SQLite keeps the name unchanged until close
    int lockFd; // ours alone: every lock of this connection lives on it
    int level; // SQLITE_LOCK_NONE .. SQLITE_LOCK_EXCLUSIVE
    SharedMemory *shm;
};

LockedFile *self(sqlite3_file *file)
{
    return reinterpret_cast<LockedFile *>(file);
}

sqlite3_file *below(sqlite3_file *file)
{
    return self(file)->below;
}

int lockRange(int fd, short type, off_t start, off_t length)
{
    struct flock lock
    {};
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    lock.l_start = start;
    lock.l_len = length;
    int rc = 0;
    do
        rc = fcntl(fd, F_OFD_SETLK, &lock);
    while (rc != 0 && errno == EINTR);
    return rc == 0 ? 0 : errno;
}

// The strongest lock another descriptor (of any process) holds on the range, or -1.
int lockHeldElsewhere(int fd, off_t start, off_t length)
{
    struct flock lock
    {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = start;
    lock.l_len = length;
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0)
        return -1;
    return lock.l_type;
}

// As SQLite's Unix layer reads a refused lock: somebody holds it (busy), or the call failed.
int lockError(int error, int ioError)
{
    switch (error) {
    case EACCES:
    case EAGAIN:
    case ETIMEDOUT:
    case EBUSY:
    case EINTR:
    case ENOLCK:
        return SQLITE_BUSY;
    case EPERM:
        return SQLITE_PERM;
    default:
        return ioError;
    }
}

// ---- Locks on the database file: SQLite's protocol (lockingv3), bytes and order unchanged.

int lockFile(sqlite3_file *file, int level)
{
    LockedFile *f = self(file);
    if (f->level >= level)
        return SQLITE_OK;
    if (level == SQLITE_LOCK_SHARED) {
        // Through the PENDING byte, which a writer waiting for EXCLUSIVE holds: no new reader
        // starts while it waits for the readers there to finish.
        if (const int e = lockRange(f->lockFd, F_RDLCK, pendingByte, 1))
            return lockError(e, SQLITE_IOERR_LOCK);
        const int shared = lockRange(f->lockFd, F_RDLCK, sharedFirst, sharedSize);
        const int released = lockRange(f->lockFd, F_UNLCK, pendingByte, 1);
        if (shared)
            return lockError(shared, SQLITE_IOERR_LOCK);
        if (released) {
            lockRange(f->lockFd, F_UNLCK, 0, 0);
            return SQLITE_IOERR_UNLOCK;
        }
        f->level = SQLITE_LOCK_SHARED;
        return SQLITE_OK;
    }
    if (level == SQLITE_LOCK_RESERVED) {
        if (const int e = lockRange(f->lockFd, F_WRLCK, reservedByte, 1))
            return lockError(e, SQLITE_IOERR_LOCK);
        f->level = SQLITE_LOCK_RESERVED;
        return SQLITE_OK;
    }
    // EXCLUSIVE (SQLite never asks for PENDING itself): PENDING first, kept if the readers
    // are not gone yet, so that SQLite's next try finds them draining.
    if (f->level < SQLITE_LOCK_PENDING) {
        if (const int e = lockRange(f->lockFd, F_WRLCK, pendingByte, 1))
            return lockError(e, SQLITE_IOERR_LOCK);
        f->level = SQLITE_LOCK_PENDING;
    }
    if (const int e = lockRange(f->lockFd, F_WRLCK, sharedFirst, sharedSize))
        return lockError(e, SQLITE_IOERR_LOCK);
    f->level = SQLITE_LOCK_EXCLUSIVE;
    return SQLITE_OK;
}

int unlockFile(sqlite3_file *file, int level)
{
    LockedFile *f = self(file);
    if (f->level <= level)
        return SQLITE_OK;
    if (level == SQLITE_LOCK_SHARED) {
        if (f->level == SQLITE_LOCK_EXCLUSIVE && lockRange(f->lockFd, F_RDLCK, sharedFirst, sharedSize))
            return SQLITE_IOERR_RDLOCK;
        if (lockRange(f->lockFd, F_UNLCK, pendingByte, 2)) // PENDING and RESERVED
            return SQLITE_IOERR_UNLOCK;
        f->level = SQLITE_LOCK_SHARED;
        return SQLITE_OK;
    }
    const int e = lockRange(f->lockFd, F_UNLCK, 0, 0);
    f->level = SQLITE_LOCK_NONE;
    return e ? SQLITE_IOERR_UNLOCK : SQLITE_OK;
}

int checkReservedLock(sqlite3_file *file, int *reserved)
{
    LockedFile *f = self(file);
    *reserved = 0;
    if (f->level >= SQLITE_LOCK_RESERVED) {
        *reserved = 1;
        return SQLITE_OK;
    }
    const int held = lockHeldElsewhere(f->lockFd, reservedByte, 1);
    if (held < 0)
        return SQLITE_IOERR_CHECKRESERVEDLOCK;
    *reserved = held != F_UNLCK;
    return SQLITE_OK;
}

// ---- The -shm file: mapped and locked through a descriptor of the connection's own.

std::string sharedMemoryPath(const LockedFile *f)
{
    return std::string(f->path) + "-shm";
}

void closeSharedMemory(LockedFile *f, bool remove)
{
    if (!f->shm)
        return;
    for (void *region : f->shm->regions) {
        if (region)
            munmap(region, size_t(f->shm->regionSize));
    }
    if (remove && !f->shm->readOnly)
        unlink(sharedMemoryPath(f).c_str());
    close(f->shm->fd); // and with it this connection's -shm locks
    delete f->shm;
    f->shm = nullptr;
}

// Whoever finds the in-use byte free is the only user: the file's content is stale and is
// cleared (SQLite rebuilds it from the WAL) while the byte is held exclusively.
int takeSharedMemory(SharedMemory &shm)
{
    const int held = lockHeldElsewhere(shm.fd, shmInUseByte, 1);
    if (held < 0)
        return SQLITE_IOERR_LOCK;
    if (held == F_WRLCK)
        return SQLITE_BUSY; // being started afresh by another connection right now
    if (held == F_UNLCK) {
        if (shm.readOnly)
            return SQLITE_READONLY_CANTINIT;
        if (const int e = lockRange(shm.fd, F_WRLCK, shmInUseByte, 1))
            return lockError(e, SQLITE_IOERR_LOCK);
        if (ftruncate(shm.fd, 3) != 0)
            return SQLITE_IOERR_SHMOPEN;
    }
    if (const int e = lockRange(shm.fd, F_RDLCK, shmInUseByte, 1))
        return lockError(e, SQLITE_IOERR_LOCK);
    return SQLITE_OK;
}

int openSharedMemory(LockedFile *f)
{
    auto shm = std::make_unique<SharedMemory>();
    const std::string path = sharedMemoryPath(f);
    struct stat database
    {};
    const bool known = fstat(f->lockFd, &database) == 0;
    shm->fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                   known ? database.st_mode & 0777 : 0644);
    if (shm->fd < 0) {
        shm->fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        shm->readOnly = true;
    }
    if (shm->fd < 0)
        return SQLITE_CANTOPEN;
    // Made by root for a user's database, the file stays the user's, as the database is (as
    // SQLite's own layer does); where that fails, root can still use it.
    if (known && geteuid() == 0 && !shm->readOnly) {
        [[maybe_unused]] const int owned = fchown(shm->fd, database.st_uid, database.st_gid);
    }
    if (const int rc = takeSharedMemory(*shm); rc != SQLITE_OK) {
        close(shm->fd);
        return rc;
    }
    f->shm = shm.release();
    return SQLITE_OK;
}

int shmMap(sqlite3_file *file, int region, int regionSize, int extend, void volatile **mapped)
{
    LockedFile *f = self(file);
    *mapped = nullptr;
    if (!f->shm) {
        if (const int rc = openSharedMemory(f); rc != SQLITE_OK)
            return rc;
    }
    SharedMemory &shm = *f->shm;
    if (regionSize <= 0 || regionSize % int(sysconf(_SC_PAGESIZE)) != 0
        || (shm.regionSize != 0 && shm.regionSize != regionSize))
        return SQLITE_IOERR_SHMMAP;
    shm.regionSize = regionSize;
    const int answer = shm.readOnly ? SQLITE_READONLY : SQLITE_OK;
    if (size_t(region) < shm.regions.size() && shm.regions[size_t(region)]) {
        *mapped = shm.regions[size_t(region)];
        return answer;
    }
    const off_t needed = off_t(region + 1) * regionSize;
    struct stat now
    {};
    if (fstat(shm.fd, &now) != 0)
        return SQLITE_IOERR_SHMSIZE;
    if (now.st_size < needed) {
        if (!extend)
            return SQLITE_OK;
        if (shm.readOnly)
            return SQLITE_IOERR_SHMSIZE;
        // Blocks now, not a hole: a page first written on a full disk would end the process
        // with SIGBUS instead of an error.
        if (posix_fallocate(shm.fd, now.st_size, needed - now.st_size) != 0)
            return SQLITE_IOERR_SHMSIZE;
    }
    void *at = mmap(nullptr, size_t(regionSize), shm.readOnly ? PROT_READ : PROT_READ | PROT_WRITE,
                    MAP_SHARED, shm.fd, off_t(region) * regionSize);
    if (at == MAP_FAILED)
        return SQLITE_IOERR_SHMMAP;
    if (shm.regions.size() <= size_t(region))
        shm.regions.resize(size_t(region) + 1, nullptr);
    shm.regions[size_t(region)] = at;
    *mapped = at;
    return answer;
}

int shmLock(sqlite3_file *file, int offset, int count, int flags)
{
    LockedFile *f = self(file);
    if (!f->shm)
        return SQLITE_IOERR_SHMLOCK;
    const short type = (flags & SQLITE_SHM_UNLOCK) ? F_UNLCK
            : (flags & SQLITE_SHM_SHARED)          ? F_RDLCK
                                                   : F_WRLCK;
    // As SQLite's own layer: a lock that is not granted at once is busy, and SQLite retries.
    return lockRange(f->shm->fd, type, shmLockBase + offset, count) ? SQLITE_BUSY : SQLITE_OK;
}

void shmBarrier(sqlite3_file *)
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

int shmUnmap(sqlite3_file *file, int deleteFile)
{
    closeSharedMemory(self(file), deleteFile != 0);
    return SQLITE_OK;
}

// Whether another connection reads the WAL (SQLITE_FCNTL_EXTERNAL_READER).
int externalReader(LockedFile *f, int *reading)
{
    *reading = 0;
    if (!f->shm)
        return SQLITE_OK;
    const int held = lockHeldElsewhere(f->shm->fd, shmLockBase + shmFirstReadLock,
                                       SQLITE_SHM_NLOCK - shmFirstReadLock);
    if (held < 0)
        return SQLITE_IOERR_LOCK;
    *reading = held != F_UNLCK;
    return SQLITE_OK;
}

// ---- Everything else is the Unix layer's.

int closeFile(sqlite3_file *file)
{
    LockedFile *f = self(file);
    closeSharedMemory(f, false);
    const int rc = f->below->pMethods ? f->below->pMethods->xClose(f->below) : SQLITE_OK;
    if (f->lockFd >= 0)
        close(f->lockFd); // the last of this connection's database locks
    f->lockFd = -1;
    const std::lock_guard<std::mutex> held(g_openMutex);
    if (const auto it = g_open.find(f->path); it != g_open.end())
        g_open.erase(it);
    return rc;
}

int readFile(sqlite3_file *file, void *into, int count, sqlite3_int64 offset)
{
    return below(file)->pMethods->xRead(below(file), into, count, offset);
}

int writeFile(sqlite3_file *file, const void *from, int count, sqlite3_int64 offset)
{
    return below(file)->pMethods->xWrite(below(file), from, count, offset);
}

int truncateFile(sqlite3_file *file, sqlite3_int64 size)
{
    return below(file)->pMethods->xTruncate(below(file), size);
}

int syncFile(sqlite3_file *file, int flags)
{
    return below(file)->pMethods->xSync(below(file), flags);
}

int fileSize(sqlite3_file *file, sqlite3_int64 *size)
{
    return below(file)->pMethods->xFileSize(below(file), size);
}

int fileControl(sqlite3_file *file, int op, void *argument)
{
    if (op == SQLITE_FCNTL_LOCKSTATE) {
        *static_cast<int *>(argument) = self(file)->level;
        return SQLITE_OK;
    }
    if (op == SQLITE_FCNTL_EXTERNAL_READER)
        return externalReader(self(file), static_cast<int *>(argument));
    if (op == SQLITE_FCNTL_VFSNAME) {
        *static_cast<char **>(argument) = sqlite3_mprintf("%s", g_layer.zName);
        return SQLITE_OK;
    }
    return below(file)->pMethods->xFileControl(below(file), op, argument);
}

int sectorSize(sqlite3_file *file)
{
    return below(file)->pMethods->xSectorSize(below(file));
}

int deviceCharacteristics(sqlite3_file *file)
{
    return below(file)->pMethods->xDeviceCharacteristics(below(file));
}

int fetchPage(sqlite3_file *file, sqlite3_int64 offset, int count, void **page)
{
    return below(file)->pMethods->xFetch(below(file), offset, count, page);
}

int unfetchPage(sqlite3_file *file, sqlite3_int64 offset, void *page)
{
    return below(file)->pMethods->xUnfetch(below(file), offset, page);
}

const sqlite3_io_methods g_methods = {
        3,
        closeFile,
        readFile,
        writeFile,
        truncateFile,
        syncFile,
        fileSize,
        lockFile,
        unlockFile,
        checkReservedLock,
        fileControl,
        sectorSize,
        deviceCharacteristics,
        shmMap,
        shmLock,
        shmBarrier,
        shmUnmap,
        fetchPage,
        unfetchPage,
};

// Journals, WAL files and temporary files carry no locks: they are the Unix layer's alone.
int openFile(sqlite3_vfs *, const char *path, sqlite3_file *file, int flags, int *outFlags)
{
    if (!(flags & SQLITE_OPEN_MAIN_DB) || !path)
        return g_unix->xOpen(g_unix, path, file, flags, outFlags);
    auto *f = self(file);
    f->base.pMethods = nullptr; // SQLite closes nothing that failed to open
    f->below = reinterpret_cast<sqlite3_file *>(f + 1);
    f->below->pMethods = nullptr;
    f->path = path;
    f->lockFd = -1;
    f->level = SQLITE_LOCK_NONE;
    f->shm = nullptr;
    int opened = 0;
    if (const int rc = g_unix->xOpen(g_unix, path, f->below, flags, &opened); rc != SQLITE_OK)
        return rc;
    f->lockFd = open(path, ((opened & SQLITE_OPEN_READONLY) ? O_RDONLY : O_RDWR) | O_CLOEXEC);
    if (f->lockFd < 0) {
        f->below->pMethods->xClose(f->below);
        return SQLITE_CANTOPEN;
    }
    if (outFlags)
        *outFlags = opened;
    f->base.pMethods = &g_methods;
    const std::lock_guard<std::mutex> held(g_openMutex);
    g_open.insert(path);
    return SQLITE_OK;
}

Expected<void> registerLayer()
{
    if (sqlite3_initialize() != SQLITE_OK)
        return makeError(QStringLiteral("SQLite could not be started"));
    g_unix = sqlite3_vfs_find("unix");
    if (!g_unix || g_unix->iVersion < 3)
        return makeError(QStringLiteral("this SQLite library has no Unix file layer to build on"));
    // Refused at once by a kernel older than Linux 3.15, rather than at the first database.
    std::FILE *probe = std::tmpfile();
    struct flock lock
    {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    const bool offered = probe && fcntl(fileno(probe), F_OFD_GETLK, &lock) == 0;
    if (probe)
        std::fclose(probe);
    if (!offered)
        return makeError(QStringLiteral("this system does not offer open file description locks "
                                        "(F_OFD_SETLK, Linux 3.15 or later), which keep a desk "
                                        "file's locks safe"));
    g_layer = *g_unix;
    g_layer.zName = sqliteLockLayerName();
    g_layer.pNext = nullptr;
    g_layer.szOsFile = int(sizeof(LockedFile)) + g_unix->szOsFile;
    g_layer.xOpen = openFile;
    if (sqlite3_vfs_register(&g_layer, 1) != SQLITE_OK)
        return makeError(QStringLiteral("SQLite refused Verity's file lock layer"));
    return {};
}

bool sameFile(const struct stat &a, const std::string &path)
{
    struct stat b
    {};
    return stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

} // namespace

namespace {

Error overwriteRefused(const QString &path, const QString &what)
{
    return makeError(
            InputErrc::Invalid,
            QStringLiteral("%1 is %2: saving over it would destroy it; choose another file").arg(path, what));
}

} // namespace

Expected<void> refuseToOverwriteOpenDatabase(const QString &path)
{
    struct stat target
    {};
    if (stat(QFile::encodeName(path).constData(), &target) != 0)
        return {}; // a new file is nobody's database
    const std::lock_guard<std::mutex> held(g_openMutex);
    for (const std::string &database : g_open) {
        for (const char *suffix : {"", "-wal", "-shm", "-journal"}) {
            if (!sameFile(target, database + suffix))
                continue;
            const QString open = QFile::decodeName(database.c_str());
            if (*suffix)
                return overwriteRefused(path,
                                        QStringLiteral("the %1 file of %2, a database Verity has open")
                                                .arg(QLatin1String(suffix), open));
            // Named as the database is named, it is not named again.
            const bool sameName = QFileInfo(path).absoluteFilePath() == QFileInfo(open).absoluteFilePath();
            return overwriteRefused(path,
                                    sameName ? QStringLiteral("a database Verity has open")
                                             : QStringLiteral("%1, a database Verity has open").arg(open));
        }
    }
    return {};
}

Expected<void> refuseToOverwriteDatabase(const QString &path)
{
    if (Expected<void> notOpen = refuseToOverwriteOpenDatabase(path); !notOpen)
        return notOpen;
    if (!QFile::exists(path))
        return {};
    // Another process's database, or its journal beside it: read by its header (safe here, where
    // no close can drop a lock of the layer's).
    QString database = path;
    for (const char *suffix : {"-wal", "-shm", "-journal"}) {
        if (path.endsWith(QLatin1String(suffix)))
            database.chop(int(std::strlen(suffix)));
    }
    QFile file(database);
    if (file.open(QIODevice::ReadOnly) && file.read(16) == QByteArray("SQLite format 3\0", 16))
        return overwriteRefused(
                path,
                database == path ? QStringLiteral("an SQLite database")
                                 : QStringLiteral("a journal file of the SQLite database %1").arg(database));
    return {};
}

const char *sqliteLockLayerName()
{
    return "unix-ofd";
}

Expected<void> useDescriptionLocksForSqlite()
{
    static std::once_flag once;
    static Expected<void> answer;
    std::call_once(once, [] { answer = registerLayer(); });
    return answer;
}

} // namespace verity

#include "sqlitestore.h"

#include "sqlerror.h"
#include "sqlitefilelocks.h"
#include "sqliteschema.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTimer>
#include <QUrl>

namespace verity {

QString SqliteStore::defaultLocation()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
            + QStringLiteral("/verity.sqlite");
}

namespace {

// A file that is there and is not SQLite at all (a text file, a spreadsheet) is named as such
// before SQLite is asked, whose own words are "file is not a database".
Expected<void> checkIsFileForSqlite(const QString &path, const QFileInfo &info)
{
    if (info.isDir())
        return makeError(InputErrc::Invalid,
                         QStringLiteral("%1: is a folder; expected a database file").arg(path));
    QFile file(info.absoluteFilePath());
    if (!info.exists() || info.size() == 0 || !file.open(QIODevice::ReadOnly))
        return {};
    if (file.read(16) != QByteArray("SQLite format 3\0", 16))
        return makeError(StoreErrc::NotADatabase,
                         QStringLiteral("%1: not a database file (an SQLite database starts with \"SQLite "
                                        "format 3\"); it was left untouched")
                                 .arg(path));
    return {};
}

} // namespace

Expected<std::unique_ptr<SqliteStore>> SqliteStore::open(const QString &path)
{
    if (Expected<void> locks = useDescriptionLocksForSqlite(); !locks)
        return inContext(path, locks.error());
    const QFileInfo info(path);
    if (Expected<void> usable = checkIsFileForSqlite(path, info); !usable)
        return usable.error();
    if (!QDir().mkpath(info.absolutePath()))
        return makeError(QStringLiteral("%1: cannot create the folder %2").arg(path, info.absolutePath()));

    std::unique_ptr<SqliteStore> store(new SqliteStore(info.absoluteFilePath(), connectionName("sqlite")));
    store->m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), store->m_connection);
    if (!store->m_db.isValid())
        return makeError(QStringLiteral("the Qt SQLite driver (QSQLITE) is not installed"));
    store->m_db.setDatabaseName(store->m_path);
    store->m_db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!store->m_db.open())
        return makeError(QStringLiteral("%1: cannot open the database: %2")
                                 .arg(path, sqlErrorText(store->m_db.lastError())));

    // Read the version before anything writes: a newer database, or a file that is not one,
    // is refused untouched (switching to WAL alone rewrites the header).
    if (Expected<void> supported = sqlite::checkVersionSupported(store->m_db); !supported)
        return inContext(path, supported.error());
    // A 32 MB page cache keeps the indexes of a large import in memory; the default 2 MB thrashes.
    for (const char *pragma :
         {"PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL",
          "PRAGMA cache_size = -32768", "PRAGMA temp_store = MEMORY"}) {
        QSqlQuery query(store->m_db);
        if (!query.exec(QString::fromLatin1(pragma)))
            return makeError(StoreErrc::NotADatabase,
                             QStringLiteral("%1: not a usable SQLite database (%2)")
                                     .arg(path, sqlErrorText(query.lastError())));
    }
    if (Expected<void> migrated = sqlite::migrate(store->m_db); !migrated)
        return inContext(path, migrated.error());
    return store;
}

Expected<std::unique_ptr<SqliteStore>> SqliteStore::openReadOnly(const QString &path)
{
    if (Expected<void> locks = useDescriptionLocksForSqlite(); !locks)
        return inContext(path, locks.error());
    const QFileInfo info(path);
    if (Expected<void> usable = checkIsFileForSqlite(path, info); !usable)
        return usable.error();
    if (!info.isFile())
        return makeError(InputErrc::Missing, QStringLiteral("%1: no such database file").arg(path));
    std::unique_ptr<SqliteStore> store(new SqliteStore(info.absoluteFilePath(), connectionName("sqlite")));
    store->m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), store->m_connection);
    if (!store->m_db.isValid())
        return makeError(QStringLiteral("the Qt SQLite driver (QSQLITE) is not installed"));
    // A database in a folder this user cannot write (a copy on read-only media, an archive) is
    // read as immutable: SQLite would otherwise need to create its -shm file beside it to read
    // a WAL database. Only when no -wal file is there, so that nothing written is left unread.
    const bool folderReadOnly = !QFileInfo(info.absolutePath()).isWritable();
    const bool walLeft = QFileInfo::exists(store->m_path + QStringLiteral("-wal"));
    if (folderReadOnly && walLeft && !QFileInfo::exists(store->m_path + QStringLiteral("-shm")))
        return makeError(
                QStringLiteral(
                        "%1: the database has changes in %1-wal that cannot be read from a folder this "
                        "user may not write to; copy the database and its -wal file to a writable "
                        "folder, or open it once where it can be written")
                        .arg(path));
    if (folderReadOnly && !walLeft) {
        store->m_db.setDatabaseName(QUrl::fromLocalFile(store->m_path).toString(QUrl::FullyEncoded)
                                    + QStringLiteral("?immutable=1"));
        store->m_db.setConnectOptions(
                QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_OPEN_URI;QSQLITE_BUSY_TIMEOUT=5000"));
    } else {
        store->m_db.setDatabaseName(store->m_path);
        store->m_db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"));
    }
    if (!store->m_db.open())
        return makeError(QStringLiteral("%1: cannot open the database: %2")
                                 .arg(path, sqlErrorText(store->m_db.lastError())));
    // Nothing is migrated here: a database of another version is refused, and says how to upgrade.
    if (Expected<void> supported = sqlite::checkVersionSupported(store->m_db); !supported)
        return inContext(path, supported.error());
    Expected<int> version = sqlite::schemaVersion(store->m_db);
    if (!version)
        return makeError(
                StoreErrc::NotADatabase,
                QStringLiteral("%1: not a usable SQLite database (%2)").arg(path, version.message()));
    // checkVersionSupported() has refused a newer one.
    if (*version < sqlite::currentSchemaVersion())
        return makeError(StoreErrc::OlderSchema,
                         QStringLiteral("%1: the database is at schema version %2 and this Verity reads "
                                        "version %3; open it once with `verity --db %1` or "
                                        "`verity import --db %1` to upgrade it")
                                 .arg(path)
                                 .arg(*version)
                                 .arg(sqlite::currentSchemaVersion()));
    QSqlQuery check(store->m_db);
    if (!check.exec(QStringLiteral("SELECT count(*) FROM sqlite_schema")))
        return makeError(QStringLiteral("%1: not a usable SQLite database (%2)")
                                 .arg(path, sqlErrorText(check.lastError())));
    return store;
}

Expected<void> SqliteStore::makeSelfContained()
{
    QSqlQuery journal(m_db);
    if (!journal.exec(QStringLiteral("PRAGMA journal_mode = DELETE")) || !journal.next()
        || journal.value(0).toString().compare(QLatin1String("delete"), Qt::CaseInsensitive) != 0)
        return makeError(QStringLiteral("%1: cannot make the database a single file: %2")
                                 .arg(m_path, sqlErrorText(journal.lastError())));
    return {};
}

// Past the largest id a joined ticket had, when that is the largest (SQLite would give it again);
// else the table's own choice. Both maxima are read from an index's end.
QString SqliteStore::newTicketId() const
{
    return QStringLiteral(
            "(SELECT CASE WHEN v >= (SELECT COALESCE(max(id), 0) FROM tickets) THEN v + 1 END "
            "FROM (SELECT CAST(value AS INTEGER) AS v FROM file_info WHERE key = 'retired_ticket_id'))");
}

Expected<void> SqliteStore::retireTicketId(qint64 ticketId)
{
    auto keep = prepared("INSERT INTO file_info (key, value) VALUES ('retired_ticket_id', ?) "
                         "ON CONFLICT (key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), "
                         "CAST(excluded.value AS INTEGER)) AS TEXT)");
    if (!keep)
        return keep.error();
    (*keep)->addBindValue(QString::number(ticketId));
    return run(**keep, "keeping a joined ticket's id from being given again");
}

QString SqliteStore::byteLengthOf(const QString &column) const
{
    return QStringLiteral("length(CAST(%1 AS BLOB))").arg(column);
}

Expected<void> SqliteStore::begin()
{
    // IMMEDIATE takes the write lock now; a deferred transaction that reads and then writes
    // fails at once when another console got there between the two.
    return execute("BEGIN IMMEDIATE", "cannot begin a transaction");
}

std::optional<qint64> SqliteStore::dataVersion()
{
    QSqlQuery query(connection());
    if (!query.exec(QStringLiteral("PRAGMA data_version")) || !query.next())
        return std::nullopt;
    return query.value(0).toLongLong();
}

ChangeFeed *SqliteStore::changeFeed()
{
    if (m_feed)
        return m_feed.get();
    m_feed = std::make_unique<ChangeFeed>();
    m_dataVersion = dataVersion();
    auto *tick = new QTimer(m_feed.get());
    tick->setInterval(500);
    QObject::connect(tick, &QTimer::timeout, m_feed.get(), [this] {
        const std::optional<qint64> now = dataVersion();
        if (!now || now == m_dataVersion)
            return;
        m_dataVersion = now;
        m_feed->announce(QString()); // SQLite does not say what changed: every area
    });
    tick->start();
    return m_feed.get();
}

void SqliteStore::keepUpkeepOffCommits()
{
    if (m_checkpointer)
        return;
    auto checkpointer = std::make_unique<SqliteCheckpointer>(m_path);
    if (!checkpointer->running())
        return;
    QSqlQuery off(m_db);
    if (off.exec(QStringLiteral("PRAGMA wal_autocheckpoint = 0")))
        m_checkpointer = std::move(checkpointer);
}

} // namespace verity

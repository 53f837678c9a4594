#pragma once
// The embedded SQLite backend (QtSql's QSQLITE driver): one file, WAL, foreign keys on, the
// schema migrated on open. One person's desk, and the demo.

#include "changefeed.h"
#include "sqlitecheckpointer.h"
#include "sqlstore.h"

#include <memory>

namespace verity {

class SqliteStore final : public SqlStore
{
public:
    // Opens (creating when missing) the database at `path` and migrates it. Each call makes
    // its own connection, so each thread opens its own store.
    static Expected<std::unique_ptr<SqliteStore>> open(const QString &path);
    // Opens an existing database for reading only: nothing is migrated or written (not even the
    // journal mode), and a database of another schema version is refused.
    static Expected<std::unique_ptr<SqliteStore>> openReadOnly(const QString &path);
    // The default database file under the platform's application-data location.
    static QString defaultLocation();

    Expected<void> begin() override;
    Expected<void> makeSelfContained() override;
    // Another process writing the same file (`verity collect`, an import from the command line)
    // is noticed by SQLite's data version, which changes only when another connection commits:
    // asked twice a second, a question of the shared memory, not the disk.
    ChangeFeed *changeFeed() override;
    void keepUpkeepOffCommits() override;

protected:
    QString byteLengthOf(const QString &column) const override;
    QString unindexedMark() const override { return QStringLiteral("+"); }
    bool sortsNullsFirst() const override { return true; }
    QString joinInThisOrder() const override { return QStringLiteral("CROSS JOIN"); }
    QString newTicketId() const override;
    Expected<void> retireTicketId(qint64 ticketId) override;

private:
    using SqlStore::SqlStore;
    std::optional<qint64> dataVersion();

    std::unique_ptr<ChangeFeed> m_feed;
    std::unique_ptr<SqliteCheckpointer> m_checkpointer;
    std::optional<qint64> m_dataVersion;
};

} // namespace verity

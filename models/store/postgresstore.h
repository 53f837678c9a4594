#pragma once
// The team backend: one PostgreSQL database shared by every console of a team, through QtSql's
// QPSQL driver. The same rooms and SQL as SQLite (SqlStore); what differs here is how it
// connects, its schema, and the locks that let many writers share one audit chain.

#include "sqlstore.h"
#include "storelocation.h"

namespace verity {

class ServerWatch;

class PostgresStore final : public SqlStore
{
public:
    ~PostgresStore() override;

    enum class Access { ReadWrite, ReadOnly };
    // Connects to `target` and, to write, brings the schema up to date. Read only: nothing is
    // migrated, and a database Verity has not set up, or of another version, is refused.
    static Expected<std::unique_ptr<PostgresStore>> open(const PostgresTarget &target,
                                                         Access access = Access::ReadWrite);

    // libpq's keywords for every connection to `target`: the location's, over Verity's defaults.
    static QList<QPair<QString, QString>> connectionKeywords(const PostgresTarget &target);
    // A libpq connection string that asks `target`'s server whether it takes connections
    // (PQping), without a password.
    static QByteArray pingInfo(const PostgresTarget &target);

    Expected<void> begin() override;
    Expected<void> lockIntent(const QString &intentKey) override;
    Expected<void> makeSelfContained() override;

    QString sessionUser() const override { return m_user; }
    Expected<OperatorRoles> sessionRoles() override;
    // LISTENs, on a connection of its own, from the first call; announcements of this store's
    // own changes are left out (its console reads again after its own changes already). From
    // then on a lost server is noticed and both connections opened again once it is back (the
    // feed says unreachable() and reachable()).
    ChangeFeed *changeFeed() override;
    bool writesAlongsideOthers() const override { return true; }

    // What an import writes through: it holds new tickets' rows and writes them by COPY on
    // commit (postgresimportbatch.h).
    std::unique_ptr<ImportBatch> openImportBatch() override;
    bool storesNulCharacters() const override { return false; }
    // Planned for these names each time, in one statement.
    Expected<QList<TicketRef>> findTickets(const QStringList &extIds) override;

protected:
    QString byteLengthOf(const QString &column) const override;
    Expected<void> lockAuditChain() override;
    QString failureText(const QSqlError &error) override;
    std::error_code failureCode(const QSqlError &error) override;
    bool foldsCase() const override { return true; }
    QString skipLockedRows() const override { return QStringLiteral(" FOR UPDATE SKIP LOCKED"); }
    QString lockedToWrite() const override { return QStringLiteral(" FOR UPDATE"); }

private:
    using SqlStore::SqlStore;

    // What each connection sets before its first query, again after a reconnection.
    Expected<void> startSession();
    qint64 backendPid();
    // After the server was lost: both connections opened again, as they were.
    Expected<void> reconnect();

    friend class PostgresImportBatch;
    // An id drawn ahead from the table's sequence, as its default would draw it: an import batch
    // names its held rows with them.
    enum class DrawnId { Ticket, ToolCall };
    Expected<qint64> drawId(DrawnId table);

    PostgresTarget m_target;
    QList<qint64> m_ticketIds, m_callIds; // drawn, not yet used
    Access m_access = Access::ReadWrite;
    QString m_user;
    std::unique_ptr<ChangeFeed> m_feed;
    std::unique_ptr<ServerWatch> m_watch; // with the feed: only a console lives long enough to need it
    QString m_listening; // the listening connection's name, once there is one
    qint64 m_ownBackend = 0; // the main connection's server process, whose announcements are left out
};

} // namespace verity

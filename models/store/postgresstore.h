#pragma once
// The team backend: one PostgreSQL database shared by every console of a team, through QtSql's
// QPSQL driver. The same rooms and SQL as SQLite (SqlStore); what differs here is how it
// connects, its schema, and the locks that let many writers share one audit chain.

#include "heldrows.h"
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

    // The import path, holding the rows of new tickets to write them by COPY on commit
    // (postgresheldrows.cpp); each call is the plain one while nothing is held.
    void holdNewTicketRows(bool hold) override;
    bool storesNulCharacters() const override { return false; }
    Expected<void> commit() override;
    void rollback() override;
    Expected<void> savepoint() override;
    Expected<void> releaseSavepoint() override;
    Expected<void> rollbackToSavepoint() override;
    Expected<std::optional<TicketRef>> findTicket(const QString &extId) override;
    Expected<std::optional<TicketRef>> readTicket(const QString &extId) override;
    Expected<QList<TicketRef>> findTickets(const QStringList &extIds) override;
    Expected<TicketRef> insertTicket(const NewTicket &ticket) override;
    Expected<bool> insertMessage(const NewMessage &message) override;
    Expected<std::optional<ToolCallRef>> findToolCall(qint64 ticketId, const QString &callExtId) override;
    Expected<qint64> insertToolCall(const NewToolCall &call) override;
    Expected<void> setToolResult(const ToolResultUpdate &result) override;
    Expected<qint64> insertAnsweredToolCall(const NewToolCall &call, const ToolResultUpdate &result) override;
    Expected<bool> insertTraceEvent(const NewTraceEvent &event) override;
    Expected<QList<CallFacts>> callFacts(qint64 ticketId) override;
    Expected<qint64> lastSeq(qint64 ticketId) override;
    Expected<RepeatCounts> applyAssessment(qint64 ticketId, qint64 lastSeq,
                                           const TicketAssessment &assessment) override;
    Expected<void> applyFirstAssessment(qint64 ticketId, qint64 lastSeq,
                                        const TicketAssessment &assessment) override;
    Expected<void> recordImport(const ImportRecord &record) override;
    Expected<void> renameTicket(qint64 ticketId, const NewTicket &named) override;
    Expected<void> completeTicket(qint64 ticketId, const NewTicket &named) override;
    Expected<void> mergeTicket(qint64 fromId, qint64 intoId) override;

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

    // Held rows: a savepoint is only marked in them until a statement that writes must run
    // inside it; then what was held before it is written, and the savepoint made for real.
    enum class HeldSavepoint { None, Marked, Real };
    Expected<void> beforeWrite();
    // Everything held written, for a statement that reads it or when the transaction commits.
    Expected<void> writeAllHeld();
    Expected<void> writeHeld(const HeldRows::Batch &batch);
    Expected<void> writeOwnersOf(const QList<HeldRows::Ticket> &tickets);
    // An id drawn ahead from the table's sequence, as its default would draw it.
    Expected<qint64> nextId(QList<qint64> &pool, const char *table);

    PostgresTarget m_target;
    bool m_holding = false;
    HeldRows m_held;
    HeldSavepoint m_heldSavepoint = HeldSavepoint::None;
    HeldRows::Mark m_savepointMark;
    QList<HeldRows::Batch> m_writtenInSavepoint;
    QList<qint64> m_ticketIds, m_callIds; // drawn, not yet used
    Access m_access = Access::ReadWrite;
    QString m_user;
    std::unique_ptr<ChangeFeed> m_feed;
    std::unique_ptr<ServerWatch> m_watch; // with the feed: only a console lives long enough to need it
    QString m_listening; // the listening connection's name, once there is one
    qint64 m_ownBackend = 0; // the main connection's server process, whose announcements are left out
};

} // namespace verity

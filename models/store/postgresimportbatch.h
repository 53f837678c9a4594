#pragma once
// One import into a team's PostgreSQL database, as the store hands it out
// (PostgresStore::openImportBatch): the rows of the tickets the import opens are held here
// (HeldRows) and reach the server a table at a time, by COPY, when the transaction commits,
// instead of a round trip a row. Every other call goes to the store, after what is held was
// written wherever the call could see it or must come after it. The only owner of the COPY path.

#include "heldrows.h"
#include "store.h"

namespace verity {

class PostgresStore;

class PostgresImportBatch final : public ImportBatch
{
public:
    explicit PostgresImportBatch(PostgresStore &store);
    ~PostgresImportBatch() override;

    QString location() const override;
    QString sessionUser() const override;
    Expected<OperatorRoles> sessionRoles() override;
    bool writesAlongsideOthers() const override { return true; }
    bool storesNulCharacters() const override { return false; }

    Expected<void> begin() override;
    Expected<void> commit() override;
    void rollback() override;
    Expected<void> savepoint() override;
    Expected<void> releaseSavepoint() override;
    Expected<void> rollbackToSavepoint() override;

    Expected<QList<CallFacts>> callFacts(qint64 ticketId) override;
    Expected<qint64> lastSeq(qint64 ticketId) override;
    Expected<RepeatCounts> applyAssessment(qint64 ticketId, qint64 lastSeq,
                                           const TicketAssessment &assessment) override;
    Expected<void> applyFirstAssessment(qint64 ticketId, qint64 lastSeq,
                                        const TicketAssessment &assessment) override;
    Expected<QList<qint64>> ticketsAwaitingReassessment(int limit) override;
    Expected<void> markReassessed(qint64 ticketId) override;

    Expected<std::optional<TicketRef>> findTicket(const QString &extId) override;
    Expected<std::optional<TicketRef>> readTicket(const QString &extId) override;
    Expected<QList<TicketRef>> findTickets(const QStringList &extIds) override;
    Expected<TicketRef> insertTicket(const NewTicket &ticket) override;
    Expected<bool> insertMessage(const NewMessage &message) override;
    Expected<std::optional<ToolCallRef>> findToolCall(qint64 ticketId, const QString &callExtId) override;
    Expected<qint64> insertToolCall(const NewToolCall &call) override;
    Expected<std::optional<QString>> findToolCallByPrint(qint64 ticketId,
                                                         const QString &fingerprint) override;
    Expected<void> setToolResult(const ToolResultUpdate &result) override;
    Expected<qint64> insertAnsweredToolCall(const NewToolCall &call, const ToolResultUpdate &result) override;
    Expected<bool> insertTraceEvent(const NewTraceEvent &event) override;
    Expected<void> recordImport(const ImportRecord &record) override;
    Expected<int> escalateOverdueCalls(qint64 now) override;
    Expected<bool> endWaitForResult(qint64 callId, qint64 now) override;
    Expected<QList<IntentCall>> callsOfIntent(const QString &intentKey, int limit) override;
    Expected<void> lockIntent(const QString &intentKey) override;
    Expected<void> renameTicket(qint64 ticketId, const NewTicket &named) override;
    Expected<void> completeTicket(qint64 ticketId, const NewTicket &named) override;
    Expected<void> mergeTicket(qint64 fromId, qint64 intoId) override;
    Expected<QList<StoredCall>> writeCalls(qint64 ticketId) override;
    Expected<void> setIntentKey(qint64 callId, const QString &key, const QString &error) override;

private:
    // A savepoint is only marked in the held rows until a statement that writes must run inside
    // it; then what was held before it is written, and the savepoint made for real.
    enum class HeldSavepoint { None, Marked, Real };
    Expected<void> beforeWrite();
    // Everything held written: before a statement that reads or changes it, and at the commit.
    Expected<void> writeAllHeld();
    // The same where the ticket's rows are held: before a read of them.
    Expected<void> writeIfHeld(qint64 ticketId);
    // Before a write to the ticket: its held rows written, else the savepoint made real.
    Expected<void> writeHeldTicket(qint64 ticketId);
    Expected<void> writeHeld(const HeldRows::Batch &batch);
    Expected<void> writeOwnersOf(const QList<HeldRows::Ticket> &tickets);
    TicketRef heldTicketRef(const HeldRows::Ticket &ticket) const;
    void forgetSavepoint();

    PostgresStore &m_store;
    HeldRows m_held;
    HeldSavepoint m_heldSavepoint = HeldSavepoint::None;
    HeldRows::Mark m_savepointMark;
    QList<HeldRows::Batch> m_writtenInSavepoint;
};

} // namespace verity

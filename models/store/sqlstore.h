#pragma once
// What the two backends share: the Store's rooms in SQL that SQLite and PostgreSQL both
// speak, through QtSql, prepared statements only. A backend opens the connection, migrates its
// schema, and supplies the few things the two engines say differently.

#include "sqlerror.h"
#include "store.h"

#include <QSet>
#include <QSqlDatabase>
#include <QSqlQuery>

#include <memory>
#include <unordered_map>

namespace verity {

class SqlStore : public Store
{
public:
    ~SqlStore() override;

    QString location() const override { return m_path; }
    // The connection itself, for the store's own bulk work (copying a database whole).
    QSqlDatabase &connection() { return m_db; }

    Expected<void> commit() override;
    void rollback() override;
    Expected<void> savepoint() override;
    Expected<void> releaseSavepoint() override;
    Expected<void> rollbackToSavepoint() override;

    Expected<std::optional<TicketRef>> findTicket(const QString &extId) override;
    Expected<std::optional<TicketRef>> readTicket(const QString &extId) override;
    Expected<TicketRef> insertTicket(const NewTicket &ticket) override;
    Expected<bool> insertMessage(const NewMessage &message) override;
    Expected<std::optional<ToolCallRef>> findToolCall(qint64 ticketId, const QString &callExtId) override;
    Expected<qint64> insertToolCall(const NewToolCall &call) override;
    Expected<std::optional<QString>> findToolCallByPrint(qint64 ticketId,
                                                         const QString &fingerprint) override;
    Expected<void> setToolResult(const ToolResultUpdate &result) override;
    Expected<qint64> insertAnsweredToolCall(const NewToolCall &call, const ToolResultUpdate &result) override;
    Expected<QList<CallFacts>> callFacts(qint64 ticketId) override;
    Expected<qint64> lastSeq(qint64 ticketId) override;
    Expected<QList<qint64>> ticketsAwaitingReassessment(int limit) override;
    Expected<void> markReassessed(qint64 ticketId) override;
    Expected<RepeatCounts> applyAssessment(qint64 ticketId, qint64 lastSeq,
                                           const TicketAssessment &assessment) override;
    Expected<void> applyFirstAssessment(qint64 ticketId, qint64 lastSeq,
                                        const TicketAssessment &assessment) override;
    Expected<void> recordImport(const ImportRecord &record) override;
    Expected<QList<UnclassifiedTool>> unclassifiedTools() override;
    Expected<QList<StoredCall>> unclassifiedCalls(const QString &tool) override;
    Expected<void> reclassifyCall(const CallClassification &classification) override;

    Expected<qint64> countTickets(const TicketQuery &query) override;
    Expected<QList<TicketRow>> ticketPage(const TicketQuery &query, const TicketPage &page) override;
    Expected<std::optional<TicketDetail>> ticket(qint64 ticketId) override;
    Expected<std::optional<qint64>> ticketIdByExtId(const QString &extId) override;
    Expected<QList<TranscriptEntry>> transcript(qint64 ticketId, qsizetype clipAt = 0) override;
    Expected<QString> wholeText(qint64 ticketId, const TextPlace &place) override;
    Expected<qint64> countOpenEscalations() override;
    Expected<QList<EscalationRow>> openEscalations(qint64 offset, int limit) override;
    Expected<QList<EscalationRow>> openEscalationsAfter(qint64 afterId, int limit) override;
    Expected<QList<EscalationRow>> claimsHeldBy(const QString &holder, qint64 now) override;

    Expected<std::optional<EscalationDetail>> escalation(qint64 escalationId) override;
    Expected<QList<IntentCall>> intentCalls(qint64 ticketId, const QString &intentKey) override;
    Expected<qint64> recordEvidence(const Evidence &evidence) override;
    Expected<QList<Evidence>> evidence(qint64 escalationId) override;
    Expected<ResolutionClaim> resolveEscalation(const Settlement &settlement) override;
    Expected<void> noteEscalation(qint64 escalationId, const QString &note) override;
    Expected<void> setEscalationPayment(qint64 escalationId, const QString &reference,
                                        const QString &enteredBy) override;
    Expected<void> reopenEscalation(qint64 escalationId, const QString &note) override;
    Expected<EscalationClaim> claimEscalation(qint64 escalationId, const QString &operatorName, qint64 now,
                                              qint64 until, qint64 renewsEvery = 0) override;
    Expected<std::optional<EscalationClaim>> claimNextEscalation(const QString &operatorName, qint64 now,
                                                                 qint64 until,
                                                                 qint64 renewsEvery = 0) override;
    Expected<bool> releaseEscalationClaim(qint64 escalationId, const QString &operatorName) override;
    Expected<std::optional<LedgerEntry>> ledgerEntry(const QString &intentKey) override;
    Expected<std::optional<LedgerEntry>> ledgerEntryOfCall(qint64 toolCallId) override;
    Expected<bool> recordLedgerEntry(const LedgerEntry &entry) override;
    Expected<QList<EscalationSettlement>> escalationSettlements(qint64 offset, int limit) override;
    Expected<QList<StoredWriteOutcome>> writeOutcomes(qint64 afterCallId, int limit) override;
    Expected<QList<LedgerEntry>> ledgerEntries(qint64 offset, int limit) override;
    Expected<QList<Evidence>> evidenceRows(qint64 offset, int limit) override;
    Expected<QList<LedgerPayout>> payouts(qint64 fromMs, qint64 toMs) override;
    Expected<std::optional<qint64>> newestPayoutAt() override;
    Expected<std::optional<qint64>> newestPerformedPayoutAt() override;
    Expected<QList<SellerBalance>> sellerBalances() override;
    Expected<SellerHistory> sellerHistory(const QString &sellerId) override;
    Expected<QList<PayoutMark>> payoutMarks() override;
    Expected<bool> insertTraceEvent(const NewTraceEvent &event) override;
    Expected<QList<TraceEvent>> traceEvents(qint64 ticketId) override;
    Expected<QList<TrainerNote>> trainerNotes(qint64 ticketId) override;
    Expected<void> saveTrainerNote(qint64 ticketId, const TrainerNote &note) override;
    Expected<QHash<QString, QString>> fileInfo() override;
    Expected<void> setFileInfo(const QString &key, const QString &value) override;
    Expected<qint64> insertPayoutMark(const PayoutMark &mark) override;
    Expected<std::optional<AuditEntry>> lastAuditEntry() override;
    Expected<void> insertAuditEntry(const AuditEntry &entry) override;
    Expected<qint64> countAuditEntries() override;
    Expected<QList<AuditEntry>> auditEntries(qint64 offset, int limit) override;

protected:
    // `location` is what errors name (a file, a database without its password).
    SqlStore(QString location, QString connection);
    // A connection name of its own for each store, so each thread can open one.
    static QString connectionName(const char *backend);
    // How the engine counts a text's bytes: `column` is the text's expression.
    virtual QString byteLengthOf(const QString &column) const = 0;
    // Written before a column to keep the planner off its index, where that reads fewer rows
    // (SQLite's unary plus); empty where the planner needs no such hint.
    virtual QString unindexedMark() const { return QString(); }
    // Whether NULL sorts before every value going up without being told (SQLite), or must be
    // told to (PostgreSQL sorts it last).
    virtual bool sortsNullsFirst() const { return false; }
    // Whether text compares with its case (PostgreSQL), so a search must fold it; SQLite's
    // searched columns are NOCASE.
    virtual bool foldsCase() const { return false; }
    // A join that keeps its left table outermost, where the engine takes such a hint.
    virtual QString joinInThisOrder() const { return QStringLiteral("JOIN"); }
    // What keeps two consoles from picking the same row to claim: a row lock that the other
    // skips (PostgreSQL); empty where a write transaction has the whole database to itself.
    virtual QString skipLockedRows() const { return QString(); }
    // Ends the read of a ticket the transaction goes on to write into (its next step number, its
    // summary): a row lock the other sessions wait for (PostgreSQL), so no two give a ticket the
    // same step or store a summary from calls the other changed meanwhile; empty where a write
    // transaction has the whole database to itself.
    virtual QString lockedToWrite() const { return QString(); }
    // The id a new ticket gets, as SQL; empty: the table's own. A ticket joined into another
    // (mergeTicket) is gone, and its id must never name another ticket: SQLite would give the
    // largest id again, where a console may still hold it.
    virtual QString newTicketId() const { return QString(); }
    virtual Expected<void> retireTicketId(qint64) { return {}; }
    // Called before the last audit entry is read: where many consoles append to one chain, the
    // backend makes the next appender wait for this transaction's end.
    virtual Expected<void> lockAuditChain() { return {}; }

    Expected<void> execute(const char *sql, const char *what);
    // A statement prepared once per connection and reused: the import path runs each of
    // them millions of times.
    Expected<QSqlQuery *> prepared(const char *sql);
    Expected<void> run(QSqlQuery &query, const char *what);
    // One open escalation per unknown write of the ticket's calls as stored.
    Expected<void> openEscalations(qint64 ticketId);

public:
    Expected<int> escalateOverdueCalls(qint64 now) override;
    Expected<bool> endWaitForResult(qint64 callId, qint64 now) override;
    Expected<QList<IntentCall>> callsOfIntent(const QString &intentKey, int limit) override;
    // A file's writers queue at BEGIN IMMEDIATE already.
    Expected<void> lockIntent(const QString &) override { return {}; }
    Expected<void> renameTicket(qint64 ticketId, const NewTicket &named) override;
    Expected<void> completeTicket(qint64 ticketId, const NewTicket &named) override;
    Expected<void> mergeTicket(qint64 fromId, qint64 intoId) override;
    Expected<QList<StoredCall>> writeCalls(qint64 ticketId) override;
    Expected<void> setIntentKey(qint64 callId, const QString &key, const QString &error) override;

protected:
    // Every prepared statement's result let go, so that the connection is idle for the
    // backend's own use of it.
    void finishStatements();
    // Before the connection is opened again: what was prepared on it, or learnt through it.
    void forgetStatements();
    // Why a statement failed, in the words the message carries; the backend may look at
    // whether the connection is gone (and say that, rather than the driver's words).
    virtual QString failureText(const QSqlError &error) { return sqlErrorText(error); }
    // What a failed statement means for its caller, who may branch on it: a file that is read
    // only, one that is not a database, a lock to wait out (SQLite's codes here; the server's in
    // its backend).
    virtual std::error_code failureCode(const QSqlError &error);
    // Both, with what was being done: "cannot commit: …".
    Error failure(const QSqlError &error, const QString &what);

    QString m_path;
    QString m_connection;
    QSqlDatabase m_db;

private:
    // A text's whole size in bytes, and `expression` of its column ("%1" stands for it).
    Expected<qint64> textBytes(qint64 ticketId, const TextPlace &place);
    // transcript()'s steps: its messages, its calls with their settlements and repeats, and the
    // whole size of each text it cut.
    Expected<void> transcriptMessages(qint64 ticketId, qsizetype clipAt, QList<TranscriptEntry> &entries);
    Expected<void> transcriptCalls(qint64 ticketId, qsizetype clipAt, QList<TranscriptEntry> &entries);
    Expected<void> measureClippedTexts(qint64 ticketId, QList<TranscriptEntry> &entries);
    Expected<QVariant> textColumn(qint64 ticketId, const TextPlace &place, const QString &expression);
    // The same for a statement whose text depends on the backend, kept under `key`.
    Expected<QSqlQuery *> prepared(const char *key, const QString &sql);
    // newestPayoutAt() and newestPerformedPayoutAt(): the first two statements, or the second two.
    Expected<std::optional<qint64>> newestPayout(const char *const keys[2], const QString reads[2]);
    // Every row `sql` gives for `binds`, each made by `read`; an error names `what` was being read.
    template<typename Row, typename Read>
    Expected<QList<Row>> rowsOf(const QString &sql, const QVariantList &binds, const char *what, Read read);
    Expected<void> insertSellerAndOrder(const NewTicket &ticket);
    Expected<void> insertOrder(const NewTicket &ticket);
    Expected<RepeatCounts> repeatCounts(qint64 ticketId);
    // findTicket, locked to write into when `toWrite`; readTicket otherwise.
    Expected<std::optional<TicketRef>> ticketNamed(const QString &extId, bool toWrite);
    Expected<void> markRepeats(const TicketAssessment &assessment);
    // Only the summary columns that differ from a new ticket's, when `onlyChanged`: each one
    // set moves the ticket in its index.
    Expected<void> storeSummary(qint64 ticketId, qint64 lastSeq, const TicketAssessment &assessment,
                                bool onlyChanged);
    // The ticket queue's rows: those of `from` under `whereSql`, in the order of `column`, a page.
    Expected<QList<TicketRow>> readTicketRows(const QString &from, const QString &whereSql,
                                              const QVariantList &values, const QString &column,
                                              bool descending, const TicketPage &page);
    // A searched page read by walking the time order, or none when the search's indexes serve better.
    Expected<std::optional<QList<TicketRow>>> walkedSearchPage(const TicketQuery &query,
                                                               const TicketPage &page,
                                                               const QStringList &after,
                                                               const QVariantList &afterValues);
    // One of the totals the schema's triggers keep (queue_totals), by column name.
    Expected<qint64> keptTotal(const char *column);

    std::unordered_map<const char *, std::unique_ptr<QSqlQuery>> m_statements;
    // The text of each summary update by the columns it sets, kept for prepared()'s key.
    std::unordered_map<unsigned, QByteArray> m_summaryTexts;
    // Sellers known to be stored, so a ticket that brings no new balance need not write its
    // seller again; forgotten on any rollback.
    QSet<QString> m_knownSellers;
    // The last search counted, by filter and text, and its matches: only a hint for how its
    // pages are read (walkedSearchPage), so a stale one costs time, never rows.
    using SearchKey = std::pair<TicketFilter, QString>;
    std::optional<std::pair<SearchKey, qint64>> m_searchMatches;
};

} // namespace verity

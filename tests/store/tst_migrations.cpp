// Opening a database: a new one is created at the current schema, in WAL mode with foreign
// keys on; an older one is migrated with its rows kept; a newer one or a file that is not
// SQLite at all is refused with a message naming it, and left exactly as it was.

#include "store/sqliteschema.h"
#include "storetestsupport.h"
#include "support/asnobody.h"
#include "support/testmacros.h"

#include <QDir>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace verity;
using namespace storetest;

namespace {

const QStringList schemaTables{QStringLiteral("audit_log"),
                               QStringLiteral("escalations"),
                               QStringLiteral("evidence"),
                               QStringLiteral("file_info"),
                               QStringLiteral("imports"),
                               QStringLiteral("ledger"),
                               QStringLiteral("messages"),
                               QStringLiteral("order_items"),
                               QStringLiteral("orders"),
                               QStringLiteral("payout_marks"),
                               QStringLiteral("pending_reassessment"),
                               QStringLiteral("queue_totals"),
                               QStringLiteral("sellers"),
                               QStringLiteral("tickets"),
                               QStringLiteral("tool_calls"),
                               QStringLiteral("trace_events"),
                               QStringLiteral("trainer_notes")};

QString pragma(QSqlDatabase &db, const char *name)
{
    const QStringList values = rows(db, QStringLiteral("PRAGMA ") + QLatin1String(name));
    return values.value(0);
}

// Whether `store` enforces foreign keys on its own connection: a call for a ticket that does
// not exist is refused (empty when it is, else what happened).
QString orphanCallRefused(Store &store)
{
    if (Expected<void> begun = store.begin(); !begun)
        return begun.message();
    NewToolCall orphan;
    orphan.ticketId = 99;
    orphan.seq = 1;
    orphan.callExtId = QStringLiteral("x");
    orphan.tool = QStringLiteral("t");
    orphan.toolClass = ToolClass::Read;
    orphan.argumentsJson = QStringLiteral("{}");
    orphan.fingerprint = QStringLiteral("f");
    const Expected<qint64> inserted = store.insertToolCall(orphan);
    store.rollback();
    return inserted ? QStringLiteral("a call for ticket 99, which does not exist, was stored") : QString();
}

// A database at `version` with one seller, order and ticket, made without the store.
bool makeDatabaseAt(const QString &path, int version)
{
    RawSqlite raw(path);
    if (!raw.isOpen() || !sqlite::migrate(raw.db(), version).ok())
        return false;
    return raw.exec(QStringLiteral("INSERT INTO sellers (id, name, balance_cents, balance_as_of) "
                                   "VALUES ('ashcombe', 'Ashcombe Furniture', 18900, 1773734400000)"))
                   .isEmpty()
            && raw.exec(QStringLiteral("INSERT INTO orders (id, seller_id, currency, customer_name) "
                                       "VALUES ('SU-1', 'ashcombe', 'USD', 'Dana')"))
                       .isEmpty()
            && raw.exec(QStringLiteral(
                                "INSERT INTO tickets (ext_id, order_id, seller_id, seller_name, subject, "
                                "opened_at, fingerprint) VALUES ('T-1', 'SU-1', 'ashcombe', "
                                "'Ashcombe Furniture', 'Cracked shelf', 1773757731000, 'abc')"))
                       .isEmpty();
}

// "offset: old -> new" for the first few bytes that differ (18 and 19 are SQLite's
// journal mode: 1 rollback, 2 WAL).
QString changedBytes(const QByteArray &before, const QByteArray &after)
{
    QStringList changes;
    if (before.size() != after.size())
        changes << QStringLiteral("size %1 -> %2").arg(before.size()).arg(after.size());
    for (qsizetype i = 0; i < qMin(before.size(), after.size()) && changes.size() < 6; ++i) {
        if (before.at(i) != after.at(i))
            changes << QStringLiteral("%1: %2 -> %3")
                               .arg(i)
                               .arg(int(quint8(before.at(i))))
                               .arg(int(quint8(after.at(i))));
    }
    return changes.join(QStringLiteral(", "));
}

} // namespace

class TestMigrations : public QObject
{
    Q_OBJECT

private slots:
    void newDatabase_data();
    void newDatabase();
    void olderDatabaseIsMigrated_data();
    void olderDatabaseIsMigrated();
    void failedMigrationChangesNothing();
    void queueTotalsFollowEveryChange_data();
    void queueTotalsFollowEveryChange();
    void ticketsRebuildKeepsWhatPointsAtThem();
    void evidenceAndLedgerSurviveSchema11();
    void guessedPaymentsAreForgotten();
    void aWriteACheckFoundAbsentIsOwedOnceMigrated();
    void newerDatabaseIsRefused_data();
    void newerDatabaseIsRefused();
    void notSqliteIsRefused_data();
    void notSqliteIsRefused();
    void folderIsRefused();
    void anotherProgramsDatabaseIsRefusedUntouched_data();
    void anotherProgramsDatabaseIsRefusedUntouched();
    void readOnlyFolderIsReadForReading();
};

void TestMigrations::newDatabase_data()
{
    QTest::addColumn<bool>("fileExists");
    QTest::addColumn<QString>("relativePath");
    QTest::newRow("missing file") << false << QStringLiteral("verity.sqlite");
    QTest::newRow("zero-byte file") << true << QStringLiteral("verity.sqlite");
    QTest::newRow("missing folders") << false << QStringLiteral("a/b/c/verity.sqlite");
}

void TestMigrations::newDatabase()
{
    QFETCH(bool, fileExists);
    QFETCH(QString, relativePath);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(relativePath);
    if (fileExists)
        QVERIFY(writeLines(path, {}));

    QString error;
    std::unique_ptr<SqliteStore> store = openStore(path, &error);
    QVERIFY2(store, qPrintable(error));
    RawSqlite raw(store->location());
    QSqlDatabase &db = raw.db();
    QCOMPARE(pragma(db, "user_version"), QString::number(sqlite::currentSchemaVersion()));
    QCOMPARE(*sqlite::schemaVersion(db), sqlite::currentSchemaVersion());
    QCOMPARE(tableNames(db), schemaTables);
    QCOMPARE(pragma(db, "journal_mode"), QStringLiteral("wal"));
    // Foreign keys are not just on but enforced by the store: a call for a ticket that does not
    // exist is refused.
    QCOMPARE(orphanCallRefused(*store), QString());
    QVERIFY(store->countTickets({}).ok());
    QCOMPARE(*store->countTickets({}), 0);
    // Finance joins each money write to the ledger by its call: through an index, never a scan
    // of the ledger per payout (schema 9).
    const auto planOf = [&db](const char *sql) {
        QSqlQuery plan(db);
        if (!plan.exec(QStringLiteral("EXPLAIN QUERY PLAN ") + QLatin1String(sql)))
            return QStringLiteral("cannot explain: ") + QLatin1String(sql);
        QStringList steps;
        while (plan.next())
            steps << plan.value(3).toString();
        return steps.join(u'\n');
    };
    const QString ledger =
            planOf("SELECT l.refund_id FROM tool_calls c LEFT JOIN ledger l ON l.tool_call_id = c.id");
    QVERIFY2(ledger.contains(QStringLiteral("ledger_call")), qPrintable(ledger));
    // A search's matches are put in time order from the seller and order indexes (which hold
    // the opening time since schema 10, so SQLite's deferred seek never reads the row), and the
    // queue sorted by seller or order is read in index order, never sorted whole.
    const QString searched =
            planOf("SELECT id FROM tickets WHERE seller_name LIKE 'ash%' OR order_id LIKE 'ash%' "
                   "ORDER BY opened_at DESC, id DESC");
    QVERIFY2(searched.contains(QStringLiteral("INDEX tickets_seller (seller_name>? AND seller_name<?)"))
                     && searched.contains(QStringLiteral("INDEX tickets_order (order_id>? AND order_id<?)")),
             qPrintable(searched));
    for (const char *sorted :
         {"SELECT id FROM tickets ORDER BY seller_name DESC, opened_at DESC, id DESC LIMIT 9",
          "SELECT id FROM tickets ORDER BY order_id ASC, opened_at ASC, id ASC LIMIT 9"}) {
        const QString steps = planOf(sorted);
        QVERIFY2(!steps.contains(QStringLiteral("TEMP B-TREE")), qPrintable(steps));
    }
    QCOMPARE(*store->countOpenEscalations(), 0);

    // Opening it again is a no-op at the same version.
    store.reset();
    store = openStore(path, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(*sqlite::schemaVersion(RawSqlite(store->location()).db()), sqlite::currentSchemaVersion());
}

// Schema 11 renames lookups to evidence and rebuilds the ledger one row per refund: every
// lookup, ledger row and settlement stored before is still there, read the new way.
void TestMigrations::evidenceAndLedgerSurviveSchema11()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("v10.sqlite"));
    QVERIFY(makeDatabaseAt(path, 10));
    {
        RawSqlite raw(path);
        for (const char *sql :
             {"INSERT INTO tool_calls (id, ticket_id, seq, call_ext_id, tool, tool_class, arguments, "
              "called_at, "
              "fingerprint, intent_key, outcome, amount_cents) VALUES (7, 1, 1, 'c3', 'issue_refund', "
              "'write_money', "
              "'{}', 1773757927000, 'f', 'key-1', 'unknown', 11800)",
              "INSERT INTO escalations (id, tool_call_id, ticket_id, opened_at, amount_cents, state, "
              "resolution, "
              "resolved_by, resolved_at) VALUES (1, 7, 1, 1773757932000, 11800, 'resolved', 'performed', "
              "'amira', 5)",
              "INSERT INTO lookups (escalation_id, operator, started_at, finished_at, verdict, request, "
              "response, "
              "refund_id, reason, evidence_sha256) VALUES (1, 'amira', 1, 2, 'found', 'GET /v1/refunds', "
              "'HTTP 200', 're_1', 'found', 'abc')",
              "INSERT INTO ledger (intent_key, tool_call_id, refund_id, amount_cents, currency, seller_id, "
              "recorded_at, source) VALUES ('key-1', 7, 're_1', 11800, 'USD', 'ashcombe', 3, 'provider "
              "lookup')",
              "UPDATE tickets SET duplicate_effects = 1, worst_outcome = 1 WHERE id = 1"})
            QCOMPARE(raw.exec(QString::fromLatin1(sql)), QString());
    }
    QString error;
    std::unique_ptr<SqliteStore> store = openStore(path, &error);
    QVERIFY2(store, qPrintable(error));
    const QList<Evidence> evidence = *store->evidence(1);
    QCOMPARE(evidence.size(), 1);
    QCOMPARE(evidenceKindId(evidence.first().kind), QStringLiteral("lookup"));
    QCOMPARE(evidence.first().recordId, QStringLiteral("re_1"));
    QCOMPARE(evidence.first().response, QStringLiteral("HTTP 200"));
    const std::optional<LedgerEntry> ledger = *store->ledgerEntryOfCall(7);
    QVERIFY(ledger);
    QCOMPARE(ledger->refundId, QStringLiteral("re_1"));
    QCOMPARE(ledger->intentKey, QStringLiteral("key-1"));
    const EscalationDetail escalation = **store->escalation(1);
    QCOMPARE(settlementBasisId(escalation.basis), QStringLiteral("lookup"));
    QCOMPARE(escalation.reference, QStringLiteral("re_1"));
    // A duplicate effect is now the worst a ticket can be.
    QCOMPARE(scalar(RawSqlite(store->location()).db(),
                    QStringLiteral("SELECT worst_outcome FROM tickets WHERE id = 1")),
             5);
    // One row per refund: a second refund of the same intent key (an old tool's duplicate) fits.
    LedgerEntry second = *ledger;
    second.refundId = QStringLiteral("re_2");
    second.toolCallId.reset();
    QVERIFY(*store->recordLedgerEntry(second));
    QVERIFY(!*store->recordLedgerEntry(second)); // the same refund twice is refused
    QCOMPARE((*store->ledgerEntry(QStringLiteral("key-1")))->refundId, QStringLiteral("re_1"));
}

// Before schema 17 an order that named no payment was stored as "pi_<order id>", a guess that
// would be looked up and find nothing. The guess goes; a payment the data named stays.
void TestMigrations::guessedPaymentsAreForgotten()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("v16.sqlite"));
    QVERIFY(makeDatabaseAt(path, 16));
    {
        RawSqlite raw(path);
        for (const char *sql : {"UPDATE orders SET payment_intent = 'pi_SU-1' WHERE id = 'SU-1'",
                                "INSERT INTO orders (id, seller_id, currency, payment_intent) VALUES "
                                "('SU-2', 'ashcombe', 'USD', "
                                "'pi_3NfWq2Lk')",
                                "INSERT INTO orders (id, seller_id, currency, payment_intent) VALUES "
                                "('SU-3', 'ashcombe', 'USD', "
                                "'pi_SU-33')"})
            QCOMPARE(raw.exec(QString::fromLatin1(sql)), QString());
    }
    QString error;
    std::unique_ptr<SqliteStore> store = openStore(path, &error);
    QVERIFY2(store, qPrintable(error));
    RawSqlite raw(store->location());
    QCOMPARE(rows(raw.db(),
                  QStringLiteral("SELECT id, COALESCE(payment_intent, '-') FROM orders ORDER BY id")),
             (QStringList{QStringLiteral("SU-1|-"), QStringLiteral("SU-2|pi_3NfWq2Lk"),
                          QStringLiteral("SU-3|pi_SU-33")}));
}

// Before schema 25 only a lookup's "not performed" (or a check's, for a refund) left a write
// owed: a seller message a person found absent left its ticket with no attention. The tickets
// holding such a check are assessed again as the store opens, and need a look now.
void TestMigrations::aWriteACheckFoundAbsentIsOwedOnceMigrated()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("v24.sqlite"));
    QVERIFY(makeDatabaseAt(path, 24));
    {
        RawSqlite raw(path);
        for (const char *sql :
             {"INSERT INTO tool_calls (id, ticket_id, seq, call_ext_id, tool, tool_class, arguments, "
              "called_at, "
              "fingerprint, intent_key, outcome) VALUES (7, 1, 1, 'c2', 'message_seller', "
              "'write_irreversible', "
              "'{}', 1773757927000, 'f', 'key-1', 'unknown')",
              "INSERT INTO escalations (id, tool_call_id, ticket_id, opened_at, state, resolution, basis, "
              "resolved_by, resolved_at) VALUES (1, 7, 1, 1773757932000, 'resolved', 'not_performed', "
              "'attestation', 'amira', 5)",
              "UPDATE tickets SET write_count = 1, worst_outcome = 2, needs_attention = 0, attention_rank = "
              "2 "
              "WHERE id = 1"})
            QCOMPARE(raw.exec(QString::fromLatin1(sql)), QString());
    }
    QString error;
    std::unique_ptr<SqliteStore> store = openStore(path, &error);
    QVERIFY2(store, qPrintable(error));
    const TicketRow row = (**store->ticket(1)).row;
    QVERIFY(row.needsAttention);
    QCOMPARE(ticketStateLabel(row.state), ticketStateLabel(TicketState::NeedsLook));
    QCOMPARE(scalar(RawSqlite(store->location()).db(),
                    QStringLiteral("SELECT count(*) FROM pending_reassessment")),
             0);
}

void TestMigrations::olderDatabaseIsMigrated_data()
{
    QTest::addColumn<int>("startVersion");
    for (int version = 1; version <= sqlite::currentSchemaVersion(); ++version)
        QTest::addRow("from version %d", version) << version;
}

void TestMigrations::olderDatabaseIsMigrated()
{
    QFETCH(int, startVersion);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("old.sqlite"));
    QVERIFY(makeDatabaseAt(path, startVersion));
    {
        RawSqlite raw(path);
        QCOMPARE(*sqlite::schemaVersion(raw.db()), startVersion);
        QCOMPARE(tableNames(raw.db()).contains(QStringLiteral("imports")), startVersion >= 2);
    }

    // Reading alone never migrates: it says how to upgrade.
    if (startVersion < sqlite::currentSchemaVersion()) {
        const Expected<std::unique_ptr<SqliteStore>> readOnly = SqliteStore::openReadOnly(path);
        QVERIFY(!readOnly);
        QCOMPARE(readOnly.code(), std::error_code(StoreErrc::OlderSchema));
        QVERIFY2(readOnly.message().contains(QStringLiteral("to upgrade it")),
                 qPrintable(readOnly.message()));
    }

    QString error;
    std::unique_ptr<SqliteStore> store = openStore(path, &error);
    QVERIFY2(store, qPrintable(error));
    RawSqlite raw(store->location());
    QSqlDatabase &db = raw.db();
    QCOMPARE(pragma(db, "user_version"), QString::number(sqlite::currentSchemaVersion()));
    QCOMPARE(tableNames(db), schemaTables);
    QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM imports")), 0);
    QCOMPARE(rows(db,
                  QStringLiteral("SELECT s.id, s.name, s.balance_cents, o.id, o.currency, o.customer_name, "
                                 "t.ext_id, t.subject, t.opened_at FROM tickets t JOIN orders o ON "
                                 "o.id = t.order_id JOIN sellers s ON s.id = t.seller_id")),
             QStringList{QStringLiteral("ashcombe|Ashcombe Furniture|18900|SU-1|USD|Dana|T-1|Cracked shelf|"
                                        "1773757731000")});
    QCOMPARE(rows(db, QStringLiteral("SELECT name FROM pragma_index_info('tickets_seller')")),
             (QStringList{QStringLiteral("seller_name"), QStringLiteral("opened_at")}));
    QCOMPARE(rows(db, QStringLiteral("SELECT name FROM pragma_index_info('tickets_order')")),
             (QStringList{QStringLiteral("order_id"), QStringLiteral("opened_at")}));
    // The store reads the migrated row like any other, and counts it without counting.
    QCOMPARE(scalar(db, QStringLiteral("SELECT tickets FROM queue_totals")), 1);
    QCOMPARE(*store->countTickets({}), 1);
    const Expected<std::optional<qint64>> id = store->ticketIdByExtId(QStringLiteral("T-1"));
    QVERIFY(id.ok() && id->has_value());
    const Expected<std::optional<TicketDetail>> detail = store->ticket(**id);
    QVERIFY(detail.ok() && detail->has_value());
    QCOMPARE((*detail)->row.sellerName, QStringLiteral("Ashcombe Furniture"));
    QCOMPARE((*detail)->sellerBalanceCents, std::optional<qint64>(18900));

    // And its schema is a new file's, to the byte of each statement SQLite keeps.
    const QString fresh = dir.filePath(QStringLiteral("new.sqlite"));
    QVERIFY2(openStore(fresh, &error), qPrintable(error));
    const QString schema =
            QStringLiteral("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name");
    QCOMPARE(rows(db, schema), rows(RawSqlite(fresh).db(), schema));
}

// The counts the queue shows without counting (schema 8): whatever writes the tickets and
// escalations, the kept totals equal what a count would say.
void TestMigrations::queueTotalsFollowEveryChange_data()
{
    QTest::addColumn<QStringList>("statements");
    const QString ticket = QStringLiteral(
            "INSERT INTO tickets (id, ext_id, opened_at, fingerprint, needs_attention, has_unknown, "
            "has_repeat, "
            "duplicate_effects, retry_count) VALUES (%1, 'T-%1', %1, 'f', %2, %3, %4, %5, %6)");
    const QString call =
            QStringLiteral("INSERT INTO tool_calls (id, ticket_id, seq, call_ext_id, tool, tool_class, "
                           "arguments, called_at, fingerprint) VALUES (%1, %2, 1, 'c%1', 'issue_refund', "
                           "'write_money', '{}', 1, 'f')");
    const QStringList three{ticket.arg(10).arg(1).arg(1).arg(0).arg(0).arg(0),
                            ticket.arg(11).arg(1).arg(0).arg(1).arg(2).arg(0),
                            ticket.arg(12).arg(0).arg(0).arg(0).arg(0).arg(3)};
    QTest::addRow("tickets added") << three;
    QTest::addRow("flags raised and cleared") << three
                    + QStringList{
                            QStringLiteral(
                                    "UPDATE tickets SET has_unknown = 0, needs_attention = 0 WHERE id = 10"),
                            QStringLiteral(
                                    "UPDATE tickets SET duplicate_effects = 5, has_repeat = 1 WHERE id = 12"),
                            QStringLiteral("UPDATE tickets SET retry_count = 0, subject = 'x'")};
    QTest::addRow("a flag set to another non-zero value") << three
                    + QStringList{QStringLiteral(
                            "UPDATE tickets SET duplicate_effects = 7, retry_count = 9 WHERE id = 11")};
    QTest::addRow("tickets removed") << three
                    + QStringList{QStringLiteral("DELETE FROM tickets WHERE id IN (10, 12)")};
    QTest::addRow("escalations opened, resolved, reopened, removed") << three
                    + QStringList{
                            call.arg(100).arg(10),
                            call.arg(101).arg(11),
                            call.arg(102).arg(11),
                            QStringLiteral("INSERT INTO escalations (tool_call_id, ticket_id, opened_at) "
                                           "VALUES (100, 10, 1)"),
                            QStringLiteral("INSERT INTO escalations (tool_call_id, ticket_id, opened_at) "
                                           "VALUES (101, 11, 1)"),
                            QStringLiteral(
                                    "INSERT INTO escalations (tool_call_id, ticket_id, opened_at, state) "
                                    "VALUES (102, 11, 1, 'resolved')"),
                            QStringLiteral(
                                    "UPDATE escalations SET state = 'resolved' WHERE tool_call_id = 100"),
                            QStringLiteral("UPDATE escalations SET state = 'open' WHERE tool_call_id = 102"),
                            QStringLiteral("UPDATE escalations SET last_note = 'n'"),
                            QStringLiteral("DELETE FROM escalations WHERE tool_call_id = 101")};
}

void TestMigrations::queueTotalsFollowEveryChange()
{
    QFETCH(QStringList, statements);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("totals.sqlite"));
    QString error;
    std::unique_ptr<SqliteStore> store = openStore(path, &error);
    QVERIFY2(store, qPrintable(error));
    RawSqlite raw(store->location());
    QSqlDatabase &db = raw.db();
    QVERIFY(QSqlQuery(db).exec(QStringLiteral("PRAGMA foreign_keys = OFF")));
    for (const QString &statement : std::as_const(statements)) {
        QSqlQuery query(db);
        QVERIFY2(query.exec(statement),
                 qPrintable(statement + QStringLiteral(": ") + query.lastError().text()));
    }
    const QString counted = QStringLiteral(
            "SELECT count(*), coalesce(sum(needs_attention != 0), 0), coalesce(sum(has_unknown != 0), 0), "
            "coalesce(sum(has_repeat != 0), 0), coalesce(sum(duplicate_effects > 0), 0), "
            "coalesce(sum(retry_count > 0), 0), "
            "(SELECT count(*) FROM escalations WHERE state = 'open') FROM tickets");
    const QString kept =
            QStringLiteral("SELECT tickets, needs_attention, unknown, repeated, duplicate_effect, "
                           "retry_after_error, open_escalations FROM queue_totals");
    QCOMPARE(rows(db, kept), rows(db, counted));
    // And what the store reports is what it keeps.
    TicketQuery query;
    query.filter = TicketFilter::DuplicateEffect;
    QCOMPARE(*store->countTickets(query),
             scalar(db, QStringLiteral("SELECT count(*) FROM tickets WHERE duplicate_effects > 0")));
    QCOMPARE(*store->countOpenEscalations(),
             scalar(db, QStringLiteral("SELECT count(*) FROM escalations WHERE state = 'open'")));
}

void TestMigrations::failedMigrationChangesNothing()
{
    // A version 1 database where something already took the name migration 2 needs.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("clash.sqlite"));
    QVERIFY(makeDatabaseAt(path, 1));
    {
        RawSqlite raw(path);
        QCOMPARE(raw.exec(QStringLiteral("CREATE TABLE imports (note TEXT)")), QString());
        QCOMPARE(raw.exec(QStringLiteral("INSERT INTO imports VALUES ('mine')")), QString());
    }

    QString error;
    QVERIFY(!openStore(path, &error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("version 2")), qPrintable(error));

    RawSqlite raw(path);
    QCOMPARE(*sqlite::schemaVersion(raw.db()), 1);
    QCOMPARE(rows(raw.db(), QStringLiteral("SELECT * FROM imports")), QStringList{QStringLiteral("mine")});
    QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM tickets")), 1);
}

// Migration 4 rebuilds the tickets table with foreign keys off: the calls, messages and
// escalations that point at a ticket still do, and the store's connection has its foreign
// keys back on.
void TestMigrations::ticketsRebuildKeepsWhatPointsAtThem()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("v3.sqlite"));
    QVERIFY(makeDatabaseAt(path, 3));
    {
        RawSqlite raw(path);
        QCOMPARE(raw.exec(QStringLiteral("INSERT INTO messages (ticket_id, seq, at, kind, text, fingerprint) "
                                         "VALUES (1, 1, 1773757731000, 'customer', 'Cracked', 'm1')")),
                 QString());
        QCOMPARE(raw.exec(QStringLiteral("INSERT INTO tool_calls (ticket_id, seq, call_ext_id, tool, "
                                         "tool_class, arguments, called_at, "
                                         "intent_key, amount_cents, fingerprint, outcome) VALUES (1, 2, "
                                         "'c3', 'issue_refund', 'write_money', "
                                         "'{}', 1773757927000, 'k', 11800, 'f3', 'unknown')")),
                 QString());
        QCOMPARE(raw.exec(QStringLiteral(
                         "INSERT INTO escalations (tool_call_id, ticket_id, opened_at, amount_cents) "
                         "VALUES (1, 1, 1773757932000, 11800)")),
                 QString());
        QCOMPARE(raw.exec(QStringLiteral(
                         "INSERT INTO tool_calls (ticket_id, seq, call_ext_id, tool, tool_class, arguments, "
                         "called_at, "
                         "intent_key, amount_cents, fingerprint, outcome, repeated) VALUES (1, 3, 'c4', "
                         "'issue_refund', "
                         "'write_money', '{}', 1773757934000, 'k', 11800, 'f4', 'performed', 1)")),
                 QString());
        QCOMPARE(raw.exec(QStringLiteral("UPDATE tool_calls SET repeated = 1")), QString());
        QCOMPARE(raw.exec(QStringLiteral("UPDATE tickets SET last_seq = 3, write_count = 2, has_unknown = 1, "
                                         "needs_attention = 1, worst_outcome = 4, has_repeat = 1")),
                 QString());
    }

    QString error;
    std::unique_ptr<SqliteStore> store = openStore(path, &error);
    QVERIFY2(store, qPrintable(error));
    RawSqlite raw(store->location());
    QSqlDatabase &db = raw.db();
    QCOMPARE(rows(db, QStringLiteral("PRAGMA foreign_key_check")), QStringList());
    QCOMPARE(rows(db,
                  QStringLiteral(
                          "SELECT t.ext_id, t.source_format, t.registry, t.needs_attention, c.call_ext_id, "
                          "e.amount_cents, m.text FROM tickets t JOIN tool_calls c ON c.ticket_id = t.id "
                          "JOIN escalations e ON e.tool_call_id = c.id JOIN messages m ON m.ticket_id = "
                          "t.id")),
             QStringList{QStringLiteral("T-1|native|default|1|c3|11800|Cracked")});
    // Still enforced after the rebuild: a call for a ticket that does not exist is refused.
    QCOMPARE(orphanCallRefused(*store), QString());
    QCOMPARE(*store->countOpenEscalations(), 1);
    // The repeat stored before version 4 has its class now: the model's retry after the unknown.
    QCOMPARE(rows(db,
                  QStringLiteral("SELECT c.call_ext_id, c.repeat_kind, p.call_ext_id FROM tool_calls c "
                                 "JOIN tool_calls p ON p.id = c.repeat_of")),
             QStringList{QStringLiteral("c4|retry|c3")});
    QCOMPARE(scalar(db, QStringLiteral("SELECT retry_count FROM tickets")), 1);
    QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM pending_reassessment")), 0);
}

void TestMigrations::newerDatabaseIsRefused_data()
{
    QTest::addColumn<int>("version");
    QTest::newRow("next version") << sqlite::currentSchemaVersion() + 1;
    QTest::newRow("far future") << 99;
}

void TestMigrations::newerDatabaseIsRefused()
{
    QFETCH(int, version);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("future.sqlite"));
    QVERIFY(makeDatabaseAt(path, sqlite::currentSchemaVersion()));
    {
        RawSqlite raw(path);
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = %1").arg(version)), QString());
    }
    const QByteArray before = fileBytes(path);
    QVERIFY(!before.isEmpty());

    QString error;
    QVERIFY(!openStore(path, &error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY2(error.contains(QString::number(version)), qPrintable(error));
    QVERIFY2(error.contains(QString::number(sqlite::currentSchemaVersion())), qPrintable(error));
    QCOMPARE(SqliteStore::open(path).code(), std::error_code(StoreErrc::NewerSchema));
    QCOMPARE(SqliteStore::openReadOnly(path).code(), std::error_code(StoreErrc::NewerSchema));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("future.sqlite")});
    const QByteArray after = fileBytes(path);
    QVERIFY2(after == before,
             qPrintable(QStringLiteral("opening a newer database must leave the file as it was; "
                                       "changed bytes: %1")
                                .arg(changedBytes(before, after))));

    RawSqlite raw(path);
    QCOMPARE(*sqlite::schemaVersion(raw.db()), version);
}

void TestMigrations::notSqliteIsRefused_data()
{
    QTest::addColumn<QByteArray>("content");
    QByteArray text;
    for (int i = 0; i < 200; ++i)
        text += "this is a shopping list, not a database: eggs, milk, " + QByteArray::number(i) + "\n";
    QTest::newRow("text") << text;
    QTest::newRow("jsonl") << QByteArray(R"({"type":"ticket_opened","ticket":"T-1"})"
                                         "\n");
    QByteArray binary(8192, '\0');
    for (int i = 0; i < binary.size(); ++i)
        binary[i] = char((i * 7919 + 13) % 251);
    QTest::newRow("binary") << binary;
    QTest::newRow("sqlite magic, garbage after") << QByteArray("SQLite format 3\0", 16) + text;
}

void TestMigrations::notSqliteIsRefused()
{
    QFETCH(QByteArray, content);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("notes.sqlite"));
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(content), content.size());
    }

    QString error;
    QVERIFY(!openStore(path, &error));
    QVERIFY2(error.startsWith(path + QStringLiteral(": ")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("database"), Qt::CaseInsensitive), qPrintable(error));
    QCOMPARE(SqliteStore::open(path).code(), std::error_code(StoreErrc::NotADatabase));
    // Without SQLite's magic it is said plainly; with it, SQLite says what it found.
    if (!content.startsWith("SQLite format 3"))
        QVERIFY2(error.contains(QStringLiteral("not a database file")), qPrintable(error));
    QCOMPARE(fileBytes(path), content);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("notes.sqlite")});
}

// A folder named where a database was expected is said to be one, for writing and for reading,
// and nothing is made inside it.
void TestMigrations::folderIsRefused()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("exports"));
    QVERIFY(QDir().mkpath(path));
    const Expected<std::unique_ptr<SqliteStore>> forWriting = SqliteStore::open(path);
    const Expected<std::unique_ptr<SqliteStore>> forReading = SqliteStore::openReadOnly(path);
    for (const Expected<std::unique_ptr<SqliteStore>> *opened : {&forWriting, &forReading}) {
        QVERIFY(!*opened);
        QCOMPARE(opened->code(), std::error_code(InputErrc::Invalid));
        QCOMPARE(opened->message(), path + QStringLiteral(": is a folder; expected a database file"));
    }
    QVERIFY(QDir(path).isEmpty());
}

// A browser's history, or an app's settings at some user_version of its own: Verity never adds
// its tables to it, for writing or for reading.
void TestMigrations::anotherProgramsDatabaseIsRefusedUntouched_data()
{
    QTest::addColumn<int>("userVersion");
    QTest::newRow("version 0") << 0;
    QTest::newRow("a version of its own") << 3;
}

void TestMigrations::anotherProgramsDatabaseIsRefusedUntouched()
{
    QFETCH(int, userVersion);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("places.sqlite"));
    {
        RawSqlite raw(path);
        QCOMPARE(raw.exec(QStringLiteral("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")),
                 QString());
        QCOMPARE(raw.exec(QStringLiteral("INSERT INTO moz_places (url) VALUES ('https://example.org/')")),
                 QString());
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = %1").arg(userVersion)), QString());
    }
    const QByteArray before = fileBytes(path);
    QString error;
    QVERIFY(!openStore(path, &error));
    QVERIFY2(error.startsWith(
                     path + QStringLiteral(": a SQLite database of another program (it holds moz_places")),
             qPrintable(error));
    const Expected<std::unique_ptr<SqliteStore>> readOnly = SqliteStore::openReadOnly(path);
    QVERIFY(!readOnly);
    QVERIFY2(readOnly.message().contains(QStringLiteral("another program")), qPrintable(readOnly.message()));
    QCOMPARE(readOnly.code(), std::error_code(StoreErrc::NotADatabase));
    QCOMPARE(fileBytes(path), before);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("places.sqlite")});
}

// A WAL database in a folder this user may not write (an archive, read-only media): reading it
// needs no -shm file beside it.
void TestMigrations::readOnlyFolderIsReadForReading()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = dir.filePath(QStringLiteral("archive"));
    QVERIFY(QDir().mkpath(folder));
    const QString path = folder + QStringLiteral("/verity.sqlite");
    QVERIFY(makeDatabaseAt(path, sqlite::currentSchemaVersion()));
    QVERIFY(!QFile::exists(path + QStringLiteral("-wal")));
    constexpr auto everyoneReads = QFileDevice::ReadOwner | QFileDevice::ExeOwner | QFileDevice::ReadGroup
            | QFileDevice::ExeGroup | QFileDevice::ReadOther | QFileDevice::ExeOther;
    QVERIFY(QFile::setPermissions(dir.path(), everyoneReads | QFileDevice::WriteOwner));
    QVERIFY(QFile::setPermissions(folder, everyoneReads));
    {
        // Root may write any folder: the database is opened as another user.
        const test::AsNobody nobody;
        QVERIFY2(nobody.works(), "cannot run as the user nobody under root (setresuid)");
        QVERIFY(!QFile(folder + QStringLiteral("/probe")).open(QIODevice::WriteOnly));
        const Expected<std::unique_ptr<SqliteStore>> store = SqliteStore::openReadOnly(path);
        QVERIFY_OK(store);
    }
    QVERIFY(QFile::setPermissions(folder, everyoneReads | QFileDevice::WriteOwner));
    QVERIFY(QFile::setPermissions(dir.path(), everyoneReads | QFileDevice::WriteOwner));
}

QTEST_GUILESS_MAIN(TestMigrations)
#include "tst_migrations.moc"

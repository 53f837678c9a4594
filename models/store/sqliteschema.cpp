#include "sqliteschema.h"

#include "sqlerror.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

namespace verity::sqlite {

namespace {

// Append only: a released migration is never edited, a change is a new migration. Statements
// are split on ';' (see statementsOf), so none may contain one outside a trigger's body.
// clang-format off: the migrations are SQL, laid out as SQL
const char *const migrations[] = {
        // 1: tickets, their transcripts, tool calls and escalations
        R"sql(
CREATE TABLE sellers (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    balance_cents INTEGER,
    balance_as_of INTEGER NOT NULL
);
CREATE TABLE orders (
    id             TEXT PRIMARY KEY,
    seller_id      TEXT NOT NULL REFERENCES sellers(id),
    currency       TEXT NOT NULL,
    customer_name  TEXT,
    customer_email TEXT
);
CREATE TABLE order_items (
    order_id     TEXT NOT NULL REFERENCES orders(id),
    item_id      TEXT NOT NULL,
    title        TEXT,
    quantity     INTEGER NOT NULL,
    amount_cents INTEGER NOT NULL,
    PRIMARY KEY (order_id, item_id)
) WITHOUT ROWID;
CREATE TABLE tickets (
    id              INTEGER PRIMARY KEY,
    ext_id          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    order_id        TEXT NOT NULL COLLATE NOCASE REFERENCES orders(id),
    seller_id       TEXT NOT NULL REFERENCES sellers(id),
    seller_name     TEXT NOT NULL COLLATE NOCASE,
    subject         TEXT NOT NULL DEFAULT '',
    opened_at       INTEGER NOT NULL,
    fingerprint     TEXT NOT NULL,
    last_seq        INTEGER NOT NULL DEFAULT 0,
    write_count     INTEGER NOT NULL DEFAULT 0,
    worst_outcome   INTEGER NOT NULL DEFAULT 0,   -- 0 no write, 1 performed .. 4 unknown
    needs_attention INTEGER NOT NULL DEFAULT 0,
    has_unknown     INTEGER NOT NULL DEFAULT 0,
    has_repeat      INTEGER NOT NULL DEFAULT 0,
    duplicate_effects INTEGER NOT NULL DEFAULT 0,
    seller_balance_cents INTEGER,             -- the seller's balance as the ticket knew it
    seller_balance_as_of INTEGER
);
CREATE INDEX tickets_opened    ON tickets(opened_at);
CREATE INDEX tickets_attention ON tickets(needs_attention, opened_at);
CREATE INDEX tickets_unknown   ON tickets(has_unknown, opened_at);
CREATE INDEX tickets_repeat    ON tickets(has_repeat, opened_at);
-- Single-column indexes end in the rowid, so they serve "ORDER BY column, id" without a sort.
CREATE INDEX tickets_order     ON tickets(order_id);
CREATE INDEX tickets_seller    ON tickets(seller_name);
CREATE INDEX tickets_writes    ON tickets(write_count);
CREATE INDEX tickets_worst     ON tickets(worst_outcome);
CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    ticket_id   INTEGER NOT NULL REFERENCES tickets(id),
    seq         INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('customer', 'agent', 'system', 'reply')),
    text        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    UNIQUE (ticket_id, fingerprint)
);
CREATE TABLE tool_calls (
    id                 INTEGER PRIMARY KEY,
    ticket_id          INTEGER NOT NULL REFERENCES tickets(id),
    seq                INTEGER NOT NULL,
    call_ext_id        TEXT NOT NULL,
    tool               TEXT NOT NULL,
    tool_class         TEXT NOT NULL,
    arguments          TEXT NOT NULL,
    called_at          INTEGER NOT NULL,
    intent_key         TEXT,
    intent_error       TEXT,
    amount_cents       INTEGER,
    fingerprint        TEXT NOT NULL,
    raw_result         TEXT,
    result_at          INTEGER,
    duration_ms        INTEGER,
    result_fingerprint TEXT,
    outcome            TEXT CHECK (outcome IN ('performed', 'already_performed', 'not_performed', 'unknown')),
    outcome_reason     TEXT,
    read_failed        INTEGER NOT NULL DEFAULT 0,
    repeated           INTEGER NOT NULL DEFAULT 0,
    UNIQUE (ticket_id, call_ext_id)
);
CREATE INDEX tool_calls_intent ON tool_calls(ticket_id, intent_key);
CREATE TABLE escalations (
    id           INTEGER PRIMARY KEY,
    tool_call_id INTEGER NOT NULL UNIQUE REFERENCES tool_calls(id),
    ticket_id    INTEGER NOT NULL REFERENCES tickets(id),
    opened_at    INTEGER NOT NULL,
    amount_cents INTEGER,
    state        TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'resolved'))
);
CREATE INDEX escalations_state ON escalations(state, opened_at);
CREATE INDEX escalations_ticket ON escalations(ticket_id);
)sql",
        // 2: a record of every import, so an operator can see what was read and when
        R"sql(
CREATE TABLE imports (
    id             INTEGER PRIMARY KEY,
    path           TEXT NOT NULL,
    sha256         TEXT NOT NULL,
    started_at     INTEGER NOT NULL,
    lines_read     INTEGER NOT NULL,
    lines_rejected INTEGER NOT NULL
);
)sql",
        // 3: resolving unknowns by evidence: the provider's payment of each order, lookups and
        // their evidence, the verified resolution of each escalation, the ledger of money moved
        // (one row per intent key: the unique index at the boundary), and the chained audit log
        R"sql(
ALTER TABLE orders ADD COLUMN payment_intent TEXT;
ALTER TABLE escalations ADD COLUMN resolution TEXT CHECK (resolution IN ('performed', 'not_performed', 'performed_again'));
ALTER TABLE escalations ADD COLUMN resolved_by TEXT;
ALTER TABLE escalations ADD COLUMN resolved_at INTEGER;
ALTER TABLE escalations ADD COLUMN last_note TEXT;
CREATE TABLE lookups (
    id              INTEGER PRIMARY KEY,
    escalation_id   INTEGER NOT NULL REFERENCES escalations(id),
    operator        TEXT NOT NULL,
    started_at      INTEGER NOT NULL,
    finished_at     INTEGER NOT NULL,
    verdict         TEXT NOT NULL CHECK (verdict IN ('found', 'not_found', 'could_not_tell')),
    request         TEXT NOT NULL,
    response        TEXT NOT NULL,
    refund_id       TEXT,
    reason          TEXT,
    evidence_sha256 TEXT NOT NULL
);
CREATE INDEX lookups_escalation ON lookups(escalation_id);
CREATE TABLE ledger (
    intent_key   TEXT PRIMARY KEY,
    tool_call_id INTEGER REFERENCES tool_calls(id),
    refund_id    TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    currency     TEXT NOT NULL,
    seller_id    TEXT,
    recorded_at  INTEGER NOT NULL,
    source       TEXT NOT NULL
);
CREATE TABLE audit_log (
    seq             INTEGER PRIMARY KEY,
    at              INTEGER NOT NULL,
    operator        TEXT NOT NULL,
    action          TEXT NOT NULL,
    escalation_id   INTEGER,
    detail          TEXT NOT NULL,
    evidence_sha256 TEXT,
    prev_hash       TEXT NOT NULL,
    hash            TEXT NOT NULL UNIQUE
);
)sql",
        // 4: transcripts from other formats: a ticket may name no order or seller (the tickets
        // table is rebuilt to let those be NULL, with foreign keys off: see migrate()); where each
        // ticket came from and which registry read it; the error flag a transcript put on a
        // result; and each repeated intent's class, linked to the call it repeats
        R"sql(
CREATE TABLE tickets_v4 (
    id              INTEGER PRIMARY KEY,
    ext_id          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    order_id        TEXT COLLATE NOCASE REFERENCES orders(id),
    seller_id       TEXT REFERENCES sellers(id),
    seller_name     TEXT COLLATE NOCASE,
    subject         TEXT NOT NULL DEFAULT '',
    opened_at       INTEGER NOT NULL,
    fingerprint     TEXT NOT NULL,
    last_seq        INTEGER NOT NULL DEFAULT 0,
    write_count     INTEGER NOT NULL DEFAULT 0,
    worst_outcome   INTEGER NOT NULL DEFAULT 0,
    needs_attention INTEGER NOT NULL DEFAULT 0,
    has_unknown     INTEGER NOT NULL DEFAULT 0,
    has_repeat      INTEGER NOT NULL DEFAULT 0,
    duplicate_effects INTEGER NOT NULL DEFAULT 0,
    seller_balance_cents INTEGER,
    seller_balance_as_of INTEGER,
    source_format   TEXT NOT NULL DEFAULT 'native',
    registry        TEXT NOT NULL DEFAULT 'default',
    retry_count     INTEGER NOT NULL DEFAULT 0,
    harmless_repeats INTEGER NOT NULL DEFAULT 0,
    unsettled_repeats INTEGER NOT NULL DEFAULT 0,
    duplicate_cents INTEGER NOT NULL DEFAULT 0
);
INSERT INTO tickets_v4 (id, ext_id, order_id, seller_id, seller_name, subject, opened_at, fingerprint, last_seq,
    write_count, worst_outcome, needs_attention, has_unknown, has_repeat, duplicate_effects, seller_balance_cents,
    seller_balance_as_of)
SELECT id, ext_id, order_id, seller_id, seller_name, subject, opened_at, fingerprint, last_seq, write_count,
    worst_outcome, needs_attention, has_unknown, has_repeat, duplicate_effects, seller_balance_cents,
    seller_balance_as_of FROM tickets;
DROP TABLE tickets;
ALTER TABLE tickets_v4 RENAME TO tickets;
CREATE INDEX tickets_opened    ON tickets(opened_at);
CREATE INDEX tickets_attention ON tickets(needs_attention, opened_at);
CREATE INDEX tickets_unknown   ON tickets(has_unknown, opened_at);
CREATE INDEX tickets_repeat    ON tickets(has_repeat, opened_at);
CREATE INDEX tickets_duplicate ON tickets(duplicate_effects, opened_at);
CREATE INDEX tickets_retry     ON tickets(retry_count, opened_at);
CREATE INDEX tickets_order     ON tickets(order_id);
CREATE INDEX tickets_seller    ON tickets(seller_name);
CREATE INDEX tickets_writes    ON tickets(write_count);
CREATE INDEX tickets_worst     ON tickets(worst_outcome);
ALTER TABLE tool_calls ADD COLUMN result_error INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tool_calls ADD COLUMN result_error_type TEXT;
ALTER TABLE tool_calls ADD COLUMN repeat_kind TEXT CHECK (repeat_kind IN ('retry', 'duplicate_effect', 'harmless', 'unsettled'));
ALTER TABLE tool_calls ADD COLUMN repeat_of INTEGER REFERENCES tool_calls(id);
CREATE INDEX tool_calls_class ON tool_calls(tool_class, tool)
)sql",
        // 5: tickets with repeated intents stored before version 4 have no repeat classes yet; the
        // store reads them again when it opens (see SqliteStore::open), a batch at a time
        R"sql(
CREATE TABLE pending_reassessment (ticket_id INTEGER PRIMARY KEY REFERENCES tickets(id));
INSERT INTO pending_reassessment (ticket_id) SELECT id FROM tickets WHERE has_repeat = 1
)sql",
        // 6: finance: money writes by time (payouts of a period), tickets by seller (a seller's
        // balance history), and finance's recovery marks on duplicate payouts
        R"sql(
CREATE INDEX tool_calls_money ON tool_calls(tool_class, called_at);
CREATE INDEX tickets_seller_id ON tickets(seller_id, seller_balance_as_of);
CREATE TABLE payout_marks (
    id            INTEGER PRIMARY KEY,
    duplicate_key TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('recovery_requested', 'recovered')),
    note          TEXT NOT NULL DEFAULT '',
    operator      TEXT NOT NULL,
    at            INTEGER NOT NULL
);
CREATE INDEX payout_marks_key ON payout_marks(duplicate_key, id)
)sql",
        // 7: replaying incidents: what the layers under a call logged (HTTP requests, provider
        // records), trainers' notes on the steps of a replay, and what a file is (an incident
        // export says so here)
        R"sql(
CREATE TABLE trace_events (
    id          INTEGER PRIMARY KEY,
    ticket_id   INTEGER NOT NULL REFERENCES tickets(id),
    seq         INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('http', 'provider')),
    call_ext_id TEXT NOT NULL DEFAULT '',
    detail      TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    UNIQUE (ticket_id, fingerprint)
);
CREATE INDEX trace_events_ticket ON trace_events(ticket_id, seq);
CREATE TABLE trainer_notes (
    ticket_id  INTEGER NOT NULL REFERENCES tickets(id),
    step_key   TEXT NOT NULL,
    text       TEXT NOT NULL,
    author     TEXT NOT NULL,
    written_at INTEGER NOT NULL,
    PRIMARY KEY (ticket_id, step_key)
) WITHOUT ROWID;
CREATE TABLE file_info (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID
)sql",
        // 8: the queue's counts without counting: one row of totals, one per filter and one for the
        // open escalations, kept by triggers on every insert, change and delete, so that the window
        // opens a million tickets with one read instead of a scan
        R"sql(
CREATE TABLE queue_totals (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    tickets           INTEGER NOT NULL,
    needs_attention   INTEGER NOT NULL,
    unknown           INTEGER NOT NULL,
    repeated          INTEGER NOT NULL,
    duplicate_effect  INTEGER NOT NULL,
    retry_after_error INTEGER NOT NULL,
    open_escalations  INTEGER NOT NULL
);
INSERT INTO queue_totals
SELECT 1, count(*), coalesce(sum(needs_attention != 0), 0), coalesce(sum(has_unknown != 0), 0),
    coalesce(sum(has_repeat != 0), 0), coalesce(sum(duplicate_effects > 0), 0), coalesce(sum(retry_count > 0), 0),
    (SELECT count(*) FROM escalations WHERE state = 'open')
FROM tickets;
CREATE TRIGGER queue_totals_ticket_added AFTER INSERT ON tickets BEGIN
    UPDATE queue_totals SET tickets = tickets + 1, needs_attention = needs_attention + (NEW.needs_attention != 0),
        unknown = unknown + (NEW.has_unknown != 0), repeated = repeated + (NEW.has_repeat != 0),
        duplicate_effect = duplicate_effect + (NEW.duplicate_effects > 0),
        retry_after_error = retry_after_error + (NEW.retry_count > 0) WHERE id = 1;
END;
CREATE TRIGGER queue_totals_ticket_removed AFTER DELETE ON tickets BEGIN
    UPDATE queue_totals SET tickets = tickets - 1, needs_attention = needs_attention - (OLD.needs_attention != 0),
        unknown = unknown - (OLD.has_unknown != 0), repeated = repeated - (OLD.has_repeat != 0),
        duplicate_effect = duplicate_effect - (OLD.duplicate_effects > 0),
        retry_after_error = retry_after_error - (OLD.retry_count > 0) WHERE id = 1;
END;
CREATE TRIGGER queue_totals_ticket_changed
AFTER UPDATE OF needs_attention, has_unknown, has_repeat, duplicate_effects, retry_count ON tickets
WHEN (OLD.needs_attention != 0) != (NEW.needs_attention != 0) OR (OLD.has_unknown != 0) != (NEW.has_unknown != 0)
    OR (OLD.has_repeat != 0) != (NEW.has_repeat != 0) OR (OLD.duplicate_effects > 0) != (NEW.duplicate_effects > 0)
    OR (OLD.retry_count > 0) != (NEW.retry_count > 0)
BEGIN
    UPDATE queue_totals SET
        needs_attention = needs_attention + (NEW.needs_attention != 0) - (OLD.needs_attention != 0),
        unknown = unknown + (NEW.has_unknown != 0) - (OLD.has_unknown != 0),
        repeated = repeated + (NEW.has_repeat != 0) - (OLD.has_repeat != 0),
        duplicate_effect = duplicate_effect + (NEW.duplicate_effects > 0) - (OLD.duplicate_effects > 0),
        retry_after_error = retry_after_error + (NEW.retry_count > 0) - (OLD.retry_count > 0) WHERE id = 1;
END;
CREATE TRIGGER queue_totals_escalation_added AFTER INSERT ON escalations WHEN NEW.state = 'open' BEGIN
    UPDATE queue_totals SET open_escalations = open_escalations + 1 WHERE id = 1;
END;
CREATE TRIGGER queue_totals_escalation_removed AFTER DELETE ON escalations WHEN OLD.state = 'open' BEGIN
    UPDATE queue_totals SET open_escalations = open_escalations - 1 WHERE id = 1;
END;
CREATE TRIGGER queue_totals_escalation_changed AFTER UPDATE OF state ON escalations
WHEN (OLD.state = 'open') != (NEW.state = 'open') BEGIN
    UPDATE queue_totals SET open_escalations = open_escalations + (NEW.state = 'open') - (OLD.state = 'open')
    WHERE id = 1;
END
)sql",
        // 9: finance's joins at scale: payouts and a seller's history join the ledger on its call
        // (without this index, each payout scanned the whole ledger), and seller balances take each
        // seller's currency from its orders
        R"sql(
CREATE INDEX ledger_call ON ledger(tool_call_id);
CREATE INDEX orders_seller ON orders(seller_id, currency)
)sql",
        // 10: a search's matches in time order from the indexes alone. With the opening time in
        // the order and seller indexes, sorting a seller's 25,000 tickets by time reads no table
        // row; the queue sorted by order or seller now breaks ties newest first, the indexes' order
        R"sql(
DROP INDEX tickets_order;
DROP INDEX tickets_seller;
CREATE INDEX tickets_order  ON tickets(order_id, opened_at);
CREATE INDEX tickets_seller ON tickets(seller_name, opened_at)
)sql",
        // 11: every escalation can be settled, and every settlement checked. Lookups become
        // evidence of four kinds (a lookup, a write sent from the console, a person's attested
        // check, a reconciliation's record), each naming the record it found; an escalation says
        // what its settlement rests on and which record proves it. The ledger holds one row per
        // refund, not per intent key: an old tool's duplicates carry one key on several refunds,
        // and each call is matched to its own. A ticket with a duplicate effect is the worst a
        // ticket can be: worst_outcome 5, above unknown.
        R"sql(
ALTER TABLE lookups RENAME TO evidence;
ALTER TABLE evidence RENAME COLUMN refund_id TO record_id;
ALTER TABLE evidence ADD COLUMN kind TEXT NOT NULL DEFAULT 'lookup'
    CHECK (kind IN ('lookup', 'write', 'attestation', 'reconciliation'));
DROP INDEX lookups_escalation;
CREATE INDEX evidence_escalation ON evidence(escalation_id);
ALTER TABLE escalations ADD COLUMN basis TEXT CHECK (basis IN ('lookup', 'attestation', 'reconciliation'));
ALTER TABLE escalations ADD COLUMN reference TEXT;
UPDATE escalations SET basis = 'lookup' WHERE resolution IS NOT NULL;
CREATE TABLE ledger_v11 (
    id           INTEGER PRIMARY KEY,
    intent_key   TEXT NOT NULL,
    tool_call_id INTEGER REFERENCES tool_calls(id),
    refund_id    TEXT NOT NULL UNIQUE,
    amount_cents INTEGER NOT NULL,
    currency     TEXT NOT NULL,
    seller_id    TEXT,
    recorded_at  INTEGER NOT NULL,
    source       TEXT NOT NULL
);
INSERT INTO ledger_v11 (intent_key, tool_call_id, refund_id, amount_cents, currency, seller_id, recorded_at, source)
    SELECT intent_key, tool_call_id, refund_id, amount_cents, currency, seller_id, recorded_at, source FROM ledger
    ORDER BY recorded_at;
DROP TABLE ledger;
ALTER TABLE ledger_v11 RENAME TO ledger;
CREATE INDEX ledger_key ON ledger(intent_key);
CREATE UNIQUE INDEX ledger_call ON ledger(tool_call_id);
UPDATE escalations SET reference = (SELECT l.refund_id FROM ledger l WHERE l.tool_call_id = escalations.tool_call_id)
    WHERE resolution IN ('performed', 'performed_again');
UPDATE tickets SET worst_outcome = 5 WHERE duplicate_effects > 0
)sql",
        // 12: a repeat answered with the very record of the call that took effect, or with words
        // that say nothing changed, is harmless, and a repeat names the call that took effect: the
        // tickets with repeats are read again when the store opens
        R"sql(
INSERT OR IGNORE INTO pending_reassessment (ticket_id) SELECT id FROM tickets WHERE has_repeat = 1
)sql",
        // 13: a ticket without an order or seller says what identifies it (a benchmark's task and
        // trial, searchable like an order id) and where it comes from (domain, model); a ticket
        // whose transcript has no times says what dated it
        R"sql(
ALTER TABLE tickets ADD COLUMN task TEXT COLLATE NOCASE;
ALTER TABLE tickets ADD COLUMN origin TEXT;
ALTER TABLE tickets ADD COLUMN dated_by TEXT CHECK (dated_by IN ('file', 'file_modified'));
CREATE INDEX tickets_task ON tickets(task, opened_at)
)sql",
        // 14: the queue sorts by the worst thing on a ticket, in the order a person must see them
        // (TicketState): duplicate effect, unknown, unsettled repeat, retry, not performed, performed
        R"sql(
ALTER TABLE tickets ADD COLUMN attention_rank INTEGER NOT NULL DEFAULT 0;
UPDATE tickets SET attention_rank = CASE
    WHEN duplicate_effects > 0 THEN 6 WHEN has_unknown = 1 THEN 5 WHEN unsettled_repeats > 0 THEN 4
    WHEN retry_count > 0 THEN 3 WHEN worst_outcome = 3 THEN 2 WHEN write_count > 0 THEN 1 ELSE 0 END;
CREATE INDEX tickets_attention_rank ON tickets(attention_rank, opened_at)
)sql",
        // 15: a ticket that needs a person for another reason (a write owed, a call nobody can
        // classify or key) ranks above the ones that need nobody, below a retry
        R"sql(
UPDATE tickets SET attention_rank = CASE
    WHEN attention_rank >= 3 THEN attention_rank + 1 WHEN needs_attention = 1 THEN 3 ELSE attention_rank END
)sql",
        // 16: a write whose amount is no money Verity can count (negative, fractional, "NaN")
        // keeps why, so its card can say so and its ticket can ask for a look
        R"sql(
ALTER TABLE tool_calls ADD COLUMN amount_error TEXT
)sql",
        // 17: a payment is looked up only under an id the data or a person named. Earlier
        // versions stored "pi_<order id>" for an order that named none; that guess is removed.
        // An operator may enter the payment of an escalation, found at the provider.
        R"sql(
UPDATE orders SET payment_intent = NULL WHERE payment_intent = 'pi_' || id;
ALTER TABLE escalations ADD COLUMN payment_reference TEXT;
ALTER TABLE escalations ADD COLUMN payment_entered_by TEXT
)sql",
        // 18: claims, so that two people never act on one escalation at once: who holds it and
        // until when (ms since the epoch); and the audit chain refuses a second entry after the
        // same one, as on PostgreSQL, where many consoles append to it
        R"sql(
ALTER TABLE escalations ADD COLUMN claimed_by TEXT;
ALTER TABLE escalations ADD COLUMN claimed_until INTEGER;
CREATE UNIQUE INDEX audit_log_prev ON audit_log(prev_hash)
)sql",
        // 19: a write reported live whose result may still come is in flight until then (ms
        // since the epoch), and escalated only when it has not come
        R"sql(
ALTER TABLE tool_calls ADD COLUMN in_flight_until INTEGER;
CREATE INDEX tool_calls_in_flight ON tool_calls(in_flight_until) WHERE in_flight_until IS NOT NULL
)sql",
        // 20: a ticket whose unknown writes all wait for their results is shown in flight
        R"sql(
ALTER TABLE tickets ADD COLUMN in_flight INTEGER NOT NULL DEFAULT 0
)sql",
        // 21: when a claim was last taken or renewed, and how often its holder renews it (a
        // console, while its dialog is open; NULL for a claim nobody renews): a console that
        // stopped renewing is told apart from one at work
        R"sql(
ALTER TABLE escalations ADD COLUMN claim_renewed_at INTEGER;
ALTER TABLE escalations ADD COLUMN claim_renews_every INTEGER
)sql",
        // 22: an order named only by a conversation's calls (a refund's arguments, a read's
        // result) is recorded with no seller until the data names one (the orders table is
        // rebuilt to let seller_id be NULL, with foreign keys off: see migrate())
        R"sql(
CREATE TABLE orders_v22 (
    id             TEXT PRIMARY KEY,
    seller_id      TEXT REFERENCES sellers(id),
    currency       TEXT NOT NULL,
    customer_name  TEXT,
    customer_email TEXT,
    payment_intent TEXT
);
INSERT INTO orders_v22 (id, seller_id, currency, customer_name, customer_email, payment_intent)
SELECT id, seller_id, currency, customer_name, customer_email, payment_intent FROM orders;
DROP TABLE orders;
ALTER TABLE orders_v22 RENAME TO orders;
CREATE INDEX orders_seller ON orders(seller_id, currency)
)sql",
        // 23: a call of a tool no registry knows is judged as the class its source's telemetry
        // suggests (a tool definition, MCP's hints, its arguments), and says why until a person
        // confirms a class
        R"sql(
ALTER TABLE tool_calls ADD COLUMN class_inferred TEXT;
CREATE INDEX tool_calls_inferred ON tool_calls(tool) WHERE class_inferred IS NOT NULL
)sql",
        // 24: `verity guard` asks, before it sends a write, whether its intent was made before in
        // any ticket
        R"sql(
CREATE INDEX tool_calls_intent_anywhere ON tool_calls(intent_key) WHERE intent_key IS NOT NULL
)sql",
};
// clang-format on

// Migrations that rebuild a table other tables point at must run with foreign keys off
// (SQLite's documented procedure for changing a table), checked again before they commit.
bool rebuildsReferencedTable(int version)
{
    return version == 4 || version == 22;
}

constexpr int migrationCount = int(std::size(migrations));

// A migration's statements: split on ';', except inside CREATE TRIGGER ... BEGIN ... END, whose
// body is kept whole (its pieces joined again up to the piece that is just END).
QStringList statementsOf(const char *migration)
{
    QStringList statements;
    QString trigger;
    const QStringList pieces = QString::fromUtf8(migration).split(u';', Qt::SkipEmptyParts);
    for (const QString &piece : pieces) {
        if (!trigger.isEmpty()) {
            trigger += u';' + piece;
            if (piece.trimmed() == QLatin1String("END")) {
                statements << trigger;
                trigger.clear();
            }
        } else if (piece.trimmed().startsWith(QLatin1String("CREATE TRIGGER"))) {
            trigger = piece;
        } else {
            statements << piece;
        }
    }
    if (!trigger.isEmpty())
        statements << trigger; // unterminated: SQLite says what is wrong with it
    return statements;
}

void rollback(QSqlDatabase &db)
{
    QSqlQuery query(db);
    query.exec(QStringLiteral("ROLLBACK")); // nothing to do if it fails: the transaction is gone
}

Expected<void> exec(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql))
        return makeError(sqlErrorText(query.lastError()));
    return {};
}

// One migration in its own transaction: all of it or none of it.
Expected<void> migrateOne(QSqlDatabase &db, int next)
{
    // The write lock first, then the version again: another process may have migrated the
    // file between our read and now.
    if (Expected<void> locked = exec(db, QStringLiteral("BEGIN IMMEDIATE")); !locked)
        return makeError(QStringLiteral("cannot start migration %1: %2").arg(next).arg(locked.message()));
    Expected<int> current = schemaVersion(db);
    if (!current) {
        rollback(db);
        return current.error();
    }
    if (*current >= next) {
        rollback(db);
        return {};
    }
    for (const QString &statement : statementsOf(migrations[next - 1])) {
        if (statement.trimmed().isEmpty())
            continue;
        if (Expected<void> done = exec(db, statement); !done) {
            rollback(db);
            return makeError(QStringLiteral("migration to schema version %1 failed, nothing changed: %2")
                                     .arg(next)
                                     .arg(done.message()));
        }
    }
    if (rebuildsReferencedTable(next)) {
        QSqlQuery check(db);
        if (!check.exec(QStringLiteral("PRAGMA foreign_key_check")) || check.next()) {
            rollback(db);
            return makeError(QStringLiteral("migration to schema version %1 would break a reference between "
                                            "tables; nothing changed")
                                     .arg(next));
        }
    }
    if (Expected<void> done = exec(db, QStringLiteral("PRAGMA user_version = %1").arg(next)); !done) {
        rollback(db);
        return makeError(
                QStringLiteral("migration to schema version %1 failed: %2").arg(next).arg(done.message()));
    }
    if (Expected<void> committed = exec(db, QStringLiteral("COMMIT")); !committed)
        return makeError(QStringLiteral("migration to schema version %1 could not commit: %2")
                                 .arg(next)
                                 .arg(committed.message()));
    return {};
}

} // namespace

int currentSchemaVersion()
{
    return migrationCount;
}

Expected<int> schemaVersion(QSqlDatabase &db)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next())
        return makeError(
                QStringLiteral("cannot read the schema version: %1").arg(sqlErrorText(query.lastError())));
    return query.value(0).toInt();
}

Expected<void> checkVersionSupported(QSqlDatabase &db)
{
    // The first read of the file: a file that is not SQLite fails here.
    Expected<int> version = schemaVersion(db);
    if (!version)
        return makeError(StoreErrc::NotADatabase, version.message());
    // Another program's database is refused untouched: Verity's tables are never added to it.
    // A Verity database of any version has its tool calls; a new one has no tables at all.
    QSqlQuery tables(db);
    if (!tables.exec(QStringLiteral(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                "ORDER BY name")))
        return makeError(
                StoreErrc::NotADatabase,
                QStringLiteral("not a usable SQLite database (%1)").arg(sqlErrorText(tables.lastError())));
    QStringList names;
    while (tables.next())
        names << tables.value(0).toString();
    if (!names.isEmpty() && !names.contains(QStringLiteral("tool_calls")))
        return makeError(
                StoreErrc::NotADatabase,
                QStringLiteral("a SQLite database of another program (it holds %1%2, not Verity's tables); "
                               "it was left untouched: give a new file, or a Verity database")
                        .arg(QStringList(names.mid(0, 5)).join(QStringLiteral(", ")),
                             names.size() > 5 ? QStringLiteral(" and %1 more").arg(names.size() - 5)
                                              : QString()));
    if (*version > migrationCount)
        return makeError(StoreErrc::NewerSchema,
                         QStringLiteral("the database is at schema version %1, newer than this Verity "
                                        "understands (%2); use a newer Verity")
                                 .arg(*version)
                                 .arg(migrationCount));
    return {};
}

Expected<void> migrate(QSqlDatabase &db, int target)
{
    if (target < 0 || target > migrationCount)
        target = migrationCount;
    if (Expected<void> supported = checkVersionSupported(db); !supported)
        return supported;
    Expected<int> version = schemaVersion(db);
    if (!version)
        return version.error();
    for (int next = *version + 1; next <= target; ++next) {
        const bool rebuild = rebuildsReferencedTable(next);
        if (rebuild) {
            // Only outside a transaction does this pragma take effect.
            if (Expected<void> off = exec(db, QStringLiteral("PRAGMA foreign_keys = OFF")); !off)
                return off;
        }
        Expected<void> done = migrateOne(db, next);
        if (rebuild) {
            // Back as the store opened the connection, whatever happened.
            if (Expected<void> on = exec(db, QStringLiteral("PRAGMA foreign_keys = ON")); !on && done)
                return on;
        }
        if (!done)
            return done;
    }
    return {};
}

} // namespace verity::sqlite

#include "schemamanifest.h"

namespace verity::schema {

namespace {

// Which backends run a part of a change.
enum class Runs { Both, Sqlite, Postgres };

struct Part
{
    Runs on = Runs::Both;
    const char *sql = nullptr;
};

// Text both backends run, where {integer} is the 64-bit integer type (SQLite's INTEGER,
// PostgreSQL's BIGINT: times are milliseconds, money is cents).
constexpr Part both(const char *sql)
{
    return {Runs::Both, sql};
}

constexpr Part sqliteOnly(const char *sql)
{
    return {Runs::Sqlite, sql};
}

constexpr Part postgresOnly(const char *sql)
{
    return {Runs::Postgres, sql};
}

struct Migration
{
    const char *what = nullptr; // what the change does, in a few words
    int sqlite = 0; // the user_version it brings a SQLite file to; 0 when SQLite has no such step
    int postgres = 0; // the verity.schema_version it brings PostgreSQL to; 0 when it has none
    Part parts[2] = {}; // run in this order, each backend the shared ones and its own
    bool rebuildsReferencedTable = false; // SQLite only
    bool grantsToTeamRoles = false; // PostgreSQL only
};

// Append only: a released change is never edited, not even its layout, nor renumbered (the
// numbers are in users' databases); a change is a new entry at the end, with the next version of
// each backend it runs on, and none on a backend where it has nothing to do. Where both run it,
// the text they agree on is shared (both()), beside what only one of them runs; a backend's
// parts are joined with a ';' where one does not end its last statement.
//
// SQLite runs a step's statements one by one, split on ';' (sqliteschema.cpp), so none of its
// text may hold one outside a trigger's body. It keeps each CREATE statement's text as it ran,
// to its last byte (a CREATE INDEX ending "NULL\n" stays so in sqlite_master): shared text is
// laid out as SQLite ran it. PostgreSQL runs a step whole, in one transaction after the schema
// lock (postgresschema.cpp), its catalogue changing transactionally. The list is laid out by hand,
// its SQL as SQL.
// clang-format off
constexpr Migration manifest[] = {
        {.what = "tickets, their transcripts, tool calls and escalations",
         .sqlite = 1,
         .parts = {sqliteOnly(R"sql(
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
)sql")}},

        // a record of every import, so an operator can see what was read and when
        {.what = "a record of every import",
         .sqlite = 2,
         .parts = {sqliteOnly(R"sql(
CREATE TABLE imports (
    id             INTEGER PRIMARY KEY,
    path           TEXT NOT NULL,
    sha256         TEXT NOT NULL,
    started_at     INTEGER NOT NULL,
    lines_read     INTEGER NOT NULL,
    lines_rejected INTEGER NOT NULL
);
)sql")}},

        // resolving unknowns by evidence: the provider's payment of each order, lookups and
        // their evidence, the verified resolution of each escalation, the ledger of money moved
        // (one row per intent key: the unique index at the boundary), and the chained audit log
        {.what = "orders' payments, lookups, the ledger and the audit chain",
         .sqlite = 3,
         .parts = {sqliteOnly(R"sql(
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
)sql")}},

        // transcripts from other formats: a ticket may name no order or seller (the tickets
        // table is rebuilt to let those be NULL, with foreign keys off: see sqliteschema.cpp); where each
        // ticket came from and which registry read it; the error flag a transcript put on a
        // result; and each repeated intent's class, linked to the call it repeats
        {.what = "transcripts of other formats: tickets without an order or seller, repeat classes",
         .sqlite = 4,
         .parts = {sqliteOnly(R"sql(
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
)sql")},
         .rebuildsReferencedTable = true},

        // tickets with repeated intents stored before version 4 have no repeat classes yet; the
        // store reads them again when it opens (see SqliteStore::open), a batch at a time
        {.what = "repeats stored before repeat classes, assessed again",
         .sqlite = 5,
         .parts = {sqliteOnly(R"sql(
CREATE TABLE pending_reassessment (ticket_id INTEGER PRIMARY KEY REFERENCES tickets(id));
INSERT INTO pending_reassessment (ticket_id) SELECT id FROM tickets WHERE has_repeat = 1
)sql")}},

        // finance: money writes by time (payouts of a period), tickets by seller (a seller's
        // balance history), and finance's recovery marks on duplicate payouts
        {.what = "finance: money writes by time, tickets by seller, payout recovery marks",
         .sqlite = 6,
         .parts = {sqliteOnly(R"sql(
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
)sql")}},

        // replaying incidents: what the layers under a call logged (HTTP requests, provider
        // records), trainers' notes on the steps of a replay, and what a file is (an incident
        // export says so here)
        {.what = "trace events, trainers' notes and what a file is",
         .sqlite = 7,
         .parts = {sqliteOnly(R"sql(
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
)sql")}},

        // the queue's counts without counting: one row of totals, one per filter and one for the
        // open escalations, kept by triggers on every insert, change and delete, so that the window
        // opens a million tickets with one read instead of a scan
        {.what = "the queue's totals, kept by triggers",
         .sqlite = 8,
         .parts = {sqliteOnly(R"sql(
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
)sql")}},

        // finance's joins at scale: payouts and a seller's history join the ledger on its call
        // (without this index, each payout scanned the whole ledger), and seller balances take each
        // seller's currency from its orders
        {.what = "finance's joins: the ledger by call, orders by seller",
         .sqlite = 9,
         .parts = {sqliteOnly(R"sql(
CREATE INDEX ledger_call ON ledger(tool_call_id);
CREATE INDEX orders_seller ON orders(seller_id, currency)
)sql")}},

        // a search's matches in time order from the indexes alone. With the opening time in
        // the order and seller indexes, sorting a seller's 25,000 tickets by time reads no table
        // row; the queue sorted by order or seller now breaks ties newest first, the indexes' order
        {.what = "the order and seller indexes in time order",
         .sqlite = 10,
         .parts = {sqliteOnly(R"sql(
DROP INDEX tickets_order;
DROP INDEX tickets_seller;
CREATE INDEX tickets_order  ON tickets(order_id, opened_at);
CREATE INDEX tickets_seller ON tickets(seller_name, opened_at)
)sql")}},

        // every escalation can be settled, and every settlement checked. Lookups become
        // evidence of four kinds (a lookup, a write sent from the console, a person's attested
        // check, a reconciliation's record), each naming the record it found; an escalation says
        // what its settlement rests on and which record proves it. The ledger holds one row per
        // refund, not per intent key: an old tool's duplicates carry one key on several refunds,
        // and each call is matched to its own. A ticket with a duplicate effect is the worst a
        // ticket can be: worst_outcome 5, above unknown.
        {.what = "evidence of four kinds, what a settlement rests on, a ledger row per refund",
         .sqlite = 11,
         .parts = {sqliteOnly(R"sql(
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
)sql")}},

        // a repeat answered with the very record of the call that took effect, or with words
        // that say nothing changed, is harmless, and a repeat names the call that took effect: the
        // tickets with repeats are read again when the store opens
        {.what = "repeats assessed again: harmless by record or by words",
         .sqlite = 12,
         .parts = {sqliteOnly(R"sql(
INSERT OR IGNORE INTO pending_reassessment (ticket_id) SELECT id FROM tickets WHERE has_repeat = 1
)sql")}},

        // a ticket without an order or seller says what identifies it (a benchmark's task and
        // trial, searchable like an order id) and where it comes from (domain, model); a ticket
        // whose transcript has no times says what dated it
        {.what = "a ticket's task, origin and what dated it",
         .sqlite = 13,
         .parts = {sqliteOnly(R"sql(
ALTER TABLE tickets ADD COLUMN task TEXT COLLATE NOCASE;
ALTER TABLE tickets ADD COLUMN origin TEXT;
ALTER TABLE tickets ADD COLUMN dated_by TEXT CHECK (dated_by IN ('file', 'file_modified'));
CREATE INDEX tickets_task ON tickets(task, opened_at)
)sql")}},

        // the queue sorts by the worst thing on a ticket, in the order a person must see them
        // (TicketState): duplicate effect, unknown, unsettled repeat, retry, not performed, performed
        {.what = "the queue's attention rank",
         .sqlite = 14,
         .parts = {sqliteOnly(R"sql(
ALTER TABLE tickets ADD COLUMN attention_rank INTEGER NOT NULL DEFAULT 0;
UPDATE tickets SET attention_rank = CASE
    WHEN duplicate_effects > 0 THEN 6 WHEN has_unknown = 1 THEN 5 WHEN unsettled_repeats > 0 THEN 4
    WHEN retry_count > 0 THEN 3 WHEN worst_outcome = 3 THEN 2 WHEN write_count > 0 THEN 1 ELSE 0 END;
CREATE INDEX tickets_attention_rank ON tickets(attention_rank, opened_at)
)sql")}},

        // a ticket that needs a person for another reason (a write owed, a call nobody can
        // classify or key) ranks above the ones that need nobody, below a retry
        {.what = "a ticket that needs a person ranks above those that need nobody",
         .sqlite = 15,
         .parts = {sqliteOnly(R"sql(
UPDATE tickets SET attention_rank = CASE
    WHEN attention_rank >= 3 THEN attention_rank + 1 WHEN needs_attention = 1 THEN 3 ELSE attention_rank END
)sql")}},

        // a write whose amount is no money Verity can count (negative, fractional, "NaN")
        // keeps why, so its card can say so and its ticket can ask for a look
        {.what = "why a write's amount is no money",
         .sqlite = 16,
         .parts = {sqliteOnly(R"sql(
ALTER TABLE tool_calls ADD COLUMN amount_error TEXT
)sql")}},

        // a payment is looked up only under an id the data or a person named. Earlier
        // versions stored "pi_<order id>" for an order that named none; that guess is removed.
        // An operator may enter the payment of an escalation, found at the provider.
        {.what = "no guessed payments; a payment an operator entered",
         .sqlite = 17,
         .parts = {sqliteOnly(R"sql(
UPDATE orders SET payment_intent = NULL WHERE payment_intent = 'pi_' || id;
ALTER TABLE escalations ADD COLUMN payment_reference TEXT;
ALTER TABLE escalations ADD COLUMN payment_entered_by TEXT
)sql")}},

        // The team store starts where SQLite stood at its version 17 (the entries above), in
        // PostgreSQL's types: every integer is 64 bits (times are milliseconds, money is cents), the
        // columns SQLite compares without case are citext, and each index a keyset page walks ends in
        // the id, as SQLite's end in the rowid.
        {.what = "the team store's tables: SQLite's as of its version 17",
         .postgres = 1,
         .parts = {postgresOnly(R"sql(
CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA verity;
CREATE TABLE sellers (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    balance_cents BIGINT,
    balance_as_of BIGINT NOT NULL
);
CREATE TABLE orders (
    id             TEXT PRIMARY KEY,
    seller_id      TEXT NOT NULL REFERENCES sellers(id),
    currency       TEXT NOT NULL,
    customer_name  TEXT,
    customer_email TEXT,
    payment_intent TEXT
);
CREATE INDEX orders_seller ON orders(seller_id, currency);
CREATE TABLE order_items (
    order_id     TEXT NOT NULL REFERENCES orders(id),
    item_id      TEXT NOT NULL,
    title        TEXT,
    quantity     BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL,
    PRIMARY KEY (order_id, item_id)
);
CREATE TABLE tickets (
    id              BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    ext_id          CITEXT NOT NULL UNIQUE,
    order_id        CITEXT REFERENCES orders(id),
    seller_id       TEXT REFERENCES sellers(id),
    seller_name     CITEXT,
    subject         TEXT NOT NULL DEFAULT '',
    opened_at       BIGINT NOT NULL,
    fingerprint     TEXT NOT NULL,
    last_seq        BIGINT NOT NULL DEFAULT 0,
    write_count     BIGINT NOT NULL DEFAULT 0,
    worst_outcome   BIGINT NOT NULL DEFAULT 0,
    needs_attention BIGINT NOT NULL DEFAULT 0,
    has_unknown     BIGINT NOT NULL DEFAULT 0,
    has_repeat      BIGINT NOT NULL DEFAULT 0,
    duplicate_effects BIGINT NOT NULL DEFAULT 0,
    seller_balance_cents BIGINT,
    seller_balance_as_of BIGINT,
    source_format   TEXT NOT NULL DEFAULT 'native',
    registry        TEXT NOT NULL DEFAULT 'default',
    retry_count     BIGINT NOT NULL DEFAULT 0,
    harmless_repeats BIGINT NOT NULL DEFAULT 0,
    unsettled_repeats BIGINT NOT NULL DEFAULT 0,
    duplicate_cents BIGINT NOT NULL DEFAULT 0,
    task            CITEXT,
    origin          TEXT,
    dated_by        TEXT CHECK (dated_by IN ('file', 'file_modified')),
    attention_rank  BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX tickets_opened    ON tickets(opened_at, id);
CREATE INDEX tickets_attention ON tickets(needs_attention, opened_at, id);
CREATE INDEX tickets_unknown   ON tickets(has_unknown, opened_at, id);
CREATE INDEX tickets_repeat    ON tickets(has_repeat, opened_at, id);
CREATE INDEX tickets_duplicate ON tickets(duplicate_effects, opened_at, id);
CREATE INDEX tickets_retry     ON tickets(retry_count, opened_at, id);
CREATE INDEX tickets_order     ON tickets(order_id NULLS FIRST, opened_at, id);
CREATE INDEX tickets_seller    ON tickets(seller_name NULLS FIRST, opened_at, id);
CREATE INDEX tickets_writes    ON tickets(write_count, id);
CREATE INDEX tickets_worst     ON tickets(worst_outcome, id);
CREATE INDEX tickets_seller_id ON tickets(seller_id, seller_balance_as_of);
CREATE INDEX tickets_task      ON tickets(task, opened_at, id);
CREATE INDEX tickets_attention_rank ON tickets(attention_rank, opened_at, id);
CREATE TABLE messages (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    ticket_id   BIGINT NOT NULL REFERENCES tickets(id),
    seq         BIGINT NOT NULL,
    at          BIGINT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('customer', 'agent', 'system', 'reply')),
    text        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    UNIQUE (ticket_id, fingerprint)
);
CREATE TABLE tool_calls (
    id                 BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    ticket_id          BIGINT NOT NULL REFERENCES tickets(id),
    seq                BIGINT NOT NULL,
    call_ext_id        TEXT NOT NULL,
    tool               TEXT NOT NULL,
    tool_class         TEXT NOT NULL,
    arguments          TEXT NOT NULL,
    called_at          BIGINT NOT NULL,
    intent_key         TEXT,
    intent_error       TEXT,
    amount_cents       BIGINT,
    fingerprint        TEXT NOT NULL,
    raw_result         TEXT,
    result_at          BIGINT,
    duration_ms        BIGINT,
    result_fingerprint TEXT,
    outcome            TEXT CHECK (outcome IN ('performed', 'already_performed', 'not_performed', 'unknown')),
    outcome_reason     TEXT,
    read_failed        BIGINT NOT NULL DEFAULT 0,
    repeated           BIGINT NOT NULL DEFAULT 0,
    result_error       BIGINT NOT NULL DEFAULT 0,
    result_error_type  TEXT,
    repeat_kind        TEXT CHECK (repeat_kind IN ('retry', 'duplicate_effect', 'harmless', 'unsettled')),
    repeat_of          BIGINT REFERENCES tool_calls(id) DEFERRABLE INITIALLY DEFERRED,
    amount_error       TEXT,
    UNIQUE (ticket_id, call_ext_id)
);
CREATE INDEX tool_calls_intent ON tool_calls(ticket_id, intent_key);
CREATE INDEX tool_calls_class  ON tool_calls(tool_class, tool);
CREATE INDEX tool_calls_money  ON tool_calls(tool_class, called_at);
CREATE TABLE escalations (
    id                 BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    tool_call_id       BIGINT NOT NULL UNIQUE REFERENCES tool_calls(id),
    ticket_id          BIGINT NOT NULL REFERENCES tickets(id),
    opened_at          BIGINT NOT NULL,
    amount_cents       BIGINT,
    state              TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'resolved')),
    resolution         TEXT CHECK (resolution IN ('performed', 'not_performed', 'performed_again')),
    resolved_by        TEXT,
    resolved_at        BIGINT,
    last_note          TEXT,
    basis              TEXT CHECK (basis IN ('lookup', 'attestation', 'reconciliation')),
    reference          TEXT,
    payment_reference  TEXT,
    payment_entered_by TEXT
);
CREATE INDEX escalations_state  ON escalations(state, opened_at, id);
CREATE INDEX escalations_ticket ON escalations(ticket_id);
CREATE TABLE imports (
    id             BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    path           TEXT NOT NULL,
    sha256         TEXT NOT NULL,
    started_at     BIGINT NOT NULL,
    lines_read     BIGINT NOT NULL,
    lines_rejected BIGINT NOT NULL
);
CREATE TABLE evidence (
    id              BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    escalation_id   BIGINT NOT NULL REFERENCES escalations(id),
    operator        TEXT NOT NULL,
    started_at      BIGINT NOT NULL,
    finished_at     BIGINT NOT NULL,
    verdict         TEXT NOT NULL CHECK (verdict IN ('found', 'not_found', 'could_not_tell')),
    request         TEXT NOT NULL,
    response        TEXT NOT NULL,
    record_id       TEXT,
    reason          TEXT,
    evidence_sha256 TEXT NOT NULL,
    kind            TEXT NOT NULL DEFAULT 'lookup'
        CHECK (kind IN ('lookup', 'write', 'attestation', 'reconciliation'))
);
CREATE INDEX evidence_escalation ON evidence(escalation_id);
CREATE TABLE ledger (
    id           BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    intent_key   TEXT NOT NULL,
    tool_call_id BIGINT REFERENCES tool_calls(id),
    refund_id    TEXT NOT NULL UNIQUE,
    amount_cents BIGINT NOT NULL,
    currency     TEXT NOT NULL,
    seller_id    TEXT,
    recorded_at  BIGINT NOT NULL,
    source       TEXT NOT NULL
);
CREATE INDEX ledger_key ON ledger(intent_key);
CREATE UNIQUE INDEX ledger_call ON ledger(tool_call_id);
-- One chain: a second entry after the same one is refused, so two writers can never fork it.
CREATE TABLE audit_log (
    seq             BIGINT PRIMARY KEY,
    at              BIGINT NOT NULL,
    operator        TEXT NOT NULL,
    action          TEXT NOT NULL,
    escalation_id   BIGINT,
    detail          TEXT NOT NULL,
    evidence_sha256 TEXT,
    prev_hash       TEXT NOT NULL UNIQUE,
    hash            TEXT NOT NULL UNIQUE
);
CREATE TABLE pending_reassessment (ticket_id BIGINT PRIMARY KEY REFERENCES tickets(id));
CREATE TABLE payout_marks (
    id            BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    duplicate_key TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('recovery_requested', 'recovered')),
    note          TEXT NOT NULL DEFAULT '',
    operator      TEXT NOT NULL,
    at            BIGINT NOT NULL
);
CREATE INDEX payout_marks_key ON payout_marks(duplicate_key, id);
CREATE TABLE trace_events (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    ticket_id   BIGINT NOT NULL REFERENCES tickets(id),
    seq         BIGINT NOT NULL,
    at          BIGINT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('http', 'provider')),
    call_ext_id TEXT NOT NULL DEFAULT '',
    detail      TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    UNIQUE (ticket_id, fingerprint)
);
CREATE INDEX trace_events_ticket ON trace_events(ticket_id, seq);
CREATE TABLE trainer_notes (
    ticket_id  BIGINT NOT NULL REFERENCES tickets(id),
    step_key   TEXT NOT NULL,
    text       TEXT NOT NULL,
    author     TEXT NOT NULL,
    written_at BIGINT NOT NULL,
    PRIMARY KEY (ticket_id, step_key)
);
CREATE TABLE file_info (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
-- The queue's counts without counting, kept by triggers as on SQLite.
CREATE TABLE queue_totals (
    id                BIGINT PRIMARY KEY CHECK (id = 1),
    tickets           BIGINT NOT NULL,
    needs_attention   BIGINT NOT NULL,
    unknown           BIGINT NOT NULL,
    repeated          BIGINT NOT NULL,
    duplicate_effect  BIGINT NOT NULL,
    retry_after_error BIGINT NOT NULL,
    open_escalations  BIGINT NOT NULL
);
INSERT INTO queue_totals VALUES (1, 0, 0, 0, 0, 0, 0, 0);
CREATE FUNCTION queue_totals_of_ticket() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sign_new BIGINT := CASE WHEN TG_OP IN ('INSERT', 'UPDATE') THEN 1 ELSE 0 END;
    sign_old BIGINT := CASE WHEN TG_OP IN ('DELETE', 'UPDATE') THEN 1 ELSE 0 END;
BEGIN
    UPDATE queue_totals SET
        tickets = tickets + sign_new - sign_old,
        needs_attention = needs_attention
            + CASE WHEN sign_new = 1 AND NEW.needs_attention <> 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.needs_attention <> 0 THEN 1 ELSE 0 END,
        unknown = unknown
            + CASE WHEN sign_new = 1 AND NEW.has_unknown <> 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.has_unknown <> 0 THEN 1 ELSE 0 END,
        repeated = repeated
            + CASE WHEN sign_new = 1 AND NEW.has_repeat <> 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.has_repeat <> 0 THEN 1 ELSE 0 END,
        duplicate_effect = duplicate_effect
            + CASE WHEN sign_new = 1 AND NEW.duplicate_effects > 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.duplicate_effects > 0 THEN 1 ELSE 0 END,
        retry_after_error = retry_after_error
            + CASE WHEN sign_new = 1 AND NEW.retry_count > 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.retry_count > 0 THEN 1 ELSE 0 END
    WHERE id = 1;
    RETURN NULL;
END
$$;
CREATE TRIGGER queue_totals_ticket_added AFTER INSERT OR DELETE ON tickets
    FOR EACH ROW EXECUTE FUNCTION queue_totals_of_ticket();
CREATE TRIGGER queue_totals_ticket_changed
    AFTER UPDATE OF needs_attention, has_unknown, has_repeat, duplicate_effects, retry_count ON tickets
    FOR EACH ROW WHEN ((OLD.needs_attention <> 0) <> (NEW.needs_attention <> 0)
        OR (OLD.has_unknown <> 0) <> (NEW.has_unknown <> 0) OR (OLD.has_repeat <> 0) <> (NEW.has_repeat <> 0)
        OR (OLD.duplicate_effects > 0) <> (NEW.duplicate_effects > 0) OR (OLD.retry_count > 0) <> (NEW.retry_count > 0))
    EXECUTE FUNCTION queue_totals_of_ticket();
CREATE FUNCTION queue_totals_of_escalation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE queue_totals SET open_escalations = open_escalations
        + CASE WHEN TG_OP IN ('INSERT', 'UPDATE') AND NEW.state = 'open' THEN 1 ELSE 0 END
        - CASE WHEN TG_OP IN ('DELETE', 'UPDATE') AND OLD.state = 'open' THEN 1 ELSE 0 END
    WHERE id = 1;
    RETURN NULL;
END
$$;
CREATE TRIGGER queue_totals_escalation_added AFTER INSERT OR DELETE ON escalations
    FOR EACH ROW EXECUTE FUNCTION queue_totals_of_escalation();
CREATE TRIGGER queue_totals_escalation_changed AFTER UPDATE OF state ON escalations
    FOR EACH ROW WHEN ((OLD.state = 'open') <> (NEW.state = 'open'))
    EXECUTE FUNCTION queue_totals_of_escalation();
)sql")}},

        // claims, so that two people never act on one escalation at once: who holds it and
        // until when (ms since the epoch); and the audit chain refuses a second entry after the
        // same one, as on PostgreSQL, where many consoles append to it (there audit_log.prev_hash
        // is UNIQUE from the first version)
        {.what = "claims: who holds an escalation and until when",
         .sqlite = 18,
         .postgres = 2,
         .parts = {both(R"sql(
ALTER TABLE escalations ADD COLUMN claimed_by TEXT;
ALTER TABLE escalations ADD COLUMN claimed_until {integer};
)sql"),
                   sqliteOnly(R"sql(
CREATE UNIQUE INDEX audit_log_prev ON audit_log(prev_hash)
)sql")}},

        // roles (postgresroles.h). Everyone reads. Settling (support from lookups and checks,
        // finance from statements) stores evidence, the ledger row and the audit entry, and
        // assesses the ticket again; support also brings transcripts in. The audit chain is only
        // ever appended to. A table added later names its grants in its own migration.
        {.what = "the team's roles and what each may change",
         .postgres = 3,
         .parts = {postgresOnly(R"sql(
GRANT USAGE ON SCHEMA verity TO verity_support, verity_finance, verity_trainer, verity_admin;
GRANT SELECT ON ALL TABLES IN SCHEMA verity TO verity_support, verity_finance, verity_trainer, verity_admin;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA verity TO verity_support, verity_finance, verity_trainer, verity_admin;

GRANT INSERT ON evidence, ledger, audit_log TO verity_support, verity_finance;
GRANT INSERT, UPDATE, DELETE ON escalations TO verity_support, verity_finance;
GRANT UPDATE ON tickets TO verity_support, verity_finance;
GRANT UPDATE (raw_result, result_at, duration_ms, result_fingerprint, outcome, outcome_reason, read_failed,
              result_error, result_error_type, repeated, repeat_kind, repeat_of)
    ON tool_calls TO verity_support, verity_finance;
GRANT DELETE ON pending_reassessment TO verity_support, verity_finance;

GRANT INSERT, UPDATE ON sellers, orders, order_items, tickets, messages, trace_events TO verity_support;
GRANT INSERT ON tool_calls, imports, pending_reassessment TO verity_support;

GRANT INSERT ON payout_marks TO verity_finance;
GRANT INSERT, UPDATE, DELETE ON trainer_notes TO verity_trainer;

GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA verity TO verity_admin;
GRANT UPDATE ON ALL SEQUENCES IN SCHEMA verity TO verity_admin;
REVOKE UPDATE, DELETE ON audit_log, evidence FROM verity_admin;
REVOKE INSERT, UPDATE, DELETE ON queue_totals, schema_version FROM verity_admin;

-- Which evidence a role may add: support's lookups, writes and checks; finance's statements.
ALTER TABLE evidence ENABLE ROW LEVEL SECURITY;
CREATE POLICY evidence_read ON evidence FOR SELECT USING (true);
CREATE POLICY evidence_of_support ON evidence FOR INSERT TO verity_support
    WITH CHECK (kind IN ('lookup', 'write', 'attestation'));
CREATE POLICY evidence_of_finance ON evidence FOR INSERT TO verity_finance WITH CHECK (kind = 'reconciliation');
CREATE POLICY evidence_of_admin ON evidence FOR INSERT TO verity_admin WITH CHECK (true);

-- The counts are kept for everyone who changes a ticket, not written by them.
ALTER FUNCTION queue_totals_of_ticket() SECURITY DEFINER SET search_path = verity, pg_temp;
ALTER FUNCTION queue_totals_of_escalation() SECURITY DEFINER SET search_path = verity, pg_temp;

-- A live claim is its holder's: nobody else settles, notes or takes the escalation until it
-- lapses, except an admin (or the owner). Times are the server's, in milliseconds.
CREATE FUNCTION escalation_claim_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.claimed_by <> current_user
            AND OLD.claimed_until > (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT
            AND NOT pg_has_role(current_user, 'verity_admin', 'USAGE')
            AND NOT pg_has_role(current_user, (SELECT nspowner FROM pg_namespace WHERE nspname = 'verity'),
                                'USAGE') THEN
        RAISE EXCEPTION 'escalation % is claimed by % until it is given back or lapses; only they or an admin may change it',
            OLD.id, OLD.claimed_by USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER escalation_claim_held
    BEFORE UPDATE OF state, resolution, basis, reference, resolved_by, resolved_at, last_note,
                     payment_reference, payment_entered_by, claimed_by, claimed_until ON escalations
    FOR EACH ROW WHEN (OLD.claimed_by IS NOT NULL) EXECUTE FUNCTION escalation_claim_guard();
)sql")},
         .grantsToTeamRoles = true},

        // every console follows the others (changefeed.h): each statement that changes a kind
        // of data announces it once, on commit; PostgreSQL folds repeats within a transaction.
        {.what = "every console follows the others' changes",
         .postgres = 4,
         .parts = {postgresOnly(R"sql(
CREATE FUNCTION announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('verity_changes', TG_ARGV[0]);
    RETURN NULL;
END
$$;
CREATE TRIGGER tickets_announced AFTER INSERT OR UPDATE OR DELETE ON tickets
    FOR EACH STATEMENT EXECUTE FUNCTION announce_change('tickets');
CREATE TRIGGER tool_calls_announced AFTER INSERT OR UPDATE OR DELETE ON tool_calls
    FOR EACH STATEMENT EXECUTE FUNCTION announce_change('tickets');
CREATE TRIGGER escalations_announced AFTER INSERT OR UPDATE OR DELETE ON escalations
    FOR EACH STATEMENT EXECUTE FUNCTION announce_change('escalations');
CREATE TRIGGER evidence_announced AFTER INSERT ON evidence
    FOR EACH STATEMENT EXECUTE FUNCTION announce_change('escalations');
CREATE TRIGGER audit_announced AFTER INSERT ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION announce_change('audit');
CREATE TRIGGER ledger_announced AFTER INSERT OR UPDATE OR DELETE ON ledger
    FOR EACH STATEMENT EXECUTE FUNCTION announce_change('finance');
CREATE TRIGGER payout_marks_announced AFTER INSERT OR UPDATE OR DELETE ON payout_marks
    FOR EACH STATEMENT EXECUTE FUNCTION announce_change('finance');
CREATE TRIGGER trainer_notes_announced AFTER INSERT OR UPDATE OR DELETE ON trainer_notes
    FOR EACH STATEMENT EXECUTE FUNCTION announce_change('notes');
)sql")}},

        // an announcement names the server process that made the change, so a console can
        // tell its own changes from the others'.
        {.what = "a change names the server process that made it",
         .postgres = 5,
         .parts = {postgresOnly(R"sql(
CREATE OR REPLACE FUNCTION announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('verity_changes', TG_ARGV[0] || ' ' || pg_backend_pid());
    RETURN NULL;
END
$$;
)sql")}},

        // what the database holds every writer to, whatever client they use: a claim is taken
        // in one's own name, an audit entry names who wrote it, and an escalation leaves the queue
        // only once its call is no longer unknown. An admin, or the owner, is exempt (a desk's
        // history copied in names its own people).
        {.what = "claims, audit entries and escalation deletes held to their rules for every client",
         .postgres = 6,
         .parts = {postgresOnly(R"sql(
CREATE FUNCTION acts_as_admin() RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT pg_has_role(current_user, 'verity_admin', 'USAGE')
        OR pg_has_role(current_user, (SELECT nspowner FROM pg_namespace WHERE nspname = 'verity'), 'USAGE')
$$;
CREATE FUNCTION claim_in_own_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.claimed_by IS NOT NULL AND NEW.claimed_by IS DISTINCT FROM OLD.claimed_by
            AND NEW.claimed_by <> current_user AND NOT acts_as_admin() THEN
        RAISE EXCEPTION '% cannot claim escalation % in the name of %: a claim is taken in one''s own name',
            current_user, OLD.id, NEW.claimed_by USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER escalation_claimed_in_own_name BEFORE UPDATE OF claimed_by ON escalations
    FOR EACH ROW EXECUTE FUNCTION claim_in_own_name();
CREATE FUNCTION audit_in_own_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.operator <> current_user AND NOT acts_as_admin() THEN
        RAISE EXCEPTION '% cannot write an audit entry in the name of %', current_user, NEW.operator
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER audit_written_in_own_name BEFORE INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_in_own_name();
CREATE FUNCTION escalation_leaves_when_known() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT acts_as_admin() AND (OLD.state <> 'open'
            OR EXISTS (SELECT 1 FROM tool_calls WHERE id = OLD.tool_call_id AND outcome = 'unknown')) THEN
        RAISE EXCEPTION 'escalation % waits for evidence: it leaves the queue when it is settled, not deleted', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN OLD;
END
$$;
CREATE TRIGGER escalation_deleted_only_when_known BEFORE DELETE ON escalations
    FOR EACH ROW EXECUTE FUNCTION escalation_leaves_when_known();
)sql")}},

        // the queue's search, as on SQLite: a beginning of a ticket, an order, a seller or a
        // task, whatever its case. LIKE is told lower() of both sides; an index of lower() in
        // byte order (text_pattern_ops) makes each arm a range whatever the database's collation,
        // where the plain indexes serve only a "C" one.
        {.what = "the queue's search, whatever the case",
         .postgres = 7,
         .parts = {postgresOnly(R"sql(
CREATE INDEX tickets_ext_id_search ON tickets (lower(ext_id) text_pattern_ops);
CREATE INDEX tickets_order_search  ON tickets (lower(order_id) text_pattern_ops);
CREATE INDEX tickets_seller_search ON tickets (lower(seller_name) text_pattern_ops);
CREATE INDEX tickets_task_search   ON tickets (lower(task) text_pattern_ops);
)sql")}},

        // each search index answers its column alone, without the rows: it holds the time
        // order and the column (lower() of a column is not enough for PostgreSQL to leave the
        // row unread), and the queue unites the columns' matches (0.6 s to 25 ms for a seller's
        // 25,000 tickets at a million).
        {.what = "search indexes that answer alone",
         .postgres = 8,
         .parts = {postgresOnly(R"sql(
DROP INDEX tickets_ext_id_search, tickets_order_search, tickets_seller_search, tickets_task_search;
CREATE INDEX tickets_ext_id_search ON tickets (lower(ext_id) text_pattern_ops, opened_at, id) INCLUDE (ext_id);
CREATE INDEX tickets_order_search  ON tickets (lower(order_id) text_pattern_ops, opened_at, id) INCLUDE (order_id);
CREATE INDEX tickets_seller_search ON tickets (lower(seller_name) text_pattern_ops, opened_at, id)
    INCLUDE (seller_name);
CREATE INDEX tickets_task_search   ON tickets (lower(task) text_pattern_ops, opened_at, id) INCLUDE (task);
-- An index answers alone only for table pages marked all-visible, which autovacuum does once
-- a fifth of the table is new by default: at a million tickets, the newest 200,000 would be
-- read row by row. After a hundredth, they are marked while still the newest.
ALTER TABLE tickets SET (autovacuum_vacuum_insert_scale_factor = 0.01);
)sql")}},

        // a write reported live whose result may still come is in flight until then (ms
        // since the epoch), and escalated only when it has not come; whoever stores results
        // ends the wait.
        {.what = "writes in flight until their result may come",
         .sqlite = 19,
         .postgres = 9,
         .parts = {both(R"sql(
ALTER TABLE tool_calls ADD COLUMN in_flight_until {integer};
CREATE INDEX tool_calls_in_flight ON tool_calls(in_flight_until) WHERE in_flight_until IS NOT NULL
)sql"),
                   postgresOnly(R"sql(
GRANT UPDATE (in_flight_until) ON tool_calls TO verity_support, verity_finance;
)sql")}},

        // a ticket whose unknown writes all wait for their results is shown in flight. On
        // PostgreSQL, the receiver also names a ticket it knew only by its trace once the span
        // naming the conversation comes, and joins it to the conversation's ticket when that
        // exists (keying its writes again: a key holds the ticket's id).
        {.what = "tickets in flight; the receiver joins a ticket it knew by its trace",
         .sqlite = 20,
         .postgres = 10,
         .parts = {postgresOnly(R"sql(
GRANT UPDATE (ticket_id, seq, call_ext_id, intent_key, intent_error) ON tool_calls TO verity_support;
GRANT UPDATE (ticket_id) ON trainer_notes TO verity_support;
GRANT DELETE ON tickets TO verity_support;
)sql"),
                   both(R"sql(
ALTER TABLE tickets ADD COLUMN in_flight {integer} NOT NULL DEFAULT 0
)sql")}},

        // what a role may change, the database checks as Verity's actions do it, whatever the
        // client: a settlement comes with its evidence and audit entry in one transaction and in
        // the settler's name; a call's outcome comes with its result, once; a claim is taken and
        // kept in one's own name, and taking it is audited; the ledger is written with an audit
        // entry; evidence names who recorded it; an audit entry follows the chain's head. Every
        // guard runs with Verity's schema first, whatever the session's search_path (psql's
        // default would not find acts_as_admin()). An admin, or the owner, is exempt, as before.
        {.what = "what each role may change, checked as Verity's actions make it",
         .postgres = 11,
         .parts = {postgresOnly(R"sql(
ALTER FUNCTION acts_as_admin() SET search_path = verity, pg_temp;
ALTER FUNCTION escalation_claim_guard() SET search_path = verity, pg_temp;
ALTER FUNCTION claim_in_own_name() SET search_path = verity, pg_temp;
ALTER FUNCTION audit_in_own_name() SET search_path = verity, pg_temp;
ALTER FUNCTION escalation_leaves_when_known() SET search_path = verity, pg_temp;
ALTER FUNCTION announce_change() SET search_path = verity, pg_temp;

-- Whether a row was written by the transaction running now (its xmin is the transaction's id).
CREATE FUNCTION written_now(row_xmin xid) RETURNS boolean LANGUAGE sql STABLE
    SET search_path = verity, pg_temp AS $$
    SELECT row_xmin::text::bigint = pg_current_xact_id()::text::bigint % 4294967296
$$;

-- Held in one's own name: taking a claim, and moving its end, whoever held it before.
CREATE OR REPLACE FUNCTION claim_in_own_name() RETURNS trigger LANGUAGE plpgsql
    SET search_path = verity, pg_temp AS $$
BEGIN
    IF NEW.claimed_by IS NOT NULL AND NEW.claimed_by <> current_user AND NOT acts_as_admin() THEN
        RAISE EXCEPTION '% cannot claim escalation % in the name of %: a claim is taken and kept in one''s own name',
            current_user, OLD.id, NEW.claimed_by USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
DROP TRIGGER escalation_claimed_in_own_name ON escalations;
CREATE TRIGGER escalation_claimed_in_own_name BEFORE UPDATE OF claimed_by, claimed_until ON escalations
    FOR EACH ROW WHEN (NEW.claimed_by IS DISTINCT FROM OLD.claimed_by
                       OR NEW.claimed_until IS DISTINCT FROM OLD.claimed_until)
    EXECUTE FUNCTION claim_in_own_name();

-- Checked at commit, when the whole action is there: what a settlement or a claim writes
-- beside the escalation.
CREATE FUNCTION escalation_change_audited() RETURNS trigger LANGUAGE plpgsql
    SET search_path = verity, pg_temp AS $$
BEGIN
    IF acts_as_admin() THEN
        RETURN NULL;
    END IF;
    IF (OLD.state, OLD.resolution, OLD.basis, OLD.reference, OLD.resolved_by, OLD.resolved_at)
            IS DISTINCT FROM (NEW.state, NEW.resolution, NEW.basis, NEW.reference, NEW.resolved_by, NEW.resolved_at) THEN
        IF NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.escalation_id = NEW.id AND a.operator = current_user
                       AND written_now(a.xmin)) THEN
            RAISE EXCEPTION 'escalation % cannot be settled or reopened by % without an audit entry of theirs in the same transaction: a settlement is an audited action',
                NEW.id, current_user USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF NEW.state = 'resolved' AND NEW.resolved_by IS DISTINCT FROM current_user THEN
            RAISE EXCEPTION 'escalation % cannot be settled by % in the name of %: a settlement is made in one''s own name',
                NEW.id, current_user, NEW.resolved_by USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF NEW.state = 'resolved' AND NOT EXISTS (SELECT 1 FROM evidence e WHERE e.escalation_id = NEW.id
                       AND e.operator = current_user AND written_now(e.xmin)) THEN
            RAISE EXCEPTION 'escalation % cannot be settled by % without evidence recorded with it: a settlement rests on a lookup, a check or a statement',
                NEW.id, current_user USING ERRCODE = 'insufficient_privilege';
        END IF;
    END IF;
    IF NEW.claimed_by IS NOT NULL AND NEW.claimed_by IS DISTINCT FROM OLD.claimed_by
            AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.escalation_id = NEW.id AND a.operator = current_user
                            AND a.action = 'claim' AND written_now(a.xmin)) THEN
        RAISE EXCEPTION 'escalation % cannot be claimed by % without the claim''s audit entry in the same transaction: taking a claim is an audited action',
            NEW.id, current_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER escalation_changes_audited AFTER UPDATE ON escalations
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION escalation_change_audited();

-- A call's result is recorded once, when it comes, and its outcome with it: nobody turns an
-- unknown refund green by hand.
CREATE FUNCTION outcome_from_result() RETURNS trigger LANGUAGE plpgsql
    SET search_path = verity, pg_temp AS $$
BEGIN
    IF NOT acts_as_admin() AND OLD.result_fingerprint IS NOT NULL THEN
        RAISE EXCEPTION 'call % of ticket % already has its result: a result and the outcome read from it are recorded once, when the result comes',
            OLD.call_ext_id, OLD.ticket_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT acts_as_admin() AND NEW.result_fingerprint IS NULL
            AND (OLD.outcome, OLD.outcome_reason, OLD.read_failed) IS DISTINCT FROM (NEW.outcome, NEW.outcome_reason, NEW.read_failed) THEN
        RAISE EXCEPTION 'call % of ticket % has no result to read an outcome from: an outcome is recorded with the result it comes from',
            OLD.call_ext_id, OLD.ticket_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER tool_call_outcome_from_result
    BEFORE UPDATE OF raw_result, result_at, duration_ms, result_fingerprint, outcome, outcome_reason, read_failed,
                     result_error, result_error_type ON tool_calls
    FOR EACH ROW WHEN ((OLD.raw_result, OLD.result_at, OLD.duration_ms, OLD.result_fingerprint, OLD.outcome,
                        OLD.outcome_reason, OLD.read_failed, OLD.result_error, OLD.result_error_type)
                       IS DISTINCT FROM (NEW.raw_result, NEW.result_at, NEW.duration_ms, NEW.result_fingerprint,
                                         NEW.outcome, NEW.outcome_reason, NEW.read_failed, NEW.result_error,
                                         NEW.result_error_type))
    EXECUTE FUNCTION outcome_from_result();

-- The ledger says a refund went out: written only with the audit entry of the action that
-- found or sent it.
CREATE FUNCTION ledger_row_audited() RETURNS trigger LANGUAGE plpgsql
    SET search_path = verity, pg_temp AS $$
BEGIN
    IF NOT acts_as_admin() AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.operator = current_user
                                           AND written_now(a.xmin)) THEN
        RAISE EXCEPTION 'refund % cannot enter the ledger without an audit entry of %''s in the same transaction: the ledger is written by audited actions',
            NEW.refund_id, current_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER ledger_rows_audited AFTER INSERT ON ledger
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_row_audited();

CREATE FUNCTION evidence_in_own_name() RETURNS trigger LANGUAGE plpgsql
    SET search_path = verity, pg_temp AS $$
BEGIN
    IF NEW.operator <> current_user AND NOT acts_as_admin() THEN
        RAISE EXCEPTION '% cannot record evidence in the name of %: evidence names who recorded it',
            current_user, NEW.operator USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER evidence_recorded_in_own_name BEFORE INSERT ON evidence
    FOR EACH ROW EXECUTE FUNCTION evidence_in_own_name();

-- One chain, appended at its head only: the next number, after the newest entry's hash. The
-- chain's lock is the one Verity's writers take, so a writer by hand waits its turn too.
CREATE FUNCTION audit_follows_head() RETURNS trigger LANGUAGE plpgsql
    SET search_path = verity, pg_temp AS $$
DECLARE
    head_seq BIGINT;
    head_hash TEXT;
BEGIN
    IF acts_as_admin() THEN
        RETURN NEW;
    END IF;
    PERFORM pg_advisory_xact_lock(7378726957);
    SELECT seq, hash INTO head_seq, head_hash FROM audit_log ORDER BY seq DESC LIMIT 1;
    IF NEW.seq IS DISTINCT FROM COALESCE(head_seq, 0) + 1
            OR NEW.prev_hash IS DISTINCT FROM COALESCE(head_hash, repeat('0', 64)) THEN
        RAISE EXCEPTION 'an audit entry follows the chain''s head: entry % after %, not entry % after %',
            COALESCE(head_seq, 0) + 1, COALESCE(head_hash, repeat('0', 64)), NEW.seq, NEW.prev_hash
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
-- (Named to fire after audit_written_in_own_name: BEFORE triggers run in name order.)
CREATE TRIGGER audit_written_to_the_head BEFORE INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_follows_head();
)sql")}},

        // when a claim was last taken or renewed, and how often its holder renews it (a
        // console, while its dialog is open; NULL for a claim nobody renews): a console that
        // stopped renewing is told apart from one at work
        {.what = "claims renewed, and how often",
         .sqlite = 21,
         .postgres = 12,
         .parts = {both(R"sql(
ALTER TABLE escalations ADD COLUMN claim_renewed_at {integer};
ALTER TABLE escalations ADD COLUMN claim_renews_every {integer}
)sql")}},

        // what an import brings in stays as it came: orders and their items are only ever
        // added (a payment moved to another order would send the lookup to the wrong refund), a
        // message's or trace event's content is never rewritten (a ticket joining another moves
        // its rows, nothing more), and an escalation is opened only for an unknown write of its
        // own ticket, open, unclaimed, for the call's amount.
        {.what = "imports stay as they came; escalations only of unknown writes",
         .postgres = 13,
         .parts = {postgresOnly(R"sql(
REVOKE UPDATE ON orders, order_items, messages, trace_events FROM verity_support;
GRANT UPDATE (ticket_id, seq) ON messages TO verity_support;
GRANT UPDATE (ticket_id, seq, call_ext_id) ON trace_events TO verity_support;
CREATE FUNCTION escalation_of_an_unknown_write() RETURNS trigger LANGUAGE plpgsql
    SET search_path = verity, pg_temp AS $$
DECLARE
    call tool_calls%ROWTYPE;
BEGIN
    IF acts_as_admin() THEN
        RETURN NEW;
    END IF;
    SELECT * INTO call FROM tool_calls WHERE id = NEW.tool_call_id;
    IF TG_OP = 'INSERT' AND (call.id IS NULL OR call.outcome IS DISTINCT FROM 'unknown'
            OR call.tool_class NOT LIKE 'write%' OR NEW.state <> 'open' OR NEW.resolution IS NOT NULL
            OR NEW.claimed_by IS NOT NULL) THEN
        RAISE EXCEPTION 'an escalation is opened only for a write whose outcome is unknown, open and unclaimed: call % is not one',
            NEW.tool_call_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.ticket_id IS DISTINCT FROM call.ticket_id OR NEW.amount_cents IS DISTINCT FROM call.amount_cents
            OR NEW.opened_at < call.called_at THEN
        RAISE EXCEPTION 'escalation of call % must name its call''s ticket and amount, and open after the call was made',
            NEW.tool_call_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER escalation_opened_for_an_unknown_write
    BEFORE INSERT OR UPDATE OF tool_call_id, ticket_id, amount_cents, opened_at ON escalations
    FOR EACH ROW EXECUTE FUNCTION escalation_of_an_unknown_write();
)sql")}},

        // the payment a person entered for a refund's lookup is entered as Verity enters it:
        // in their own name, with its audit entry in the same transaction (a payment changed by
        // hand would send the lookup to another refund).
        {.what = "a payment entered in one's own name, audited",
         .postgres = 14,
         .parts = {postgresOnly(R"sql(
CREATE FUNCTION payment_entered_audited() RETURNS trigger LANGUAGE plpgsql
    SET search_path = verity, pg_temp AS $$
BEGIN
    IF acts_as_admin() THEN
        RETURN NULL;
    END IF;
    IF NEW.payment_entered_by IS DISTINCT FROM current_user OR NOT EXISTS (
            SELECT 1 FROM audit_log a WHERE a.escalation_id = NEW.id AND a.operator = current_user
            AND a.action = 'payment-entered' AND written_now(a.xmin)) THEN
        RAISE EXCEPTION 'escalation %: a payment is entered in one''s own name, with its audit entry in the same transaction',
            NEW.id USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER escalation_payment_entered_audited AFTER UPDATE OF payment_reference, payment_entered_by
    ON escalations DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.payment_reference IS DISTINCT FROM OLD.payment_reference
          OR NEW.payment_entered_by IS DISTINCT FROM OLD.payment_entered_by)
    EXECUTE FUNCTION payment_entered_audited();
)sql")}},

        // an order named only by a conversation's calls (a refund's arguments, a read's
        // result) is recorded with no seller until the data names one (the orders table is
        // rebuilt to let seller_id be NULL, with foreign keys off: see sqliteschema.cpp); PostgreSQL
        // lets it be NULL in place. There, its seller and payment are then filled in once: a named
        // one never changes (a payment moved to another order would send the lookup to the wrong
        // refund)
        {.what = "orders without a seller until the data names one",
         .sqlite = 22,
         .postgres = 15,
         .parts = {sqliteOnly(R"sql(
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
)sql"),
                   postgresOnly(R"sql(
ALTER TABLE orders ALTER COLUMN seller_id DROP NOT NULL;
GRANT UPDATE (seller_id, payment_intent) ON orders TO verity_support;
CREATE FUNCTION order_named_once() RETURNS trigger LANGUAGE plpgsql
    SET search_path = verity, pg_temp AS $$
BEGIN
    IF acts_as_admin() THEN
        RETURN NEW;
    END IF;
    IF (OLD.seller_id IS NOT NULL AND NEW.seller_id IS DISTINCT FROM OLD.seller_id)
            OR (OLD.payment_intent IS NOT NULL AND NEW.payment_intent IS DISTINCT FROM OLD.payment_intent) THEN
        RAISE EXCEPTION 'order %: its seller and payment are named once and never changed', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER order_seller_and_payment_named_once BEFORE UPDATE ON orders
    FOR EACH ROW EXECUTE FUNCTION order_named_once();
)sql")},
         .rebuildsReferencedTable = true},

        // a call of a tool no registry knows is judged as the class its source's telemetry
        // suggests (a tool definition, MCP's hints, its arguments), and says why until a person
        // confirms a class (on PostgreSQL, support writes it with the call; confirming
        // reclassifies, as before, by an admin)
        {.what = "a class inferred for a tool no registry knows",
         .sqlite = 23,
         .postgres = 16,
         .parts = {both(R"sql(
ALTER TABLE tool_calls ADD COLUMN class_inferred TEXT;
CREATE INDEX tool_calls_inferred ON tool_calls(tool) WHERE class_inferred IS NOT NULL
)sql")}},

        // `verity guard` asks, before it sends a write, whether its intent was made before in
        // any ticket
        {.what = "an intent looked up in any ticket",
         .sqlite = 24,
         .postgres = 17,
         .parts = {both(R"sql(
CREATE INDEX tool_calls_intent_anywhere ON tool_calls(intent_key) WHERE intent_key IS NOT NULL
)sql")}},

        // the queue's totals as rows of changes. One row updated by every transaction that
        // opened a ticket or changed its marks made each such transaction wait for all the others
        // to commit, and two sessions each holding what the other then needed waited for ever.
        // A change is a row of its own now, the totals are their sums, and now and then one
        // transaction folds the rows into one while the others go on adding theirs.
        {.what = "the queue's totals as rows of changes",
         .postgres = 18,
         .parts = {postgresOnly(R"sql(
ALTER TABLE queue_totals DROP CONSTRAINT queue_totals_id_check;
CREATE SEQUENCE queue_totals_id_seq OWNED BY queue_totals.id START 2;
ALTER TABLE queue_totals ALTER COLUMN id SET DEFAULT nextval('queue_totals_id_seq');
CREATE FUNCTION queue_totals_changed(d_tickets BIGINT, d_needs_attention BIGINT, d_unknown BIGINT,
                                     d_repeated BIGINT, d_duplicate_effect BIGINT, d_retry_after_error BIGINT,
                                     d_open_escalations BIGINT)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    added BIGINT;
BEGIN
    IF d_tickets = 0 AND d_needs_attention = 0 AND d_unknown = 0 AND d_repeated = 0 AND d_duplicate_effect = 0
            AND d_retry_after_error = 0 AND d_open_escalations = 0 THEN
        RETURN;
    END IF;
    INSERT INTO queue_totals (tickets, needs_attention, unknown, repeated, duplicate_effect, retry_after_error,
                              open_escalations)
        VALUES (d_tickets, d_needs_attention, d_unknown, d_repeated, d_duplicate_effect, d_retry_after_error,
                d_open_escalations)
        RETURNING id INTO added;
    -- Rows another transaction has not committed are not seen, so not folded: they stay as changes.
    IF added % 256 = 0 AND pg_try_advisory_xact_lock(7378726957) THEN
        WITH gone AS (DELETE FROM queue_totals WHERE id <= added RETURNING *)
        INSERT INTO queue_totals (tickets, needs_attention, unknown, repeated, duplicate_effect, retry_after_error,
                                  open_escalations)
            SELECT coalesce(sum(g.tickets), 0), coalesce(sum(g.needs_attention), 0), coalesce(sum(g.unknown), 0),
                   coalesce(sum(g.repeated), 0), coalesce(sum(g.duplicate_effect), 0),
                   coalesce(sum(g.retry_after_error), 0), coalesce(sum(g.open_escalations), 0)
            FROM gone g;
    END IF;
END
$$;
CREATE OR REPLACE FUNCTION queue_totals_of_ticket() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sign_new BIGINT := CASE WHEN TG_OP IN ('INSERT', 'UPDATE') THEN 1 ELSE 0 END;
    sign_old BIGINT := CASE WHEN TG_OP IN ('DELETE', 'UPDATE') THEN 1 ELSE 0 END;
BEGIN
    PERFORM queue_totals_changed(
        sign_new - sign_old,
        CASE WHEN sign_new = 1 AND NEW.needs_attention <> 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.needs_attention <> 0 THEN 1 ELSE 0 END,
        CASE WHEN sign_new = 1 AND NEW.has_unknown <> 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.has_unknown <> 0 THEN 1 ELSE 0 END,
        CASE WHEN sign_new = 1 AND NEW.has_repeat <> 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.has_repeat <> 0 THEN 1 ELSE 0 END,
        CASE WHEN sign_new = 1 AND NEW.duplicate_effects > 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.duplicate_effects > 0 THEN 1 ELSE 0 END,
        CASE WHEN sign_new = 1 AND NEW.retry_count > 0 THEN 1 ELSE 0 END
            - CASE WHEN sign_old = 1 AND OLD.retry_count > 0 THEN 1 ELSE 0 END,
        0);
    RETURN NULL;
END
$$;
CREATE OR REPLACE FUNCTION queue_totals_of_escalation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM queue_totals_changed(0, 0, 0, 0, 0, 0,
        CASE WHEN TG_OP IN ('INSERT', 'UPDATE') AND NEW.state = 'open' THEN 1 ELSE 0 END
            - CASE WHEN TG_OP IN ('DELETE', 'UPDATE') AND OLD.state = 'open' THEN 1 ELSE 0 END);
    RETURN NULL;
END
$$;
-- Kept for everyone who changes a ticket or an escalation, through the triggers alone (a
-- function replaced is the caller's again until told otherwise).
ALTER FUNCTION queue_totals_of_ticket() SECURITY DEFINER SET search_path = verity, pg_temp;
ALTER FUNCTION queue_totals_of_escalation() SECURITY DEFINER SET search_path = verity, pg_temp;
ALTER FUNCTION queue_totals_changed(BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT)
    SECURITY DEFINER SET search_path = verity, pg_temp;
REVOKE EXECUTE ON FUNCTION queue_totals_changed(BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT)
    FROM PUBLIC;
)sql")}},

        // a write a person's check found not performed is still owed, whatever its class, as one
        // a lookup found absent is: the tickets with such a write are assessed again when the store
        // opens, and need a look while nothing of its intent took effect
        {.what = "a write a check found absent is still owed",
         .sqlite = 25,
         .postgres = 19,
         .parts = {sqliteOnly(R"sql(
INSERT OR IGNORE INTO pending_reassessment (ticket_id)
    SELECT DISTINCT ticket_id FROM escalations WHERE resolution = 'not_performed' AND basis = 'attestation'
)sql"), postgresOnly(R"sql(
INSERT INTO pending_reassessment (ticket_id)
    SELECT DISTINCT ticket_id FROM escalations WHERE resolution = 'not_performed' AND basis = 'attestation'
    ON CONFLICT DO NOTHING;
)sql")}},
};
// clang-format on

constexpr bool runsOn(const Part &part, Backend backend)
{
    return part.sql
            && (part.on == Runs::Both
                || part.on == (backend == Backend::Sqlite ? Runs::Sqlite : Runs::Postgres));
}

constexpr int versionOn(const Migration &migration, Backend backend)
{
    return backend == Backend::Sqlite ? migration.sqlite : migration.postgres;
}

// Each backend's versions run 1, 2, 3 ... down the list, and a change has text for exactly the
// backends it has a version on (one at least).
constexpr bool wellFormed(Backend backend)
{
    int next = 1;
    for (const Migration &migration : manifest) {
        bool hasText = false;
        for (const Part &part : migration.parts)
            hasText = hasText || runsOn(part, backend);
        const int version = versionOn(migration, backend);
        if ((migration.sqlite == 0 && migration.postgres == 0) || (version != 0) != hasText
            || (version != 0 && version != next++))
            return false;
    }
    return true;
}

static_assert(wellFormed(Backend::Sqlite),
              "the manifest's SQLite steps: versions 1, 2, 3 ..., text where a version is");
static_assert(wellFormed(Backend::Postgres),
              "the manifest's PostgreSQL steps: versions 1, 2, 3 ..., text where a version is");

// Whether `sql` ends its last statement with a ';' (layout aside).
bool endsStatement(const QString &sql)
{
    for (qsizetype i = sql.size() - 1; i >= 0; --i) {
        if (!sql.at(i).isSpace())
            return sql.at(i) == u';';
    }
    return true;
}

QList<Step> stepsOf(Backend backend)
{
    const QLatin1String integer(backend == Backend::Sqlite ? "INTEGER" : "BIGINT");
    QList<Step> steps;
    for (const Migration &migration : manifest) {
        if (versionOn(migration, backend) == 0)
            continue;
        Step step;
        step.version = versionOn(migration, backend);
        step.what = QString::fromUtf8(migration.what);
        for (const Part &part : migration.parts) {
            if (!runsOn(part, backend))
                continue;
            if (!endsStatement(step.sql))
                step.sql += u';';
            step.sql += QString::fromUtf8(part.sql);
        }
        step.sql.replace(QLatin1String("{integer}"), integer);
        step.rebuildsReferencedTable = backend == Backend::Sqlite && migration.rebuildsReferencedTable;
        step.grantsToTeamRoles = backend == Backend::Postgres && migration.grantsToTeamRoles;
        steps.append(step);
    }
    return steps;
}

} // namespace

const QList<Step> &steps(Backend backend)
{
    static const QList<Step> sqlite = stepsOf(Backend::Sqlite);
    static const QList<Step> postgres = stepsOf(Backend::Postgres);
    return backend == Backend::Sqlite ? sqlite : postgres;
}

int latestVersion(Backend backend)
{
    return int(steps(backend).size());
}

} // namespace verity::schema

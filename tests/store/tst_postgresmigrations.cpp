// PostgreSQL's schema brought up from an older version the way a console brings it up: a
// database made at the first version, with a row in every table that version had, is upgraded
// when a store opens it to write. Every row is still there, read the same, and the schema is the
// one a new database gets, statement for statement (pg_dump); so is the schema of a database
// upgraded from any later version.

#include "store/postgresschema.h"
#include "store/postgresstore.h"
#include "store/schemamanifest.h"
#include "store/storefactory.h"
#include "store/storelocation.h"
#include "support/postgrescluster.h"
#include "support/rawsqlite.h"
#include "support/testmacros.h"

#include <QMap>
#include <QProcess>
#include <QSqlQuery>
#include <QTest>

using namespace verity;
using verity::test::rows;

namespace {

// A connection of the test's own to a database of the cluster, as its superuser, with Verity's
// schema first on the search path, as the store's sessions have it.
class RawPostgres
{
public:
    RawPostgres(const test::PostgresCluster &cluster, const QString &database)
        : m_name(QStringLiteral("verity-test-raw-postgres-%1").arg(database))
    {
        m_db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), m_name);
        m_db.setHostName(cluster.socketFolder());
        m_db.setPort(cluster.port());
        m_db.setUserName(QLatin1String(test::PostgresCluster::superuser));
        m_db.setDatabaseName(database);
        if (m_db.open())
            QSqlQuery(m_db).exec(QStringLiteral("SET search_path = verity, public"));
    }
    ~RawPostgres()
    {
        m_db.close();
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_name);
    }
    RawPostgres(const RawPostgres &) = delete;
    RawPostgres &operator=(const RawPostgres &) = delete;

    QSqlDatabase &db() { return m_db; }

    // Runs one statement: empty when it worked, else the error and the statement.
    QString exec(const QString &sql)
    {
        QSqlQuery query(m_db);
        return query.exec(sql) ? QString() : query.lastError().text() + QStringLiteral(" in: ") + sql;
    }

private:
    QString m_name;
    QSqlDatabase m_db;
};

// A row in each table of the first version, as a desk of its time wrote them: a ticket with an
// unknown refund, escalated, looked up, in the ledger and the audit chain, marked by finance,
// traced, noted by a trainer, waiting to be assessed again; its import; what its file is.
const char *const firstVersionRows[] = {
        "INSERT INTO sellers (id, name, balance_cents, balance_as_of) VALUES ('ashcombe', 'Ashcombe "
        "Furniture', 18900, 1773734400000)",
        "INSERT INTO orders (id, seller_id, currency, customer_name, customer_email, payment_intent) VALUES "
        "('SU-1', 'ashcombe', 'USD', 'Dana', 'dana@example.com', 'pi_3NfWq2Lk')",
        "INSERT INTO order_items (order_id, item_id, title, quantity, amount_cents) VALUES ('SU-1', "
        "'ITEM-1', 'Oak shelf', 1, 11800)",
        "INSERT INTO tickets (ext_id, order_id, seller_id, seller_name, subject, opened_at, fingerprint, "
        "last_seq, write_count, worst_outcome, needs_attention, has_unknown, seller_balance_cents, "
        "seller_balance_as_of, source_format, registry, task, origin, dated_by, attention_rank) VALUES "
        "('T-1', 'SU-1', 'ashcombe', 'Ashcombe Furniture', 'Cracked shelf', 1773757731000, 'abc', 3, 1, 4, "
        "1, "
        "1, 18900, 1773734400000, 'native', 'default', 'task-7', 'retail/gpt', 'file', 5)",
        "INSERT INTO messages (ticket_id, seq, at, kind, text, fingerprint) VALUES (1, 1, 1773757731000, "
        "'customer', 'My shelf arrived cracked', 'm1')",
        "INSERT INTO tool_calls (ticket_id, seq, call_ext_id, tool, tool_class, arguments, called_at, "
        "intent_key, amount_cents, fingerprint, raw_result, result_at, duration_ms, result_fingerprint, "
        "outcome, outcome_reason, result_error, result_error_type) VALUES (1, 2, 'c1', 'issue_refund', "
        "'write_money', '{\"order_id\":\"SU-1\",\"amount_cents\":11800}', 1773757927000, 'key-1', 11800, "
        "'f1', '{\"error\":\"timeout\"}', 1773757957000, 30000, 'r1', 'unknown', 'timed out', 1, 'timeout')",
        "INSERT INTO escalations (tool_call_id, ticket_id, opened_at, amount_cents, state, last_note, "
        "payment_reference, payment_entered_by) VALUES (1, 1, 1773757932000, 11800, 'open', 'the provider "
        "could not tell', 'pi_3NfWq2Lk', 'amira')",
        "INSERT INTO imports (path, sha256, started_at, lines_read, lines_rejected) VALUES "
        "('/desk/day-1.jsonl', 'd1', 1773757000000, 42, 1)",
        "INSERT INTO evidence (escalation_id, operator, started_at, finished_at, verdict, request, response, "
        "record_id, reason, evidence_sha256, kind) VALUES (1, 'amira', 1773758000000, 1773758000500, "
        "'could_not_tell', 'GET /v1/refunds', 'HTTP 504', NULL, 'the provider timed out', 'e1', 'lookup')",
        "INSERT INTO ledger (intent_key, tool_call_id, refund_id, amount_cents, currency, seller_id, "
        "recorded_at, source) VALUES ('key-0', NULL, 're_0', 2500, 'USD', 'ashcombe', 1773700000000, "
        "'statement')",
        "INSERT INTO audit_log (seq, at, operator, action, escalation_id, detail, evidence_sha256, "
        "prev_hash, "
        "hash) VALUES (1, 1773758001000, 'amira', 'lookup', 1, 'could not tell', 'e1', repeat('0', 64), "
        "repeat('a', 64))",
        "INSERT INTO pending_reassessment (ticket_id) VALUES (1)",
        "INSERT INTO payout_marks (duplicate_key, state, note, operator, at) VALUES ('key-0', "
        "'recovery_requested', 'asked the seller', 'fin', 1773759000000)",
        "INSERT INTO trace_events (ticket_id, seq, at, kind, call_ext_id, detail, fingerprint) VALUES (1, 3, "
        "1773757928000, 'http', 'c1', 'POST /v1/refunds', 't1')",
        "INSERT INTO trainer_notes (ticket_id, step_key, text, author, written_at) VALUES (1, 'c1', 'a retry "
        "would have paid twice', 'tess', 1773760000000)",
        "INSERT INTO file_info (key, value) VALUES ('kind', 'desk')",
};

// The columns of each of Verity's tables, in order.
QMap<QString, QStringList> columnsOf(QSqlDatabase &db)
{
    QMap<QString, QStringList> columns;
    QSqlQuery query(db);
    query.exec(QStringLiteral("SELECT table_name, column_name FROM information_schema.columns WHERE "
                              "table_schema = 'verity' AND table_name <> 'schema_version' ORDER BY "
                              "table_name, ordinal_position"));
    while (query.next())
        columns[query.value(0).toString()] << query.value(1).toString();
    return columns;
}

// Every row of each table, `columns` of it alone, in their order.
QMap<QString, QStringList> contentOf(QSqlDatabase &db, const QMap<QString, QStringList> &columns)
{
    QMap<QString, QStringList> content;
    for (auto it = columns.cbegin(); it != columns.cend(); ++it) {
        const QString list = it->join(QStringLiteral(", "));
        content.insert(it.key(),
                       rows(db, QStringLiteral("SELECT %1 FROM verity.%2 ORDER BY %1").arg(list, it.key())));
    }
    return content;
}

// Where two dumps first part, with the line of each.
QString firstDifference(const QStringList &dump, const QStringList &fresh)
{
    for (qsizetype i = 0; i < qMax(dump.size(), fresh.size()); ++i) {
        if (dump.value(i) != fresh.value(i))
            return QStringLiteral("line %1:\n  upgraded: %2\n  new:      %3")
                    .arg(i + 1)
                    .arg(dump.value(i), fresh.value(i));
    }
    return {};
}

} // namespace

class PostgresMigrations : public QObject
{
    Q_OBJECT

    test::PostgresCluster m_cluster;
    QStringList m_freshSchema; // a new database's, made at the latest version in one go

    // `database`'s schema as pg_dump writes it (its \restrict key left out: a new one each run).
    QStringList schemaOf(const QString &database)
    {
        QProcess dump;
        dump.start(m_cluster.program(QStringLiteral("pg_dump")),
                   {QStringLiteral("--schema-only"), QStringLiteral("--host"), m_cluster.socketFolder(),
                    QStringLiteral("--port"), QString::number(m_cluster.port()), QStringLiteral("--username"),
                    QLatin1String(test::PostgresCluster::superuser), database});
        if (!dump.waitForFinished(120'000) || dump.exitStatus() != QProcess::NormalExit
            || dump.exitCode() != 0)
            return {QStringLiteral("pg_dump failed: ") + QString::fromLocal8Bit(dump.readAllStandardError())};
        QStringList lines = QString::fromUtf8(dump.readAllStandardOutput()).split(u'\n');
        lines.removeIf([](const QString &line) {
            return line.startsWith(QLatin1String("\\restrict"))
                    || line.startsWith(QLatin1String("\\unrestrict"));
        });
        return lines;
    }

    // A new database brought to `version` by the migrations alone; empty when it could not be.
    QString databaseAt(const QString &name, int version)
    {
        const QString location = m_cluster.createDatabase(name);
        if (location.isEmpty())
            return {};
        RawPostgres raw(m_cluster, name);
        const Expected<void> migrated = postgres::migrate(raw.db(), version);
        const Expected<int> now = postgres::schemaVersion(raw.db());
        if (!migrated || !now || *now != version) {
            qWarning("cannot bring %s to version %d: %s", qPrintable(name), version,
                     qPrintable(migrated ? now.message() : migrated.message()));
            return {};
        }
        return location;
    }

    static QStringList versionsUpTo(int latest)
    {
        QStringList versions;
        for (int version = 1; version <= latest; ++version)
            versions << QString::number(version);
        return versions;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
        const QString location = m_cluster.createDatabase(QStringLiteral("fresh"));
        QVERIFY2(!location.isEmpty(), qPrintable(m_cluster.error()));
        QVERIFY_OK(openStore(location));
        m_freshSchema = schemaOf(QStringLiteral("fresh"));
        QVERIFY2(m_freshSchema.contains(QStringLiteral("CREATE TABLE verity.tickets (")),
                 qPrintable(m_freshSchema.join(u'\n')));
    }

    void firstVersionUpgradesWithItsRows()
    {
        const QString location = databaseAt(QStringLiteral("first"), 1);
        QVERIFY(!location.isEmpty());
        QMap<QString, QStringList> columns;
        QMap<QString, QStringList> before;
        {
            RawPostgres raw(m_cluster, QStringLiteral("first"));
            for (const char *sql : firstVersionRows)
                QCOMPARE(raw.exec(QString::fromUtf8(sql)), QString());
            columns = columnsOf(raw.db());
            before = contentOf(raw.db(), columns);
        }
        // A row in every table the first version had (its totals kept by its triggers).
        QCOMPARE(before.size(), 17);
        for (auto it = before.cbegin(); it != before.cend(); ++it)
            QVERIFY2(it->size() == 1 && !it->first().startsWith(QLatin1String("ERROR")),
                     qPrintable(it.key() + QStringLiteral(": ") + it->join(u'\n')));
        QCOMPARE(before.value(QStringLiteral("queue_totals")),
                 QStringList{QStringLiteral("1|1|1|1|0|0|0|1")});

        // Upgraded as a console or `verity db init` upgrades it: by a store opened to write.
        const Expected<PostgresTarget> target = parsePostgresLocation(location);
        QVERIFY_OK(target);
        Expected<std::unique_ptr<PostgresStore>> opened = PostgresStore::open(*target);
        QVERIFY_OK(opened);
        PostgresStore &store = **opened;
        QSqlDatabase &db = store.connection();
        QCOMPARE(*postgres::schemaVersion(db), postgres::currentSchemaVersion());
        QCOMPARE(rows(db, QStringLiteral("SELECT version FROM verity.schema_version ORDER BY version")),
                 versionsUpTo(postgres::currentSchemaVersion()));
        const QMap<QString, QStringList> after = contentOf(db, columns);
        for (auto it = before.cbegin(); it != before.cend(); ++it)
            QVERIFY2(after.value(it.key()) == *it,
                     qPrintable(QStringLiteral("%1 held\n  %2\nand after the upgrade\n  %3")
                                        .arg(it.key(), it->join(QStringLiteral("\n  ")),
                                             after.value(it.key()).join(QStringLiteral("\n  ")))));
        // What later versions added holds its default, and the store reads the rows as its own.
        QCOMPARE(rows(db,
                      QStringLiteral("SELECT in_flight, in_flight_until IS NULL FROM verity.tickets t JOIN "
                                     "verity.tool_calls c ON c.ticket_id = t.id")),
                 QStringList{QStringLiteral("0|true")});
        QCOMPARE(*store.countTickets({}), 1);
        QCOMPARE(*store.countOpenEscalations(), 1);
        const std::optional<EscalationDetail> escalation = *store.escalation(1);
        QVERIFY(escalation);
        QCOMPARE(escalation->ticketExtId, QStringLiteral("T-1"));
        QCOMPARE(escalation->enteredPayment, QStringLiteral("pi_3NfWq2Lk"));
        QCOMPARE(escalation->lastNote, QStringLiteral("the provider could not tell"));
        QCOMPARE(store.evidence(1)->size(), 1);
        QCOMPARE(store.trainerNotes(1)->size(), 1);
        QCOMPARE(store.traceEvents(1)->size(), 1);
        QCOMPARE(store.payoutMarks()->size(), 1);

        const QStringList upgraded = schemaOf(QStringLiteral("first"));
        QVERIFY2(upgraded == m_freshSchema, qPrintable(firstDifference(upgraded, m_freshSchema)));
    }

    void everyVersionUpgradesToTheSameSchema_data()
    {
        QTest::addColumn<int>("version");
        const QList<schema::Step> &steps = schema::steps(schema::Backend::Postgres);
        for (const schema::Step &step : steps) {
            if (step.version > 1 && step.version < postgres::currentSchemaVersion())
                QTest::addRow("from version %d (%s)", step.version, qPrintable(step.what)) << step.version;
        }
    }

    void everyVersionUpgradesToTheSameSchema()
    {
        QFETCH(int, version);
        const QString name = QStringLiteral("at_%1").arg(version);
        const QString location = databaseAt(name, version);
        QVERIFY(!location.isEmpty());
        QVERIFY_OK(openStore(location));
        const QStringList upgraded = schemaOf(name);
        QVERIFY2(upgraded == m_freshSchema, qPrintable(firstDifference(upgraded, m_freshSchema)));
    }

    void cleanupTestCase() { m_cluster.stop(); }
};

QTEST_GUILESS_MAIN(PostgresMigrations)
#include "tst_postgresmigrations.moc"

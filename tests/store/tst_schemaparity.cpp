// The two backends' schemas, compared fact by fact: a new SQLite file and a new PostgreSQL
// database hold the same tables and columns (type family, case, NOT NULL, default), primary
// keys, unique constraints, foreign keys and indexes, but for the differences listed below with
// their reasons. A difference that is not listed fails, and so does a listed one that is no
// longer there, so the list stays true.

#include "store/sqlstore.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"
#include "support/rawsqlite.h"
#include "support/testmacros.h"

#include <QHash>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using verity::test::rows;

namespace {

// What one backend holds and the other does not, as describe*() below write a fact.
const QStringList onlyOnSqlite{
        // One row of totals (id 1), kept by triggers. PostgreSQL's totals are rows of changes,
        // summed when read, each with an id of its own (its version 18).
        QStringLiteral("queue_totals.id: integer, key"),
};
const QStringList onlyOnPostgres{
        QStringLiteral("queue_totals.id: integer, key, default nextval('queue_totals_id_seq')"),
        // The schema's version: SQLite keeps it in PRAGMA user_version.
        QStringLiteral("schema_version: table"),
        QStringLiteral("schema_version: primary key (version)"),
        QStringLiteral("schema_version.version: integer, key"),
        QStringLiteral("schema_version.applied_at: timestamp, not null, default now()"),
        // The queue's search, whatever the case, answered from the index alone (PostgreSQL's
        // versions 7 and 8): SQLite's LIKE ignores case itself, and its plain indexes serve it.
        QStringLiteral("tickets: index tickets_ext_id_search (lower(ext_id::text), opened_at)"),
        QStringLiteral("tickets: index tickets_order_search (lower(order_id::text), opened_at)"),
        QStringLiteral("tickets: index tickets_seller_search (lower(seller_name::text), opened_at)"),
        QStringLiteral("tickets: index tickets_task_search (lower(task::text), opened_at)"),
};

struct Column
{
    QString family; // integer, text, real, blob, bool, timestamp or numeric
    bool caseBlind = false; // SQLite's COLLATE NOCASE, PostgreSQL's citext
    bool notNull = false;
    bool key = false; // in the primary key (NOT NULL on PostgreSQL; SQLite lets a text key be NULL)
    QString defaultValue; // null when there is none
};

QString columnFact(const QString &table, const QString &name, const Column &column)
{
    QString fact = table + u'.' + name + QStringLiteral(": ") + column.family;
    if (column.caseBlind)
        fact += QStringLiteral(", case-blind");
    if (column.key)
        fact += QStringLiteral(", key");
    else if (column.notNull)
        fact += QStringLiteral(", not null");
    if (!column.defaultValue.isNull()) {
        // Without PostgreSQL's casts: 'native'::text is 'native'.
        QString value = column.defaultValue;
        value.remove(QRegularExpression(QStringLiteral("::[a-z_]+( [a-z]+)*")));
        fact += QStringLiteral(", default ") + value;
    }
    return fact;
}

// An index's key columns as compared. On a table whose key is one integer column (SQLite's
// rowid), SQLite ends every index in it, said or not, and PostgreSQL names it last where a
// keyset page walks the index in that order: a last column that is the key is left out.
QString keyColumns(QStringList columns, const QString &rowid)
{
    if (!rowid.isEmpty() && columns.size() > 1 && columns.last() == rowid)
        columns.removeLast();
    return u'(' + columns.join(QStringLiteral(", ")) + u')';
}

QString indexFact(const QString &table, const QString &name, bool unique, const QString &columns,
                  const QString &predicate)
{
    if (unique && predicate.isEmpty())
        return table + QStringLiteral(": unique ") + columns;
    QString fact = table + (unique ? QStringLiteral(": unique index ") : QStringLiteral(": index ")) + name
            + u' ' + columns;
    if (!predicate.isEmpty()) {
        // "(in_flight_until IS NOT NULL)" and "in_flight_until IS NOT NULL" alike.
        QString condition = predicate.toLower();
        condition.remove(u'(').remove(u')');
        fact += QStringLiteral(" where ") + condition.simplified();
    }
    return fact;
}

// ---- SQLite ----

// A declared type's affinity (https://sqlite.org/datatype3.html, 3.1) as a family; the families
// SQLite has no affinity of their own for are told by their names.
QString sqliteFamily(const QString &declared)
{
    const QString type = declared.toUpper();
    const auto has = [&type](const char *word) { return type.contains(QLatin1String(word)); };
    if (has("INT"))
        return QStringLiteral("integer");
    if (has("CHAR") || has("CLOB") || has("TEXT"))
        return QStringLiteral("text");
    if (type.isEmpty() || has("BLOB"))
        return QStringLiteral("blob");
    if (has("REAL") || has("FLOA") || has("DOUB"))
        return QStringLiteral("real");
    if (has("BOOL"))
        return QStringLiteral("bool");
    if (has("DATE") || has("TIME"))
        return QStringLiteral("timestamp");
    return QStringLiteral("numeric");
}

// The columns a CREATE TABLE declares COLLATE NOCASE (PRAGMA table_info does not say a column's
// collation): its definitions split at the commas outside parentheses.
QSet<QString> caseBlindColumns(QString createTable)
{
    createTable.remove(QRegularExpression(QStringLiteral("--[^\n]*")));
    const qsizetype open = createTable.indexOf(u'(');
    const qsizetype close = createTable.lastIndexOf(u')');
    QSet<QString> columns;
    int depth = 0;
    qsizetype start = open + 1;
    for (qsizetype i = open + 1; i <= close; ++i) {
        const QChar c = createTable.at(i);
        if (c == u'(') {
            ++depth;
        } else if (c == u')' && i < close) {
            --depth;
        } else if ((c == u',' && depth == 0) || i == close) {
            const QString definition = createTable.mid(start, i - start).simplified();
            start = i + 1;
            if (definition.contains(QLatin1String("COLLATE NOCASE"), Qt::CaseInsensitive))
                columns << definition.section(u' ', 0, 0);
        }
    }
    return columns;
}

// The table's columns and primary key; `rowid` is its key when that is SQLite's rowid.
QStringList sqliteColumns(QSqlDatabase &db, const QString &table, const QString &createTable, QString &rowid)
{
    const QSet<QString> caseBlind = caseBlindColumns(createTable);
    QMap<int, QString> key;
    QStringList facts;
    QSqlQuery columns(db);
    columns.exec(QStringLiteral("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('%1')")
                         .arg(table));
    while (columns.next()) {
        const QString name = columns.value(0).toString();
        Column column;
        column.family = sqliteFamily(columns.value(1).toString());
        column.caseBlind = caseBlind.contains(name);
        column.notNull = columns.value(2).toBool();
        column.key = columns.value(4).toInt() > 0;
        if (!columns.value(3).isNull())
            column.defaultValue = columns.value(3).toString();
        if (column.key)
            key.insert(columns.value(4).toInt(), name);
        if (column.key
            && columns.value(1).toString().compare(QLatin1String("INTEGER"), Qt::CaseInsensitive) == 0
            && !createTable.contains(QLatin1String("WITHOUT ROWID")))
            rowid = name;
        facts << columnFact(table, name, column);
    }
    if (key.size() != 1)
        rowid.clear();
    if (!key.isEmpty())
        facts << table + QStringLiteral(": primary key (") + key.values().join(QStringLiteral(", ")) + u')';
    return facts;
}

QStringList sqliteIndexes(QSqlDatabase &db, const QString &table, const QString &rowid)
{
    QStringList facts;
    QSqlQuery indexes(db);
    indexes.exec(QStringLiteral("SELECT l.name, l.\"unique\", l.origin, coalesce(m.sql, '') FROM "
                                "pragma_index_list('%1') l LEFT JOIN sqlite_master m ON m.name = l.name")
                         .arg(table));
    while (indexes.next()) {
        const QString name = indexes.value(0).toString();
        if (indexes.value(2).toString() == QLatin1String("pk"))
            continue;
        const QStringList columns = rows(db,
                                         QStringLiteral("SELECT coalesce(name, '<expression>') FROM "
                                                        "pragma_index_info('%1') ORDER BY seqno")
                                                 .arg(name));
        const QString sql = indexes.value(3).toString();
        const qsizetype where = sql.indexOf(QLatin1String(" WHERE "), 0, Qt::CaseInsensitive);
        const bool unique = indexes.value(1).toBool();
        facts << indexFact(table, name, unique, unique ? keyColumns(columns, {}) : keyColumns(columns, rowid),
                           where < 0 ? QString() : sql.mid(where + 7));
    }
    QMap<int, QPair<QStringList, QStringList>> references;
    QMap<int, QString> referenced;
    QSqlQuery keys(db);
    keys.exec(QStringLiteral("SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list('%1') "
                             "ORDER BY id, seq")
                      .arg(table));
    while (keys.next()) {
        const int id = keys.value(0).toInt();
        referenced[id] = keys.value(1).toString();
        references[id].first << keys.value(2).toString();
        references[id].second << keys.value(3).toString();
    }
    for (auto it = references.cbegin(); it != references.cend(); ++it)
        facts << table + QStringLiteral(": (") + it->first.join(QStringLiteral(", "))
                        + QStringLiteral(") references ") + referenced.value(it.key()) + u'('
                        + it->second.join(QStringLiteral(", ")) + u')';
    return facts;
}

QStringList describeSqlite(QSqlDatabase &db)
{
    QStringList facts;
    QSqlQuery tables(db);
    tables.exec(QStringLiteral("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                               "'sqlite_%' ORDER BY name"));
    while (tables.next()) {
        const QString table = tables.value(0).toString();
        QString rowid;
        facts << table + QStringLiteral(": table");
        facts << sqliteColumns(db, table, tables.value(1).toString(), rowid);
        facts << sqliteIndexes(db, table, rowid);
    }
    facts.sort();
    return facts;
}

// ---- PostgreSQL ----

QString postgresFamily(const QString &dataType, const QString &udt)
{
    static const QHash<QString, QString> families{
            {QStringLiteral("bigint"), QStringLiteral("integer")},
            {QStringLiteral("integer"), QStringLiteral("integer")},
            {QStringLiteral("smallint"), QStringLiteral("integer")},
            {QStringLiteral("text"), QStringLiteral("text")},
            {QStringLiteral("character varying"), QStringLiteral("text")},
            {QStringLiteral("character"), QStringLiteral("text")},
            {QStringLiteral("real"), QStringLiteral("real")},
            {QStringLiteral("double precision"), QStringLiteral("real")},
            {QStringLiteral("bytea"), QStringLiteral("blob")},
            {QStringLiteral("boolean"), QStringLiteral("bool")},
            {QStringLiteral("timestamp with time zone"), QStringLiteral("timestamp")},
            {QStringLiteral("timestamp without time zone"), QStringLiteral("timestamp")},
            {QStringLiteral("date"), QStringLiteral("timestamp")},
            {QStringLiteral("numeric"), QStringLiteral("numeric")}};
    if (dataType == QLatin1String("USER-DEFINED") && udt == QLatin1String("citext"))
        return QStringLiteral("text");
    return families.value(dataType, dataType);
}

// Each index of the table: name, unique, primary, predicate, key columns joined by '|'.
QList<QStringList> postgresIndexes(QSqlDatabase &db, const QString &table)
{
    QList<QStringList> indexes;
    QSqlQuery query(db);
    query.exec(
            QStringLiteral(
                    "SELECT i.indexname, x.indisunique, x.indisprimary, coalesce(pg_get_expr(x.indpred, "
                    "x.indrelid), ''), (SELECT string_agg(pg_get_indexdef(x.indexrelid, k, true), '|' "
                    "ORDER BY k) FROM generate_series(1, x.indnkeyatts) k) FROM pg_indexes i JOIN pg_class "
                    "c ON c.relname = i.indexname AND c.relnamespace = 'verity'::regnamespace JOIN "
                    "pg_index x ON x.indexrelid = c.oid WHERE i.schemaname = 'verity' AND i.tablename = "
                    "'%1'")
                    .arg(table));
    while (query.next())
        indexes << QStringList{query.value(0).toString(), query.value(1).toString(),
                               query.value(2).toString(), query.value(3).toString(),
                               query.value(4).toString()};
    return indexes;
}

QStringList postgresTable(QSqlDatabase &db, const QString &table)
{
    QStringList facts{table + QStringLiteral(": table")};
    const QList<QStringList> indexes = postgresIndexes(db, table);
    QStringList key;
    for (const QStringList &index : indexes) {
        if (index.at(2) == QLatin1String("true"))
            key = index.at(4).split(u'|');
    }
    QString rowid;
    QSqlQuery columns(db);
    columns.exec(QStringLiteral("SELECT column_name, data_type, udt_name, is_nullable, column_default FROM "
                                "information_schema.columns WHERE table_schema = 'verity' AND table_name = "
                                "'%1'")
                         .arg(table));
    while (columns.next()) {
        const QString name = columns.value(0).toString();
        Column column;
        column.family = postgresFamily(columns.value(1).toString(), columns.value(2).toString());
        column.caseBlind = columns.value(2).toString() == QLatin1String("citext");
        column.notNull = columns.value(3).toString() == QLatin1String("NO");
        column.key = key.contains(name);
        if (!columns.value(4).isNull())
            column.defaultValue = columns.value(4).toString();
        if (key == QStringList{name} && column.family == QLatin1String("integer"))
            rowid = name;
        facts << columnFact(table, name, column);
    }
    if (!key.isEmpty())
        facts << table + QStringLiteral(": primary key (") + key.join(QStringLiteral(", ")) + u')';
    for (const QStringList &index : indexes) {
        if (index.at(2) == QLatin1String("true"))
            continue;
        const bool unique = index.at(1) == QLatin1String("true");
        facts << indexFact(table, index.at(0), unique,
                           keyColumns(index.at(4).split(u'|'), unique ? QString() : rowid), index.at(3));
    }
    return facts;
}

QStringList describePostgres(QSqlDatabase &db)
{
    QStringList facts;
    const QStringList tables = rows(db,
                                    QStringLiteral("SELECT table_name FROM information_schema.tables WHERE "
                                                   "table_schema = 'verity' AND table_type = 'BASE TABLE'"));
    for (const QString &table : tables)
        facts << postgresTable(db, table);
    facts << rows(db,
                  QStringLiteral(
                          "SELECT t.relname || ': (' || (SELECT string_agg(a.attname, ', ' ORDER BY k.n) "
                          "FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON "
                          "a.attrelid = c.conrelid AND a.attnum = k.attnum) || ') references ' || r.relname "
                          "|| '(' || (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.confkey) "
                          "WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.confrelid AND "
                          "a.attnum = k.attnum) || ')' FROM pg_constraint c JOIN pg_class t ON t.oid = "
                          "c.conrelid JOIN pg_class r ON r.oid = c.confrelid WHERE c.contype = 'f' AND "
                          "t.relnamespace = 'verity'::regnamespace"));
    facts.sort();
    return facts;
}

// What `facts` hold that `others` do not and `expected` does not list, and what `expected`
// lists that is not only in `facts`.
QStringList unexpected(const QStringList &facts, const QStringList &others, const QStringList &expected,
                       const QString &where)
{
    QStringList problems;
    for (const QString &fact : facts) {
        if (!others.contains(fact) && !expected.contains(fact))
            problems << QStringLiteral("only on %1: %2").arg(where, fact);
    }
    for (const QString &fact : expected) {
        if (!facts.contains(fact) || others.contains(fact))
            problems << QStringLiteral("listed as only on %1, but it is not: %2").arg(where, fact);
    }
    return problems;
}

} // namespace

class SchemaParity : public QObject
{
    Q_OBJECT

    QTemporaryDir m_folder;
    test::PostgresCluster m_cluster;
    QStringList m_sqlite;
    QStringList m_postgres;

private slots:
    void initTestCase()
    {
        QVERIFY(m_folder.isValid());
        const QString path = m_folder.filePath(QStringLiteral("new.sqlite"));
        {
            Expected<std::unique_ptr<Store>> store = openStore(path);
            QVERIFY_OK(store);
        }
        test::RawSqlite raw(path);
        QVERIFY(raw.isOpen());
        m_sqlite = describeSqlite(raw.db());

        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
        const QString location = m_cluster.createDatabase(QStringLiteral("fresh"));
        QVERIFY2(!location.isEmpty(), qPrintable(m_cluster.error()));
        Expected<std::unique_ptr<Store>> store = openStore(location);
        QVERIFY_OK(store);
        m_postgres = describePostgres(dynamic_cast<SqlStore &>(**store).connection());
    }

    // The readers read what is there: a few facts each backend is known to hold.
    void factsAreRead()
    {
        for (const QStringList *facts : {&m_sqlite, &m_postgres}) {
            QVERIFY(facts->contains(QStringLiteral("tickets.ext_id: text, case-blind, not null")));
            QVERIFY(facts->contains(
                    QStringLiteral("tickets.source_format: text, not null, default 'native'")));
            QVERIFY(facts->contains(QStringLiteral("tickets: index tickets_opened (opened_at)")));
            QVERIFY(facts->contains(QStringLiteral("order_items: primary key (order_id, item_id)")));
            QVERIFY(facts->contains(QStringLiteral("messages: unique (ticket_id, fingerprint)")));
            QVERIFY(facts->contains(QStringLiteral("tool_calls: (repeat_of) references tool_calls(id)")));
            QVERIFY(facts->contains(
                    QStringLiteral("tool_calls: index tool_calls_in_flight (in_flight_until) where "
                                   "in_flight_until is not null")));
        }
    }

    void schemasAgree()
    {
        const QStringList problems = unexpected(m_sqlite, m_postgres, onlyOnSqlite, QStringLiteral("SQLite"))
                + unexpected(m_postgres, m_sqlite, onlyOnPostgres, QStringLiteral("PostgreSQL"));
        QVERIFY2(problems.isEmpty(), qPrintable(u'\n' + problems.join(u'\n')));
    }

    void cleanupTestCase() { m_cluster.stop(); }
};

QTEST_GUILESS_MAIN(SchemaParity)
#include "tst_schemaparity.moc"

#pragma once
// A connection of its own to a database file, for the tests that read or change the file
// behind the store's back, as someone with the sqlite3 shell would: the store does not lend
// its connection out. The store runs in WAL mode, so this connection sees what the store has
// committed; use it only while the store has no transaction open.

#include <QAtomicInt>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace verity::test {

// Opened on construction (see isOpen()), closed and removed from QSqlDatabase's list of
// connections on destruction.
class RawSqlite
{
public:
    // `options` are QSQLITE's connect options; the busy timeout waits out a write in progress.
    explicit RawSqlite(const QString &path,
                       const QString &options = QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"))
        : m_name(QStringLiteral("verity-test-raw-%1").arg(nextId()))
    {
        m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        m_db.setDatabaseName(path);
        m_db.setConnectOptions(options);
        m_db.open();
    }
    ~RawSqlite()
    {
        m_db.close();
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_name);
    }
    RawSqlite(const RawSqlite &) = delete;
    RawSqlite &operator=(const RawSqlite &) = delete;

    QSqlDatabase &db() { return m_db; }
    bool isOpen() const { return m_db.isOpen(); }

    // Runs one statement: empty when it worked, else the error and the statement.
    QString exec(const QString &sql)
    {
        QSqlQuery query(m_db);
        return query.exec(sql) ? QString() : query.lastError().text() + QStringLiteral(" in: ") + sql;
    }

private:
    static int nextId()
    {
        static QAtomicInt counter;
        return counter.fetchAndAddRelaxed(1) + 1;
    }
    QString m_name;
    QSqlDatabase m_db;
};

// Each row as its columns joined by '|', NULL as "<null>"; a failing query as "ERROR: ...".
inline QStringList rows(const QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    QStringList result;
    if (!query.exec(sql))
        return {QStringLiteral("ERROR: ") + query.lastError().text()};
    while (query.next()) {
        QStringList columns;
        for (int i = 0; i < query.record().count(); ++i)
            columns << (query.value(i).isNull() ? QStringLiteral("<null>") : query.value(i).toString());
        result << columns.join(u'|');
    }
    return result;
}

// The first column of the first row as a number; -1 when the query fails or has no row.
inline qint64 scalar(const QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql) || !query.next())
        return -1;
    return query.value(0).toLongLong();
}

} // namespace verity::test

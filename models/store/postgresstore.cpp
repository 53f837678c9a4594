#include "postgresstore.h"

#include "changefeed.h"
#include "databasepassword.h"
#include "postgresconnection.h"
#include "postgresimportbatch.h"
#include "postgresroles.h"
#include "postgresschema.h"
#include "serverwatch.h"
#include "sqlerror.h"

#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QTimer>
#include <QVariant>

#include <algorithm>

namespace verity {

namespace {

// The driver's own words start with what it was doing; libpq's say what went wrong.
// libpq prints a server's notices itself, straight to stderr, the server's last words before it
// closes an idle connection ("FATAL: terminating connection ...") among them. Passed to Qt's log
// instead, where a command that says the outage in its own words may leave them out.
void noticeToLog(void *, const char *message)
{
    qWarning("%s", qPrintable(QString::fromUtf8(message).trimmed()));
}

void routeNotices(const QSqlDatabase &db)
{
    if (PGconn *connection = libpqConnection(db))
        PQsetNoticeProcessor(connection, noticeToLog, nullptr);
}

QString connectionError(const QSqlError &error)
{
    return sqlErrorText(error);
}

} // namespace

Expected<std::unique_ptr<PostgresStore>> PostgresStore::open(const PostgresTarget &target, Access access)
{
    const QString where = target.display();
    std::unique_ptr<PostgresStore> store(new PostgresStore(where, connectionName("postgresql")));
    store->m_db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), store->m_connection);
    if (!store->m_db.isValid())
        return makeError(
                QStringLiteral("%1: the Qt PostgreSQL driver (QPSQL, Debian package libqt6sql6-psql) "
                               "is not installed")
                        .arg(where));
    store->m_db.setHostName(target.host);
    if (target.port > 0)
        store->m_db.setPort(target.port);
    store->m_db.setUserName(target.user);
    store->m_db.setDatabaseName(target.database);
    if (!target.password.isEmpty())
        store->m_db.setPassword(target.password);
    store->m_target = target;
    store->m_access = access;
    QStringList options;
    for (const auto &[key, value] : connectionKeywords(target))
        options << key + u'=' + value;
    store->m_db.setConnectOptions(options.join(u';'));
    if (!store->m_db.open()) {
        const QString error = connectionError(store->m_db.lastError());
        // Neither ~/.pgpass nor PGPASSWORD had it: the keychain may, filed under this address.
        const bool wantsPassword = error.contains(QLatin1String("password"));
        if (!wantsPassword || !target.password.isEmpty() || !qEnvironmentVariableIsEmpty("PGPASSWORD"))
            return makeError(QStringLiteral("%1: cannot connect: %2").arg(where, error));
        const Expected<std::optional<QString>> kept = keychainDatabasePassword(target);
        if (!kept || !*kept)
            return makeError(
                    QStringLiteral("%1: cannot connect: %2 (a password comes from ~/.pgpass, PGPASSWORD, "
                                   "or the desktop keychain, where `verity db password --db %1` "
                                   "keeps it%3)")
                            .arg(where, error, kept ? QString() : QStringLiteral("; ") + kept.message()));
        store->m_db.setPassword(**kept);
        if (!store->m_db.open())
            return makeError(
                    QStringLiteral("%1: cannot connect with the password in the desktop keychain: %2")
                            .arg(where, connectionError(store->m_db.lastError())));
    }

    routeNotices(store->m_db);
    if (Expected<void> started = store->startSession(); !started)
        return started.error();
    QSqlQuery session(store->m_db);
    if (!session.exec(QStringLiteral("SELECT current_user")) || !session.next())
        return makeError(QStringLiteral("%1: cannot start a session: %2")
                                 .arg(where, sqlErrorText(session.lastError())));
    store->m_user = session.value(0).toString();
    // Set up, but not for this user: said plainly, not as the first query's "permission denied".
    if (!session.exec(
                QStringLiteral("SELECT to_regnamespace('verity') IS NULL OR has_schema_privilege('verity', "
                               "'USAGE')"))
        || !session.next())
        return makeError(QStringLiteral("%1: cannot start a session: %2")
                                 .arg(where, sqlErrorText(session.lastError())));
    if (!session.value(0).toBool())
        return makeError(
                StoreErrc::RefusedByRole,
                QStringLiteral("%1: %2 has no role in this team's database, so cannot read it; an admin "
                               "grants one: verity db grant --db %1 --role support|finance|trainer|admin %2")
                        .arg(where, store->m_user));

    if (access == Access::ReadOnly) {
        Expected<int> version = postgres::schemaVersion(store->m_db);
        if (!version)
            return inContext(where, version.error());
        if (*version == 0)
            return makeError(StoreErrc::NotADatabase,
                             QStringLiteral("%1: Verity's tables are not in this database; set it up with "
                                            "`verity db init --db %1`")
                                     .arg(where));
        if (*version != postgres::currentSchemaVersion())
            return makeError(*version > postgres::currentSchemaVersion() ? StoreErrc::NewerSchema
                                                                         : StoreErrc::OlderSchema,
                             QStringLiteral("%1: the database is at schema version %2 and this Verity reads "
                                            "version %3")
                                     .arg(where)
                                     .arg(*version)
                                     .arg(postgres::currentSchemaVersion()));
        return store;
    }
    if (Expected<void> migrated = postgres::migrate(store->m_db); !migrated)
        return inContext(where, migrated.error());
    return store;
}

QList<QPair<QString, QString>> PostgresStore::connectionKeywords(const PostgresTarget &target)
{
    // A console on a team's database stays connected for hours: without keepalives a dropped
    // network would go unnoticed until the next click, and without a timeout a connection
    // attempt to a vanished host would hang the window. Set in the location, the user's win.
    QList<QPair<QString, QString>> keywords{
            {QStringLiteral("application_name"), QStringLiteral("verity")},
            {QStringLiteral("connect_timeout"), QStringLiteral("10")},
            {QStringLiteral("keepalives_idle"), QStringLiteral("30")},
            {QStringLiteral("keepalives_interval"), QStringLiteral("10")},
            {QStringLiteral("keepalives_count"), QStringLiteral("3")},
            // Data the server has not acknowledged after 30 s: the network is gone.
            {QStringLiteral("tcp_user_timeout"), QStringLiteral("30000")},
    };
    for (const auto &option : target.options) {
        keywords.removeIf([&option](const auto &keyword) { return keyword.first == option.first; });
        keywords.append(option);
    }
    return keywords;
}

QByteArray PostgresStore::pingInfo(const PostgresTarget &target)
{
    QList<QPair<QString, QString>> ping{{QStringLiteral("dbname"), target.database}};
    if (!target.host.isEmpty())
        ping.append({QStringLiteral("host"), target.host});
    if (target.port > 0)
        ping.append({QStringLiteral("port"), QString::number(target.port)});
    if (!target.user.isEmpty())
        ping.append({QStringLiteral("user"), target.user});
    ping.append(connectionKeywords(target));
    return libpqConnectionString(ping);
}

Expected<void> PostgresStore::startSession()
{
    QSqlQuery session(m_db);
    if (!session.exec(QStringLiteral("SET search_path = verity, public")))
        return makeError(QStringLiteral("%1: cannot start a session: %2")
                                 .arg(m_path, sqlErrorText(session.lastError())));
    if (m_access == Access::ReadOnly
        && !session.exec(QStringLiteral("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")))
        return makeError(QStringLiteral("%1: cannot open read-only: %2")
                                 .arg(m_path, sqlErrorText(session.lastError())));
    return {};
}

PostgresStore::~PostgresStore()
{
    m_watch.reset();
    m_feed.reset();
    if (m_listening.isEmpty())
        return;
    QSqlDatabase::database(m_listening, false).close();
    QSqlDatabase::removeDatabase(m_listening);
}

namespace {

// What libpq says of a connection that is not open; empty while it is.
QString brokenConnection(const QSqlDatabase &db)
{
    PGconn *connection = libpqConnection(db);
    if (connection && PQstatus(connection) == CONNECTION_OK)
        return QString();
    const QString said =
            connection ? linesOnce(QString::fromLocal8Bit(PQerrorMessage(connection))) : QString();
    return said.isEmpty() ? QStringLiteral("the connection to the server was lost") : said;
}

} // namespace

ChangeFeed *PostgresStore::changeFeed()
{
    if (m_feed)
        return m_feed.get();
    // A connection of its own that runs nothing but LISTEN: on the one that runs queries, an
    // announcement waits behind any result not read to its end, which may be a long wait.
    const QString name = m_connection + QStringLiteral("-listening");
    QSqlDatabase listening = QSqlDatabase::cloneDatabase(m_db, name);
    if (!listening.open()
        || !listening.driver()->subscribeToNotification(QString::fromLatin1(changeChannel))) {
        listening = QSqlDatabase();
        QSqlDatabase::removeDatabase(name);
        return nullptr;
    }
    m_listening = name;
    routeNotices(listening);
    m_ownBackend = backendPid();
    m_feed = std::make_unique<ChangeFeed>();
    // The driver stays the same across reconnections, and so does this.
    QObject::connect(listening.driver(), &QSqlDriver::notification, m_feed.get(),
                     [this](const QString &channel, QSqlDriver::NotificationSource, const QVariant &payload) {
                         // "escalations 4711": what changed, and which server process changed it. This
                         // console's own changes it has read again already.
                         const QStringList words = payload.toString().split(u' ');
                         if (channel != QLatin1String(changeChannel)
                             || (words.size() == 2 && words.at(1).toLongLong() == m_ownBackend))
                             return;
                         m_feed->announce(words.value(0));
                     });

    m_watch = std::make_unique<ServerWatch>(
            pingInfo(m_target),
            ServerWatch::Hooks{[this] {
                                   const QString main = brokenConnection(m_db);
                                   return main.isEmpty()
                                           ? brokenConnection(QSqlDatabase::database(m_listening, false))
                                           : main;
                               },
                               [this] { return reconnect(); }});
    QObject::connect(m_watch.get(), &ServerWatch::lost, m_feed.get(), &ChangeFeed::reportUnreachable);
    // Asked before the views are read again (F5): a server that went since the last tick is
    // noticed by the question, not by views emptied by failing reads.
    m_feed->setConfirmation([this] {
        if (m_watch->isLost())
            return;
        QSqlQuery alive(m_db);
        if (!alive.exec(QStringLiteral("SELECT 1")))
            m_watch->check();
    });
    QObject::connect(m_watch.get(), &ServerWatch::restored, m_feed.get(), &ChangeFeed::reportReachable);
    return m_feed.get();
}

qint64 PostgresStore::backendPid()
{
    QSqlQuery backend(m_db);
    return backend.exec(QStringLiteral("SELECT pg_backend_pid()")) && backend.next()
            ? backend.value(0).toLongLong()
            : 0;
}

Expected<void> PostgresStore::reconnect()
{
    // Statements prepared on the old connection are gone with it; the watch calls this only
    // between two events, so no store call holds one.
    forgetStatements();
    m_db.close();
    if (!m_db.open())
        return makeError(QStringLiteral("%1: cannot connect again: %2")
                                 .arg(m_path, connectionError(m_db.lastError())));
    routeNotices(m_db);
    if (Expected<void> started = startSession(); !started)
        return started;
    QSqlDatabase listening = QSqlDatabase::database(m_listening, false);
    listening.close();
    if (!listening.open() || !listening.driver()->subscribeToNotification(QString::fromLatin1(changeChannel)))
        return makeError(QStringLiteral("%1: cannot listen for changes again: %2")
                                 .arg(m_path, connectionError(listening.lastError())));
    routeNotices(listening);
    m_ownBackend = backendPid();
    return {};
}

QString PostgresStore::failureText(const QSqlError &error)
{
    // The server's last words before it closed the connection (57P01 when stopped, 57P02 and
    // 57P03 while it crashes or starts, class 08 a connection failure) say it is gone as surely
    // as libpq's state, which may not have caught up yet.
    const QString code = error.nativeErrorCode();
    const bool going = code.startsWith(QLatin1String("08")) || code.startsWith(QLatin1String("57P"));
    QString broken = brokenConnection(m_db);
    if (broken.isEmpty() && going)
        broken = sqlErrorText(error);
    if (broken.isEmpty())
        return sqlErrorText(error);
    // Looked at once the failed call has returned, not inside it: what the watch says makes
    // the console change its views, which must not read the store in the middle of a call.
    if (m_watch && !m_watch->isLost())
        QTimer::singleShot(0, m_watch.get(), &ServerWatch::check);
    return QStringLiteral("the team's database cannot be reached just now (%1)").arg(broken);
}

std::error_code PostgresStore::failureCode(const QSqlError &error)
{
    // SQLSTATE: 42501 is what the grants and the guard functions raise for a role, 40001 and
    // 40P01 end a transaction to settle a conflict, class 08 and 57P a server going away.
    const QString code = error.nativeErrorCode();
    if (code == u"42501")
        return StoreErrc::RefusedByRole;
    if (code == u"40001" || code == u"40P01")
        return StoreErrc::Conflict;
    if (code.startsWith(QLatin1String("08")) || code.startsWith(QLatin1String("57P"))
        || error.type() == QSqlError::ConnectionError || !brokenConnection(m_db).isEmpty())
        return StoreErrc::Unreachable;
    return Errc::Failed;
}

Expected<OperatorRoles> PostgresStore::sessionRoles()
{
    return postgres::sessionRoles(m_db);
}

Expected<void> PostgresStore::begin()
{
    return execute("BEGIN", "cannot begin a transaction");
}

Expected<void> PostgresStore::makeSelfContained()
{
    return {}; // the server keeps its own files: there is nothing beside the data to fold into it
}

QString PostgresStore::byteLengthOf(const QString &column) const
{
    return QStringLiteral("octet_length(%1)").arg(column);
}

Expected<void> PostgresStore::lockIntent(const QString &intentKey)
{
    // Per key, in a class of Verity's own; two keys that hash alike only wait for each other.
    auto lock = prepared("SELECT pg_advisory_xact_lock(7378726, hashtext(?))");
    if (!lock)
        return lock.error();
    (*lock)->addBindValue(intentKey);
    if (auto done = run(**lock, "waiting for another writer of the same intent"); !done)
        return done.error();
    (*lock)->finish();
    return {};
}

Expected<void> PostgresStore::lockAuditChain()
{
    // Held to the end of the transaction that appends: the next console reads the last entry
    // only after this one's is committed, so no two entries follow the same one. Outside a
    // transaction it is released at once, and reading the chain needs no lock.
    return execute("SELECT pg_advisory_xact_lock(7378726957)", "cannot lock the audit chain");
}

std::unique_ptr<ImportBatch> PostgresStore::openImportBatch()
{
    return std::make_unique<PostgresImportBatch>(*this);
}

Expected<qint64> PostgresStore::drawId(DrawnId drawn)
{
    QList<qint64> &pool = drawn == DrawnId::Ticket ? m_ticketIds : m_callIds;
    const char *table = drawn == DrawnId::Ticket ? "tickets" : "tool_calls";
    if (pool.isEmpty()) {
        QSqlQuery draw(m_db);
        draw.setForwardOnly(true);
        if (!draw.exec(QStringLiteral("SELECT nextval(pg_get_serial_sequence('%1', 'id')) "
                                      "FROM generate_series(1, 512)")
                               .arg(QLatin1String(table))))
            return failure(draw.lastError(),
                           QStringLiteral("%1: cannot draw ids for %2").arg(m_path, QLatin1String(table)));
        while (draw.next())
            pool.append(draw.value(0).toLongLong());
        std::reverse(pool.begin(), pool.end()); // taken from the back, lowest first
    }
    return pool.takeLast();
}

Expected<QList<TicketRef>> PostgresStore::findTickets(const QStringList &extIds)
{
    QList<TicketRef> found;
    if (extIds.isEmpty())
        return found;
    // Planned for these names each time (libpq's unnamed statement): a plan kept from when
    // the table was small would scan it whole once it is not.
    finishStatements();
    PGconn *connection = libpqConnection(m_db);
    const PgResult result(
            runWithArrays(connection,
                          "SELECT id, fingerprint, ext_id, order_id, seller_id, last_seq, registry FROM "
                          "tickets WHERE ext_id = ANY($1::citext[]) ORDER BY id FOR UPDATE",
                          {copytext::textArray(extIds)}));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
        return failure(serverError(connection, result.get()),
                       QStringLiteral("%1: finding tickets failed").arg(m_path));
    const auto text = [&](int row, int column) {
        return PQgetisnull(result.get(), row, column)
                ? QString()
                : QString::fromUtf8(PQgetvalue(result.get(), row, column));
    };
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        found.append(TicketRef{text(row, 0).toLongLong(), text(row, 1),
                               TicketFacts{{QStringLiteral("ticket_id"), text(row, 2)},
                                           {QStringLiteral("order_id"), text(row, 3)},
                                           {QStringLiteral("seller_id"), text(row, 4)}},
                               text(row, 5).toLongLong(), text(row, 6)});
    }
    return found;
}

} // namespace verity

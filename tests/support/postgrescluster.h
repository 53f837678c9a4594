#pragma once
// A throwaway PostgreSQL cluster of the test's own: initdb and pg_ctl in a temporary folder,
// reached only through a Unix socket in that folder (no TCP at all), stopped and removed when
// the object goes. No test touches a cluster it did not start.
//
// PostgreSQL refuses to run as root; a test run as root (CI, a container) runs the server as
// the `postgres` user the Debian package creates, and the folder is handed to that user.

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QVersionNumber>

#include <pwd.h>
#include <unistd.h>

namespace verity::test {

class PostgresCluster
{
public:
    // The cluster's superuser: the owner of every database a test creates.
    static constexpr const char *superuser = "cluster_owner";

    PostgresCluster() = default;
    PostgresCluster(const PostgresCluster &) = delete;
    PostgresCluster &operator=(const PostgresCluster &) = delete;
    ~PostgresCluster() { stop(); }

    // Creates and starts the cluster; false with the reason in error() when it cannot.
    bool start()
    {
        const QString bin = binaries();
        if (bin.isEmpty())
            return fail(
                    QStringLiteral("PostgreSQL's server programs (initdb, pg_ctl) are not installed: "
                                   "install the Debian package postgresql (packaging/quickstart test does)"));
        if (!m_folder.isValid())
            return fail(QStringLiteral("cannot create a temporary folder"));
        m_bin = bin;
        m_port = freePort();
        if (geteuid() == 0) {
            const passwd *account = getpwnam("postgres");
            if (!account)
                return fail(QStringLiteral(
                        "running as root, and there is no postgres user to run the server as"));
            if (chown(QFile::encodeName(m_folder.path()).constData(), account->pw_uid, account->pw_gid) != 0)
                return fail(QStringLiteral("cannot hand %1 to the postgres user").arg(m_folder.path()));
            m_runAs = QStringLiteral("postgres");
        }
        if (!run(QStringLiteral("initdb"),
                 {QStringLiteral("-D"), dataFolder(), QStringLiteral("-U"), QLatin1String(superuser),
                  QStringLiteral("--auth=trust"), QStringLiteral("-E"), QStringLiteral("UTF8"),
                  QStringLiteral("--locale=C.UTF-8"), QStringLiteral("--no-sync")}))
            return false;
        return launch();
    }

    // The server stopped as an administrator stops it (its clients told, then cut off), the
    // data kept; launch() starts it again on the same socket and port.
    bool halt()
    {
        if (!m_running)
            return true;
        m_running = false;
        return run(QStringLiteral("pg_ctl"),
                   {QStringLiteral("-D"), dataFolder(), QStringLiteral("-m"), QStringLiteral("fast"),
                    QStringLiteral("-w"), QStringLiteral("stop")});
    }

    bool launch()
    {
        // Only the socket in the folder: listen_addresses empty turns TCP off. fsync off: a test
        // cluster that loses power is thrown away anyway.
        const QString options = QStringLiteral("-k %1 -p %2 -c listen_addresses='' -c fsync=off "
                                               "-c full_page_writes=off -c max_connections=60")
                                        .arg(m_folder.path())
                                        .arg(m_port);
        if (!run(QStringLiteral("pg_ctl"),
                 {QStringLiteral("-D"), dataFolder(), QStringLiteral("-o"), options, QStringLiteral("-l"),
                  m_folder.filePath(QStringLiteral("server.log")), QStringLiteral("-w"),
                  QStringLiteral("start")}))
            return false;
        m_running = true;
        return true;
    }

    void stop()
    {
        if (!m_running)
            return;
        m_running = false;
        run(QStringLiteral("pg_ctl"),
            {QStringLiteral("-D"), dataFolder(), QStringLiteral("-m"), QStringLiteral("immediate"),
             QStringLiteral("-w"), QStringLiteral("stop")});
    }

    QString error() const { return m_error; }
    QString socketFolder() const { return m_folder.path(); }
    // One of the server's programs (pg_dump, psql, ...), of the server's own version.
    QString program(const QString &name) const { return m_bin + u'/' + name; }
    int port() const { return m_port; }

    // A --db value for `database` as `user` (the superuser by default).
    QString location(const QString &database, const QString &user = QLatin1String(superuser)) const
    {
        return QStringLiteral("postgresql://%1@/%2?host=%3&port=%4")
                .arg(user, database, m_folder.path())
                .arg(m_port);
    }

    // Runs `sql` as the superuser in `database`; false with the reason in error().
    bool execute(const QString &sql, const QString &database = QStringLiteral("postgres"))
    {
        const QString name = QStringLiteral("verity-test-cluster-%1").arg(++m_connections);
        bool ok = false;
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
            db.setHostName(m_folder.path());
            db.setPort(m_port);
            db.setUserName(QLatin1String(superuser));
            db.setDatabaseName(database);
            if (!db.open()) {
                m_error = db.lastError().text();
            } else {
                QSqlQuery query(db);
                ok = query.exec(sql);
                if (!ok)
                    m_error = query.lastError().text();
            }
        }
        QSqlDatabase::removeDatabase(name);
        return ok;
    }

    // A new, empty database; its --db value, or an empty string with the reason in error().
    QString createDatabase(const QString &name)
    {
        if (!execute(QStringLiteral("CREATE DATABASE \"%1\"").arg(name)))
            return QString();
        return location(name);
    }

private:
    QString dataFolder() const { return m_folder.filePath(QStringLiteral("data")); }

    bool fail(const QString &why)
    {
        m_error = why;
        return false;
    }

    // The newest installed server's bin folder (Debian keeps them off the PATH).
    static QString binaries()
    {
        const QDir versions(QStringLiteral("/usr/lib/postgresql"));
        QString best;
        QVersionNumber bestVersion;
        for (const QString &version : versions.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const QString bin = versions.filePath(version + QStringLiteral("/bin"));
            const QVersionNumber number = QVersionNumber::fromString(version);
            if (QFileInfo::exists(bin + QStringLiteral("/initdb")) && number > bestVersion) {
                best = bin;
                bestVersion = number;
            }
        }
        return best;
    }

    static int freePort()
    {
        QTcpServer probe;
        probe.listen(QHostAddress::LocalHost, 0);
        return probe.serverPort();
    }

    bool run(const QString &program, const QStringList &arguments)
    {
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.setWorkingDirectory(m_folder.path());
        const QString path = m_bin + u'/' + program;
        if (m_runAs.isEmpty())
            process.start(path, arguments);
        else
            process.start(QStringLiteral("runuser"),
                          QStringList{QStringLiteral("-u"), m_runAs, QStringLiteral("--"), path} + arguments);
        if (!process.waitForFinished(120'000) || process.exitStatus() != QProcess::NormalExit
            || process.exitCode() != 0)
            return fail(QStringLiteral("%1 failed: %2")
                                .arg(program, QString::fromLocal8Bit(process.readAll()).trimmed()));
        return true;
    }

    QTemporaryDir m_folder;
    QString m_bin;
    QString m_runAs;
    QString m_error;
    int m_port = 0;
    int m_connections = 0;
    bool m_running = false;
};

} // namespace verity::test

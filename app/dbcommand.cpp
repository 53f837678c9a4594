#include "dbcommand.h"

#include "audit/auditlog.h"
#include "dbrolecommand.h"
#include "store/databasepassword.h"
#include "store/storecopy.h"
#include "store/storefactory.h"
#include "store/storelocation.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <termios.h>
#include <unistd.h>

#include <cstdio>

namespace verity {

namespace {

const QString usageText = QStringLiteral(
        "Usage: verity db ACTION ...\n"
        "\n"
        "A team's shared PostgreSQL database.\n"
        "\n"
        "Actions:\n"
        "  init --db URI                      create Verity's schema in the database (or bring it up\n"
        "                                     to date); run once, as the database's owner\n"
        "  copy --from FILE --to URI          copy a desk's SQLite database, audit chain, evidence,\n"
        "                                     notes and resolutions included, into a new, empty team\n"
        "                                     database, then verify the chain there\n"
        "  grant --db URI --role ROLE USER    give a database user a team role (run as an admin)\n"
        "  revoke --db URI --role ROLE USER   take it back\n"
        "  roles --db URI                     who holds which role\n"
        "  password --db URI                  keep your password for the database in the desktop\n"
        "                                     keychain (read from the terminal, or one line of stdin)\n"
        "\n"
        "Roles, enforced by the database itself, for Verity and for psql alike (everyone reads):\n"
        "  support   claims escalations, looks them up, performs again, records checks,\n"
        "            imports transcripts\n"
        "  finance   settles escalations from a provider's statement, marks duplicate payouts\n"
        "  trainer   writes notes on an incident's steps\n"
        "  admin     all of these, classifies tools, grants roles, releases anyone's claim\n"
        "The first `db init` creates the roles, so it runs as a user who may create roles.\n"
        "\n"
        "URI: postgresql://[user@]host[:port]/dbname, or a libpq keyword string such as\n"
        "\"host=db.example dbname=verity user=ana\". A password never goes in it: libpq reads\n"
        "~/.pgpass and PGPASSWORD, then the desktop keychain (see `password`).\n"
        "\n"
        "Options:\n"
        "  --json    print the result as JSON\n"
        "\n"
        "Exit status: 0 done, 1 the copy's audit chain did not verify, 2 could not run.\n");

int init(const QString &location, bool json, QTextStream &out, QTextStream &err)
{
    if (!isPostgresLocation(location)) {
        err << "verity db init: --db: expected a PostgreSQL database (postgresql://host/dbname), got \""
            << location << "\"; an SQLite file needs no set-up\n";
        return 2;
    }
    Expected<std::unique_ptr<Store>> store = openStore(location);
    if (!store) {
        err << "verity db init: " << store.message() << "\n";
        return 2;
    }
    if (json)
        out << QJsonDocument(
                       QJsonObject{{QStringLiteral("database"), (*store)->location()},
                                   {QStringLiteral("schema_version"), currentStoreSchemaVersion(location)}})
                        .toJson();
    else
        out << (*store)->location() << ": Verity's schema is at version "
            << currentStoreSchemaVersion(location) << "\n";
    return 0;
}

int copy(const QString &from, const QString &to, bool json, QTextStream &out, QTextStream &err)
{
    if (from.isEmpty() || to.isEmpty()) {
        err << "verity db copy: name both --from FILE and --to URI\n";
        return 2;
    }
    if (!isFileLocation(from) || !QFileInfo(from).isFile()) {
        err << "verity db copy: --from " << from
            << ": no such database file (expected a desk's SQLite file)\n";
        return 2;
    }
    if (!isPostgresLocation(to)) {
        err << "verity db copy: --to: expected a PostgreSQL database (postgresql://host/dbname), got \"" << to
            << "\"\n";
        return 2;
    }
    // Progress on a terminal only: a log or a pipe gets the summary alone.
    QTextStream progress(stderr);
    const bool terminal = isatty(fileno(stderr)) != 0;
    QString lastTable;
    Expected<StoreCopyReport> report = copySqliteToPostgres(from, to, [&](const QString &table, qint64 rows) {
        if (json || !terminal)
            return;
        if (table != lastTable && !lastTable.isEmpty())
            progress << "\n";
        lastTable = table;
        progress << "\r  " << table << ": " << rows << Qt::flush;
    });
    if (!json && !lastTable.isEmpty())
        progress << "\n" << Qt::flush;
    if (!report) {
        err << "verity db copy: " << report.message() << "\n";
        return 2;
    }
    // The chain checked where it now lives: every entry, every citation, every settlement.
    Expected<std::unique_ptr<Store>> team = openStoreReadOnly(to);
    if (!team) {
        err << "verity db copy: copied, but cannot open the copy to verify it: " << team.message() << "\n";
        return 2;
    }
    const Expected<AuditVerification> verified = AuditLog::verify(**team);
    if (!verified) {
        err << "verity db copy: copied, but cannot verify the audit chain: " << verified.message() << "\n";
        return 2;
    }
    if (json) {
        QJsonArray tables;
        for (const auto &[table, rows] : report->tables)
            tables.append(QJsonObject{{QStringLiteral("table"), table}, {QStringLiteral("rows"), rows}});
        out << QJsonDocument(QJsonObject{{QStringLiteral("from"), report->from},
                                         {QStringLiteral("to"), report->to},
                                         {QStringLiteral("tables"), tables},
                                         {QStringLiteral("audit_intact"), verified->intact},
                                         {QStringLiteral("audit_entries"), verified->entriesChecked},
                                         {QStringLiteral("audit_reason"), verified->reason}})
                        .toJson();
    } else {
        out << "copied " << report->from << " into " << report->to << ":\n";
        for (const auto &[table, rows] : report->tables)
            out << "  " << table << ": " << rows << (rows == 1 ? " row\n" : " rows\n");
        if (verified->intact)
            out << "audit chain intact in the copy: " << verified->entriesChecked
                << (verified->entriesChecked == 1 ? " entry\n" : " entries\n");
        else
            out << "audit chain broken in the copy: " << verified->reason << "\n";
    }
    return verified->intact ? 0 : 1;
}

// One line from the terminal without echoing it, or from whatever stdin is.
QString readSecretLine(const QString &prompt)
{
    const bool terminal = isatty(STDIN_FILENO) != 0;
    termios saved{};
    if (terminal) {
        QTextStream(stderr) << prompt << Qt::flush;
        tcgetattr(STDIN_FILENO, &saved);
        termios quiet = saved;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    }
    QTextStream in(stdin);
    const QString line = in.readLine();
    if (terminal) {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved);
        QTextStream(stderr) << "\n";
    }
    return line;
}

int savePassword(const QString &location, QTextStream &out, QTextStream &err)
{
    if (!isPostgresLocation(location)) {
        err << "verity db password: --db: expected a PostgreSQL database (postgresql://user@host/dbname), "
               "got \""
            << location << "\"\n";
        return 2;
    }
    const Expected<PostgresTarget> target = parsePostgresLocation(location);
    if (!target) {
        err << "verity db password: --db: " << target.message() << "\n";
        return 2;
    }
    if (target->user.isEmpty()) {
        err << "verity db password: --db: name the user (postgresql://ben@host/dbname): the password is kept "
               "for "
               "that user on that server only\n";
        return 2;
    }
    const QString password = readSecretLine(QStringLiteral("Password for %1: ").arg(target->display()));
    if (password.isEmpty()) {
        err << "verity db password: no password given; nothing was kept\n";
        return 2;
    }
    if (Expected<void> saved = saveKeychainDatabasePassword(*target, password); !saved) {
        err << "verity db password: " << saved.message() << "; keep it in ~/.pgpass instead\n";
        return 2;
    }
    out << "kept in the desktop keychain for " << target->display() << "\n";
    return 0;
}

} // namespace

int runDbCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(usageText);
    const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    const QCommandLineOption db(QStringLiteral("db"), QString(), QStringLiteral("URI"));
    const QCommandLineOption from(QStringLiteral("from"), QString(), QStringLiteral("FILE"));
    const QCommandLineOption to(QStringLiteral("to"), QString(), QStringLiteral("URI"));
    const QCommandLineOption role(QStringLiteral("role"), QString(), QStringLiteral("ROLE"));
    const QCommandLineOption json(QStringLiteral("json"));
    parser.addOptions({help, db, from, to, role, json});
    if (!parser.parse(arguments)) {
        err << "verity db: " << parser.errorText() << "\n\n" << usageText;
        return 2;
    }
    if (parser.isSet(help)) {
        out << usageText;
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (action == QLatin1String("init") && positional.size() == 1) {
        if (!parser.isSet(db)) {
            err << "verity db init: name the database with --db URI\n";
            return 2;
        }
        return init(parser.value(db), parser.isSet(json), out, err);
    }
    if (action == QLatin1String("copy") && positional.size() == 1)
        return copy(parser.value(from), parser.value(to), parser.isSet(json), out, err);
    if (action == QLatin1String("grant") && positional.size() <= 2)
        return grantRole(parser.value(db), parser.value(role), positional.value(1), parser.isSet(json), out,
                         err);
    if (action == QLatin1String("revoke") && positional.size() <= 2)
        return revokeRole(parser.value(db), parser.value(role), positional.value(1), parser.isSet(json), out,
                          err);
    if (action == QLatin1String("password") && positional.size() == 1)
        return savePassword(parser.value(db), out, err);
    if (action == QLatin1String("roles") && positional.size() == 1)
        return listRoles(parser.value(db), parser.isSet(json), out, err);
    if (positional.isEmpty())
        err << "verity db: name an action\n\n";
    else
        err << "verity db: unknown action \"" << positional.join(u' ') << "\"\n\n";
    err << usageText;
    return 2;
}

} // namespace verity

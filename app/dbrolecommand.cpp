#include "dbrolecommand.h"

#include "store/postgresroles.h"
#include "store/postgresstore.h"
#include "store/storelocation.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace verity {

namespace {

struct Opened
{
    std::unique_ptr<PostgresStore> store;
    int status = 0; // not 0: could not open, and err says why
};

Opened openTeamDatabase(const char *action, const QString &location, QTextStream &err)
{
    if (location.isEmpty()) {
        err << "verity db " << action << ": name the database with --db URI\n";
        return {nullptr, 2};
    }
    if (!isPostgresLocation(location)) {
        err << "verity db " << action
            << ": --db: expected a PostgreSQL database (postgresql://host/dbname), got \"" << location
            << "\"; roles belong to a team's database, and a desk's file has one person who does "
               "everything\n";
        return {nullptr, 2};
    }
    Expected<PostgresTarget> target = parsePostgresLocation(location);
    if (!target) {
        err << "verity db " << action << ": --db: " << target.message() << "\n";
        return {nullptr, 2};
    }
    // Opened to write: a database set up before roles existed gets them now.
    Expected<std::unique_ptr<PostgresStore>> store = PostgresStore::open(*target);
    if (!store) {
        err << "verity db " << action << ": " << store.message() << "\n";
        return {nullptr, 2};
    }
    return {std::move(*store), 0};
}

bool parseRole(const char *action, const QString &text, TeamRole *role, QTextStream &err)
{
    if (text.isEmpty()) {
        err << "verity db " << action << ": name the role with --role " << teamRoleIds().join(u'|') << "\n";
        return false;
    }
    if (!parseTeamRole(text, role)) {
        err << "verity db " << action << ": --role: expected one of "
            << teamRoleIds().join(QStringLiteral(", ")) << ", got \"" << text << "\"\n";
        return false;
    }
    return true;
}

QJsonArray roleIds(const QList<TeamRole> &roles)
{
    QJsonArray ids;
    for (TeamRole role : roles)
        ids.append(teamRoleId(role));
    return ids;
}

} // namespace

int grantRole(const QString &location, const QString &roleText, const QString &user, bool json,
              QTextStream &out, QTextStream &err)
{
    TeamRole role;
    if (!parseRole("grant", roleText, &role, err))
        return 2;
    if (user.isEmpty()) {
        err << "verity db grant: name the database user to grant the role to\n";
        return 2;
    }
    Opened opened = openTeamDatabase("grant", location, err);
    if (!opened.store)
        return opened.status;
    if (Expected<void> granted = postgres::grantTeamRole(opened.store->connection(), role, user); !granted) {
        err << "verity db grant: " << opened.store->location() << ": " << granted.message() << "\n";
        return 2;
    }
    if (json)
        out << QJsonDocument(QJsonObject{{QStringLiteral("database"), opened.store->location()},
                                         {QStringLiteral("user"), user},
                                         {QStringLiteral("granted"), teamRoleId(role)}})
                        .toJson();
    else
        out << user << " now has the " << teamRoleId(role) << " role in " << opened.store->location() << ": "
            << teamRoleWork(role) << "; everyone reads\n";
    return 0;
}

int revokeRole(const QString &location, const QString &roleText, const QString &user, bool json,
               QTextStream &out, QTextStream &err)
{
    TeamRole role;
    if (!parseRole("revoke", roleText, &role, err))
        return 2;
    if (user.isEmpty()) {
        err << "verity db revoke: name the database user to take the role from\n";
        return 2;
    }
    Opened opened = openTeamDatabase("revoke", location, err);
    if (!opened.store)
        return opened.status;
    Expected<bool> revoked = postgres::revokeTeamRole(opened.store->connection(), role, user);
    if (!revoked) {
        err << "verity db revoke: " << opened.store->location() << ": " << revoked.message() << "\n";
        return 2;
    }
    if (json)
        out << QJsonDocument(QJsonObject{{QStringLiteral("database"), opened.store->location()},
                                         {QStringLiteral("user"), user},
                                         {QStringLiteral("revoked"), teamRoleId(role)},
                                         {QStringLiteral("held"), *revoked}})
                        .toJson();
    else if (*revoked)
        out << user << " no longer has the " << teamRoleId(role) << " role in " << opened.store->location()
            << "\n";
    else
        out << user << " did not have the " << teamRoleId(role) << " role; nothing changed\n";
    return 0;
}

int listRoles(const QString &location, bool json, QTextStream &out, QTextStream &err)
{
    Opened opened = openTeamDatabase("roles", location, err);
    if (!opened.store)
        return opened.status;
    Expected<QList<postgres::TeamMember>> members = postgres::teamMembers(opened.store->connection());
    if (!members) {
        err << "verity db roles: " << opened.store->location() << ": " << members.message() << "\n";
        return 2;
    }
    if (json) {
        QJsonArray rows;
        for (const postgres::TeamMember &member : *members)
            rows.append(QJsonObject{{QStringLiteral("user"), member.user},
                                    {QStringLiteral("roles"), roleIds(member.roles)},
                                    {QStringLiteral("owner"), member.owner},
                                    {QStringLiteral("superuser"), member.superuser},
                                    {QStringLiteral("can_log_in"), member.canLogIn}});
        out << QJsonDocument(QJsonObject{{QStringLiteral("database"), opened.store->location()},
                                         {QStringLiteral("members"), rows}})
                        .toJson();
        return 0;
    }
    out << "Roles in " << opened.store->location() << " (everyone with a role reads everything):\n";
    for (const postgres::TeamMember &member : *members) {
        QString what;
        if (member.superuser)
            what = QStringLiteral("superuser: may do everything");
        else if (member.owner)
            what = QStringLiteral("owns Verity's tables: may do everything");
        else
            what = OperatorRoles(member.user, member.roles).summary();
        out << "  " << member.user << ": " << what << (member.canLogIn ? "" : " (cannot log in: a group)")
            << "\n";
    }
    return 0;
}

} // namespace verity

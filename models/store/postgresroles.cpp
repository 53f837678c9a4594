#include "postgresroles.h"

#include "sqlerror.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <array>

namespace verity::postgres {

namespace {

constexpr std::array allRoles{TeamRole::Support, TeamRole::Finance, TeamRole::Trainer, TeamRole::Admin};

// pg_has_role on a role the cluster lacks is an error, not false: asked only where it exists.
QString holdsSql(TeamRole role, const QString &user)
{
    return QStringLiteral("CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '%1') THEN "
                          "pg_has_role(%2, '%1', 'USAGE') ELSE false END")
            .arg(databaseRole(role), user);
}

// A statement that names a role or a user, quoted by the server itself.
Expected<QString> formatted(QSqlDatabase &db, const QString &pattern, const QVariantList &names)
{
    QSqlQuery query(db);
    // Typed: format() takes "any", and the server will not guess a parameter's type.
    if (!query.prepare(QStringLiteral("SELECT format(?::text%1)")
                               .arg(QStringLiteral(", ?::text").repeated(names.size()))))
        return makeError(sqlErrorText(query.lastError()));
    query.addBindValue(pattern);
    for (const QVariant &name : names)
        query.addBindValue(name);
    if (!query.exec() || !query.next())
        return makeError(sqlErrorText(query.lastError()));
    return query.value(0).toString();
}

Expected<bool> userExists(QSqlDatabase &db, const QString &user)
{
    QSqlQuery query(db);
    if (!query.prepare(QStringLiteral("SELECT 1 FROM pg_roles WHERE rolname = ?")))
        return makeError(sqlErrorText(query.lastError()));
    query.addBindValue(user);
    if (!query.exec())
        return makeError(sqlErrorText(query.lastError()));
    return query.next();
}

} // namespace

QString databaseRole(TeamRole role)
{
    return QStringLiteral("verity_") + teamRoleId(role);
}

Expected<void> ensureTeamRoles(QSqlDatabase &db)
{
    // Asks for nothing it does not need: a second team database in the same cluster finds the
    // roles made, and its owner need not be allowed to create roles.
    QSqlQuery query(db);
    const bool done = query.exec(QStringLiteral(R"sql(
DO $$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY['verity_support', 'verity_finance', 'verity_trainer', 'verity_admin'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = name) THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', name);
        END IF;
    END LOOP;
    FOREACH name IN ARRAY ARRAY['verity_support', 'verity_finance', 'verity_trainer'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
                       JOIN pg_roles a ON a.oid = m.member
                       WHERE r.rolname = name AND a.rolname = 'verity_admin' AND m.admin_option) THEN
            EXECUTE format('GRANT %I TO verity_admin WITH ADMIN OPTION', name);
        END IF;
    END LOOP;
END
$$)sql"));
    if (!done)
        return makeError(QStringLiteral("cannot create the team's roles (verity_support, verity_finance, "
                                        "verity_trainer, verity_admin): %1; roles belong to the whole "
                                        "server, so the first `verity db init` runs as a user who may "
                                        "create roles (CREATEROLE) or as the server's superuser")
                                 .arg(sqlErrorText(query.lastError())));
    return {};
}

Expected<OperatorRoles> sessionRoles(QSqlDatabase &db)
{
    QSqlQuery query(db);
    QString sql = QStringLiteral("SELECT current_user, COALESCE((SELECT pg_has_role(current_user, nspowner, "
                                 "'USAGE') FROM pg_namespace WHERE nspname = 'verity'), false)");
    for (TeamRole role : allRoles)
        sql += QStringLiteral(", ") + holdsSql(role, QStringLiteral("current_user"));
    if (!query.exec(sql) || !query.next())
        return makeError(
                QStringLiteral("cannot read this user's roles: %1").arg(sqlErrorText(query.lastError())));
    const bool owner = query.value(1).toBool();
    QList<TeamRole> held;
    for (std::size_t i = 0; i < allRoles.size(); ++i) {
        if (owner || query.value(int(i) + 2).toBool())
            held << allRoles[i];
    }
    return OperatorRoles(query.value(0).toString(), held);
}

Expected<void> grantTeamRole(QSqlDatabase &db, TeamRole role, const QString &user)
{
    Expected<bool> exists = userExists(db, user);
    if (!exists)
        return exists.error();
    if (!*exists)
        return makeError(QStringLiteral("there is no database user \"%1\": create it first (for example "
                                        "`createuser --pwprompt %1`, as a user who may create roles)")
                                 .arg(user));
    // An admin may make further admins; the other roles an admin grants through verity_admin.
    Expected<QString> statement =
            formatted(db,
                      role == TeamRole::Admin ? QStringLiteral("GRANT %I TO %I WITH ADMIN OPTION")
                                              : QStringLiteral("GRANT %I TO %I"),
                      {databaseRole(role), user});
    if (!statement)
        return statement.error();
    QSqlQuery query(db);
    if (!query.exec(*statement))
        return makeError(QStringLiteral("cannot grant the %1 role to %2: %3")
                                 .arg(teamRoleId(role), user, sqlErrorText(query.lastError())));
    return {};
}

Expected<bool> revokeTeamRole(QSqlDatabase &db, TeamRole role, const QString &user)
{
    Expected<bool> exists = userExists(db, user);
    if (!exists)
        return exists.error();
    if (!*exists)
        return makeError(QStringLiteral("there is no database user \"%1\"").arg(user));
    QSqlQuery held(db);
    if (!held.prepare(
                QStringLiteral("SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid "
                               "JOIN pg_roles u ON u.oid = m.member WHERE r.rolname = ? AND u.rolname = ?")))
        return makeError(sqlErrorText(held.lastError()));
    held.addBindValue(databaseRole(role));
    held.addBindValue(user);
    if (!held.exec())
        return makeError(sqlErrorText(held.lastError()));
    if (!held.next())
        return false;
    Expected<QString> statement =
            formatted(db, QStringLiteral("REVOKE %I FROM %I"), {databaseRole(role), user});
    if (!statement)
        return statement.error();
    QSqlQuery query(db);
    if (!query.exec(*statement))
        return makeError(QStringLiteral("cannot take the %1 role from %2: %3")
                                 .arg(teamRoleId(role), user, sqlErrorText(query.lastError())));
    return true;
}

Expected<QList<TeamMember>> teamMembers(QSqlDatabase &db)
{
    QString sql = QStringLiteral("SELECT u.rolname, u.rolsuper, u.rolcanlogin, COALESCE(pg_has_role(u.oid, "
                                 "(SELECT nspowner FROM pg_namespace WHERE nspname = 'verity'), 'USAGE'), "
                                 "false)");
    for (TeamRole role : allRoles)
        sql += QStringLiteral(", ") + holdsSql(role, QStringLiteral("u.oid"));
    sql += QStringLiteral(" FROM pg_roles u WHERE u.rolname NOT LIKE 'pg\\_%' AND u.rolname NOT IN "
                          "('verity_support', 'verity_finance', 'verity_trainer', 'verity_admin') "
                          "ORDER BY u.rolname");
    QSqlQuery query(db);
    if (!query.exec(sql))
        return makeError(
                QStringLiteral("cannot read the team's roles: %1").arg(sqlErrorText(query.lastError())));
    QList<TeamMember> members;
    while (query.next()) {
        TeamMember member;
        member.user = query.value(0).toString();
        member.superuser = query.value(1).toBool();
        member.canLogIn = query.value(2).toBool();
        member.owner = query.value(3).toBool();
        for (std::size_t i = 0; i < allRoles.size(); ++i) {
            if (!member.superuser && !member.owner && query.value(int(i) + 4).toBool())
                member.roles << allRoles[i];
        }
        if (member.superuser || member.owner || !member.roles.isEmpty())
            members << member;
    }
    return members;
}

} // namespace verity::postgres

#pragma once
// A team's roles in its PostgreSQL database. Each Verity role is a PostgreSQL role
// (verity_support, verity_finance, verity_trainer, verity_admin) holding the grants its work
// needs (schema version 3); a user is granted one or more of them. The limits live in the
// database, so they hold for anyone who connects, with Verity or with psql.

#include "domain/expected.h"
#include "operatorroles.h"

#include <QList>

class QSqlDatabase;

namespace verity::postgres {

// The database role behind a Verity role: "verity_support".
QString databaseRole(TeamRole role);

// Creates the four roles where the cluster lacks them, admin able to grant the other three.
// Roles belong to the whole cluster, so this needs a user who may create roles; where they
// exist already nothing is asked of the user.
Expected<void> ensureTeamRoles(QSqlDatabase &db);

// What the connected user holds: the owner of Verity's schema and a superuser hold every role.
Expected<OperatorRoles> sessionRoles(QSqlDatabase &db);

// Grants `role` to the database user `user`, who must exist; admin comes with the right to
// grant admin on. Refused, with the database's reason, to a user who may not grant it.
Expected<void> grantTeamRole(QSqlDatabase &db, TeamRole role, const QString &user);
// Takes it back; false when the user did not hold it.
Expected<bool> revokeTeamRole(QSqlDatabase &db, TeamRole role, const QString &user);

struct TeamMember
{
    QString user;
    QList<TeamRole> roles; // granted to the user, directly or through another role
    bool owner = false; // owns Verity's schema: may do everything, whatever is granted
    bool superuser = false;
    bool canLogIn = false;
};

// Every user who holds a Verity role or owns the schema, by name.
Expected<QList<TeamMember>> teamMembers(QSqlDatabase &db);

} // namespace verity::postgres

#pragma once

#include <QStringList>

class QTextStream;

namespace verity {

// verity db grant|revoke|roles: who in a team may change what. Roles live in the database
// (models/store/postgresroles.h); these only ask it.
int grantRole(const QString &location, const QString &role, const QString &user, bool json, QTextStream &out,
              QTextStream &err);
int revokeRole(const QString &location, const QString &role, const QString &user, bool json, QTextStream &out,
               QTextStream &err);
int listRoles(const QString &location, bool json, QTextStream &out, QTextStream &err);

} // namespace verity

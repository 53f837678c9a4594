#pragma once
// What the person at this console may change, by the team role the database gives their user.
// On a desk file one person does everything; in a team's database each role writes only what
// its work needs, and the database itself refuses the rest (postgresroles.h). The console asks
// here first, so a button it cannot honour is shown disabled with the reason, not refused later.

#include <QString>
#include <QStringList>

namespace verity {

enum class TeamRole {
    Support, // claims, looks up, performs again, attests; brings transcripts in
    Finance, // settles from a provider's statement, marks duplicate payouts
    Trainer, // writes notes on an incident's steps
    Admin, // classifies tools, grants roles, releases anyone's claim
};

QString teamRoleId(TeamRole role); // "support", as `verity db grant --role` takes it
QString teamRoleWork(TeamRole role); // what it may change: "claims, looks up, …"
bool parseTeamRole(const QString &text, TeamRole *role);
QStringList teamRoleIds();

class OperatorRoles
{
public:
    // A desk's file: its one person holds every role.
    static OperatorRoles everyone();
    // `user` of a team's database holding `roles`; an owner or a superuser holds them all.
    OperatorRoles(const QString &user, QList<TeamRole> roles);

    bool holds(TeamRole role) const;
    // Empty when allowed; otherwise why not, naming the role and how an admin grants it:
    // "ben has the trainer role; settling needs the support role (an admin grants it with …)".
    QString refusal(TeamRole needed, const QString &what) const;
    // "support, finance", or "no role" (reads only).
    QString summary() const;
    const QString &user() const { return m_user; }
    bool isTeam() const { return !m_user.isEmpty(); }

private:
    OperatorRoles() = default;

    QString m_user; // empty: a desk
    QList<TeamRole> m_roles;
};

} // namespace verity

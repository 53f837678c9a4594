#include "operatorroles.h"

#include <QObject>

#include <array>

namespace verity {

namespace {

constexpr std::array allRoles{TeamRole::Support, TeamRole::Finance, TeamRole::Trainer, TeamRole::Admin};

} // namespace

QString teamRoleId(TeamRole role)
{
    switch (role) {
    case TeamRole::Support:
        return QStringLiteral("support");
    case TeamRole::Finance:
        return QStringLiteral("finance");
    case TeamRole::Trainer:
        return QStringLiteral("trainer");
    case TeamRole::Admin:
        return QStringLiteral("admin");
    }
    return {};
}

QString teamRoleWork(TeamRole role)
{
    switch (role) {
    case TeamRole::Support:
        return QObject::tr("claims escalations, looks them up, performs again, records checks, imports "
                           "transcripts");
    case TeamRole::Finance:
        return QObject::tr("settles escalations from a provider's statement, marks duplicate payouts");
    case TeamRole::Trainer:
        return QObject::tr("writes notes on an incident's steps");
    case TeamRole::Admin:
        return QObject::tr("everything the other roles do, classifies tools, grants roles, releases anyone's "
                           "claim");
    }
    return {};
}

bool parseTeamRole(const QString &text, TeamRole *role)
{
    for (TeamRole candidate : allRoles) {
        if (text == teamRoleId(candidate)) {
            *role = candidate;
            return true;
        }
    }
    return false;
}

QStringList teamRoleIds()
{
    QStringList ids;
    for (TeamRole role : allRoles)
        ids << teamRoleId(role);
    return ids;
}

OperatorRoles OperatorRoles::everyone()
{
    OperatorRoles roles;
    roles.m_roles = QList<TeamRole>(allRoles.begin(), allRoles.end());
    return roles;
}

OperatorRoles::OperatorRoles(const QString &user, QList<TeamRole> roles)
    : m_user(user)
    , m_roles(std::move(roles))
{}

bool OperatorRoles::holds(TeamRole role) const
{
    return m_roles.contains(role);
}

QString OperatorRoles::refusal(TeamRole needed, const QString &what) const
{
    if (holds(needed))
        return {};
    const QString held = m_roles.isEmpty() ? QObject::tr("no role here, so only reads")
            : m_roles.size() == 1          ? QObject::tr("the %1 role").arg(summary())
                                           : QObject::tr("the roles %1").arg(summary());
    return QObject::
            tr("%1 has %2; %3 needs the %4 role (an admin grants it: verity db grant --db URI --role %4 %1)")
                    .arg(m_user, held, what, teamRoleId(needed));
}

QString OperatorRoles::summary() const
{
    QStringList ids;
    for (TeamRole role : m_roles)
        ids << teamRoleId(role);
    return ids.isEmpty() ? QObject::tr("no role") : ids.join(QStringLiteral(", "));
}

} // namespace verity

#include "operatoridentity.h"

#include "store/store.h"

namespace verity {

Expected<QString> operatorNameFor(const StoreSession &store, const QString &given)
{
    const QString name = given.trimmed();
    const QString user = store.sessionUser();
    if (!user.isEmpty()) {
        if (!name.isEmpty() && name != user)
            return makeError(
                    InputErrc::Invalid,
                    QStringLiteral("in a team database the audit names the database user you connected "
                                   "as, %1; \"%2\" is someone else: connect as %2 to act as %2")
                            .arg(user, name));
        return user;
    }
    if (name.isEmpty())
        return makeError(InputErrc::Missing,
                         QStringLiteral("give your name for the audit log (--operator NAME)"));
    return name;
}

Expected<void> requireRole(StoreSession &store, TeamRole role, const QString &what)
{
    const Expected<OperatorRoles> roles = store.sessionRoles();
    if (!roles)
        return roles.error();
    if (const QString refused = roles->refusal(role, what); !refused.isEmpty())
        return makeError(StoreErrc::RefusedByRole, refused);
    return {};
}

Expected<QString> actingOperator(StoreSession &store, const QString &given, TeamRole role,
                                 const QString &what)
{
    Expected<QString> who = operatorNameFor(store, given);
    if (!who)
        return who;
    if (Expected<void> allowed = requireRole(store, role, what); !allowed)
        return allowed.error();
    return who;
}

} // namespace verity

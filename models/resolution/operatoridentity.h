#pragma once
// Who is acting, as the audit will name them. On a desk's file, the name the operator gave. In a
// team's database, the database user they connected as, and nobody else: a name typed into
// settings or onto a command line cannot put someone else's name on an action there.

#include "domain/expected.h"
#include "store/operatorroles.h"

namespace verity {

class StoreSession;

// `given` is the name from settings or --operator (may be empty). Refused when it names
// someone other than the connected database user, or when there is no name at all.
Expected<QString> operatorNameFor(const StoreSession &store, const QString &given);

// Refused, saying which role `what` needs and how it is granted, when this session's user does
// not hold `role`: a command says so before it starts, not halfway through with the database's
// bare "permission denied".
Expected<void> requireRole(StoreSession &store, TeamRole role, const QString &what);

// Both: who acts (operatorNameFor), once they may (requireRole).
Expected<QString> actingOperator(StoreSession &store, const QString &given, TeamRole role,
                                 const QString &what);

} // namespace verity

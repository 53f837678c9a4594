#pragma once
// Who is acting, as the audit will name them. On a desk's file, the name the operator gave. In a
// team's database, the database user they connected as, and nobody else: a name typed into
// settings or onto a command line cannot put someone else's name on an action there.

#include "domain/expected.h"

namespace verity {

class StoreSession;

// `given` is the name from settings or --operator (may be empty). Refused when it names
// someone other than the connected database user, or when there is no name at all.
Expected<QString> operatorNameFor(const StoreSession &store, const QString &given);

} // namespace verity

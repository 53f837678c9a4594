#pragma once
// Reconciliation at a finance team's scale: the first 100,000 refunds Verity recorded as
// performed, put into the sandbox provider (a few missing, a few with another amount, a few
// it alone knows), then reconciled the way `verity reconcile` does it: the ledger's payouts,
// the provider's statement over HTTP on loopback, the matching. Figures go to stdout as
// "name value" lines.

#include <QString>

namespace verity::bench {

int runReconcileProbe(int argc, char **argv, const QString &database, qint64 refunds);

} // namespace verity::bench

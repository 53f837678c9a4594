#pragma once
// Finance's marks on a duplicate payout: "recovery requested" (money asked back from the
// buyer or written off against the platform) and "recovered". Each mark is stored with its
// audit-log entry in one transaction: both or neither.

#include "domain/expected.h"
#include "finance/duplicatepayouts.h"
#include "store/financerecords.h"

#include <QHash>

namespace verity {

class PayoutRecoveryStore;

// The audit action of a mark: "recovery_requested" or "recovered".
QString recoveryAuditAction(RecoveryState state);
QString recoveryStateText(RecoveryState state); // "Recovery requested", "Recovered"

// Refuses an empty operator name, and "recovered" before "recovery requested".
Expected<PayoutMark> markDuplicatePayout(PayoutRecoveryStore &store, const DuplicatePayout &duplicate,
                                         RecoveryState state, const QString &note,
                                         const QString &operatorName, qint64 atMs);

// The current mark of each duplicate key: the last one made.
QHash<QString, PayoutMark> currentMarks(const QList<PayoutMark> &marks);

} // namespace verity

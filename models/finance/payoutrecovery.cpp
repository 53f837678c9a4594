#include "payoutrecovery.h"

#include "audit/auditlog.h"
#include "domain/hiddencharacters.h"
#include "domain/money.h"
#include "store/store.h"

namespace verity {

QString recoveryAuditAction(RecoveryState state)
{
    return recoveryStateId(state);
}

QString recoveryStateText(RecoveryState state)
{
    switch (state) {
    case RecoveryState::RecoveryRequested:
        return QStringLiteral("Recovery requested");
    case RecoveryState::Recovered:
        return QStringLiteral("Recovered");
    }
    Q_UNREACHABLE();
}

QHash<QString, PayoutMark> currentMarks(const QList<PayoutMark> &marks)
{
    QHash<QString, PayoutMark> current;
    for (const PayoutMark &mark : marks)
        current.insert(mark.duplicateKey, mark); // oldest first: the last one stays
    return current;
}

Expected<PayoutMark> markDuplicatePayout(PayoutRecoveryStore &store, const DuplicatePayout &duplicate,
                                         RecoveryState state, const QString &note,
                                         const QString &operatorName, qint64 atMs)
{
    if (operatorName.trimmed().isEmpty())
        return makeError(QStringLiteral("a recovery mark needs the name of the person making it"));
    if (duplicate.key.isEmpty())
        return makeError(QStringLiteral("this duplicate payout has no key to mark"));
    if (const Expected<void> shown =
                checkShownAsTyped(QStringLiteral("the note"), note.trimmed(), LineBreaks::Allowed);
        !shown)
        return shown.error();

    PayoutMark mark;
    mark.duplicateKey = duplicate.key;
    mark.state = state;
    mark.note = note.trimmed();
    mark.operatorName = operatorName.trimmed();
    mark.at = atMs;

    QString detail =
            QStringLiteral("%1: duplicate payout of %2 (%3), %4 at risk, %5")
                    .arg(recoveryStateText(state),
                         duplicate.sellerName.isEmpty() ? duplicate.sellerId : duplicate.sellerName,
                         duplicate.ticketExtIds().join(QStringLiteral(", ")),
                         formatMoney(duplicate.amountAtRiskCents, duplicate.currency), duplicate.key);
    if (!mark.note.isEmpty())
        detail += QStringLiteral(". Note: ") + mark.note;

    if (Expected<void> begun = store.begin(); !begun)
        return begun.error();
    Expected<PayoutMark> result = [&]() -> Expected<PayoutMark> {
        Expected<QList<PayoutMark>> marks = store.payoutMarks();
        if (!marks)
            return marks.error();
        const QHash<QString, PayoutMark> current = currentMarks(*marks);
        const auto it = current.constFind(duplicate.key);
        if (it != current.cend() && it->state == state && it->note == mark.note) {
            return makeError(
                    QStringLiteral("this duplicate payout is already marked \"%1\" with the same note")
                            .arg(recoveryStateText(state)));
        }
        Expected<qint64> id = store.insertPayoutMark(mark);
        if (!id)
            return id.error();
        mark.id = *id;
        AuditLog audit(store);
        if (Expected<AuditEntry> entry = audit.append(mark.operatorName, recoveryAuditAction(state),
                                                      std::nullopt, detail, QString(), atMs);
            !entry)
            return entry.error();
        return mark;
    }();
    if (!result) {
        store.rollback();
        return result;
    }
    if (Expected<void> committed = store.commit(); !committed) {
        store.rollback();
        return committed.error();
    }
    return result;
}

} // namespace verity

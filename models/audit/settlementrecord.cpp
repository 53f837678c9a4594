#include "settlementrecord.h"

#include "domain/sha256.h"

namespace verity {

QByteArray settlementEncoding(const EscalationSettlement &settlement,
                              const std::optional<LedgerEntry> &ledger)
{
    QByteArray out;
    appendNetstring(out, QByteArrayLiteral("verity-settlement-v1"));
    appendNetstring(out, QByteArray::number(settlement.escalationId));
    appendNetstring(out,
                    settlement.resolution ? resolutionId(*settlement.resolution).toUtf8() : QByteArray());
    appendNetstring(out, settlementBasisId(settlement.basis).toUtf8());
    appendNetstring(out, settlement.reference.toUtf8());
    appendNetstring(out, settlement.resolvedBy.toUtf8());
    appendNetstring(out, QByteArray::number(settlement.resolvedAt));
    appendNetstring(out, ledger ? ledger->refundId.toUtf8() : QByteArray());
    appendNetstring(out, ledger ? ledger->intentKey.toUtf8() : QByteArray());
    appendNetstring(out, ledger ? QByteArray::number(ledger->amountCents) : QByteArray());
    appendNetstring(out, ledger ? ledger->currency.toUtf8() : QByteArray());
    appendNetstring(out, ledger ? QByteArray::number(ledger->recordedAt) : QByteArray());
    appendNetstring(out, ledger ? ledger->source.toUtf8() : QByteArray());
    return out;
}

QString settlementHash(const EscalationSettlement &settlement, const std::optional<LedgerEntry> &ledger)
{
    return QString::fromLatin1(sha256Hex(settlementEncoding(settlement, ledger)));
}

} // namespace verity

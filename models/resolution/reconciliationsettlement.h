#pragma once
// Evidence from a reconciliation settles the unknown refunds it proves. A refund in the
// provider's statement that carries an open escalation's intent key, and that one-to-one
// matching gives to that escalation's call (recordmatching.h), proves the call performed:
// the money moved. Only "performed" is ever proved this way: a statement covers one period,
// and a refund missing from it may lie outside it.

#include "domain/expected.h"
#include "domain/providerstatement.h"
#include "store/records.h"

#include <QList>
#include <QStringList>

namespace verity {

class ClaimStore;
class SettlementStore;

struct ProvenCall
{
    EscalationDetail escalation;
    StatementRefund refund;
};

// The refund escalations the statement proves performed: those still unknown, and those a
// person attested, since the provider's record outranks a check. Only calls whose every sibling
// of the same intent was made inside the statement's period are judged, so that a refund
// made before the period cannot be mistaken for a later one.
Expected<QList<ProvenCall>> callsProvenBy(ClaimStore &store, const ProviderStatement &statement);

struct StatementSettlement
{
    int settled = 0; // by this operator, now
    QList<ProvenCall> settledCalls; // those, each as it stood before (open, or attested)
    QStringList elsewhere; // "escalation 5: settled first by bob at …"
    // Left for their holder: "escalation 6: bob has claimed this escalation until 14:05 …".
    // One held escalation does not stop the others from being settled.
    QStringList held;
};

// Settles each as performed (verified by reconciliation): the provider's record as evidence,
// the ledger row, the audit entries, in one transaction per escalation.
Expected<StatementSettlement> settleFromStatement(SettlementStore &store, const QList<ProvenCall> &proven,
                                                  const ProviderStatement &statement,
                                                  const QString &operatorName);

} // namespace verity

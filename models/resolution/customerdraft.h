#pragma once
// What the customer should now be told about an escalated write. The agent may already have
// told them something else; this says what is true now, and promises nothing that has not
// happened: a write not yet made is never described as being made.

#include "domain/expected.h"
#include "store/records.h"

#include <QList>
#include <QString>

namespace verity {

class EscalationReads;

// One refund call of the same intent on the ticket, as it now stands.
struct RefundFact
{
    qint64 amountCents = 0;
    QString currency = QStringLiteral("USD");
    qint64 at = 0; // when it was made (ms since the epoch)
    bool performed = false; // recorded or verified
    bool unknown = false; // nobody knows yet: the customer is told it is still being checked
};

// A refund's draft: `sameIntent` are the calls sharing its key; `settled` is how the escalation
// now stands (nullopt: still open); `attested` when a person's check, not the provider, says so.
QString draftCustomerMessage(const QString &customerName, const QList<RefundFact> &sameIntent,
                             std::optional<Resolution> settled, bool attested = false);

// A pickup's or a message's draft, from how its escalation stands. A reference is quoted only
// when the system it went to named it, never one a person's check recorded.
QString draftWriteMessage(const EscalationDetail &escalation);

// The draft for the escalation as the store now holds it: a refund from the calls of its
// intent, a pickup or a message from its settlement.
Expected<QString> customerDraftFor(EscalationReads &store, const EscalationDetail &escalation);

} // namespace verity

#pragma once
// What the customer should now be told about an escalated write. The agent may already have
// told them something else; this says what is true now, in what the customer can use (what
// happened, the amount, the day, the collection window, what happens next), never an internal
// id or the name of a system. It promises only the next step: a write not yet made is never
// described as being made, and one still owed is promised as what we will do and confirm.
// It apologises only where the customer was told something the evidence now contradicts.

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
    bool reportedNotPerformed = false; // the tool said it had not happened: so may the agent have
};

// A refund's draft: `sameIntent` are the calls sharing its key; `settled` is how the escalation
// now stands (nullopt: still open); `attested` when a person's check, not the provider, says so.
QString draftCustomerMessage(const QString &customerName, const QList<RefundFact> &sameIntent,
                             std::optional<Resolution> settled, bool attested = false);

// A pickup's or a message's draft, from how its escalation stands. `pickupWindow` is when the
// courier collects ("Thu 2 Apr, 08:00-12:00"); empty when nobody named one.
QString draftWriteMessage(const EscalationDetail &escalation, const QString &pickupWindow = QString());

// The draft for the escalation as the store now holds it: a refund from the calls of its
// intent, a pickup or a message from its settlement (and a pickup's window from the courier's
// record or the calls' results).
Expected<QString> customerDraftFor(EscalationReads &store, const EscalationDetail &escalation);

} // namespace verity

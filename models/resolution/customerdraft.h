#pragma once
// What the customer should now be told, once evidence has settled a refund whose outcome was
// unknown. The agent may already have told them something else; this says what is true.

#include "store/records.h"

#include <QList>
#include <QString>

namespace verity {

// One refund call of the same intent on the ticket, as it now stands.
struct RefundFact
{
    qint64 amountCents = 0;
    QString currency = QStringLiteral("USD");
    qint64 at = 0;          // when it was made (ms since the epoch)
    bool performed = false; // recorded or verified
};

QString draftCustomerMessage(const QString &customerName, const QList<RefundFact> &sameIntent,
                             Resolution resolution);

} // namespace verity

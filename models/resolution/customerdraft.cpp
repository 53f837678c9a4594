#include "customerdraft.h"

#include "domain/money.h"

#include <QDateTime>
#include <QLocale>

namespace verity {

namespace {

QString dayAndMonth(qint64 at)
{
    return QLocale(QLocale::English).toString(QDateTime::fromMSecsSinceEpoch(at).toLocalTime().date(),
                                              QStringLiteral("d MMMM"));
}

} // namespace

QString draftCustomerMessage(const QString &customerName, const QList<RefundFact> &sameIntent, Resolution resolution)
{
    const QString greeting = customerName.isEmpty() ? QStringLiteral("Hello,")
                                                    : QStringLiteral("Hello %1,").arg(customerName.section(u' ', 0, 0));
    QList<RefundFact> performed;
    for (const RefundFact &fact : sameIntent) {
        if (fact.performed)
            performed.append(fact);
    }
    std::sort(performed.begin(), performed.end(), [](const RefundFact &a, const RefundFact &b) { return a.at < b.at; });
    const RefundFact any = sameIntent.isEmpty() ? RefundFact{} : sameIntent.first();
    const QString amount = formatMoney(any.amountCents, any.currency);

    QString body;
    if (performed.size() > 1) {
        const qsizetype extra = performed.size() - 1;
        body = QStringLiteral("One refund of %1 was made to your original payment method on %2. ")
                   .arg(formatMoney(performed.first().amountCents, performed.first().currency),
                        dayAndMonth(performed.first().at))
               + (extra == 1 ? QStringLiteral("A second refund of the same amount was made in error; we are "
                                              "recovering it, and you do not need to do anything.")
                             : QStringLiteral("%1 further refunds of the same amount were made in error; we are "
                                              "recovering them, and you do not need to do anything.")
                                   .arg(extra));
    } else if (performed.size() == 1) {
        body = QStringLiteral("We have confirmed with our payment provider that one refund of %1 was made to your "
                              "original payment method on %2. You should see it within 3 to 5 working days of that "
                              "date.")
                   .arg(formatMoney(performed.first().amountCents, performed.first().currency),
                        dayAndMonth(performed.first().at));
    } else if (resolution == Resolution::NotPerformed) {
        body = QStringLiteral("We have checked with our payment provider: the refund of %1 has not been made yet. "
                              "We are issuing it now and will confirm once it has gone through.")
                   .arg(amount);
    } else {
        body = QStringLiteral("Your refund of %1 is being confirmed with our payment provider; we will write again "
                              "as soon as we know.")
                   .arg(amount);
    }
    return greeting + QStringLiteral("\n\n") + body + QStringLiteral("\n\nSorry for the confusion.");
}

} // namespace verity

#include "customerdraft.h"

#include "domain/money.h"
#include "store/store.h"

#include <QDateTime>
#include <QLocale>

#include <algorithm>

namespace verity {

namespace {

QString dayAndMonth(qint64 at)
{
    return QLocale(QLocale::English)
            .toString(QDateTime::fromMSecsSinceEpoch(at, Qt::UTC).date(), QStringLiteral("d MMMM"));
}

QString greeting(const QString &customerName)
{
    return customerName.isEmpty() ? QStringLiteral("Hello,")
                                  : QStringLiteral("Hello %1,").arg(customerName.section(u' ', 0, 0));
}

QString letter(const QString &customerName, const QString &body)
{
    return greeting(customerName) + QStringLiteral("\n\n") + body
            + QStringLiteral("\n\nSorry for the confusion.");
}

// What a pickup or a message was, in the customer's words; and who was asked about it.
struct WriteWords
{
    QString thing; // "the collection of your order SU-88316"
    QString done; // "is booked"
    QString whether; // "has been booked": after "whether", while nobody knows yet
    QString notDone; // "has not been booked"
    QString system; // "the courier"
};

WriteWords wordsFor(const EscalationDetail &escalation)
{
    const QString order = escalation.orderId.isEmpty()
            ? QStringLiteral("your order")
            : QStringLiteral("your order %1").arg(escalation.orderId);
    if (escalation.tool == u"schedule_pickup")
        return {QStringLiteral("the collection of %1").arg(order), QStringLiteral("is booked"),
                QStringLiteral("has been booked"), QStringLiteral("has not been booked"),
                QStringLiteral("the courier")};
    if (escalation.tool == u"message_seller")
        return {QStringLiteral("our message to the seller about %1").arg(order),
                QStringLiteral("was delivered"), QStringLiteral("was delivered"),
                QStringLiteral("has not reached the seller"), QStringLiteral("the messaging service")};
    return {QStringLiteral("the %1 request for %2").arg(escalation.tool, order),
            QStringLiteral("went through"), QStringLiteral("went through"),
            QStringLiteral("has not gone through"), QStringLiteral("the system it went to")};
}

} // namespace

QString draftWriteMessage(const EscalationDetail &escalation)
{
    const WriteWords words = wordsFor(escalation);
    const bool attested = escalation.basis == SettlementBasis::Attestation;
    QString body;
    if (escalation.state != EscalationState::Resolved || !escalation.resolution) {
        body = QStringLiteral(
                       "We are checking with %1 whether %2 %3; we will write again as soon as we know.")
                       .arg(words.system, words.thing, words.whether);
    } else if (*escalation.resolution == Resolution::NotPerformed && attested) {
        // A person's check is not the system's word: nothing is stated as fact.
        body = QStringLiteral(
                       "We have not yet been able to confirm that %1 %2. We will write to you again once "
                       "this is settled.")
                       .arg(words.thing, words.whether);
    } else if (*escalation.resolution == Resolution::NotPerformed) {
        body = QStringLiteral(
                       "We have checked with %1: %2 %3 so far. We will write to you again once this is "
                       "settled.")
                       .arg(words.system, words.thing, words.notDone);
    } else {
        body = QStringLiteral("%1 that %2 %3%4.")
                       .arg(attested ? QStringLiteral("We have checked")
                                     : QStringLiteral("We have confirmed with %1").arg(words.system),
                            words.thing, words.done,
                            // A person's check names where they looked, not a record the customer could cite.
                            escalation.reference.isEmpty() || attested
                                    ? QString()
                                    : QStringLiteral(" (reference %1)").arg(escalation.reference));
    }
    body.replace(0, 1, body.at(0).toUpper());
    return letter(escalation.customerName, body);
}

QString draftCustomerMessage(const QString &customerName, const QList<RefundFact> &sameIntent,
                             std::optional<Resolution> settled, bool attested)
{
    QList<RefundFact> performed;
    for (const RefundFact &fact : sameIntent) {
        if (fact.performed)
            performed.append(fact);
    }
    std::sort(performed.begin(), performed.end(),
              [](const RefundFact &a, const RefundFact &b) { return a.at < b.at; });
    const RefundFact any = sameIntent.isEmpty() ? RefundFact{} : sameIntent.first();
    const QString amount = formatMoney(any.amountCents, any.currency);
    // Another call of the intent still unknown may have made a further refund: the count
    // given is of the known ones, and the customer hears that the rest is being checked.
    const bool moreUnknown = settled
            && std::any_of(sameIntent.cbegin(), sameIntent.cend(),
                           [](const RefundFact &fact) { return fact.unknown; });
    const QString stillChecking = moreUnknown
            ? QStringLiteral(" We are still checking with our payment provider "
                             "whether a further refund went out in error; we "
                             "will write again as soon as we know.")
            : QString();

    QString body;
    if (performed.size() > 1) {
        const qsizetype extra = performed.size() - 1;
        body = QStringLiteral("One refund of %1 was made to your original payment method on %2. ")
                        .arg(formatMoney(performed.first().amountCents, performed.first().currency),
                             dayAndMonth(performed.first().at))
                + (extra == 1 ? QStringLiteral("A second refund of the same amount was made in error; we are "
                                               "recovering it, and you do not need to do anything.")
                              : QStringLiteral(
                                        "%1 further refunds of the same amount were made in error; we are "
                                        "recovering them, and you do not need to do anything.")
                                        .arg(extra))
                + stillChecking;
    } else if (performed.size() == 1 && !settled) {
        // This call is still unknown: what is known is one refund, and nothing is claimed of the
        // provider before anyone has asked it.
        body = QStringLiteral("One refund of %1 was made to your original payment method on %2. We are "
                              "checking with "
                              "our payment provider whether a further refund went out in error; we will "
                              "write again as "
                              "soon as we know.")
                       .arg(formatMoney(performed.first().amountCents, performed.first().currency),
                            dayAndMonth(performed.first().at));
    } else if (performed.size() == 1) {
        body = QStringLiteral(
                       "%1 that one refund of %2 was made to your original payment method on %3. You should "
                       "see it within 3 to 5 working days of that date.")
                        .arg(attested ? QStringLiteral("We have checked")
                                      : QStringLiteral("We have confirmed with our payment provider"),
                             formatMoney(performed.first().amountCents, performed.first().currency),
                             dayAndMonth(performed.first().at))
                + stillChecking;
    } else if (settled == Resolution::NotPerformed && attested) {
        // A person's check is not the provider's word: nothing is stated as fact.
        body = QStringLiteral(
                       "We have not yet been able to confirm a refund of %1. We will write to you again once "
                       "this is settled.")
                       .arg(amount);
    } else if (settled == Resolution::NotPerformed) {
        // Nothing is promised: whether and when it is made is decided after this message.
        body = QStringLiteral("We have checked with our payment provider: the refund of %1 has not been made "
                              "so far. "
                              "We will write to you again once this is settled.")
                       .arg(amount);
    } else {
        body = QStringLiteral(
                       "Your refund of %1 is being confirmed with our payment provider; we will write again "
                       "as soon as we know.")
                       .arg(amount);
    }
    return letter(customerName, body);
}

Expected<QString> customerDraftFor(EscalationReads &store, const EscalationDetail &escalation)
{
    if (escalation.toolClass != ToolClass::WriteMoney)
        return draftWriteMessage(escalation);
    Expected<QList<TranscriptEntry>> entries = store.transcript(escalation.ticketId);
    if (!entries)
        return entries.error();
    QList<RefundFact> facts;
    for (const TranscriptEntry &entry : std::as_const(*entries)) {
        if (!entry.isToolCall || entry.call.intentKey.isEmpty()
            || entry.call.intentKey != escalation.intentKey)
            continue;
        const ToolCallRow &call = entry.call;
        const bool performed = call.resolution ? (*call.resolution != Resolution::NotPerformed)
                                               : call.outcome == Outcome::Performed;
        qint64 at = call.resultAt.value_or(call.calledAt);
        // A refund performed again from the console was made when the ledger recorded it, not
        // when the agent first asked for it.
        if (call.resolution == Resolution::PerformedAgain) {
            Expected<std::optional<LedgerEntry>> ledger = store.ledgerEntryOfCall(call.id);
            if (ledger && *ledger)
                at = (*ledger)->recordedAt;
        }
        const bool unknown = !call.resolution && call.outcome == Outcome::Unknown;
        facts.append({call.amountCents.value_or(0), escalation.currency, at, performed, unknown});
    }
    const std::optional<Resolution> settled = escalation.state == EscalationState::Resolved
            ? escalation.resolution
            : std::optional<Resolution>();
    return draftCustomerMessage(escalation.customerName, facts, settled,
                                escalation.basis == SettlementBasis::Attestation);
}

} // namespace verity

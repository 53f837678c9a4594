#include "customerdraft.h"

#include "domain/money.h"
#include "pickupwindow.h"
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
    // The name as the agent's data gave it, less any control or formatting character: a
    // right-to-left override would turn the rest of the line around in the customer's mail.
    QString name;
    for (const QChar c : customerName) {
        if (c.category() != QChar::Other_Control && c.category() != QChar::Other_Format)
            name.append(c);
    }
    name = name.trimmed().section(u' ', 0, 0);
    return name.isEmpty() ? QStringLiteral("Hello,") : QStringLiteral("Hello %1,").arg(name);
}

// An apology only where there is confusion to be sorry for: the customer was told something the
// evidence now contradicts, or sees more refunds than they were told of.
QString letter(const QString &customerName, const QString &body, bool apologise)
{
    return greeting(customerName) + QStringLiteral("\n\n") + body
            + (apologise ? QStringLiteral("\n\nSorry for the confusion.") : QString());
}

const QString stillCheckingEnd = QStringLiteral(" We will write to you again as soon as we know.");

// What a pickup or a message is, in the customer's words.
struct WriteWords
{
    QString thing; // "the collection of your order SU-88316"
    QString done; // "is booked for Thu 2 Apr, 08:00-12:00"
    QString whether; // "has been booked": after "whether", while nobody knows yet
    QString notYet; // "has not been booked yet"
    QString next; // what we will do about it, and that we will confirm it
};

WriteWords wordsFor(const EscalationDetail &escalation, const QString &pickupWindow)
{
    const QString order = escalation.orderId.isEmpty()
            ? QStringLiteral("your order")
            : QStringLiteral("your order %1").arg(escalation.orderId);
    // A write made again from the console was made when it was settled, not when it was asked.
    const QString day =
            dayAndMonth(escalation.resolution == Resolution::PerformedAgain ? escalation.resolvedAt
                                                                            : escalation.calledAt);
    if (escalation.tool == u"schedule_pickup")
        return {QStringLiteral("the collection of %1").arg(order),
                pickupWindow.isEmpty() ? QStringLiteral("is booked")
                                       : QStringLiteral("is booked for %1").arg(pickupWindow),
                QStringLiteral("has been booked"), QStringLiteral("has not been booked yet"),
                QStringLiteral("We will book it and write to you again with the collection time.")};
    if (escalation.tool == u"message_seller")
        return {QStringLiteral("our message to the seller about %1").arg(order),
                QStringLiteral("was sent on %1").arg(day), QStringLiteral("was sent"),
                QStringLiteral("has not been sent yet"),
                QStringLiteral("We will send it and write to you again once it has gone.")};
    return {QStringLiteral("the request we made about %1").arg(order),
            QStringLiteral("went through on %1").arg(day), QStringLiteral("went through"),
            QStringLiteral("has not gone through yet"),
            QStringLiteral("We will put it through and write to you again once it has.")};
}

// The sentences of a refund draft, and whether there is confusion to be sorry for.
struct RefundBody
{
    QString text;
    bool apologise = false;
};

// " of $118.00", or nothing when the amount is not known (one the import could not read): a
// customer is never told of a refund of $0.00.
QString ofAmount(const RefundFact &fact)
{
    return fact.amountCents > 0 ? QStringLiteral(" of %1").arg(formatMoney(fact.amountCents, fact.currency))
                                : QString();
}

// `lead` says on whose word ("We have confirmed that"); empty, the refunds are only stated.
RefundBody refundsMade(const QList<RefundFact> &performed, const QString &lead)
{
    const RefundFact &first = performed.first();
    const QString amount = ofAmount(first);
    const QString made = QStringLiteral("%1 refund%2 was made to your original payment method on %3.")
                                 .arg(lead.isEmpty() ? QStringLiteral("One") : lead + QStringLiteral(" one"),
                                      amount, dayAndMonth(first.at));
    if (performed.size() == 1) {
        return {made + QStringLiteral(" You should see it within 3 to 5 working days of that date."),
                first.reportedNotPerformed};
    }
    QStringList days;
    for (qsizetype i = 1; i < performed.size(); ++i) {
        if (const QString day = dayAndMonth(performed.at(i).at); !days.contains(day))
            days.append(day);
    }
    const qsizetype extra = performed.size() - 1;
    // Nothing is said of taking it back: that is finance's decision, made after this message.
    const QString further = extra == 1
            ? QStringLiteral("A second refund of the same amount was also made on %1, in error, so you "
                             "may see two refunds%2.")
                      .arg(days.join(QStringLiteral(" and ")), amount)
            : QStringLiteral("%1 further refunds of the same amount were also made on %2, in error, so "
                             "you may see %3 refunds%4.")
                      .arg(QString::number(extra), days.join(QStringLiteral(" and ")),
                           QString::number(performed.size()), amount);
    return {made + u' ' + further
                    + QStringLiteral(
                            " You do not need to do anything now; our team will contact you if anything "
                            "is needed."),
            true};
}

} // namespace

QString draftWriteMessage(const EscalationDetail &escalation, const QString &pickupWindow)
{
    const WriteWords words = wordsFor(escalation, pickupWindow);
    if (escalation.state != EscalationState::Resolved || !escalation.resolution) {
        return letter(escalation.customerName,
                      QStringLiteral("We are still checking whether %1 %2.").arg(words.thing, words.whether)
                              + stillCheckingEnd,
                      false);
    }
    if (*escalation.resolution == Resolution::NotPerformed) {
        // Settled: it is still owed, and the next step is ours.
        return letter(
                escalation.customerName,
                QStringLiteral("We have checked, and %1 %2. %3").arg(words.thing, words.notYet, words.next),
                false);
    }
    // A person's check is not the system's word: checked, not confirmed.
    const bool attested = escalation.basis == SettlementBasis::Attestation;
    return letter(
            escalation.customerName,
            QStringLiteral("%1 that %2 %3.")
                    .arg(attested ? QStringLiteral("We have checked") : QStringLiteral("We have confirmed"),
                         words.thing, words.done),
            escalation.reported == Outcome::NotPerformed);
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
    const QString amount = ofAmount(any);
    // Another call of the intent still unknown may have made a further refund: the count
    // given is of the known ones, and the customer hears that the rest is being checked.
    const bool moreUnknown = std::any_of(sameIntent.cbegin(), sameIntent.cend(),
                                         [](const RefundFact &fact) { return fact.unknown; });

    RefundBody body;
    if (performed.size() > 1 || (performed.size() == 1 && settled)) {
        // Settled by a person's check, it is checked, not confirmed; while open, it is a
        // call's own result, and nothing is claimed to have been confirmed.
        body = refundsMade(performed,
                           !settled           ? QString()
                                   : attested ? QStringLiteral("We have checked that")
                                              : QStringLiteral("We have confirmed that"));
        if (moreUnknown)
            body.text += QStringLiteral(" We are still checking whether a further refund was made in error.")
                    + stillCheckingEnd;
    } else if (performed.size() == 1) {
        // This call is still unknown: what is known is one refund, made by another call.
        const RefundFact &made = performed.first();
        body = {QStringLiteral("One refund%1 was made to your original payment method on %2. We are still "
                               "checking whether a second refund was also made in error.")
                                .arg(ofAmount(made), dayAndMonth(made.at))
                        + stillCheckingEnd,
                made.reportedNotPerformed};
    } else if (settled == Resolution::NotPerformed && !moreUnknown) {
        // Settled: the refund is still owed, and the next step is ours.
        body.text =
                QStringLiteral("We have checked, and your refund%1 has not been made yet. We will make it "
                               "to your original payment method and write to you again once it has gone "
                               "through.")
                        .arg(amount);
    } else {
        // Open, or proved absent for this call while another of the intent may have made it.
        body.text = QStringLiteral("We are still checking whether your refund%1 has been made.").arg(amount)
                + stillCheckingEnd;
    }
    return letter(customerName, body.text, body.apologise);
}

namespace {

// The calls of the escalation's intent on its ticket (the escalated call among them).
Expected<QList<ToolCallRow>> callsOfIntent(EscalationReads &store, const EscalationDetail &escalation)
{
    Expected<QList<TranscriptEntry>> entries = store.transcript(escalation.ticketId);
    if (!entries)
        return entries.error();
    QList<ToolCallRow> calls;
    for (const TranscriptEntry &entry : std::as_const(*entries)) {
        if (!entry.isToolCall)
            continue;
        const bool sameIntent =
                !entry.call.intentKey.isEmpty() && entry.call.intentKey == escalation.intentKey;
        if (sameIntent || entry.call.id == escalation.callId)
            calls.append(entry.call);
    }
    return calls;
}

Expected<QString> writeDraftFor(EscalationReads &store, const EscalationDetail &escalation)
{
    if (escalation.tool != u"schedule_pickup")
        return draftWriteMessage(escalation);
    Expected<QList<ToolCallRow>> calls = callsOfIntent(store, escalation);
    if (!calls)
        return calls.error();
    Expected<QList<Evidence>> evidence = store.evidence(escalation.id);
    if (!evidence)
        return evidence.error();
    return draftWriteMessage(escalation, pickupWindow(*evidence, *calls));
}

} // namespace

Expected<QString> customerDraftFor(EscalationReads &store, const EscalationDetail &escalation)
{
    if (escalation.toolClass != ToolClass::WriteMoney)
        return writeDraftFor(store, escalation);
    Expected<QList<ToolCallRow>> calls = callsOfIntent(store, escalation);
    if (!calls)
        return calls.error();
    QList<RefundFact> facts;
    for (const ToolCallRow &call : std::as_const(*calls)) {
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
        facts.append({call.amountCents.value_or(0), escalation.currency, at, performed, unknown,
                      call.outcome == Outcome::NotPerformed});
    }
    const std::optional<Resolution> settled = escalation.state == EscalationState::Resolved
            ? escalation.resolution
            : std::optional<Resolution>();
    return draftCustomerMessage(escalation.customerName, facts, settled,
                                escalation.basis == SettlementBasis::Attestation);
}

} // namespace verity

#include "escalationtext.h"

#include "domain/money.h"
#include "provider/providerclient.h"

#include <QDateTime>

namespace verity {

QString isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODate);
}

namespace {

QString amountOf(const EscalationDetail &escalation)
{
    return escalation.amountCents ? formatMoney(*escalation.amountCents, escalation.currency) : QString();
}

} // namespace

QString escalationHeading(const EscalationDetail &escalation)
{
    QStringList parts{QStringLiteral("%1 %2").arg(escalation.tool, escalation.callExtId)};
    if (escalation.amountCents)
        parts << amountOf(escalation);
    parts << escalation.ticketExtId;
    if (!escalation.customerName.isEmpty())
        parts << escalation.customerName;
    if (!escalation.orderId.isEmpty())
        parts << QStringLiteral("order %1").arg(escalation.orderId);
    if (!escalation.sellerName.isEmpty())
        parts << escalation.sellerName;
    return parts.join(QStringLiteral(" · "));
}

QList<std::pair<QString, QString>> escalationFacts(const EscalationDetail &escalation)
{
    const auto orNone = [](const QString &text) {
        return text.isEmpty() ? QStringLiteral("(none named)") : text;
    };
    QList<std::pair<QString, QString>> facts{
            {QStringLiteral("Ticket"), escalation.ticketExtId},
            {QStringLiteral("Customer"), orNone(escalation.customerName)},
            {QStringLiteral("Order"), orNone(escalation.orderId)},
            {QStringLiteral("Seller"), orNone(escalation.sellerName)},
            {QStringLiteral("Tool"), escalation.tool},
            {QStringLiteral("Call"),
             QStringLiteral("%1, made %2").arg(escalation.callExtId, isoTime(escalation.calledAt))},
    };
    if (escalation.amountCents)
        facts.append({QStringLiteral("Amount"),
                      QStringLiteral("%1 (%2)").arg(amountOf(escalation), escalation.currency)});
    facts.append({QStringLiteral("Escalation"), QString::number(escalation.id)});
    return facts;
}

QString settledByText(const QString &by, qint64 at, Resolution resolution, SettlementBasis basis)
{
    return QStringLiteral("Already settled by %1 at %2: %3.")
            .arg(by, isoTime(at), settlementText(resolution, basis));
}

bool standsOnACheck(const EscalationDetail &escalation)
{
    return escalation.state != EscalationState::Open && escalation.basis == SettlementBasis::Attestation;
}

QString replacedCheckText(const EscalationDetail &escalation)
{
    if (!standsOnACheck(escalation))
        return {};
    return QStringLiteral("the check %1 recorded at %2 (%3)")
            .arg(escalation.resolvedBy, isoTime(escalation.resolvedAt),
                 settlementText(escalation.resolution.value_or(Resolution::Performed),
                                SettlementBasis::Attestation));
}

QString withReplacedCheck(QString detail, const QString &replaces)
{
    if (replaces.isEmpty())
        return detail;
    if (!detail.endsWith(u'.'))
        detail += u'.';
    return detail + replaces;
}

QString paymentText(const RefundIntent &intent)
{
    QString text = QStringLiteral("%1 (%2)").arg(intent.paymentIntent, intent.paymentSource);
    if (!intent.account.isEmpty())
        text += QStringLiteral(" on the seller's account %1").arg(intent.account);
    return text;
}

QString repeatConfirmationText(const EscalationDetail &escalation, const QUrl &endpoint,
                               const QString &system, const QString &keyExpiry, const QString &keyKind,
                               const QString &payment, bool lookupFirst)
{
    QStringList lines;
    lines << (escalation.amountCents
                      ? QStringLiteral("Send a refund of %1 (%2) once more, with the same intent key?")
                                .arg(amountOf(escalation), escalation.currency)
                      : QStringLiteral("Send %1 once more, with the same intent key?").arg(escalation.tool));
    lines << QString();
    for (const auto &[label, value] : escalationFacts(escalation))
        lines << QStringLiteral("%1: %2").arg(label, value);
    if (!payment.isEmpty())
        lines << QStringLiteral("Payment refunded: %1").arg(payment);
    lines << QStringLiteral("Intent key: %1").arg(escalation.intentKey);
    lines << QStringLiteral("Sent to: %1 (%2)").arg(endpoint.toString(QUrl::RemoveUserInfo), system);
    if (!keyKind.isEmpty())
        lines << QStringLiteral("With: %1").arg(keyKind);
    lines << QString();
    if (lookupFirst)
        // A person's word that it is not there is not the system's: the system is asked first.
        lines << QStringLiteral(
                         "A person's check found it not performed; %1 has not said so. Before anything "
                         "is sent, %1 is asked with the same key: if it has a record of this intent, "
                         "the write is settled as performed and nothing is sent. Only if it has none is "
                         "this sent, once.")
                         .arg(system)
              << QString();
    if (!keyExpiry.isEmpty()) {
        lines << QStringLiteral("The key no longer protects this write: %1, so it will not recognise a "
                                "repeat. Verity looks it up again immediately before sending, and sends "
                                "only if that lookup finds none; both are kept as evidence.")
                         .arg(keyExpiry);
        return lines.join(u'\n');
    }
    // What protects this send is the lookup just made; the key only while the system still keeps
    // it (a provider forgets keys after a while, Stripe's after 24 hours).
    // After a check, the lookup is still to come: the paragraph above says what it decides.
    const QString found = lookupFirst
            ? QString()
            : QStringLiteral("A lookup found no record of this intent at %1. ").arg(system);
    lines << found
                    + QStringLiteral(
                              "The same key lets %1 recognise a repeat only while it still keeps the key "
                              "(many forget keys after 24 hours): the lookup is what shows this is not a "
                              "second effect.")
                              .arg(system);
    return lines.join(u'\n');
}

} // namespace verity

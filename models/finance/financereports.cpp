#include "financereports.h"

#include "domain/displaytext.h"
#include "domain/money.h"
#include "finance/csvtable.h"
#include "finance/payoutrecovery.h"
#include "store/sqlitefilelocks.h"

#include <QDateTime>
#include <QSaveFile>

#include <algorithm>

namespace verity {

namespace {

QString centsText(const std::optional<qint64> &cents)
{
    return cents ? QString::number(*cents) : QString();
}

QString moneyText(const std::optional<qint64> &cents, const QString &currency)
{
    return cents ? formatMoney(*cents, currency) : QString();
}

QString ticketOf(const PayoutEvent &event)
{
    return event.payout        ? event.payout->ticketExtId
            : event.atProvider ? event.atProvider->ticketExtId
                               : QString();
}

QString intentKeyOf(const ReconRow &row)
{
    if (row.ledger && !row.ledger->intentKey.isEmpty())
        return row.ledger->intentKey;
    return row.provider ? row.provider->intentKey : QString();
}

Expected<void> save(const QString &path, const QByteArray &bytes)
{
    if (Expected<void> free = refuseToOverwriteDatabase(path); !free)
        return free;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return makeError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    if (file.write(bytes) != bytes.size() || !file.commit())
        return makeError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

} // namespace

QByteArray reconciliationCsv(const Reconciliation &reconciliation)
{
    const Period &period = reconciliation.period;
    const QString currency = reconciliation.currency;
    const auto day = [](qint64 ms) {
        return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).date().toString(Qt::ISODate);
    };
    QByteArray csv = csvLine({QStringLiteral("field"), QStringLiteral("value")});
    csv += csvLine({QStringLiteral("report"), QStringLiteral("Verity reconciliation")});
    csv += csvLine({QStringLiteral("period"), periodText(period)});
    csv += csvLine({QStringLiteral("period_from"), day(period.fromMs)});
    csv += csvLine({QStringLiteral("period_to"), day(qMax(period.fromMs, period.toMs - 1))}); // included
    csv += csvLine({QStringLiteral("source"), reconciliation.source});
    csv += csvLine({QStringLiteral("currency"), currency});
    csv += csvLine({QStringLiteral("generated_at"), isoUtcTime(reconciliation.generatedAt)});
    csv += "\r\n";

    csv += csvLine({QStringLiteral("total"), QStringLiteral("rows"), QStringLiteral("ledger_cents"),
                    QStringLiteral("ledger_amount"), QStringLiteral("provider_cents"),
                    QStringLiteral("provider_amount")});
    const ReconTotals &totals = reconciliation.totals;
    qint64 rows = 0;
    qint64 ledgerCents = 0;
    qint64 providerCents = 0;
    const auto totalLine = [&currency](const QString &name, qint64 count, qint64 ledger, qint64 provider) {
        return csvLine({name, QString::number(count), QString::number(ledger), formatMoney(ledger, currency),
                        QString::number(provider), formatMoney(provider, currency)});
    };
    for (int i = 0; i < reconCategoryCount; ++i) {
        const auto index = std::size_t(i);
        csv += totalLine(reconCategoryId(ReconCategory(i)), totals.count[index], totals.ledgerCents[index],
                         totals.providerCents[index]);
        rows += totals.count[index];
        ledgerCents += totals.ledgerCents[index];
        providerCents += totals.providerCents[index];
    }
    csv += totalLine(QStringLiteral("all"), rows, ledgerCents, providerCents);
    csv += "\r\n";

    csv += csvLine({QStringLiteral("category"),
                    QStringLiteral("seller_id"),
                    QStringLiteral("seller_name"),
                    QStringLiteral("ticket"),
                    QStringLiteral("call"),
                    QStringLiteral("intent_key"),
                    QStringLiteral("ledger_refund_id"),
                    QStringLiteral("provider_refund_id"),
                    QStringLiteral("currency"),
                    QStringLiteral("ledger_cents"),
                    QStringLiteral("ledger_amount"),
                    QStringLiteral("provider_cents"),
                    QStringLiteral("provider_amount"),
                    QStringLiteral("ledger_at"),
                    QStringLiteral("provider_created_at"),
                    QStringLiteral("provider_status"),
                    QStringLiteral("matched_by"),
                    QStringLiteral("note"),
                    QStringLiteral("paid_twice"),
                    QStringLiteral("balance_difference_cents")});
    const QHash<qsizetype, qint64> shares = differenceShareByRow(reconciliation);
    for (qsizetype i = 0; i < reconciliation.rows.size(); ++i) {
        const ReconRow &row = reconciliation.rows.at(i);
        const std::optional<qint64> ledger =
                row.ledger ? std::optional(row.ledger->amountCents) : std::nullopt;
        const std::optional<qint64> provider =
                row.provider ? std::optional(row.provider->amountCents) : std::nullopt;
        csv += csvLine({reconCategoryId(row.category),
                        row.sellerId,
                        row.sellerName,
                        row.ticketExtId,
                        row.callExtId,
                        intentKeyOf(row),
                        row.ledger ? row.ledger->refundId : QString(),
                        row.provider ? row.provider->id : QString(),
                        row.currency,
                        centsText(ledger),
                        moneyText(ledger, row.currency),
                        centsText(provider),
                        moneyText(provider, row.currency),
                        row.ledger ? isoUtcTime(row.ledger->at) : QString(),
                        row.provider ? isoUtcTime(row.provider->createdMs) : QString(),
                        row.provider ? row.provider->status.text() : QString(),
                        row.matchedBy,
                        row.note,
                        row.paidTwice ? QStringLiteral("yes") : QStringLiteral("no"),
                        centsText(shares.contains(i) ? std::optional(shares.value(i)) : std::nullopt)});
    }
    return csv;
}

QByteArray duplicatesCsv(const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks)
{
    const QHash<QString, PayoutMark> current = currentMarks(marks);
    QByteArray csv = csvLine({QStringLiteral("duplicate_key"),
                              QStringLiteral("basis"),
                              QStringLiteral("seller_id"),
                              QStringLiteral("seller_name"),
                              QStringLiteral("order_id"),
                              QStringLiteral("currency"),
                              QStringLiteral("amount_at_risk_cents"),
                              QStringLiteral("amount_at_risk"),
                              QStringLiteral("span_ms"),
                              QStringLiteral("confirmed_at_provider"),
                              QStringLiteral("refund"),
                              QStringLiteral("ticket"),
                              QStringLiteral("call"),
                              QStringLiteral("refund_id"),
                              QStringLiteral("at"),
                              QStringLiteral("amount_cents"),
                              QStringLiteral("amount"),
                              QStringLiteral("verity_effect"),
                              QStringLiteral("provider_status"),
                              QStringLiteral("recovery_state"),
                              QStringLiteral("recovery_by"),
                              QStringLiteral("recovery_at"),
                              QStringLiteral("recovery_note")});
    for (const DuplicatePayout &duplicate : duplicates) {
        const auto mark = current.constFind(duplicate.key);
        const bool marked = mark != current.constEnd();
        for (qsizetype i = 0; i < duplicate.events.size(); ++i) {
            const PayoutEvent &event = duplicate.events.at(i);
            const QString refundId = event.atProvider ? event.atProvider->id
                    : event.payout                    ? event.payout->refundId
                                                      : QString();
            csv += csvLine({duplicate.key,
                            duplicateBasisText(duplicate.basis),
                            duplicate.sellerId,
                            duplicate.sellerName,
                            duplicate.orderId,
                            duplicate.currency,
                            QString::number(duplicate.amountAtRiskCents),
                            formatMoney(duplicate.amountAtRiskCents, duplicate.currency),
                            QString::number(duplicate.spanMs),
                            duplicate.confirmedAtProvider ? QStringLiteral("yes") : QStringLiteral("no"),
                            QString::number(i + 1),
                            ticketOf(event),
                            event.payout ? event.payout->callExtId : QString(),
                            refundId,
                            isoUtcTime(event.at()),
                            QString::number(event.amountCents()),
                            formatMoney(event.amountCents(), duplicate.currency),
                            event.payout ? payoutEffectId(event.payout->effect) : QString(),
                            event.atProvider ? event.atProvider->status.text() : QString(),
                            marked ? recoveryStateId(mark->state) : QString(),
                            marked ? mark->operatorName : QString(),
                            marked ? isoUtcTime(mark->at) : QString(),
                            marked ? mark->note : QString()});
        }
    }
    return csv;
}

Expected<void> writeReconciliationCsv(const QString &path, const Reconciliation &reconciliation)
{
    return save(path, reconciliationCsv(reconciliation));
}

Expected<void> writeDuplicatesCsv(const QString &path, const QList<DuplicatePayout> &duplicates,
                                  const QList<PayoutMark> &marks)
{
    return save(path, duplicatesCsv(duplicates, marks));
}

} // namespace verity

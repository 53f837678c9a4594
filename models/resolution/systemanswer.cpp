#include "systemanswer.h"

#include "domain/money.h"
#include "provider/providerhttp.h"

#include <QDateTime>

namespace verity {

SystemRecord systemRecordOf(const ProviderRefund &refund)
{
    return {refund.id,          refund.createdMs, refund.status, providerhttp::describeRefund(refund),
            refund.amountCents, refund.currency};
}

SystemRecord systemRecordOf(const FoundRecord &record)
{
    QString description = record.id;
    QStringList facts;
    if (!record.status.isEmpty())
        facts << record.status.text();
    if (record.createdMs > 0)
        facts << QStringLiteral("created %1")
                         .arg(QDateTime::fromMSecsSinceEpoch(record.createdMs, Qt::UTC)
                                      .toString(Qt::ISODate));
    if (!facts.isEmpty())
        description += QStringLiteral(" (%1)").arg(facts.join(QStringLiteral(", ")));
    return {record.id, record.createdMs, record.status, description, 0, QString()};
}

SystemAnswer systemAnswerOf(const LookupAnswer &refunds)
{
    SystemAnswer answer{refunds.verdict, {}, refunds.reason, refunds.exchanges};
    for (const ProviderRefund &refund : refunds.withKey)
        answer.records.append(systemRecordOf(refund));
    return answer;
}

SystemAnswer systemAnswerOf(const RecordLookupAnswer &records)
{
    SystemAnswer answer{records.verdict, {}, records.reason, records.exchanges};
    for (const FoundRecord &record : records.records)
        answer.records.append(systemRecordOf(record));
    return answer;
}

WriteOutcome writeOutcomeOf(const SafeWriteResult &refund)
{
    WriteOutcome outcome{refund.outcome, std::nullopt, refund.note, refund.exchanges};
    if (refund.refund && !refund.refund->id.isEmpty())
        outcome.record = systemRecordOf(*refund.refund);
    return outcome;
}

bool didNotGoThrough(const SystemRecord &record)
{
    return record.status.didNotGoThrough();
}

} // namespace verity

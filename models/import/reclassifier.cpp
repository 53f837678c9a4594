#include "reclassifier.h"

#include "domain/intentkey.h"
#include "domain/jsontext.h"
#include "domain/money.h"
#include "domain/resultclassifier.h"
#include "store/reassessment.h"
#include "store/store.h"

#include <QSet>

#include <nlohmann/json.hpp>

namespace verity {

using nlohmann::json;

namespace {

CallClassification classify(const StoredCall &call, const ToolRegistry &registry)
{
    CallClassification c;
    c.callId = call.id;
    const ToolSpec *spec = registry.find(call.tool);
    c.toolClass = spec ? spec->toolClass : ToolClass::Unclassified;
    const json arguments = json::parse(call.argumentsJson.toStdString(), nullptr, false);
    const json result = call.hasResult ? json::parse(call.rawResult.toStdString(), nullptr, false) : json();
    if (!spec || !isWrite(spec->toolClass)) {
        if (call.hasResult)
            c.readFailed = resultLooksLikeError(result, call.resultError);
        return c;
    }
    const WriteKey key = writeKey(*spec, arguments.is_object() ? arguments : json::object(), call.facts);
    c.intentKey = key.key;
    c.intentError = key.fromAllArgumentsBecause;
    // Stored before its tool was known, so never checked: a bad amount is no money.
    const Expected<std::optional<qint64>> amount = readAmount(*spec, arguments);
    if (amount)
        c.amountCents = *amount;
    else
        c.amountError = amount.message();
    const WriteVerdict verdict = classifyWriteResult(call.hasResult ? &result : nullptr,
                                                     registry.outcomeRules(), call.resultError);
    c.outcome = verdict.outcome;
    c.outcomeReason = verdict.reason;
    return c;
}

} // namespace

Expected<Reclassification> reclassifyTool(ClassificationStore &store, const RegistrySelection &registries,
                                          const QString &tool)
{
    Reclassification done;
    if (Expected<void> begun = store.begin(); !begun)
        return begun.error();
    auto fail = [&store](const Error &error) {
        store.rollback();
        return Expected<Reclassification>(error);
    };
    Expected<QList<StoredCall>> calls = store.unclassifiedCalls(tool);
    if (!calls)
        return fail(calls.error());
    QList<qint64> tickets;
    QSet<qint64> seen;
    for (const StoredCall &call : std::as_const(*calls)) {
        const CallClassification c = classify(call, registries.byName(call.registry).registry);
        if (c.toolClass == ToolClass::Unclassified)
            continue; // the registry in force for this ticket still does not know the tool
        if (Expected<void> written = store.reclassifyCall(c); !written)
            return fail(written.error());
        ++done.calls;
        if (!seen.contains(call.ticketId)) {
            seen.insert(call.ticketId);
            tickets.append(call.ticketId);
        }
    }
    for (qint64 ticket : std::as_const(tickets)) {
        Expected<RepeatCounts> before = reassessTicket(store, ticket);
        if (!before)
            return fail(before.error());
    }
    done.tickets = tickets.size();
    if (Expected<void> committed = store.commit(); !committed)
        return fail(committed.error());
    return done;
}

Expected<QStringList> reclassifyKnownTools(ClassificationStore &store, const RegistrySelection &registries)
{
    Expected<QList<UnclassifiedTool>> tools = store.unclassifiedTools();
    if (!tools)
        return tools.error();
    QStringList done;
    for (const UnclassifiedTool &tool : std::as_const(*tools)) {
        if (!registries.primary().registry.find(tool.tool))
            continue;
        Expected<Reclassification> read = reclassifyTool(store, registries, tool.tool);
        if (!read)
            return read.error();
        if (read->calls > 0)
            done.append(tool.tool);
    }
    return done;
}

} // namespace verity

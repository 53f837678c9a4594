// The sandbox state's idempotency keys and its own small facts (schema version, demo seed).

#include "sandboxstate.h"

#include <QSqlQuery>
#include <QVariant>

namespace verity {

Expected<std::optional<StoredResponse>> SandboxState::storedResponse(const QString &key, qint64 notBeforeMs)
{
    QSqlQuery &expire = prepare("DELETE FROM idempotency_keys WHERE key = ? AND created_ms < ?");
    const Finished expireDone(expire);
    expire.addBindValue(key);
    expire.addBindValue(notBeforeMs);
    if (Expected<void> done = exec(expire, "expiring an idempotency key"); !done)
        return done.error();
    QSqlQuery &query =
            prepare("SELECT request_hash, status, body, created_ms FROM idempotency_keys WHERE key = ?");
    const Finished queryDone(query);
    query.addBindValue(key);
    if (Expected<void> done = exec(query, "reading an idempotency key"); !done)
        return done.error();
    if (!query.next())
        return std::optional<StoredResponse>();
    return std::optional<StoredResponse>(StoredResponse{query.value(0).toString(), query.value(1).toInt(),
                                                        query.value(2).toByteArray(),
                                                        query.value(3).toLongLong()});
}

Expected<void> SandboxState::storeResponse(const QString &key, const StoredResponse &response)
{
    QSqlQuery &insert = prepare("INSERT INTO idempotency_keys (key, request_hash, status, body, created_ms) "
                                "VALUES (?, ?, ?, ?, ?)");
    const Finished insertDone(insert);
    insert.addBindValue(key);
    insert.addBindValue(response.requestHash);
    insert.addBindValue(response.status);
    insert.addBindValue(response.body);
    insert.addBindValue(response.createdMs);
    return exec(insert, "storing the response of an idempotency key");
}

Expected<void> SandboxState::purgeResponses(qint64 notBeforeMs)
{
    QSqlQuery &purge = prepare("DELETE FROM idempotency_keys WHERE created_ms < ?");
    const Finished purgeDone(purge);
    purge.addBindValue(notBeforeMs);
    return exec(purge, "expiring idempotency keys");
}

Expected<QString> SandboxState::meta(const QString &name)
{
    QSqlQuery &query = prepare("SELECT value FROM meta WHERE name = ?");
    const Finished queryDone(query);
    query.addBindValue(name);
    if (Expected<void> done = exec(query, "reading the state's facts"); !done)
        return done.error();
    return query.next() ? query.value(0).toString() : QString();
}

Expected<void> SandboxState::setMeta(const QString &name, const QString &value)
{
    QSqlQuery &query = prepare("INSERT INTO meta (name, value) VALUES (?, ?) "
                               "ON CONFLICT (name) DO UPDATE SET value = excluded.value");
    const Finished queryDone(query);
    query.addBindValue(name);
    query.addBindValue(value);
    return exec(query, "writing the state's facts");
}

} // namespace verity

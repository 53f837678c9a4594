#pragma once
// The sandbox's answers in Stripe's shapes, so that a client written against the sandbox
// reads a real provider the same way: refund, list, balance, balance transaction, account,
// payment intent, pickup and message, and the error object {"error": {type, code, message, param}}. Each is
// the whole body of an answer, written as QJsonDocument::toJson(Indented) writes it.

#include "sandboxjson.h"
#include "sandboxstate.h"

#include <QByteArray>

#include <QLatin1StringView>

namespace verity {

struct SandboxError
{
    int status = 400;
    QString type =
            QStringLiteral("invalid_request_error"); // or api_error, idempotency_error, authentication_error
    QString code; // empty: none
    QString message;
    QString param; // empty: none

    static SandboxError invalid(QString param, QString message, QString code = {});
    static SandboxError missing(QString param, QString message); // resource_missing
};

QByteArray errorBody(const SandboxError &error);
QByteArray refundBody(const SandboxRefund &refund);
QByteArray accountBody(const SandboxAccount &account);
QByteArray paymentIntentBody(const SandboxPayment &payment);
QByteArray balanceBody(qint64 available, const QString &currency);
QByteArray recordBody(const SandboxRecord &record);

// One object of a list, for listBody.
void writeRefund(SandboxJson &json, const SandboxRefund &refund);
void writePaymentIntent(SandboxJson &json, const SandboxPayment &payment);
void writeBalanceTransaction(SandboxJson &json, const SandboxBalanceTransaction &transaction);
// {"created", "id", "metadata", "object", "order"} and the kind's own fields, an optional one
// it was not given as null: {"item": null}.
void writeRecord(SandboxJson &json, const SandboxRecord &record);

// The "data" array of a list or a search result, its key included.
template<typename T>
void writeData(SandboxJson &json, const QList<T> &items, void (*write)(SandboxJson &, const T &))
{
    json.key(QLatin1StringView("data"));
    json.beginArray();
    for (const T &item : items)
        write(json, item);
    json.endArray();
}

// Stripe's list: {"data": [...], "has_more": ..., "object": "list", "url": ...}.
template<typename T>
QByteArray listBody(const QList<T> &items, void (*write)(SandboxJson &, const T &), bool hasMore,
                    QLatin1StringView url)
{
    SandboxJson json(256 + 640 * items.size()); // a refund is about 500 bytes
    json.beginObject();
    writeData(json, items, write);
    json.key(QLatin1StringView("has_more"));
    json.boolean(hasMore);
    json.key(QLatin1StringView("object"));
    json.string(QLatin1StringView("list"));
    json.key(QLatin1StringView("url"));
    json.string(url);
    json.endObject();
    return json.take();
}

// Stripe's search result: {"data": [...], "has_more", "next_page" (null on the last page),
// "object": "search_result", "url"}.
template<typename T>
QByteArray searchBody(const QList<T> &items, void (*write)(SandboxJson &, const T &), const QString &nextPage,
                      QLatin1StringView url)
{
    SandboxJson json(256 + 640 * items.size());
    json.beginObject();
    writeData(json, items, write);
    json.key(QLatin1StringView("has_more"));
    json.boolean(!nextPage.isEmpty());
    json.key(QLatin1StringView("next_page"));
    json.stringOrNull(nextPage);
    json.key(QLatin1StringView("object"));
    json.string(QLatin1StringView("search_result"));
    json.key(QLatin1StringView("url"));
    json.string(url);
    json.endObject();
    return json.take();
}

} // namespace verity

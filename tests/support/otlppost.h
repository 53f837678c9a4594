#pragma once
// Posting to a running `verity collect`: a body, or one timed-out write's tool span as OTLP/JSON.

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QString>
#include <QUrl>

#include <nlohmann/json.hpp>

namespace verity::test {

// A body POSTed to `url`; the answer's HTTP status (0 when none came).
inline int postBody(const QUrl &url, const QByteArray &contentType, const QByteArray &body)
{
    QNetworkAccessManager network;
    QNetworkRequest http(url);
    http.setRawHeader("Content-Type", contentType);
    QNetworkReply *reply = network.post(http, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    delete reply;
    return status;
}

// The answer's HTTP status.
inline int postTimedOutCall(const QString &url, const QString &spanId, const QString &callId,
                            const QString &tool = QStringLiteral("issue_refund"),
                            const QString &conversation = QStringLiteral("conv-outage"))
{
    const auto attribute = [](const char *key, const std::string &value) {
        return nlohmann::json{{"key", key}, {"value", {{"stringValue", value}}}};
    };
    const nlohmann::json span{
            {"traceId", "0123456789abcdef0123456789abcdef"},
            {"spanId", spanId.toStdString()},
            {"name", "execute_tool " + tool.toStdString()},
            {"startTimeUnixNano", "1773940000000000000"},
            {"endTimeUnixNano", "1773940001000000000"},
            {"attributes",
             {attribute("gen_ai.operation.name", "execute_tool"),
              attribute("gen_ai.tool.name", tool.toStdString()),
              attribute("gen_ai.tool.call.id", callId.toStdString()),
              attribute("gen_ai.conversation.id", conversation.toStdString()),
              attribute("gen_ai.tool.call.arguments", "{\"order_id\":\"BW-1\",\"amount_cents\":4500}"),
              attribute("error.type", "timeout")}},
            {"status", {{"code", 2}, {"message", "timeout"}}}};
    const nlohmann::json request{{"resourceSpans", {{{"scopeSpans", {{{"spans", {span}}}}}}}}};
    return postBody(QUrl(url + QStringLiteral("/v1/traces")), "application/json",
                    QByteArray::fromStdString(request.dump()));
}

} // namespace verity::test

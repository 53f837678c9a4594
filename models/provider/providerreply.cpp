#include "providerreply.h"

#include "providerhttp.h"

#include <QDateTime>
#include <QNetworkReply>

namespace verity {

HttpExchange beginExchange(const QByteArray &method, const QNetworkRequest &request, const QByteArray &body)
{
    return HttpExchange{
            QDateTime::currentMSecsSinceEpoch(), 0, providerhttp::describeRequest(method, request, body), {}};
}

ReplyRead readReply(QNetworkReply *reply, HttpExchange &exchange, int timeoutMs)
{
    ReplyRead read;
    // An aborted reply (a transfer timeout) is closed: there is nothing to read.
    read.body = reply->isOpen() ? reply->readAll() : QByteArray();
    read.status = providerhttp::httpStatus(reply);
    if (read.status == 0)
        read.transport = providerhttp::transportReason(reply, timeoutMs);
    exchange.finishedAt = QDateTime::currentMSecsSinceEpoch();
    exchange.response = providerhttp::describeResponse(reply, read.body, read.transport);
    if (read.status != 0)
        exchange.answeredBy = providerhttp::answeredBy(reply);
    return read;
}

void abandonReply(QNetworkReply *reply, QObject *receiver, HttpExchange &exchange)
{
    QObject::disconnect(reply, nullptr, receiver, nullptr);
    reply->abort();
    reply->deleteLater();
    exchange.finishedAt = QDateTime::currentMSecsSinceEpoch();
    exchange.response = QStringLiteral("no HTTP answer: cancelled by the operator");
}

} // namespace verity

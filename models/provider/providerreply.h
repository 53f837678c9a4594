#pragma once
// What the provider's read operations share about one HTTP exchange: writing its
// request down as evidence, reading the reply, abandoning it on a cancel, and waiting for an
// operation from the command line or a test.

#include "httpexchange.h"

#include <QByteArray>
#include <QEventLoop>
#include <QString>

class QNetworkReply;
class QNetworkRequest;

namespace verity {

// The exchange of `request`, started now (the API key redacted).
HttpExchange beginExchange(const QByteArray &method, const QNetworkRequest &request,
                           const QByteArray &body = {});

struct ReplyRead
{
    QByteArray body;
    int status = 0; // 0: no HTTP answer
    QString transport; // why no HTTP answer came; empty when one came
};

// Reads `reply` and completes `exchange` (its finish time, response and the URL that answered).
ReplyRead readReply(QNetworkReply *reply, HttpExchange &exchange, int timeoutMs);

// Stops `reply`, still under way, without telling `receiver`, and completes `exchange` as
// cancelled.
void abandonReply(QNetworkReply *reply, QObject *receiver, HttpExchange &exchange);

// Starts `operation` if need be and blocks (a local event loop) until it has finished.
template<typename Operation>
void runToEnd(Operation *operation)
{
    if (operation->isFinished())
        return;
    QEventLoop loop;
    QObject::connect(operation, &Operation::finished, &loop, &QEventLoop::quit);
    operation->start();
    if (!operation->isFinished())
        loop.exec();
}

} // namespace verity

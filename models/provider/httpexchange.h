#pragma once
// One HTTP exchange as evidence: what was sent and what came back, the API key redacted.

#include <QString>
#include <QUrl>

namespace verity {

struct HttpExchange
{
    qint64 startedAt = 0; // ms since the epoch
    qint64 finishedAt = 0;
    QString request; // method, URL, headers with the API key redacted, body
    QString response; // status line, "Answered by: URL", headers, body; or the transport error
    QUrl answeredBy = {}; // the URL that answered (after a redirect within the origin); empty: no answer
};

} // namespace verity

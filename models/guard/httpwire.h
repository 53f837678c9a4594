#pragma once
// HTTP/1.1 as the guard's front end reads and writes it, no more: a request with a length (MCP's
// clients send one), an answer whole or in chunks, and Server-Sent Events split into events. Kept
// apart from what the guard does with them.

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace verity {

struct HttpRequest
{
    QByteArray method;
    QByteArray path; // without its query
    QHash<QByteArray, QByteArray> headers; // names in lower case
    QByteArray body;
};

enum class HttpRequestProblem { None, Unreadable, TooLarge };

// The next whole request in `buffer`, taken out of it; nullopt while it is not whole yet, or when
// it cannot be read (`problem` then says how).
std::optional<HttpRequest> takeHttpRequest(QByteArray &buffer, qsizetype maxBodyBytes,
                                           HttpRequestProblem &problem);

// A whole answer, with Content-Length.
QByteArray httpResponse(int status, const QByteArray &contentType, const QByteArray &body,
                        const QList<QPair<QByteArray, QByteArray>> &headers = {});
// One chunk of a chunked answer.
QByteArray httpChunk(const QByteArray &data);

// Whether a Host header ("127.0.0.1:8931", "[::1]:8931", "localhost") names this machine.
bool isLoopbackHost(const QByteArray &hostHeader);
// Whether an Origin ("http://localhost:3000") is a page of this machine.
bool isLoopbackOrigin(const QByteArray &origin);

struct SseEvent
{
    QByteArray fields; // its lines other than data, each ending in '\n' (id, event, retry, comments)
    QList<QByteArray> data; // its data lines, without "data:"
    QByteArray raw; // as it came, without the blank line that ended it
};

// The whole events at the front of `stream`, taken out of it; `ended`: the stream is over, and what
// is left is the last event.
QList<SseEvent> takeSseEvents(QByteArray &stream, bool ended);

} // namespace verity

#include "httpwire.h"

#include <QUrl>

namespace verity {

namespace {

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 202:
        return "Accepted";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Content Too Large";
    case 415:
        return "Unsupported Media Type";
    case 502:
        return "Bad Gateway";
    default:
        return "Status";
    }
}

bool isLoopbackName(const QString &host)
{
    return host == QLatin1String("localhost") || host == QLatin1String("127.0.0.1")
            || host == QLatin1String("[::1]") || host == QLatin1String("::1");
}

} // namespace

std::optional<HttpRequest> takeHttpRequest(QByteArray &buffer, qsizetype maxBodyBytes,
                                           HttpRequestProblem &problem)
{
    problem = HttpRequestProblem::None;
    const qsizetype end = buffer.indexOf("\r\n\r\n");
    if (end < 0) {
        if (buffer.size() > 65536)
            problem = HttpRequestProblem::Unreadable;
        return std::nullopt;
    }
    const QList<QByteArray> lines = buffer.left(end).split('\n');
    const QList<QByteArray> start = lines.value(0).trimmed().split(' ');
    if (start.size() != 3 || !start[2].startsWith("HTTP/1.")) {
        problem = HttpRequestProblem::Unreadable;
        return std::nullopt;
    }
    HttpRequest request;
    request.method = start[0];
    request.path = start[1].left(start[1].indexOf('?') < 0 ? start[1].size() : start[1].indexOf('?'));
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        if (colon > 0)
            request.headers.insert(lines[i].left(colon).trimmed().toLower(),
                                   lines[i].mid(colon + 1).trimmed());
    }
    bool valid = true;
    const qint64 length = request.headers.value("content-length", "0").toLongLong(&valid);
    // MCP's clients send a length; a chunked request body is not read.
    if (request.headers.contains("transfer-encoding") || !valid || length < 0) {
        problem = HttpRequestProblem::Unreadable;
        return std::nullopt;
    }
    if (length > maxBodyBytes) {
        problem = HttpRequestProblem::TooLarge;
        return std::nullopt;
    }
    if (buffer.size() < end + 4 + length)
        return std::nullopt;
    request.body = buffer.mid(end + 4, length);
    buffer.remove(0, end + 4 + length);
    return request;
}

QByteArray httpResponse(int status, const QByteArray &contentType, const QByteArray &body,
                        const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    if (!contentType.isEmpty())
        head += "Content-Type: " + contentType + "\r\n";
    for (const auto &[name, value] : headers)
        head += name + ": " + value + "\r\n";
    return head + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

QByteArray httpChunk(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

bool isLoopbackHost(const QByteArray &hostHeader)
{
    QString host = QString::fromLatin1(hostHeader).trimmed().toLower();
    if (host.startsWith(u'['))
        host = host.left(host.indexOf(u']') + 1);
    else if (const qsizetype colon = host.lastIndexOf(u':'); colon > 0)
        host = host.left(colon);
    return isLoopbackName(host);
}

bool isLoopbackOrigin(const QByteArray &origin)
{
    const QString host = QUrl(QString::fromLatin1(origin)).host().toLower();
    return isLoopbackName(host) || isLoopbackName(QStringLiteral("[%1]").arg(host));
}

QList<SseEvent> takeSseEvents(QByteArray &stream, bool ended)
{
    stream.replace("\r\n", "\n");
    QList<SseEvent> events;
    for (;;) {
        qsizetype end = stream.indexOf("\n\n");
        if (end < 0 && ended && !stream.trimmed().isEmpty())
            end = stream.size();
        if (end < 0)
            return events;
        SseEvent event;
        event.raw = stream.left(end);
        stream.remove(0, qMin(end + 2, stream.size()));
        for (const QByteArray &line : event.raw.split('\n')) {
            if (line.startsWith("data:"))
                event.data.append(line.mid(line.startsWith("data: ") ? 6 : 5));
            else
                event.fields += line + '\n';
        }
        events.append(event);
    }
}

} // namespace verity

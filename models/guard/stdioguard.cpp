#include "stdioguard.h"

#include <QTimer>

#include <unistd.h>

#include <cerrno>

namespace verity {

namespace {

// Every whole line of `buffer`, taken out of it; a trailing '\r' is dropped, as MCP's SDKs do.
QList<QByteArray> wholeLines(QByteArray &buffer)
{
    QList<QByteArray> lines;
    qsizetype start = 0;
    for (qsizetype end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n', start)) {
        QByteArray line = buffer.mid(start, end - start);
        if (line.endsWith('\r'))
            line.chop(1);
        if (!line.trimmed().isEmpty())
            lines.append(line);
        start = end + 1;
    }
    buffer.remove(0, start);
    return lines;
}

} // namespace

StdioGuard::StdioGuard(McpRelay::RecorderSource recorder, RelayOptions options, QObject *parent)
    : QObject(parent)
    , m_stdin(STDIN_FILENO, QSocketNotifier::Read)
    , m_relay(std::move(recorder), std::move(options),
              McpRelay::Sinks{[this](const QByteArray &message) { m_server.write(message + '\n'); },
                              [this](const QByteArray &message) { writeClient(message); },
                              [this](const QString &line) { emit logged(line); }})
{
    m_stdin.setEnabled(false);
    connect(&m_stdin, &QSocketNotifier::activated, this, &StdioGuard::readClient);
    m_server.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    connect(&m_server, &QProcess::readyReadStandardOutput, this, &StdioGuard::readServer);
    connect(&m_server, &QProcess::finished, this, &StdioGuard::serverFinished);
}

Expected<void> StdioGuard::start(const QString &program, const QStringList &arguments)
{
    m_server.start(program, arguments);
    if (!m_server.waitForStarted(10000))
        return makeError(QStringLiteral("cannot start %1: %2").arg(program, m_server.errorString()));
    m_stdin.setEnabled(true);
    return {};
}

void StdioGuard::readClient()
{
    char chunk[65536];
    const ssize_t got = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
        return;
    if (got > 0) {
        m_fromClient.append(chunk, got);
        for (const QByteArray &line : wholeLines(m_fromClient))
            m_relay.fromClient(line);
        return;
    }
    // The client closed its end: what it sent last still goes, then the server is asked to end.
    m_stdin.setEnabled(false);
    m_clientGone = true;
    if (!m_fromClient.trimmed().isEmpty())
        m_relay.fromClient(m_fromClient);
    m_fromClient.clear();
    m_relay.connectionLost(QStringLiteral("the client went away"));
    m_server.closeWriteChannel();
    // A server that does not end on its own is stopped, as MCP's stdio shutdown describes.
    QTimer::singleShot(3000, this, [this] {
        if (m_server.state() != QProcess::NotRunning)
            m_server.terminate();
    });
    QTimer::singleShot(6000, this, [this] {
        if (m_server.state() != QProcess::NotRunning)
            m_server.kill();
    });
}

void StdioGuard::readServer()
{
    m_fromServer.append(m_server.readAllStandardOutput());
    for (const QByteArray &line : wholeLines(m_fromServer))
        m_relay.fromServer(line);
}

void StdioGuard::writeClient(const QByteArray &message)
{
    if (m_clientGone)
        return;
    const QByteArray line = message + '\n';
    for (qsizetype written = 0; written < line.size();) {
        const ssize_t done =
                ::write(STDOUT_FILENO, line.constData() + written, size_t(line.size() - written));
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0) {
            m_clientGone = true; // nobody reads any more; what comes is still recorded
            return;
        }
        written += done;
    }
}

void StdioGuard::serverFinished(int exitCode, QProcess::ExitStatus status)
{
    readServer();
    if (!m_fromServer.trimmed().isEmpty())
        m_relay.fromServer(m_fromServer);
    m_fromServer.clear();
    const QString why = status == QProcess::CrashExit ? QStringLiteral("the server crashed")
                                                      : QStringLiteral("the server exited");
    // Ending after the client left is the normal shutdown; any other end is news to whoever
    // configured the server (a wrong command line usually ends at once).
    if (!m_clientGone)
        emit logged(
                status == QProcess::CrashExit
                        ? QStringLiteral("the MCP server %1 crashed; the guard stops").arg(m_server.program())
                        : QStringLiteral("the MCP server %1 exited with status %2; the guard stops")
                                  .arg(m_server.program())
                                  .arg(exitCode));
    m_relay.connectionLost(why);
    emit finished(status == QProcess::CrashExit ? 1 : exitCode);
}

} // namespace verity

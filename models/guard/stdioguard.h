#pragma once
// `verity guard -- COMMAND`: the guard as the stdio MCP server a client starts. It starts
// COMMAND as the real server and relays newline-delimited JSON-RPC between its own stdin and
// stdout and the server's, through an McpRelay; the server's stderr is its own. When the client
// closes stdin, the server's stdin is closed too, and the guard ends with the server.

#include "mcprelay.h"

#include <QObject>
#include <QProcess>
#include <QSocketNotifier>

namespace verity {

class StdioGuard : public QObject
{
    Q_OBJECT
public:
    StdioGuard(McpRelay::RecorderSource recorder, RelayOptions options, QObject *parent = nullptr);

    // Starts `program`; an error says why it could not.
    Expected<void> start(const QString &program, const QStringList &arguments);

signals:
    void logged(const QString &line);
    // The server exited (or could not be kept running): the guard's work is over.
    void finished(int exitCode);

private:
    void readClient();
    void readServer();
    void writeClient(const QByteArray &message);
    void serverFinished(int exitCode, QProcess::ExitStatus status);

    QProcess m_server;
    QSocketNotifier m_stdin;
    McpRelay m_relay;
    QByteArray m_fromClient; // a line not yet whole
    QByteArray m_fromServer;
    bool m_clientGone = false;
};

} // namespace verity

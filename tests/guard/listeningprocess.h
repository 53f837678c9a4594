#pragma once

#include <QDeadlineTimer>
#include <QProcess>

namespace verity::test {

// A process that serves on a port and says where on a line of stdout ("listening on URL"): the
// ledger server over HTTP, the reference server, or `verity guard --listen`.
class ListeningProcess
{
public:
    ListeningProcess(const QString &program, const QStringList &arguments,
                     const QProcessEnvironment &environment, const QString &workingDirectory = QString())
    {
        m_process.setProcessEnvironment(environment);
        if (!workingDirectory.isEmpty())
            m_process.setWorkingDirectory(workingDirectory);
        m_process.start(program, arguments);
        const QDeadlineTimer deadline(20000);
        while (m_url.isEmpty() && !deadline.hasExpired() && m_process.state() != QProcess::NotRunning) {
            m_process.waitForReadyRead(50);
            m_out += m_process.readAllStandardOutput();
            for (const QByteArray &line : m_out.split('\n')) {
                if (line.startsWith("listening on ") && m_out.contains(line + '\n'))
                    m_url = QString::fromUtf8(line.mid(13).trimmed());
            }
        }
    }
    ~ListeningProcess() { stop(); }

    QString url() const { return m_url; }
    QString log()
    {
        m_err += m_process.readAllStandardError();
        return QString::fromUtf8(m_err);
    }
    void stop()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(5000)) {
                m_process.kill();
                m_process.waitForFinished();
            }
        }
        m_err += m_process.readAllStandardError();
    }
    qint64 pid() const { return m_process.processId(); }

private:
    QProcess m_process;
    QByteArray m_out;
    QByteArray m_err;
    QString m_url;
};

} // namespace verity::test

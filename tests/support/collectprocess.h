#pragma once
// A running `verity collect` of the built binary, for the tests that feed it over loopback.

#include <QProcess>
#include <QTest>

#include <csignal>

namespace verity::test {

// A running `verity collect`; stopped with SIGTERM when it goes.
class CollectProcess
{
public:
    CollectProcess(const QString &database, const QString &listen, const QStringList &extra = {})
    {
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start(QStringLiteral(VERITY_BINARY),
                        QStringList{QStringLiteral("collect"), QStringLiteral("--db"), database,
                                    QStringLiteral("--listen"), listen}
                                + extra);
        // Its first line says where it listens.
        (void)QTest::qWaitFor(
                [this] { return m_process.canReadLine() || m_process.state() == QProcess::NotRunning; },
                20000);
        const QString first = QString::fromUtf8(m_process.readLine()).trimmed();
        if (!first.startsWith(QLatin1String("listening on ")))
            qWarning("verity collect did not start: %s %s", qPrintable(first),
                     m_process.readAllStandardError().constData());
        m_url = first.mid(QStringLiteral("listening on ").size());
    }
    ~CollectProcess() { stop(); }

    QString url() const { return m_url; }
    // SIGTERM, as systemd stops it; true when it exited cleanly.
    bool stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return m_process.exitStatus() == QProcess::NormalExit && m_process.exitCode() == 0;
        ::kill(pid_t(m_process.processId()), SIGTERM);
        if (!m_process.waitForFinished(20000)) {
            m_process.kill();
            m_process.waitForFinished();
            return false;
        }
        m_log += QString::fromUtf8(m_process.readAllStandardError());
        return m_process.exitStatus() == QProcess::NormalExit && m_process.exitCode() == 0;
    }
    QString log() const { return m_log; }
    // What it has written to stderr so far (all of it once stopped).
    QString logSoFar()
    {
        m_log += QString::fromUtf8(m_process.readAllStandardError());
        return m_log;
    }

private:
    QProcess m_process;
    QString m_url;
    QString m_log;
};

} // namespace verity::test

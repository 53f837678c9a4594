#pragma once
// `verity sandbox --port 0 ...` run as its own process, for the tests that need the provider
// the way a person starts it (a separate program on loopback) rather than in the test's own
// process. One way to start, wait for and stop it, so each such test cleans up alike.

#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTest>
#include <QUrl>

namespace verity::test {

class SandboxProcess
{
public:
    explicit SandboxProcess(const QStringList &arguments,
                            const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
    {
        m_process.setProcessEnvironment(environment);
        m_process.setProgram(QStringLiteral(VERITY_BINARY));
        m_process.setArguments(
                QStringList{QStringLiteral("sandbox"), QStringLiteral("--port"), QStringLiteral("0")}
                + arguments);
        m_process.start();
    }
    // Asks it to stop, and kills it if it will not.
    ~SandboxProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(5000)) {
                m_process.kill();
                m_process.waitForFinished(5000);
            }
        }
    }
    SandboxProcess(const SandboxProcess &) = delete;
    SandboxProcess &operator=(const SandboxProcess &) = delete;

    // The first line is "listening on http://127.0.0.1:PORT", the URL returned (invalid when it
    // did not come); what the banner says after it is kept for banner().
    QUrl waitForUrl()
    {
        while (!m_process.canReadLine()) {
            if (!m_process.waitForReadyRead(20000))
                return {};
        }
        const QString first = QString::fromUtf8(m_process.readLine()).trimmed();
        const QString prefix = QStringLiteral("listening on ");
        if (!first.startsWith(prefix))
            return {};
        QTest::qWait(50);
        m_banner = QString::fromUtf8(m_process.readAllStandardOutput());
        return QUrl(first.mid(prefix.size()));
    }
    QString banner() const { return m_banner; }

    // Stops it as Ctrl+C would; true when it ended cleanly with status 0.
    bool stop()
    {
        m_process.terminate();
        return m_process.waitForFinished(10000) && m_process.exitStatus() == QProcess::NormalExit
                && m_process.exitCode() == 0;
    }

private:
    QProcess m_process;
    QString m_banner;
};

} // namespace verity::test

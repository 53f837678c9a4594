#pragma once
// The built `verity` binary, run as a person or a script runs it, for the tests of its command
// line. One way to run it, so every such test waits, times out and isolates itself alike.

#include <QDir>
#include <QEventLoop>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTimer>

namespace verity::test {

struct VerityRun
{
    int exitCode = -1; // -1: it crashed, or did not finish in time
    QString out;
    QString err;
};

// The machine's environment with the settings and default database moved under `home`, so the
// tester's own are out of reach.
inline QProcessEnvironment isolatedEnvironment(const QString &home)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_DATA_HOME"), QDir(home).filePath(QStringLiteral("data-home")));
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), QDir(home).filePath(QStringLiteral("config-home")));
    return environment;
}

// Runs the binary and waits for it, processing events meanwhile so that a sandbox served by the
// test's own process can answer it; after `timeoutMs` it is killed and counts as not finished.
inline VerityRun runVerity(const QStringList &arguments, const QProcessEnvironment &environment,
                           int timeoutMs = 120000)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    QEventLoop loop;
    QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&process, &QProcess::errorOccurred, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    process.start(QStringLiteral(VERITY_BINARY), arguments);
    if (process.state() != QProcess::NotRunning)
        loop.exec();
    VerityRun run;
    if (process.state() != QProcess::NotRunning) {
        process.kill();
        process.waitForFinished();
        run.err = QStringLiteral("verity did not finish within %1 ms\n").arg(timeoutMs);
    } else if (process.exitStatus() == QProcess::NormalExit && process.error() != QProcess::FailedToStart) {
        run.exitCode = process.exitCode();
    }
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err += QString::fromUtf8(process.readAllStandardError());
    return run;
}

} // namespace verity::test

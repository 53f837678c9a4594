// A database this user may not write (a file on an archive, a folder of someone else's): the
// console and every command that only reads open it read only and change nothing, and the
// window says why nothing can be done in it. Root may write anything, so under root the
// commands run as the unprivileged user `nobody`.

#include "support/filedigest.h"
#include "support/verityprocess.h"

#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace verity::test;

namespace {

constexpr auto everyoneReads = QFileDevice::ReadOwner | QFileDevice::ExeOwner | QFileDevice::ReadGroup
        | QFileDevice::ExeGroup | QFileDevice::ReadOther | QFileDevice::ExeOther;

} // namespace

class TestReadOnlyDatabase : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void consoleAndReadersChangeNothing();
    void cleanupTestCase();

private:
    VerityRun run(const QStringList &arguments) const;

    QTemporaryDir m_dir;
    QString m_folder; // readable by all, writable by none
    QString m_database;
    QString m_home; // the unprivileged user's own, writable
    QString m_setpriv; // set under root: how the commands drop to `nobody`
    QString m_binary; // under root: a copy of the binary that `nobody` may run
};

void TestReadOnlyDatabase::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (::geteuid() == 0) {
        m_setpriv = QStandardPaths::findExecutable(QStringLiteral("setpriv"));
        if (m_setpriv.isEmpty())
            QSKIP("running as root, and setpriv (util-linux) is not there to run as another user");
    }
    QVERIFY(QFile::setPermissions(m_dir.path(), everyoneReads | QFileDevice::WriteOwner));
    if (!m_setpriv.isEmpty()) {
        // A copy the user nobody may run, wherever the build is (a folder only root may enter).
        m_binary = m_dir.filePath(QStringLiteral("verity"));
        QVERIFY(QFile::copy(QStringLiteral(VERITY_BINARY), m_binary));
        QVERIFY(QFile::setPermissions(m_binary, everyoneReads));
        const VerityRun version = run({QStringLiteral("--version")});
        QVERIFY2(version.exitCode == 0, qPrintable(version.err));
    }
    m_folder = m_dir.filePath(QStringLiteral("archive"));
    m_home = m_dir.filePath(QStringLiteral("home"));
    QVERIFY(QDir().mkpath(m_folder) && QDir().mkpath(m_home));
    QVERIFY(QFile::setPermissions(m_home, QFileDevice::Permissions(0x7777)));
    m_database = m_folder + QStringLiteral("/verity.sqlite");
    const VerityRun imported =
            runVerity({QStringLiteral("import"), QStringLiteral("--db"), m_database,
                       QStringLiteral(VERITY_SOURCE_DIR "/resources/demo/march-incident.jsonl")},
                      isolatedEnvironment(m_dir.filePath(QStringLiteral("importer"))));
    QVERIFY2(imported.exitCode == 0 || imported.exitCode == 1, qPrintable(imported.err));
    QVERIFY(QFile::setPermissions(m_database,
                                  QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
    QVERIFY(QFile::setPermissions(m_folder, everyoneReads));
}

void TestReadOnlyDatabase::cleanupTestCase()
{
    if (!m_folder.isEmpty())
        QFile::setPermissions(m_folder, everyoneReads | QFileDevice::WriteOwner); // so it can be removed
}

VerityRun TestReadOnlyDatabase::run(const QStringList &arguments) const
{
    QProcessEnvironment environment = isolatedEnvironment(m_home);
    environment.insert(QStringLiteral("HOME"), m_home);
    if (m_setpriv.isEmpty())
        return runVerity(arguments, environment);
    // setpriv runs the binary in its place, so runVerity's timeout and output work alike.
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(m_setpriv,
                  QStringList{QStringLiteral("--reuid=nobody"), QStringLiteral("--regid=nogroup"),
                              QStringLiteral("--clear-groups"), m_binary}
                          + arguments);
    VerityRun result;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        result.err = QStringLiteral("did not finish\n");
    } else if (process.exitStatus() == QProcess::NormalExit) {
        result.exitCode = process.exitCode();
    }
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err += QString::fromUtf8(process.readAllStandardError());
    return result;
}

void TestReadOnlyDatabase::consoleAndReadersChangeNothing()
{
    const QByteArray before = fileSha256(m_database);
    QVERIFY(!before.isEmpty());
    const QStringList filesBefore = QDir(m_folder).entryList(QDir::Files);

    // The console opens it, says why it is read-only, and shows the ticket.
    const QString picture = m_home + QStringLiteral("/console.png");
    const VerityRun console = run({QStringLiteral("--db"), m_database, QStringLiteral("--ticket"),
                                   QStringLiteral("SU-88421"), QStringLiteral("--screenshot"), picture});
    QVERIFY2(console.exitCode == 0, qPrintable(console.err));
    QVERIFY2(console.err.contains(QStringLiteral("is open read-only: this user may not write the file")),
             qPrintable(console.err));
    QVERIFY(QFile::exists(picture));
    QVERIFY2(!console.err.contains(QStringLiteral("no ticket")), qPrintable(console.err));

    // The commands that only read work; the one that writes says it cannot.
    const VerityRun audit =
            run({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), m_database});
    QVERIFY2(audit.exitCode == 0, qPrintable(audit.out + audit.err));
    const VerityRun list =
            run({QStringLiteral("audit"), QStringLiteral("list"), QStringLiteral("--db"), m_database});
    QVERIFY2(list.exitCode == 0, qPrintable(list.out + list.err));
    const VerityRun import = run({QStringLiteral("import"), QStringLiteral("--db"), m_database,
                                  QStringLiteral(VERITY_SOURCE_DIR "/resources/demo/march-incident.jsonl")});
    QVERIFY2(import.exitCode == 2, qPrintable(import.out + import.err));
    QVERIFY2(import.err.contains(m_database), qPrintable(import.err));
    QVERIFY2(import.err.contains(
                     QStringLiteral("cannot write this database: this user may not write the file")),
             qPrintable(import.err));

    QCOMPARE(fileSha256(m_database), before);
    QCOMPARE(QDir(m_folder).entryList(QDir::Files), filesBefore);
}

QTEST_GUILESS_MAIN(TestReadOnlyDatabase)
#include "tst_readonlydatabase.moc"

// A desk's SQLite file open in one process (a console, say) while that process reads the
// database, its -wal or its -shm by another path (a file dialog sniffing a type, a header check)
// and another process runs a command on the same file. With SQLite's stock POSIX locks the read's
// close dropped every lock the process held, and the command then deleted the live -wal and -shm:
// the console's later writes went into deleted files. Verity's lock layer keeps each lock on a
// descriptor of its own, so nothing else the process opens or closes can drop it.

#include "import/importjob.h"
#include "store/sqlitefilelocks.h"
#include "support/deskfile.h"
#include "support/teststore.h"
#include "support/verityprocess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace verity;
using namespace verity::test;

namespace {

// The lines of /proc/locks on the file at `path`, by kind ("OFDLCK", "POSIX").
QStringList locksOn(const QString &path, const QString &kind)
{
    struct stat file
    {};
    if (stat(QFile::encodeName(path).constData(), &file) != 0)
        return {};
    const QString inode = QStringLiteral(":%1 ").arg(qulonglong(file.st_ino));
    QFile locks(QStringLiteral("/proc/locks"));
    if (!locks.open(QIODevice::ReadOnly))
        return {};
    QStringList found;
    for (const QString &line : QString::fromLatin1(locks.readAll()).split(u'\n')) {
        if (line.contains(kind) && line.contains(inode))
            found << line;
    }
    return found;
}

} // namespace

class SqliteFileLocksTest : public QObject
{
    Q_OBJECT

private slots:
    void theStoreLocksThroughDescriptorsOfItsOwn();
    void aCloseElsewhereInTheProcessKeepsTheLiveFiles_data();
    void aCloseElsewhereInTheProcessKeepsTheLiveFiles();
    void nothingIsSavedOverADatabase();
    void checkpointsRunBesideTheWriter();
};

void SqliteFileLocksTest::theStoreLocksThroughDescriptorsOfItsOwn()
{
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("desk.sqlite"));
    std::unique_ptr<Store> store = openTestStore(path);
    QVERIFY(store);
    QVERIFY(importInto(*store, writeUnknownRefund(folder.path(), QStringLiteral("T-LOCK-0"), 0)));
    // A reader's shared lock on the database and the -shm file's in-use byte, both held as open
    // file description locks; none as the POSIX locks one close would drop.
    QVERIFY2(!locksOn(path, QStringLiteral("OFDLCK")).isEmpty(), "no description lock on the database");
    QVERIFY2(!locksOn(path + QStringLiteral("-shm"), QStringLiteral("OFDLCK")).isEmpty(),
             "no description lock on the -shm file");
    QVERIFY(locksOn(path, QStringLiteral("POSIX")).isEmpty());
    QVERIFY(locksOn(path + QStringLiteral("-shm"), QStringLiteral("POSIX")).isEmpty());
}

void SqliteFileLocksTest::aCloseElsewhereInTheProcessKeepsTheLiveFiles_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::newRow("the database") << QString();
    QTest::newRow("its -shm") << QStringLiteral("-shm");
    QTest::newRow("its -wal") << QStringLiteral("-wal");
}

void SqliteFileLocksTest::aCloseElsewhereInTheProcessKeepsTheLiveFiles()
{
    QFETCH(QString, suffix);
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("desk.sqlite"));
    const QProcessEnvironment environment = isolatedEnvironment(folder.path());
    std::unique_ptr<Store> console = openTestStore(path);
    QVERIFY(console);
    QVERIFY(importInto(*console, writeUnknownRefund(folder.path(), QStringLiteral("T-LOCK-1"), 1)));
    QVERIFY(QFile::exists(path + QStringLiteral("-wal")));

    // Read by another path, as a file dialog reads a file to name its type, and closed.
    {
        QFile sniffed(path + suffix);
        QVERIFY(sniffed.open(QIODevice::ReadOnly));
        sniffed.read(64);
    }
    // Then commands on the same file from other processes: one refused for its arguments, one
    // that writes (it claims the escalation).
    QCOMPARE(runVerity({QStringLiteral("claim"), QStringLiteral("--next"), QStringLiteral("--db"), path},
                       environment)
                     .exitCode,
             2);
    const VerityRun claimed =
            runVerity({QStringLiteral("claim"), QStringLiteral("--next"), QStringLiteral("--db"), path,
                       QStringLiteral("--operator"), QStringLiteral("ana")},
                      environment);
    QVERIFY2(claimed.exitCode == 0, qPrintable(claimed.err));

    QCOMPARE(deletedStoreFilesHeldOpen(path), QStringList());
    // Still a user of the -shm file: had its in-use byte (128) been dropped, the next process
    // would have taken itself for the only one and cleared the file under the console.
    const QStringList shmLocks = locksOn(path + QStringLiteral("-shm"), QStringLiteral("ADVISORY"));
    QVERIFY2(shmLocks.filter(QRegularExpression(QStringLiteral("READ .* 128 128$"))).size() == 1,
             qPrintable(shmLocks.join(u'\n')));
    QVERIFY(QFile::exists(path + QStringLiteral("-wal")));
    QVERIFY(QFile::exists(path + QStringLiteral("-shm")));
    // The console's next write is there for every other process (the shell has POSIX locks).
    QVERIFY(importInto(*console, writeUnknownRefund(folder.path(), QStringLiteral("T-LOCK-2"), 2)));
    QCOMPARE(sqliteShell(path, QStringLiteral("SELECT count(*) FROM tickets WHERE ext_id LIKE 'T-LOCK-%'")),
             QStringLiteral("2"));
    QCOMPARE(sqliteShell(path, QStringLiteral("SELECT count(*) FROM escalations WHERE claimed_by = 'ana'")),
             QStringLiteral("1"));
    console.reset();
    const QString broken = brokenAfterClose(path, environment);
    QVERIFY2(broken.isEmpty(), qPrintable(broken));
}

void SqliteFileLocksTest::nothingIsSavedOverADatabase()
{
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("desk.sqlite"));
    std::unique_ptr<Store> store = openTestStore(path);
    QVERIFY(store);
    QVERIFY(importInto(*store, writeUnknownRefund(folder.path(), QStringLiteral("T-SAVE-1"), 1)));
    // The open database by any name: itself, its journal files, a link, a relative path.
    QVERIFY(QFile::link(path, folder.filePath(QStringLiteral("link.sqlite"))));
    QVERIFY(QDir::setCurrent(folder.path()));
    for (const QString &name :
         {path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm"),
          folder.filePath(QStringLiteral("link.sqlite")), QStringLiteral("desk.sqlite")}) {
        const Expected<void> refused = refuseToOverwriteDatabase(name);
        QVERIFY2(!refused, qPrintable(name));
        QVERIFY2(refused.message().contains(QLatin1String("a database Verity has open")),
                 qPrintable(refused.message()));
    }
    // Another program's database, closed here, and its journal.
    const QString other = folder.filePath(QStringLiteral("other.db"));
    QCOMPARE(sqliteShell(other, QStringLiteral("CREATE TABLE t (x); SELECT 1")), QStringLiteral("1"));
    QVERIFY(!refuseToOverwriteDatabase(other));
    QFile journal(other + QStringLiteral("-wal"));
    QVERIFY(journal.open(QIODevice::WriteOnly));
    journal.close();
    QVERIFY(!refuseToOverwriteDatabase(other + QStringLiteral("-wal")));
    // A new file, or a report saved before: saved over as asked.
    QVERIFY(refuseToOverwriteDatabase(folder.filePath(QStringLiteral("new.csv"))));
    QFile report(folder.filePath(QStringLiteral("old.csv")));
    QVERIFY(report.open(QIODevice::WriteOnly));
    report.write("id,amount\n");
    report.close();
    QVERIFY(refuseToOverwriteDatabase(report.fileName()));
}

QTEST_GUILESS_MAIN(SqliteFileLocksTest)
#include "tst_sqlitefilelocks.moc"

// A writer whose callers wait on its commits (the guard) leaves SQLite's checkpoints to a thread
// with a connection of its own: the log still reaches the database file while the writer stays
// open, and everything written is there when it is opened again.
void SqliteFileLocksTest::checkpointsRunBesideTheWriter()
{
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("desk.sqlite"));
    qint64 tickets = 0;
    {
        std::unique_ptr<Store> store = openTestStore(path);
        QVERIFY(store);
        store->keepUpkeepOffCommits();
        const qint64 before = QFileInfo(path).size();
        QVERIFY(importInto(*store, QStringLiteral(VERITY_TEST_DATA "/tau/tau2-gpt-4.1-retail.json")));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(path).size() > before + 512 * 1024, 5000);
        Expected<qint64> counted = store->countTickets(TicketQuery{});
        QVERIFY(counted && *counted > 0);
        tickets = *counted;
    }
    std::unique_ptr<Store> again = openTestStore(path);
    QVERIFY(again);
    Expected<qint64> counted = again->countTickets(TicketQuery{});
    QVERIFY(counted);
    QCOMPARE(*counted, tickets);
}

// `verity audit` as a script or a scheduled job runs it: the built binary through QProcess,
// on a real database file, before and after an entry is altered behind its back.

#include "audittestsupport.h"
#include "support/teststore.h"
#include "support/verityprocess.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;
using namespace audittest;

class TestAuditCommand : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void verifyIntactChain();
    void verifyIntactChainAsJson();
    void verifyNamesTheEditedEntry();
    void verifyNamesTheEntryAfterADeletion();
    void verifyEmptyLog();
    void couldNotRun_data();
    void couldNotRun();
    void helpIsNotAnError();
    void listPrintsEveryEntry();
    void listAsJson();

private:
    VerityRun verity(const QStringList &arguments);

    QTemporaryDir m_dir;
    QString m_path;
    int m_databases = 0;
};

void TestAuditCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QStringLiteral(VERITY_BINARY)), VERITY_BINARY " is not built");
}

// A fresh database with five entries for each test, its store closed again.
void TestAuditCommand::init()
{
    m_path = m_dir.filePath(QStringLiteral("cli-%1.sqlite").arg(++m_databases));
    auto store = test::openTestStore(m_path);
    QVERIFY(store);
    QCOMPARE(appendEntries(*store, 5), QString());
}

VerityRun TestAuditCommand::verity(const QStringList &arguments)
{
    // Keep the default database of the machine running the tests out of reach.
    return runVerity(arguments, isolatedEnvironment(m_dir.path()), 60000);
}

void TestAuditCommand::verifyIntactChain()
{
    const VerityRun run =
            verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), m_path});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, QStringLiteral("audit chain intact: 5 entries\n"));
    QCOMPARE(run.err, QString());
}

void TestAuditCommand::verifyIntactChainAsJson()
{
    const VerityRun run = verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"),
                                  m_path, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(run.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + u'\n' + run.out));
    const QJsonObject object = document.object();
    QCOMPARE(object.value(QStringLiteral("intact")), QJsonValue(true));
    QCOMPARE(object.value(QStringLiteral("entries")), QJsonValue(5));
    QVERIFY(object.value(QStringLiteral("first_broken")).isNull());
    QVERIFY(object.value(QStringLiteral("reason")).isNull());
    QVERIFY(object.value(QStringLiteral("database")).toString().endsWith(QFileInfo(m_path).fileName()));
}

void TestAuditCommand::verifyNamesTheEditedEntry()
{
    {
        RawSqlite raw(m_path);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE audit_log SET detail = 'refund of 1 USD' WHERE seq = 3")),
                 QString());
    }
    const VerityRun run =
            verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), m_path});
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.out,
             QStringLiteral("audit chain broken at entry 3: its hash does not match its contents (the entry "
                            "was edited)\n"));

    const VerityRun json = verity({QStringLiteral("audit"), QStringLiteral("verify"),
                                   QStringLiteral("--json"), QStringLiteral("--db"), m_path});
    QCOMPARE(json.exitCode, 1);
    const QJsonObject object = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QCOMPARE(object.value(QStringLiteral("intact")), QJsonValue(false));
    QCOMPARE(object.value(QStringLiteral("first_broken")), QJsonValue(3));
    QCOMPARE(object.value(QStringLiteral("entries")), QJsonValue(3));
    QVERIFY(object.value(QStringLiteral("reason")).toString().contains(QStringLiteral("edited")));
}

void TestAuditCommand::verifyNamesTheEntryAfterADeletion()
{
    {
        RawSqlite raw(m_path);
        QCOMPARE(raw.exec(QStringLiteral("DELETE FROM audit_log WHERE seq = 2")), QString());
    }
    const VerityRun run =
            verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), m_path});
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.out, QStringLiteral("audit chain broken at entry 3: entry 2 is missing (deleted)\n"));
}

void TestAuditCommand::verifyEmptyLog()
{
    const QString path = m_dir.filePath(QStringLiteral("empty.sqlite"));
    QVERIFY(test::openTestStore(path));
    const VerityRun run =
            verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), path});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, QStringLiteral("audit chain intact: 0 entries\n"));
}

void TestAuditCommand::couldNotRun_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");

    const QString missing = m_dir.filePath(QStringLiteral("no-such.sqlite"));
    const QString notADatabase = m_dir.filePath(QStringLiteral("notes.sqlite"));
    QFile notes(notADatabase);
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write(QByteArray(4096, 'x'));
    notes.close();

    QTest::newRow("no action") << QStringList{QStringLiteral("audit")}
                               << QStringLiteral("Usage: verity audit");
    QTest::newRow("only options") << QStringList{QStringLiteral("audit"), QStringLiteral("--json")}
                                  << QStringLiteral("name an action");
    QTest::newRow("unknown action") << QStringList{QStringLiteral("audit"), QStringLiteral("repair")}
                                    << QStringLiteral("unknown action \"repair\"");
    QTest::newRow("two actions") << QStringList{QStringLiteral("audit"), QStringLiteral("verify"),
                                                QStringLiteral("list")}
                                 << QStringLiteral("one action at a time");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("audit"), QStringLiteral("verify"),
                                                   QStringLiteral("--fix")}
                                    << QStringLiteral("Usage: verity audit");
    QTest::newRow("missing database")
            << QStringList{QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), missing}
            << QStringLiteral("no such database file");
    QTest::newRow("a folder") << QStringList{QStringLiteral("audit"), QStringLiteral("list"),
                                             QStringLiteral("--db"), m_dir.path()}
                              << QStringLiteral("not a database file");
    QTest::newRow("not a database") << QStringList{QStringLiteral("audit"), QStringLiteral("verify"),
                                                   QStringLiteral("--db"), notADatabase}
                                    << QStringLiteral("notes.sqlite");
}

void TestAuditCommand::couldNotRun()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const VerityRun run = verity(arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    QCOMPARE(run.out, QString());
    // A mistyped path is not created as a new, empty (and so "intact") database.
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("no-such.sqlite"))));
}

void TestAuditCommand::helpIsNotAnError()
{
    const VerityRun run = verity({QStringLiteral("audit"), QStringLiteral("--help")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains(QStringLiteral("verify")));
    QVERIFY(run.out.contains(QStringLiteral("list")));
}

void TestAuditCommand::listPrintsEveryEntry()
{
    const VerityRun run =
            verity({QStringLiteral("audit"), QStringLiteral("list"), QStringLiteral("--db"), m_path});
    QCOMPARE(run.exitCode, 0);
    const QStringList lines = run.out.split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);
    for (int n = 1; n <= 5; ++n) {
        const QString &line = lines.at(n - 1);
        QVERIFY2(line.trimmed().startsWith(QString::number(n) + QStringLiteral("  ")), qPrintable(line));
        QVERIFY2(line.contains(operatorOf(n)) && line.contains(actionOf(n)) && line.contains(detailOf(n)),
                 qPrintable(line));
    }
    QVERIFY(lines.at(0).contains(QStringLiteral("escalation 101")));
    QVERIFY(lines.at(1).contains(QStringLiteral("escalation -")));
}

void TestAuditCommand::listAsJson()
{
    auto store = test::openTestStore(m_path);
    QVERIFY(store);
    const QList<AuditEntry> stored = *store->auditEntries(0, 100);
    store.reset();

    const VerityRun run = verity({QStringLiteral("audit"), QStringLiteral("list"), QStringLiteral("--json"),
                                  QStringLiteral("--db"), m_path});
    QCOMPARE(run.exitCode, 0);
    QJsonParseError error{};
    const QJsonObject object = QJsonDocument::fromJson(run.out.toUtf8(), &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + u'\n' + run.out));
    const QJsonArray entries = object.value(QStringLiteral("entries")).toArray();
    QCOMPARE(entries.size(), stored.size());
    for (int i = 0; i < entries.size(); ++i) {
        const QJsonObject entry = entries.at(i).toObject();
        const AuditEntry &expected = stored.at(i);
        QCOMPARE(entry.value(QStringLiteral("seq")).toInteger(), expected.seq);
        QCOMPARE(entry.value(QStringLiteral("at_ms")).toInteger(), expected.at);
        QCOMPARE(entry.value(QStringLiteral("operator")).toString(), expected.operatorName);
        QCOMPARE(entry.value(QStringLiteral("action")).toString(), expected.action);
        QCOMPARE(entry.value(QStringLiteral("escalation")).isNull(), !expected.escalationId);
        QCOMPARE(entry.value(QStringLiteral("detail")).toString(), expected.detail);
        QCOMPARE(entry.value(QStringLiteral("evidence_sha256")).toString(), expected.evidenceSha256);
        QCOMPARE(entry.value(QStringLiteral("hash")).toString(), expected.hash);
        QCOMPARE(entry.value(QStringLiteral("prev_hash")).toString(), expected.prevHash);
    }
    QCOMPARE(entries.at(0).toObject().value(QStringLiteral("at")).toString(),
             QStringLiteral("2026-03-17T12:01:00.000Z"));
}

QTEST_GUILESS_MAIN(TestAuditCommand)
#include "tst_auditcommand.moc"

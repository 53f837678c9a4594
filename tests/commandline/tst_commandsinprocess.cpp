// The subcommands called as functions, in this process, as main() calls them: the same exit
// codes and the same stored result as through the binary, without starting one.

#include "auditcommand.h"
#include "importcommand.h"
#include "reconcilecommand.h"
#include "store/storefactory.h"

#include <QTemporaryDir>
#include <QTest>

using namespace verity;

class CommandsInProcess : public QObject
{
    Q_OBJECT

private slots:
    void importStoresTheDemoAndTheAuditVerifiesIt()
    {
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const QString db = folder.filePath(QStringLiteral("verity.sqlite"));
        const QString demo = QStringLiteral(VERITY_SOURCE_DIR "/resources/demo/march-incident.jsonl");
        QCOMPARE(runImportCommand({QStringLiteral("verity"), QStringLiteral("--db"), db, demo}), 0);

        Expected<std::unique_ptr<Store>> store = openStoreReadOnly(db);
        QVERIFY2(store, qPrintable(store ? QString() : store.message()));
        Expected<qint64> tickets = (*store)->countTickets(TicketQuery{});
        QVERIFY(tickets);
        QVERIFY(*tickets > 0);
        store->reset();

        QCOMPARE(runAuditCommand(
                         {QStringLiteral("verity"), QStringLiteral("verify"), QStringLiteral("--db"), db}),
                 0);
    }

    // Each refuses what it cannot run with 2, and touches nothing.
    void badArgumentsExitTwo_data()
    {
        QTest::addColumn<int>("command");
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("audit: no such database")
                << 0 << QStringList{QStringLiteral("verify"), QStringLiteral("--db")};
        QTest::newRow("import: unknown option") << 1 << QStringList{QStringLiteral("--no-such-option")};
        QTest::newRow("reconcile: no period")
                << 2 << QStringList{QStringLiteral("--provider-export"), QStringLiteral("x.csv")};
    }

    void badArgumentsExitTwo()
    {
        QFETCH(int, command);
        QFETCH(QStringList, arguments);
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const QString missing = folder.filePath(QStringLiteral("missing.sqlite"));
        if (arguments.constLast() == QLatin1String("--db"))
            arguments << missing;
        else
            arguments << QStringLiteral("--db") << missing;
        arguments.prepend(QStringLiteral("verity"));
        int (*const run[])(const QStringList &) = {runAuditCommand, runImportCommand, runReconcileCommand};
        QCOMPARE(run[command](arguments), 2);
        QVERIFY(!QFileInfo::exists(missing));
    }
};

QTEST_GUILESS_MAIN(CommandsInProcess)
#include "tst_commandsinprocess.moc"

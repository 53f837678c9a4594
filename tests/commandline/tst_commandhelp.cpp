// `verity --help` as a person at a terminal reads it: every subcommand on a line of its own
// saying what it does, and each subcommand's own --help naming it and its options; a word
// that is no subcommand is refused rather than opening the window.

#include "support/verityprocess.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace verity::test;

class TestCommandHelp : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void consoleHelpListsEverySubcommand_data();
    void consoleHelpListsEverySubcommand();
    void subcommandHelp_data();
    void subcommandHelp();
    void mistypedSubcommandIsRefused_data();
    void mistypedSubcommandIsRefused();

private:
    VerityRun verity(const QStringList &arguments);

    QTemporaryDir m_dir;
};

void TestCommandHelp::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QStringLiteral(VERITY_BINARY)), VERITY_BINARY " is not built");
}

VerityRun TestCommandHelp::verity(const QStringList &arguments)
{
    // Keep the database and settings of the machine running the tests out of reach.
    QProcessEnvironment environment = isolatedEnvironment(m_dir.path());
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    // A window that opened would never finish by itself: that is a failure, not a hang.
    return runVerity(arguments, environment, 30000);
}

void TestCommandHelp::consoleHelpListsEverySubcommand_data()
{
    QTest::addColumn<QString>("subcommand");
    for (const char *name : {"import", "collect", "guard", "lookup", "resolve", "audit", "claim", "db",
                             "reconcile", "sandbox", "simulate"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestCommandHelp::consoleHelpListsEverySubcommand()
{
    QFETCH(QString, subcommand);
    for (const QString &help : {QStringLiteral("--help"), QStringLiteral("-h")}) {
        const VerityRun run = verity({help});
        QCOMPARE(run.exitCode, 0);
        // One line of its own: the name, then what it does in words.
        const QRegularExpression line(QStringLiteral("^  %1 {2,}[A-Z][^\\n]+\\.$").arg(subcommand),
                                      QRegularExpression::MultilineOption);
        QVERIFY2(line.match(run.out).hasMatch(), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("\"verity SUBCOMMAND --help\" lists the options of each")),
                 qPrintable(run.out));
        QVERIFY2(run.out.startsWith(
                         QStringLiteral("Usage: verity [options]\n       verity SUBCOMMAND [options]\n")),
                 qPrintable(run.out));
    }
}

// Each subcommand's help names the subcommand (so the usage line can be copied as it is) and
// the options it takes.
void TestCommandHelp::subcommandHelp_data()
{
    QTest::addColumn<QString>("subcommand");
    QTest::addColumn<QString>("usage");
    QTest::addColumn<QStringList>("options");

    QTest::newRow("import") << QStringLiteral("import") << QStringLiteral("Usage: verity import ")
                            << QStringList{QStringLiteral("--db"), QStringLiteral("--registry"),
                                           QStringLiteral("--json")};
    QTest::newRow("lookup") << QStringLiteral("lookup") << QStringLiteral("Usage: verity lookup ")
                            << QStringList{QStringLiteral("--provider"), QStringLiteral("--all-open"),
                                           QStringLiteral("--operator"), QStringLiteral("--timeout")};
    QTest::newRow("resolve") << QStringLiteral("resolve") << QStringLiteral("verity resolve ")
                             << QStringList{QStringLiteral("--attest"), QStringLiteral("--reference"),
                                            QStringLiteral("--note"), QStringLiteral("--operator")};
    QTest::newRow("audit") << QStringLiteral("audit") << QStringLiteral("Usage: verity audit ")
                           << QStringList{QStringLiteral("verify"), QStringLiteral("list"),
                                          QStringLiteral("--db")};
    QTest::newRow("claim") << QStringLiteral("claim") << QStringLiteral("Usage: verity claim ")
                           << QStringList{QStringLiteral("--next"), QStringLiteral("--release"),
                                          QStringLiteral("--release-any"), QStringLiteral("--minutes")};
    QTest::newRow("db") << QStringLiteral("db") << QStringLiteral("Usage: verity db ")
                        << QStringList{QStringLiteral("init"), QStringLiteral("copy"),
                                       QStringLiteral("--from"), QStringLiteral("--to")};
    QTest::newRow("reconcile") << QStringLiteral("reconcile") << QStringLiteral("Usage: verity reconcile ")
                               << QStringList{QStringLiteral("--provider-export"), QStringLiteral("--from"),
                                              QStringLiteral("--pdf"), QStringLiteral("--window")};
    QTest::newRow("sandbox") << QStringLiteral("sandbox") << QStringLiteral("Usage: verity sandbox ")
                             << QStringList{QStringLiteral("--port"), QStringLiteral("--state"),
                                            QStringLiteral("--seed-demo"), QStringLiteral("--fault-mode")};
    QTest::newRow("guard") << QStringLiteral("guard") << QStringLiteral("Usage: verity guard ")
                           << QStringList{QStringLiteral("--db"), QStringLiteral("--deadline"),
                                          QStringLiteral("--when-store-down"), QStringLiteral("-- COMMAND")};
    QTest::newRow("simulate") << QStringLiteral("simulate") << QStringLiteral("Usage: verity simulate ")
                              << QStringList{QStringLiteral("--policy"), QStringLiteral("--tickets"),
                                             QStringLiteral("--sandbox")};
}

void TestCommandHelp::subcommandHelp()
{
    QFETCH(QString, subcommand);
    QFETCH(QString, usage);
    QFETCH(QStringList, options);

    const VerityRun run = verity({subcommand, QStringLiteral("--help")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(usage), qPrintable(run.out));
    for (const QString &option : options)
        QVERIFY2(run.out.contains(option), qPrintable(option + QStringLiteral(" in:\n") + run.out));
}

void TestCommandHelp::mistypedSubcommandIsRefused_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("a misspelt subcommand")
            << QStringList{QStringLiteral("improt"), QStringLiteral("march.jsonl")};
    QTest::newRow("a misspelt subcommand asking for help")
            << QStringList{QStringLiteral("improt"), QStringLiteral("--help")};
}

void TestCommandHelp::mistypedSubcommandIsRefused()
{
    QFETCH(QStringList, arguments);
    const VerityRun run = verity(arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(QStringLiteral("\"improt\" is not a subcommand")), qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("verity --help")), qPrintable(run.err));
    QCOMPARE(run.out, QString());
}

QTEST_GUILESS_MAIN(TestCommandHelp)
#include "tst_commandhelp.moc"

// `verity simulate` through the built binary: the numbers as text and JSON, the same seed
// giving the same numbers, --out importing cleanly, a running `verity sandbox` used through
// --sandbox, a sandbox with faults of its own refused (exit status 1), progress on a
// terminal only, and every bad argument refused with exit status 2 and a message naming it.

#include "import/transcriptimporter.h"
#include "store/storefactory.h"
#include "support/inprocesssandbox.h"
#include "support/sandboxprocess.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run simulate(const QStringList &arguments,
             const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(VERITY_BINARY), QStringList{QStringLiteral("simulate")} + arguments);
    if (!process.waitForFinished(120000))
        qFatal("verity simulate did not finish");
    return Run{process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
               process.readAllStandardOutput(), process.readAllStandardError()};
}

// The same, running this thread's event loop meanwhile: for a sandbox served in this process.
Run simulateServing(const QStringList &arguments)
{
    QProcess process;
    QEventLoop loop;
    QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(120000, &loop, &QEventLoop::quit);
    process.start(QStringLiteral(VERITY_BINARY), QStringList{QStringLiteral("simulate")} + arguments);
    loop.exec();
    if (process.state() != QProcess::NotRunning)
        qFatal("verity simulate did not finish");
    return Run{process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
               process.readAllStandardOutput(), process.readAllStandardError()};
}

} // namespace

class TestSimulateCommand : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void printsTheNumbers();
    void sameSeedSameJson();
    void writesImportableTranscripts();
    void usesARunningSandbox();
    void refusesASandboxWithFaultsOfItsOwn_data();
    void refusesASandboxWithFaultsOfItsOwn();
    void checksTheOutFolderFirst();
    void showsProgressOnATerminalOnly();
    void helpPrintsThePolicyTable();
    void badArguments_data();
    void badArguments();
};

void TestSimulateCommand::printsTheNumbers()
{
    const Run run =
            simulate({QStringLiteral("--policy"), QStringLiteral("as-shipped"), QStringLiteral("--tickets"),
                      QStringLiteral("200"), QStringLiteral("--fault-rate"), QStringLiteral("0.3"),
                      QStringLiteral("--seed"), QStringLiteral("9")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    for (const char *line :
         {"tickets: 200\n", "writes attempted: ", "HTTP POSTs sent: ", "refunds performed: ",
          "duplicate refunds: ", "unknowns escalated: 0\n", "money at risk: $", "sellers left negative: "})
        QVERIFY2(run.out.contains(line), line);
}

void TestSimulateCommand::sameSeedSameJson()
{
    const QStringList arguments{
            QStringLiteral("--policy"), QStringLiteral("intent-key"),   QStringLiteral("--tickets"),
            QStringLiteral("200"),      QStringLiteral("--fault-rate"), QStringLiteral("0.5"),
            QStringLiteral("--seed"),   QStringLiteral("11"),           QStringLiteral("--json")};
    const Run first = simulate(arguments);
    const Run second = simulate(arguments);
    QVERIFY2(first.exitCode == 0, first.err.constData());
    QCOMPARE(first.out, second.out);
    const QJsonObject json = QJsonDocument::fromJson(first.out).object();
    QCOMPARE(json.value(QStringLiteral("tickets")).toInt(), 200);
    QCOMPARE(json.value(QStringLiteral("duplicate_refunds")).toInt(), 0);
    QCOMPARE(json.value(QStringLiteral("money_at_risk_cents")).toInt(), 0);
    QVERIFY(json.value(QStringLiteral("unknowns_escalated")).toInt() > 0); // half the reads are down
    QCOMPARE(json.value(QStringLiteral("retries_after_unknown")).toInt(), 0);
}

void TestSimulateCommand::writesImportableTranscripts()
{
    QTemporaryDir folder;
    const QString out = folder.filePath(QStringLiteral("sim.jsonl"));
    const Run run =
            simulate({QStringLiteral("--policy"), QStringLiteral("as-shipped"), QStringLiteral("--tickets"),
                      QStringLiteral("40"), QStringLiteral("--fault-rate"), QStringLiteral("0.3"),
                      QStringLiteral("--out"), out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    Expected<std::unique_ptr<Store>> store = openStore(folder.filePath(QStringLiteral("v.sqlite")));
    QVERIFY(store.ok());
    TranscriptImporter importer(**store, ToolRegistry::builtIn());
    const ImportReport report = importer.importFile(out);
    QVERIFY2(report.clean(), qPrintable(report.rejectionMessages().join(u'\n')));
    QCOMPARE(report.ticketsOpened, qint64(40));
    // And through `verity import` as a person would.
    QProcess import;
    import.start(QStringLiteral(VERITY_BINARY),
                 {QStringLiteral("import"), QStringLiteral("--db"),
                  folder.filePath(QStringLiteral("cli.sqlite")), out});
    QVERIFY(import.waitForFinished(60000));
    QVERIFY2(import.exitCode() == 0, import.readAllStandardError().constData());
}

void TestSimulateCommand::usesARunningSandbox()
{
    QTemporaryDir folder;
    test::SandboxProcess sandbox({QStringLiteral("--state"), folder.filePath(QStringLiteral("s.sqlite"))});
    const QUrl sandboxUrl = sandbox.waitForUrl();
    QVERIFY(sandboxUrl.isValid());
    const QString url = sandboxUrl.toString();
    const QStringList arguments{QStringLiteral("--policy"),
                                QStringLiteral("as-shipped"),
                                QStringLiteral("--tickets"),
                                QStringLiteral("30"),
                                QStringLiteral("--fault-rate"),
                                QStringLiteral("0.5"),
                                QStringLiteral("--seed"),
                                QStringLiteral("3"),
                                QStringLiteral("--json"),
                                QStringLiteral("--sandbox"),
                                url};
    const Run shared = simulate(arguments);
    const Run again = simulate(arguments); // the same sandbox again: new ids, the same numbers
    const Run own = simulate(arguments.mid(0, arguments.size() - 2));
    sandbox.stop();
    QVERIFY2(shared.exitCode == 0, shared.err.constData());
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(shared.out, again.out);
    QCOMPARE(shared.out, own.out);
    QVERIFY(QJsonDocument::fromJson(shared.out).object().value(QStringLiteral("duplicate_refunds")).toInt()
            > 0);
}

void TestSimulateCommand::refusesASandboxWithFaultsOfItsOwn_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QString>("fault");
    QTest::newRow("as shipped, 503") << QStringLiteral("as-shipped")
                                     << QStringLiteral("fail-before-accept=503");
    QTest::newRow("intent key, 503") << QStringLiteral("intent-key")
                                     << QStringLiteral("fail-before-accept=503");
    QTest::newRow("as shipped, 500") << QStringLiteral("as-shipped") << QStringLiteral("accept-then-500");
}

void TestSimulateCommand::refusesASandboxWithFaultsOfItsOwn()
{
    QFETCH(QString, policy);
    QFETCH(QString, fault);
    // As `verity sandbox --fault-rate 0.5 --fault-mode ...` would: half the refund POSTs fail
    // by the sandbox's own plan, which the run's schedule (rate 0) never called for.
    const std::optional<SandboxFault> mode = SandboxFault::parse(fault);
    QVERIFY(mode);
    SandboxOptions options;
    options.faults = SandboxFaultPlan(0.5, *mode, 7);
    test::InProcessSandbox sandbox(options);
    const Run run =
            simulateServing({QStringLiteral("--policy"), policy, QStringLiteral("--tickets"),
                             QStringLiteral("20"), QStringLiteral("--fault-rate"), QStringLiteral("0"),
                             QStringLiteral("--sandbox"), sandbox.url().toString()});
    QVERIFY(sandbox.drainHeldAnswers());
    QCOMPARE(run.exitCode, 1);
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(err.contains(QStringLiteral("did not call for"))
                     && err.contains(QStringLiteral("not the simulation's")),
             run.err.constData());
    QVERIFY2(err.contains(QStringLiteral("answered HTTP 5")),
             run.err.constData()); // the first problem, named
    QVERIFY2(run.out.contains("problems: "), run.out.constData());
}

void TestSimulateCommand::checksTheOutFolderFirst()
{
    QTemporaryDir folder;
    const QString missing = folder.filePath(QStringLiteral("no-such-folder"));
    QElapsedTimer timer;
    timer.start();
    // A million tickets would take minutes: the check comes before the run.
    const QStringList arguments{QStringLiteral("--policy"), QStringLiteral("as-shipped"),
                                QStringLiteral("--tickets"), QStringLiteral("1000000"),
                                QStringLiteral("--out")};
    const Run run = simulate(arguments + QStringList{missing + QStringLiteral("/sim.jsonl")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(QString::fromUtf8(run.err).contains(
                     QStringLiteral("--out: the folder %1 does not exist").arg(missing)),
             run.err.constData());
    const Run intoFolder = simulate(arguments + QStringList{folder.path()});
    QCOMPARE(intoFolder.exitCode, 2);
    QVERIFY2(QString::fromUtf8(intoFolder.err).contains(folder.path() + QStringLiteral(" is a folder")),
             intoFolder.err.constData());
    QVERIFY(timer.elapsed() < 20000);
    QVERIFY(run.out.isEmpty() && intoFolder.out.isEmpty());
}

void TestSimulateCommand::showsProgressOnATerminalOnly()
{
    const QStringList arguments{QStringLiteral("--policy"), QStringLiteral("as-shipped"),
                                QStringLiteral("--tickets"), QStringLiteral("30")};
    const Run piped = simulate(arguments);
    QCOMPARE(piped.exitCode, 0);
    QVERIFY2(!piped.err.contains("simulating:"), piped.err.constData());

    const QString script = QStandardPaths::findExecutable(QStringLiteral("script"));
    if (script.isEmpty())
        QSKIP("script(1) is needed to give the command a terminal");
    QStringList command{QStringLiteral(VERITY_BINARY), QStringLiteral("simulate")};
    command += arguments;
    for (QString &part : command)
        part = u'\'' + part + u'\'';
    QProcess process;
    process.start(script, {QStringLiteral("-qec"), command.join(u' '), QStringLiteral("/dev/null")});
    QVERIFY(process.waitForFinished(120000));
    QCOMPARE(process.exitCode(), 0);
    const QByteArray terminal = process.readAllStandardOutput();
    QVERIFY2(terminal.contains("simulating: 30 of 30 tickets (100%)"), terminal.constData());
    QVERIFY2(terminal.contains("tickets: 30"), terminal.constData());
}

void TestSimulateCommand::helpPrintsThePolicyTable()
{
    const Run run = simulate({QStringLiteral("--help")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("--policy"));
    QVERIFY(run.out.contains("unknown ({\"outcome\":\"unknown\"})"));
    QVERIFY(run.out.contains("never retry"));
}

void TestSimulateCommand::badArguments_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString policy = QStringLiteral("--policy");
    QTest::newRow("no policy") << QStringList{} << QStringLiteral("--policy is required");
    QTest::newRow("odd policy") << QStringList{policy, QStringLiteral("yolo")}
                                << QStringLiteral("--policy: expected as-shipped or intent-key");
    QTest::newRow("zero tickets") << QStringList{policy, QStringLiteral("as-shipped"),
                                                 QStringLiteral("--tickets"), QStringLiteral("0")}
                                  << QStringLiteral("--tickets: expected a whole number");
    QTest::newRow("too many tickets") << QStringList{policy, QStringLiteral("as-shipped"),
                                                     QStringLiteral("--tickets"), QStringLiteral("1000001")}
                                      << QStringLiteral("--tickets: at most 1000000 tickets in one run");
    QTest::newRow("far too many tickets")
            << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("--tickets"),
                           QStringLiteral("99999999999999999999")}
            << QStringLiteral("--tickets: at most 1000000 tickets in one run");
    QTest::newRow("text tickets") << QStringList{policy, QStringLiteral("as-shipped"),
                                                 QStringLiteral("--tickets"), QStringLiteral("many")}
                                  << QStringLiteral("--tickets: expected a whole number");
    QTest::newRow("rate above 1") << QStringList{policy, QStringLiteral("as-shipped"),
                                                 QStringLiteral("--fault-rate"), QStringLiteral("1.5")}
                                  << QStringLiteral("--fault-rate: expected a probability from 0 to 1");
    QTest::newRow("negative seed") << QStringList{policy, QStringLiteral("as-shipped"),
                                                  QStringLiteral("--seed"), QStringLiteral("-1")}
                                   << QStringLiteral("--seed: expected a whole number");
    QTest::newRow("remote sandbox")
            << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("--sandbox"),
                           QStringLiteral("http://example.com:12111")}
            << QStringLiteral("--sandbox: \"http://example.com:12111\" is plain http to another machine");
    QTest::newRow("file sandbox") << QStringList{policy, QStringLiteral("as-shipped"),
                                                 QStringLiteral("--sandbox"), QStringLiteral("/tmp/sandbox")}
                                  << QStringLiteral(
                                             "--sandbox: \"/tmp/sandbox\" has no scheme; expected https://…");
    QTest::newRow("https sandbox elsewhere")
            << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("--sandbox"),
                           QStringLiteral("https://example.com:12111")}
            << QStringLiteral("--sandbox: expected an http URL on this machine");
    QTest::newRow("unknown option") << QStringList{policy, QStringLiteral("as-shipped"),
                                                   QStringLiteral("--fast")}
                                    << QStringLiteral("Unknown option 'fast'");
    QTest::newRow("positional") << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("extra")}
                                << QStringLiteral("unexpected argument \"extra\"");
}

void TestSimulateCommand::badArguments()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const Run run = simulate(arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
    QVERIFY(run.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestSimulateCommand)
#include "tst_simulatecommand.moc"

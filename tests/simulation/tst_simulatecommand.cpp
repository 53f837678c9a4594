// `verity simulate` through the built binary: the numbers as text and JSON, the same seed
// giving the same numbers, --out importing cleanly, a running `verity sandbox` used through
// --sandbox, and every bad argument refused with exit status 2 and a message naming it.

#include "import/transcriptimporter.h"
#include "store/sqlitestore.h"

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

Run simulate(const QStringList &arguments, const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(VERITY_BINARY), QStringList{QStringLiteral("simulate")} + arguments);
    if (!process.waitForFinished(120000))
        qFatal("verity simulate did not finish");
    return Run{process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, process.readAllStandardOutput(),
               process.readAllStandardError()};
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
    void helpPrintsThePolicyTable();
    void badArguments_data();
    void badArguments();
};

void TestSimulateCommand::printsTheNumbers()
{
    const Run run = simulate({QStringLiteral("--policy"), QStringLiteral("as-shipped"), QStringLiteral("--tickets"),
                              QStringLiteral("200"), QStringLiteral("--fault-rate"), QStringLiteral("0.3"),
                              QStringLiteral("--seed"), QStringLiteral("9")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    for (const char *line : {"tickets: 200\n", "writes attempted: ", "HTTP POSTs sent: ", "refunds performed: ",
                             "duplicate refunds: ", "unknowns escalated: 0\n", "money at risk: $", "sellers left negative: "})
        QVERIFY2(run.out.contains(line), line);
}

void TestSimulateCommand::sameSeedSameJson()
{
    const QStringList arguments{QStringLiteral("--policy"), QStringLiteral("intent-key"), QStringLiteral("--tickets"),
                                QStringLiteral("200"), QStringLiteral("--fault-rate"), QStringLiteral("0.5"),
                                QStringLiteral("--seed"), QStringLiteral("11"), QStringLiteral("--json")};
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
    const Run run = simulate({QStringLiteral("--policy"), QStringLiteral("as-shipped"), QStringLiteral("--tickets"),
                              QStringLiteral("40"), QStringLiteral("--fault-rate"), QStringLiteral("0.3"),
                              QStringLiteral("--out"), out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    Expected<std::unique_ptr<SqliteStore>> store = SqliteStore::open(folder.filePath(QStringLiteral("v.sqlite")));
    QVERIFY(store.ok());
    TranscriptImporter importer(**store, ToolRegistry::builtIn());
    const ImportReport report = importer.importFile(out);
    QVERIFY2(report.clean(), qPrintable(report.rejectionMessages().join(u'\n')));
    QCOMPARE(report.ticketsOpened, qint64(40));
    // And through `verity import` as a person would.
    QProcess import;
    import.start(QStringLiteral(VERITY_BINARY),
                 {QStringLiteral("import"), QStringLiteral("--db"), folder.filePath(QStringLiteral("cli.sqlite")), out});
    QVERIFY(import.waitForFinished(60000));
    QVERIFY2(import.exitCode() == 0, import.readAllStandardError().constData());
}

void TestSimulateCommand::usesARunningSandbox()
{
    QTemporaryDir folder;
    QProcess sandbox;
    sandbox.start(QStringLiteral(VERITY_BINARY), {QStringLiteral("sandbox"), QStringLiteral("--port"), QStringLiteral("0"),
                                                  QStringLiteral("--state"), folder.filePath(QStringLiteral("s.sqlite"))});
    QVERIFY(sandbox.waitForReadyRead(15000));
    const QString first = QString::fromUtf8(sandbox.readLine()).trimmed();
    QVERIFY2(first.startsWith(QStringLiteral("listening on ")), qPrintable(first));
    const QString url = first.mid(13);
    const QStringList arguments{QStringLiteral("--policy"), QStringLiteral("as-shipped"), QStringLiteral("--tickets"),
                                QStringLiteral("30"), QStringLiteral("--fault-rate"), QStringLiteral("0.5"),
                                QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--json"),
                                QStringLiteral("--sandbox"), url};
    const Run shared = simulate(arguments);
    const Run again = simulate(arguments); // the same sandbox again: new ids, the same numbers
    const Run own = simulate(arguments.mid(0, arguments.size() - 2));
    sandbox.terminate();
    sandbox.waitForFinished(10000);
    QVERIFY2(shared.exitCode == 0, shared.err.constData());
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(shared.out, again.out);
    QCOMPARE(shared.out, own.out);
    QVERIFY(QJsonDocument::fromJson(shared.out).object().value(QStringLiteral("duplicate_refunds")).toInt() > 0);
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
    QTest::newRow("odd policy") << QStringList{policy, QStringLiteral("yolo")} << QStringLiteral("--policy: expected as-shipped or intent-key");
    QTest::newRow("zero tickets") << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("--tickets"), QStringLiteral("0")}
                                  << QStringLiteral("--tickets: expected a whole number");
    QTest::newRow("text tickets") << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("--tickets"), QStringLiteral("many")}
                                  << QStringLiteral("--tickets: expected a whole number");
    QTest::newRow("rate above 1") << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("--fault-rate"), QStringLiteral("1.5")}
                                  << QStringLiteral("--fault-rate: expected a probability from 0 to 1");
    QTest::newRow("negative seed") << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("--seed"), QStringLiteral("-1")}
                                   << QStringLiteral("--seed: expected a whole number");
    QTest::newRow("remote sandbox") << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("--sandbox"), QStringLiteral("http://example.com:12111")}
                                    << QStringLiteral("--sandbox: expected an http URL on this machine");
    QTest::newRow("unknown option") << QStringList{policy, QStringLiteral("as-shipped"), QStringLiteral("--fast")}
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

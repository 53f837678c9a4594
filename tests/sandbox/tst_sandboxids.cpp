// The sandbox and the demo generator derive the same ids from the same seeds. The seed gives
// a refund the transcript names none for its id (derivedSandboxId), and
// resources/demo/generate-demo.py repeats that derivation (sandbox_id) so that the demo's
// provider lines name the refunds a seeded sandbox holds. tests/data/sandbox-ids.json lists
// seeds and the ids both must give, among them refunds of the demo incident; a change to
// either derivation fails here. The generator's part is skipped, with the reason, where
// python3 is not installed.

#include "sandbox/sandboxstate.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

using namespace verity;

namespace {

struct IdCase
{
    QString prefix;
    QString seed;
    QString id;
};

QList<IdCase> idCases()
{
    QFile file(QStringLiteral(VERITY_TEST_DATA "/sandbox-ids.json"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s: %s", qPrintable(file.fileName()), qPrintable(file.errorString()));
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (!document.isArray())
        qFatal("%s is not a JSON array: %s", qPrintable(file.fileName()), qPrintable(error.errorString()));
    QList<IdCase> cases;
    for (const QJsonValue &value : document.array()) {
        const QJsonObject object = value.toObject();
        cases.append({object.value(QStringLiteral("prefix")).toString(),
                      object.value(QStringLiteral("seed")).toString(),
                      object.value(QStringLiteral("id")).toString()});
    }
    return cases;
}

// Loads the generator as a module (its name has a dash, so by path) without running it, and
// prints the id it derives for each case of the file, as a JSON array.
const char *generatorIds = R"(
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("generate_demo", sys.argv[1])
generator = importlib.util.module_from_spec(spec)
spec.loader.exec_module(generator)
with open(sys.argv[2], encoding="utf-8") as cases:
    print(json.dumps([generator.sandbox_id(case["prefix"], case["seed"]) for case in json.load(cases)]))
)";

} // namespace

class TestSandboxIds : public QObject
{
    Q_OBJECT

private slots:
    void theSandboxDerivesEachId_data();
    void theSandboxDerivesEachId();
    void theDemoGeneratorDerivesTheSameIds();
};

void TestSandboxIds::theSandboxDerivesEachId_data()
{
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QString>("seed");
    QTest::addColumn<QString>("id");
    const QList<IdCase> cases = idCases();
    QVERIFY(!cases.isEmpty());
    for (const IdCase &idCase : cases)
        QTest::addRow("%s \"%s\"", qPrintable(idCase.prefix), qPrintable(idCase.seed))
                << idCase.prefix << idCase.seed << idCase.id;
}

void TestSandboxIds::theSandboxDerivesEachId()
{
    QFETCH(QString, prefix);
    QFETCH(QString, seed);
    QFETCH(QString, id);
    QCOMPARE(derivedSandboxId(prefix, seed), id);
}

void TestSandboxIds::theDemoGeneratorDerivesTheSameIds()
{
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty())
        QSKIP("python3 is not installed: the demo generator's ids cannot be checked here");
    const QString vectors = QStringLiteral(VERITY_TEST_DATA "/sandbox-ids.json");
    const QString generator = QStringLiteral(VERITY_TEST_DATA "/../../resources/demo/generate-demo.py");
    QProcess process;
    // -B: no bytecode cache written beside the generator in the source tree.
    process.start(python,
                  {QStringLiteral("-B"), QStringLiteral("-c"), QString::fromUtf8(generatorIds), generator,
                   vectors});
    QVERIFY2(process.waitForFinished(60000), qPrintable(process.errorString()));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QJsonParseError error;
    const QJsonDocument made = QJsonDocument::fromJson(process.readAllStandardOutput(), &error);
    QVERIFY2(made.isArray(), qPrintable(error.errorString()));

    const QList<IdCase> cases = idCases();
    const QJsonArray ids = made.array();
    QCOMPARE(ids.size(), cases.size());
    for (qsizetype i = 0; i < cases.size(); ++i) {
        const IdCase &idCase = cases.at(i);
        QVERIFY2(ids.at(i).toString() == idCase.id,
                 qPrintable(QStringLiteral("sandbox_id(\"%1\", \"%2\") gives %3, not %4")
                                    .arg(idCase.prefix, idCase.seed, ids.at(i).toString(), idCase.id)));
    }
}

QTEST_GUILESS_MAIN(TestSandboxIds)
#include "tst_sandboxids.moc"

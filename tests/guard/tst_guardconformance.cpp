// The MCP conformance suite (@modelcontextprotocol/conformance, its server scenarios) against the
// reference server-everything alone, and through `verity guard --listen`: the guard is
// transparent when every scenario ends the same way through it. One differs on purpose: the guard
// refuses a Host header that is not its own (DNS rebinding), which the server alone does not.

#include "listeningprocess.h"
#include "support/verityprocess.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace verity::test;

namespace {

const QString conformance = QStringLiteral(VERITY_CONFORMANCE_JS);

QString node22()
{
    return conformance + QStringLiteral("/node_modules/.bin/node");
}

// The suite's summary: each scenario's "N passed, M failed", by name.
QMap<QString, QString> runSuite(const QString &url, const QString &results, QString &output)
{
    QProcess suite;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    // Its bin runs on the `node` first in PATH: Node 22, which it needs (fs.globSync).
    environment.insert(QStringLiteral("PATH"),
                       conformance + QStringLiteral("/node_modules/.bin:")
                               + environment.value(QStringLiteral("PATH")));
    suite.setProcessEnvironment(environment);
    suite.setWorkingDirectory(conformance);
    suite.setProcessChannelMode(QProcess::MergedChannels);
    suite.start(conformance + QStringLiteral("/node_modules/.bin/conformance"),
                {QStringLiteral("server"), QStringLiteral("--url"), url, QStringLiteral("-o"), results});
    suite.waitForFinished(180000);
    output = QString::fromUtf8(suite.readAll());
    QMap<QString, QString> scenarios;
    const QRegularExpression line(QStringLiteral("^[✓✗] (\\S+): (\\d+ passed, \\d+ failed)$"),
                                  QRegularExpression::MultilineOption);
    for (auto match = line.globalMatch(output); match.hasNext();) {
        const QRegularExpressionMatch found = match.next();
        scenarios.insert(found.captured(1), found.captured(2));
    }
    return scenarios;
}

} // namespace

class GuardConformanceTest : public QObject
{
    Q_OBJECT

private slots:
    void everyScenarioEndsAsWithoutTheGuard();
};

void GuardConformanceTest::everyScenarioEndsAsWithoutTheGuard()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ListeningProcess server(node22(), {QStringLiteral("everything-on-loopback.mjs")},
                            QProcessEnvironment::systemEnvironment(), conformance);
    QVERIFY2(!server.url().isEmpty(), qPrintable(server.log()));
    QString directOutput;
    const QMap<QString, QString> direct =
            runSuite(server.url(), dir.filePath(QStringLiteral("direct")), directOutput);
    QVERIFY2(direct.size() >= 30, qPrintable(directOutput));

    ListeningProcess guard(QStringLiteral(VERITY_BINARY),
                           {QStringLiteral("guard"), QStringLiteral("--db"),
                            dir.filePath(QStringLiteral("desk.db")), QStringLiteral("--listen"),
                            QStringLiteral("127.0.0.1:0"), QStringLiteral("--upstream"), server.url()},
                           isolatedEnvironment(dir.path()));
    QVERIFY2(!guard.url().isEmpty(), qPrintable(guard.log()));
    QString guardedOutput;
    const QMap<QString, QString> guarded =
            runSuite(guard.url(), dir.filePath(QStringLiteral("guarded")), guardedOutput);
    QCOMPARE(guarded.keys(), direct.keys());
    for (auto scenario = direct.cbegin(); scenario != direct.cend(); ++scenario) {
        const QString through = guarded.value(scenario.key());
        if (scenario.key() == QLatin1String("dns-rebinding-protection")) {
            QVERIFY2(through.endsWith(QLatin1String(" 0 failed")), qPrintable(guardedOutput));
            continue;
        }
        QVERIFY2(through == scenario.value(),
                 qPrintable(QStringLiteral("%1: %2 alone, %3 through the guard\n%4\n%5")
                                    .arg(scenario.key(), scenario.value(), through, guardedOutput,
                                         guard.log())));
    }
}

QTEST_GUILESS_MAIN(GuardConformanceTest)
#include "tst_guardconformance.moc"

// The demo data is what its generator makes: resources/demo/march-incident.jsonl is the
// committed output of resources/demo/generate-demo.py, and a change to one without the other
// fails here. Skipped, with the reason, where python3 is not installed.

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

class TestDemoData : public QObject
{
    Q_OBJECT

private slots:
    void committedFileIsTheGeneratorsOutput()
    {
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            QSKIP("python3 is not installed: the demo generator cannot be run here");
        const QString demo = QStringLiteral(VERITY_TEST_DATA "/../../resources/demo");
        QProcess generator;
        generator.start(python, {demo + QStringLiteral("/generate-demo.py")});
        QVERIFY2(generator.waitForFinished(60000), qPrintable(generator.errorString()));
        QCOMPARE(generator.exitStatus(), QProcess::NormalExit);
        QVERIFY2(generator.exitCode() == 0, generator.readAllStandardError().constData());
        const QByteArray made = generator.readAllStandardOutput();

        QFile committed(demo + QStringLiteral("/march-incident.jsonl"));
        QVERIFY(committed.open(QIODevice::ReadOnly));
        const QByteArray stored = committed.readAll();
        // The first line that differs, so a failure says where the two parted.
        const QList<QByteArray> madeLines = made.split('\n');
        const QList<QByteArray> storedLines = stored.split('\n');
        for (qsizetype i = 0; i < qMin(madeLines.size(), storedLines.size()); ++i)
            QVERIFY2(madeLines.at(i) == storedLines.at(i),
                     qPrintable(QStringLiteral("line %1 differs").arg(i + 1)));
        QCOMPARE(made.size(), stored.size());
        QVERIFY(made == stored);
    }
};

QTEST_GUILESS_MAIN(TestDemoData)
#include "tst_demodata.moc"

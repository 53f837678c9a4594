// `verity resolve` through the built binary, on the demo database: an attested check settles a
// write no system is asked about (exit 0), is stored and audited as attested, never verified;
// a second operator is told who settled it first and when (exit 1); bad arguments are refused
// with the option named and nothing stored (exit 2).

#include "audit/auditlog.h"
#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "store/storefactory.h"
#include "support/verityprocess.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

class TestResolveCommand : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void badArgumentsStoreNothing_data();
    void badArgumentsStoreNothing();
    void attestsThenTellsWhoWasFirst();

private:
    VerityRun verity(const QStringList &arguments) const
    {
        return runVerity(arguments, isolatedEnvironment(m_dir.path()));
    }
    qint64 pickupEscalation();
    QStringList resolve(const QStringList &options) const;

    QTemporaryDir m_dir;
    QString m_db;
};

void TestResolveCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("demo.sqlite"));
    Expected<std::unique_ptr<Store>> store = openStore(m_db);
    QVERIFY(store);
    TranscriptImporter importer(**store, ToolRegistry::builtIn());
    QVERIFY(importer.importFile(demoDataResource()).clean());
}

qint64 TestResolveCommand::pickupEscalation()
{
    Expected<std::unique_ptr<Store>> store = openStore(m_db);
    const QList<EscalationRow> open = *(*store)->openEscalations(0, 100);
    for (const EscalationRow &row : open) {
        if (row.ticketExtId == u"T-20260402-0502" && row.tool == u"schedule_pickup")
            return row.id;
    }
    return 0;
}

QStringList TestResolveCommand::resolve(const QStringList &options) const
{
    return QStringList{QStringLiteral("resolve"), QStringLiteral("--db"), m_db} + options;
}

void TestResolveCommand::badArgumentsStoreNothing_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("named");
    const QStringList full{QStringLiteral("--attest"),    QStringLiteral("performed"),
                           QStringLiteral("--reference"), QStringLiteral("PK-1"),
                           QStringLiteral("--note"),      QStringLiteral("seen"),
                           QStringLiteral("--operator"),  QStringLiteral("amira")};
    QTest::newRow("no escalation") << full << QStringLiteral("ESCALATION");
    QTest::newRow("not a number") << (QStringList{QStringLiteral("x12")} + full) << QStringLiteral("x12");
    QTest::newRow("no such escalation")
            << (QStringList{QStringLiteral("9999")} + full) << QStringLiteral("9999");
    QTest::newRow("no --attest") << QStringList{QStringLiteral("ID"),   QStringLiteral("--reference"),
                                                QStringLiteral("PK-1"), QStringLiteral("--note"),
                                                QStringLiteral("seen"), QStringLiteral("--operator"),
                                                QStringLiteral("amira")}
                                 << QStringLiteral("--attest");
    QTest::newRow("--attest maybe") << QStringList{QStringLiteral("ID"),    QStringLiteral("--attest"),
                                                   QStringLiteral("maybe"), QStringLiteral("--reference"),
                                                   QStringLiteral("PK-1"),  QStringLiteral("--note"),
                                                   QStringLiteral("seen"),  QStringLiteral("--operator"),
                                                   QStringLiteral("amira")}
                                    << QStringLiteral("maybe");
    QTest::newRow("blank note") << QStringList{QStringLiteral("ID"),        QStringLiteral("--attest"),
                                               QStringLiteral("performed"), QStringLiteral("--reference"),
                                               QStringLiteral("PK-1"),      QStringLiteral("--note"),
                                               QStringLiteral("  "),        QStringLiteral("--operator"),
                                               QStringLiteral("amira")}
                                << QStringLiteral("--note");
    QTest::newRow("no operator") << QStringList{QStringLiteral("ID"),        QStringLiteral("--attest"),
                                                QStringLiteral("performed"), QStringLiteral("--reference"),
                                                QStringLiteral("PK-1"),      QStringLiteral("--note"),
                                                QStringLiteral("seen")}
                                 << QStringLiteral("--operator");
    QTest::newRow("note too long") << QStringList{QStringLiteral("ID"),        QStringLiteral("--attest"),
                                                  QStringLiteral("performed"), QStringLiteral("--reference"),
                                                  QStringLiteral("PK-1"),      QStringLiteral("--note"),
                                                  QString(5000, u'x'),         QStringLiteral("--operator"),
                                                  QStringLiteral("amira")}
                                   << QStringLiteral("it may be at most 4,000: nothing was recorded");
    QTest::newRow("operator with a terminal escape")
            << QStringList{QStringLiteral("ID"),          QStringLiteral("--attest"),
                           QStringLiteral("performed"),   QStringLiteral("--reference"),
                           QStringLiteral("PK-1"),        QStringLiteral("--note"),
                           QStringLiteral("seen"),        QStringLiteral("--operator"),
                           QStringLiteral("amira\x1b[2J")}
            << QStringLiteral("--operator holds U+001B");
    QTest::newRow("operator too long")
            << QStringList{QStringLiteral("ID"),        QStringLiteral("--attest"),
                           QStringLiteral("performed"), QStringLiteral("--reference"),
                           QStringLiteral("PK-1"),      QStringLiteral("--note"),
                           QStringLiteral("seen"),      QStringLiteral("--operator"),
                           QString(101, u'a')}
            << QStringLiteral("--operator is 101 characters long; a name may be at most 100");
    QTest::newRow("reference with a right-to-left override")
            << QStringList{QStringLiteral("ID"),         QStringLiteral("--attest"),
                           QStringLiteral("performed"),  QStringLiteral("--reference"),
                           QStringLiteral("PK-\u202E1"), QStringLiteral("--note"),
                           QStringLiteral("seen"),       QStringLiteral("--operator"),
                           QStringLiteral("amira")}
            << QStringLiteral("the reference holds U+202E");
}

void TestResolveCommand::badArgumentsStoreNothing()
{
    QFETCH(QStringList, options);
    QFETCH(QString, named);
    const qint64 id = pickupEscalation();
    QVERIFY(id > 0);
    options.replaceInStrings(QRegularExpression(QStringLiteral("^ID$")), QString::number(id));
    const VerityRun run = verity(resolve(options));
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(named), qPrintable(run.err));
    Expected<std::unique_ptr<Store>> store = openStore(m_db);
    QCOMPARE(*(*store)->countAuditEntries(), 0);
    QCOMPARE((**(*store)->escalation(id)).state, EscalationState::Open);
}

void TestResolveCommand::attestsThenTellsWhoWasFirst()
{
    const qint64 id = pickupEscalation();
    QVERIFY(id > 0);
    const QString note =
            QStringLiteral("Courier portal: no collection booked <b>for</b> SU-88684\nchecked twice");
    const VerityRun first =
            verity(resolve({QString::number(id), QStringLiteral("--attest"), QStringLiteral("not-performed"),
                            QStringLiteral("--reference"), QStringLiteral("courier portal, order SU-88684"),
                            QStringLiteral("--note"), note, QStringLiteral("--operator"),
                            QStringLiteral("amira"), QStringLiteral("--json")}));
    QVERIFY2(first.exitCode == 0, qPrintable(first.err + first.out));
    const QJsonObject json = QJsonDocument::fromJson(first.out.toUtf8()).object();
    QCOMPARE(json.value(QStringLiteral("result")).toString(), QStringLiteral("resolved"));
    QCOMPARE(json.value(QStringLiteral("resolution")).toString(), QStringLiteral("not_performed"));
    QCOMPARE(json.value(QStringLiteral("basis")).toString(), QStringLiteral("attestation"));
    QCOMPARE(json.value(QStringLiteral("settled_by")).toString(), QStringLiteral("amira"));

    Expected<std::unique_ptr<Store>> store = openStore(m_db);
    const EscalationDetail settled = **(*store)->escalation(id);
    QCOMPARE(settled.state, EscalationState::Resolved);
    QCOMPARE(settlementText(*settled.resolution, settled.basis), QStringLiteral("not performed (attested)"));
    const QList<Evidence> evidence = *(*store)->evidence(id);
    QCOMPARE(evidence.size(), 1);
    QVERIFY(evidence.first().request.contains(note)); // kept as written, markup and all
    QVERIFY(AuditLog::verify(**store).ok());
    QVERIFY(AuditLog::verify(**store)->intact);
    store->reset();

    const VerityRun second = verity(
            resolve({QString::number(id), QStringLiteral("--attest"), QStringLiteral("performed"),
                     QStringLiteral("--reference"), QStringLiteral("PK-9"), QStringLiteral("--note"),
                     QStringLiteral("found it"), QStringLiteral("--operator"), QStringLiteral("bruno")}));
    QCOMPARE(second.exitCode, 1);
    QVERIFY2(QRegularExpression(
                     QStringLiteral(
                             "Already settled by amira at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ: not "
                             "performed \\(attested\\)"))
                     .match(second.out)
                     .hasMatch(),
             qPrintable(second.out));
    QVERIFY2(second.out.contains(QLatin1String("record that with --replaces-check")), qPrintable(second.out));

    // Only "performed since" replaces a check.
    const VerityRun wrongWay =
            verity(resolve({QString::number(id), QStringLiteral("--attest"), QStringLiteral("not-performed"),
                            QStringLiteral("--reference"), QStringLiteral("portal"), QStringLiteral("--note"),
                            QStringLiteral("again"), QStringLiteral("--operator"), QStringLiteral("bruno"),
                            QStringLiteral("--replaces-check")}));
    QCOMPARE(wrongWay.exitCode, 2);
    QVERIFY2(wrongWay.err.contains(QLatin1String("--replaces-check")), qPrintable(wrongWay.err));

    // Booked since with the same key, where no system can be asked: the later check replaces the first.
    const VerityRun replaced = verity(
            resolve({QString::number(id), QStringLiteral("--attest"), QStringLiteral("performed"),
                     QStringLiteral("--reference"), QStringLiteral("PK-9"), QStringLiteral("--note"),
                     QStringLiteral("booked by phone"), QStringLiteral("--operator"), QStringLiteral("bruno"),
                     QStringLiteral("--replaces-check"), QStringLiteral("--json")}));
    QVERIFY2(replaced.exitCode == 0, qPrintable(replaced.err + replaced.out));
    const QJsonObject after = QJsonDocument::fromJson(replaced.out.toUtf8()).object();
    QCOMPARE(after.value(QStringLiteral("resolution")).toString(), QStringLiteral("performed"));
    QCOMPARE(after.value(QStringLiteral("settled_by")).toString(), QStringLiteral("bruno"));
    QVERIFY2(after.value(QStringLiteral("message")).toString().contains(QLatin1String("It replaces")),
             qPrintable(replaced.out));
    store = openStore(m_db);
    QCOMPARE(settlementText(*(**(*store)->escalation(id)).resolution, SettlementBasis::Attestation),
             QStringLiteral("performed (attested)"));
    QVERIFY(AuditLog::verify(**store)->intact);
}

QTEST_GUILESS_MAIN(TestResolveCommand)
#include "tst_resolvecommand.moc"

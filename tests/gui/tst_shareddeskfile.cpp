// One desk file, a console open on it, and four other processes working on it at once for a
// minute: one imports conversations, one claims escalations and gives them back, one claims and
// settles them by an attested check, one reconciles against a provider export and settles what
// it proves. Meanwhile the console writes too and reads the file by other paths, as its dialogs
// do. At the end the database is intact, the audit chain holds, and every write any process
// reported done is there.

#include "import/importjob.h"
#include "mainwindow.h"
#include "support/deskfile.h"
#include "support/teststore.h"
#include "support/verityprocess.h"
#include "ticketqueuepane.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>

using namespace verity;
using namespace verity::test;

namespace {

constexpr qint64 workMs = 60000;

// One of the four: runs its next command as soon as the last one ended, until the minute is
// over. `next` gives the arguments; `done` reads what came of them.
class Lane
{
public:
    using Next = std::function<QStringList()>;
    using Done = std::function<void(int exitCode, const QByteArray &out, const QByteArray &err)>;

    Lane(QString name, QProcessEnvironment environment, const QElapsedTimer &clock, Next next, Done done)
        : m_name(std::move(name))
        , m_clock(clock)
        , m_next(std::move(next))
        , m_done(std::move(done))
    {
        m_process.setProcessEnvironment(environment);
        QObject::connect(&m_process, &QProcess::finished, [this](int code, QProcess::ExitStatus status) {
            ++m_runs;
            if (status != QProcess::NormalExit)
                m_failures << QStringLiteral("%1 crashed").arg(m_name);
            m_done(status == QProcess::NormalExit ? code : -1, m_process.readAllStandardOutput(),
                   m_process.readAllStandardError());
            start();
        });
        // A command that cannot even start ends the lane, said as a failure, not as a wait.
        QObject::connect(&m_process, &QProcess::errorOccurred, [this](QProcess::ProcessError error) {
            if (error != QProcess::FailedToStart)
                return;
            m_failures << QStringLiteral("%1 could not start: %2").arg(m_name, m_process.errorString());
            m_finished = true;
        });
    }
    void start()
    {
        if (m_clock.elapsed() >= workMs) {
            m_finished = true;
            return;
        }
        m_process.start(QStringLiteral(VERITY_BINARY), m_next());
    }
    bool finished() const { return m_finished; }
    int runs() const { return m_runs; }
    QStringList failures() const { return m_failures; }

private:
    QString m_name;
    const QElapsedTimer &m_clock;
    Next m_next;
    Done m_done;
    QProcess m_process;
    bool m_finished = false;
    int m_runs = 0;
    QStringList m_failures;
};

qint64 escalationOf(const QByteArray &json)
{
    const QJsonObject claim = QJsonDocument::fromJson(json).object();
    return claim.value(QStringLiteral("claimed")).toBool()
            ? claim.value(QStringLiteral("escalation")).toInteger()
            : 0;
}

} // namespace

class SharedDeskFileTest : public QObject
{
    Q_OBJECT

private slots:
    void aConsoleAndFourProcessesShareOneFileForAMinute();
};

void SharedDeskFileTest::aConsoleAndFourProcessesShareOneFileForAMinute()
{
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("desk.sqlite"));
    const QProcessEnvironment environment = isolatedEnvironment(folder.path());
    std::unique_ptr<Store> store = openTestStore(path);
    QVERIFY(store);
    QVERIFY(importInto(*store, demoDataResource()));
    const QString providerExport = folder.filePath(QStringLiteral("provider.csv"));
    {
        QFile file(providerExport);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("id,amount,currency,created,payment_intent\r\n"
                   "re_1,118.00,USD,2026-03-17 14:32:07,pi_SU-88421\r\n");
    }

    MainWindow window(*store, path, RegistrySource{});
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    QElapsedTimer clock;
    clock.start();
    const QStringList db{QStringLiteral("--db"), path};
    QStringList failures;

    // Imports: each a new conversation with an unknown refund, so there is always work to claim.
    QStringList imported;
    int importSerial = 0;
    QString importing;
    Lane importer(
            QStringLiteral("import"), environment, clock,
            [&] {
                importing = QStringLiteral("T-MP-IMPORT-%1").arg(++importSerial);
                return QStringList{QStringLiteral("import")} + db
                        + QStringList{writeUnknownRefund(folder.path(), importing, 1000 + importSerial)};
            },
            [&](int code, const QByteArray &, const QByteArray &err) {
                if (code == 0)
                    imported << importing;
                else
                    failures << QStringLiteral("import %1: %2").arg(importing, QString::fromUtf8(err));
            });

    // Claims and releases, alternately.
    int claims = 0;
    int releases = 0;
    qint64 held = 0;
    Lane claimer(
            QStringLiteral("claim"), environment, clock,
            [&] {
                if (held)
                    return QStringList{QStringLiteral("claim"), QString::number(held),
                                       QStringLiteral("--release"), QStringLiteral("--operator"),
                                       QStringLiteral("claimer")}
                    + db;
                return QStringList{QStringLiteral("claim"), QStringLiteral("--next"),
                                   QStringLiteral("--json"), QStringLiteral("--operator"),
                                   QStringLiteral("claimer")}
                + db;
            },
            [&](int code, const QByteArray &out, const QByteArray &err) {
                if (code == 2 || code < 0)
                    failures << QStringLiteral("claim: ") + QString::fromUtf8(err);
                if (held) {
                    releases += code == 0;
                    held = 0;
                } else if ((held = escalationOf(out))) {
                    ++claims;
                }
            });

    // Claims, then settles by an attested check.
    QList<qint64> settled;
    qint64 claimedToSettle = 0;
    Lane resolver(
            QStringLiteral("resolve"), environment, clock,
            [&] {
                if (claimedToSettle)
                    return QStringList{QStringLiteral("resolve"),     QString::number(claimedToSettle),
                                       QStringLiteral("--attest"),    QStringLiteral("performed"),
                                       QStringLiteral("--reference"), QStringLiteral("re_checked"),
                                       QStringLiteral("--note"),      QStringLiteral("seen in the dashboard"),
                                       QStringLiteral("--operator"),  QStringLiteral("resolver")}
                    + db;
                return QStringList{QStringLiteral("claim"), QStringLiteral("--next"),
                                   QStringLiteral("--json"), QStringLiteral("--operator"),
                                   QStringLiteral("resolver")}
                + db;
            },
            [&](int code, const QByteArray &out, const QByteArray &err) {
                if (code == 2 || code < 0)
                    failures << QStringLiteral("resolve: ") + QString::fromUtf8(err);
                if (claimedToSettle) {
                    if (code == 0)
                        settled << claimedToSettle;
                    claimedToSettle = 0;
                } else {
                    claimedToSettle = escalationOf(out);
                }
            });

    // Reconciles the period against the provider's export, settling what it proves.
    Lane reconciler(
            QStringLiteral("reconcile"), environment, clock,
            [&] {
                return QStringList{QStringLiteral("reconcile"),
                                   QStringLiteral("--provider-export"),
                                   providerExport,
                                   QStringLiteral("--from"),
                                   QStringLiteral("2026-03-01"),
                                   QStringLiteral("--to"),
                                   QStringLiteral("2026-04-30"),
                                   QStringLiteral("--settle"),
                                   QStringLiteral("--operator"),
                                   QStringLiteral("reconciler")}
                + db;
            },
            [&](int code, const QByteArray &, const QByteArray &err) {
                if (code == 2 || code < 0)
                    failures << QStringLiteral("reconcile: ") + QString::fromUtf8(err);
            });

    for (Lane *lane : {&importer, &claimer, &resolver, &reconciler})
        lane->start();

    // The console writes too, and reads the file by other paths as its dialogs would.
    QStringList consoleWrites;
    while (clock.elapsed() < workMs) {
        QTest::qWait(2000);
        for (const char *suffix : {"", "-shm", "-wal"}) {
            QFile sniffed(path + QLatin1String(suffix));
            if (sniffed.open(QIODevice::ReadOnly))
                sniffed.read(64);
        }
        const QString ticket = QStringLiteral("T-MP-CONSOLE-%1").arg(consoleWrites.size() + 1);
        if (importInto(*store, writeUnknownRefund(folder.path(), ticket, 5000 + int(consoleWrites.size()))))
            consoleWrites << ticket;
        else
            failures << QStringLiteral("the console's import of ") + ticket;
    }
    QTRY_VERIFY_WITH_TIMEOUT(
            importer.finished() && claimer.finished() && resolver.finished() && reconciler.finished(), 60000);
    for (const Lane *lane : {&importer, &claimer, &resolver, &reconciler})
        failures += lane->failures();
    QCOMPARE(failures, QStringList());
    QCOMPARE(deletedStoreFilesHeldOpen(path), QStringList());
    qInfo("in a minute: %d imports, %d claims and %d releases, %d settled by attestation, %d "
          "reconciliations, %d "
          "console writes",
          int(imported.size()), claims, releases, int(settled.size()), reconciler.runs(),
          int(consoleWrites.size()));
    QVERIFY(imported.size() >= 5 && claims >= 5 && settled.size() >= 3 && reconciler.runs() >= 3);

    window.close();
    store.reset();
    const QString broken = brokenAfterClose(path, environment);
    QVERIFY2(broken.isEmpty(), qPrintable(broken));

    // Every write any process said it made.
    const QStringList written = imported + consoleWrites;
    QCOMPARE(sqliteShell(path,
                         QStringLiteral("SELECT count(*) FROM tickets WHERE ext_id IN ('%1')")
                                 .arg(written.join(QStringLiteral("','")))),
             QString::number(written.size()));
    QCOMPARE(sqliteShell(path,
                         QStringLiteral("SELECT count(*) FROM audit_log WHERE operator = 'claimer' AND "
                                        "action = 'claim'")),
             QString::number(claims));
    QCOMPARE(sqliteShell(path,
                         QStringLiteral("SELECT count(*) FROM audit_log WHERE operator = 'claimer' AND "
                                        "action = 'release'")),
             QString::number(releases));
    QStringList settledIds;
    for (qint64 id : settled)
        settledIds << QString::number(id);
    QCOMPARE(sqliteShell(path,
                         QStringLiteral("SELECT count(*) FROM escalations WHERE state = 'resolved' AND id IN "
                                        "(%1)")
                                 .arg(settledIds.join(u','))),
             QString::number(settled.size()));
}

QTEST_MAIN(SharedDeskFileTest)
#include "tst_shareddeskfile.moc"

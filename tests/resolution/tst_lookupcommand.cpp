// `verity lookup` through the built binary, on the demo database, against the sandbox seeded
// with the demo's side (in this process, on 127.0.0.1, answering while the command runs):
// --json names the refund each lookup found; an escalation another operator settled first
// says who, when (UTC) and how; a provider URL outside the rule is refused with exit status 2
// before anything is asked; and a provider that redirects to another origin settles nothing
// and the other origin never sees the key.

#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "resolution/escalationresolver.h"
#include "sandbox/sandboxseed.h"
#include "store/storefactory.h"
#include "support/inprocesssandbox.h"
#include "support/loopbackprovider.h"
#include "support/provider.h"
#include "support/rawsqlite.h"
#include "support/testmacros.h"
#include "support/teststore.h"
#include "support/verityprocess.h"

#include <QDateTime>
#include <QFile>
#include <QRegularExpression>
#include <QSignalSpy>

using namespace verity;
using namespace verity::test;

namespace {

const QString incidentTicket = QStringLiteral("T-20260317-0412");
const QString notPerformedTicket = QStringLiteral("T-20260331-0158"); // its refund never reached the provider

bool isUtcTime(const QString &text)
{
    static const QRegularExpression shape(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$"));
    return shape.match(text).hasMatch();
}

QJsonObject rowFor(const QJsonArray &results, qint64 escalation)
{
    for (const QJsonValue &value : results) {
        if (value.toObject().value(QStringLiteral("escalation")).toInteger() == escalation)
            return value.toObject();
    }
    return {};
}

} // namespace

class TestLookupCommand : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void jsonNamesTheRefundFound();
    void saysWhoSettledFirst();
    void refusesProviderUrls_data();
    void refusesProviderUrls();
    void redirectElsewhereSettlesNothing();
    void paymentIsNamedOnTheCommandLine();
    void withoutAKeyNothingIsAsked();

private:
    // The open refund escalation of `ticket` (the first, or the one of `call`).
    qint64 refundEscalationOf(const QString &ticket, const QString &call = {});
    // The command runs while this process's event loop does, so the servers here answer it.
    VerityRun lookup(const QStringList &arguments);

    QTemporaryDir m_pristineFolder;
    QString m_pristine;
    std::unique_ptr<QTemporaryDir> m_folder;
    QString m_dbPath;
    std::unique_ptr<InProcessSandbox> m_sandbox;
};

void TestLookupCommand::initTestCase()
{
    QVERIFY2(QFile::exists(QStringLiteral(VERITY_BINARY)), VERITY_BINARY " is not built");
    QVERIFY(m_pristineFolder.isValid());
    m_pristine = m_pristineFolder.filePath(QStringLiteral("demo.sqlite"));
    std::unique_ptr<Store> store = openTestStore(m_pristine);
    QVERIFY(store);
    TranscriptImporter importer(*store, ToolRegistry::builtIn());
    const ImportReport report = importer.importFile(demoDataResource());
    QVERIFY2(report.clean(), qPrintable(report.summary()));
    QCOMPARE(*store->countOpenEscalations(), 15);
}

void TestLookupCommand::init()
{
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    m_dbPath = m_folder->filePath(QStringLiteral("console.sqlite"));
    QVERIFY(QFile::copy(m_pristine, m_dbPath));
    m_sandbox = std::make_unique<InProcessSandbox>();
    Expected<SandboxSeedReport> seeded = seedDemo(m_sandbox->state());
    QVERIFY_OK(seeded);
}

void TestLookupCommand::cleanup()
{
    m_sandbox.reset();
    m_folder.reset();
}

qint64 TestLookupCommand::refundEscalationOf(const QString &ticket, const QString &call)
{
    std::unique_ptr<Store> store = openTestStore(m_dbPath);
    if (!store)
        return -1;
    const QList<EscalationRow> open = *store->openEscalations(0, 100);
    for (const EscalationRow &row : open) {
        const EscalationDetail detail = **store->escalation(row.id);
        if (row.ticketExtId == ticket && detail.tool == u"issue_refund"
            && (call.isEmpty() || row.callExtId == call))
            return row.id;
    }
    return -1;
}

VerityRun TestLookupCommand::lookup(const QStringList &arguments)
{
    QProcessEnvironment environment = isolatedEnvironment(m_folder->path());
    environment.insert(QStringLiteral("VERITY_PROVIDER_API_KEY"), sandboxApiKey);
    return runVerity(QStringList{QStringLiteral("lookup"), QStringLiteral("--db"), m_dbPath} + arguments,
                     environment);
}

void TestLookupCommand::jsonNamesTheRefundFound()
{
    const qint64 incident = refundEscalationOf(incidentTicket, QStringLiteral("c3"));
    const qint64 absent = refundEscalationOf(notPerformedTicket);
    QVERIFY(incident > 0 && absent > 0);

    const VerityRun run =
            lookup({QStringLiteral("--provider"), m_sandbox->url().toString(), QStringLiteral("--all-open"),
                    QStringLiteral("--json"), QStringLiteral("--operator"), QStringLiteral("nightly-job")});
    // Every escalation is settled, pickups and messages at their own systems: nothing stays open.
    QVERIFY2(run.exitCode == 0,
             qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(run.exitCode).arg(run.out, run.err)));
    const QJsonArray results =
            QJsonDocument::fromJson(run.out.toUtf8()).object().value(QStringLiteral("results")).toArray();
    QCOMPARE(results.size(), 15);
    // Every result names its refund, or says plainly that there is none.
    for (const QJsonValue &value : results) {
        const QJsonObject row = value.toObject();
        QVERIFY2(row.contains(QStringLiteral("refund_id")), QJsonDocument(row).toJson().constData());
        const QJsonValue refund = row.value(QStringLiteral("refund_id"));
        QVERIFY(refund.isNull() || refund.toString().startsWith(QStringLiteral("re_")));
        if (row.value(QStringLiteral("result")).toString() != u"resolved"
            || row.value(QStringLiteral("tool")).toString() != u"issue_refund")
            QVERIFY2(refund.isNull(), QJsonDocument(row).toJson().constData());
        // The record that settled it, a refund, a pickup or a message, when one did.
        if (row.value(QStringLiteral("resolution")).toString() == u"performed")
            QVERIFY2(!row.value(QStringLiteral("reference")).toString().isEmpty(),
                     QJsonDocument(row).toJson().constData());
    }

    // Found: c3's own refund (the first created with the key), by whom and when it was settled.
    const QJsonObject found = rowFor(results, incident);
    QCOMPARE(found.value(QStringLiteral("resolution")).toString(), QStringLiteral("performed"));
    QCOMPARE(found.value(QStringLiteral("refund_id")).toString(),
             derivedSandboxId(QStringLiteral("re_"), QStringLiteral("demo|T-20260317-0412/c3")));
    QCOMPARE(found.value(QStringLiteral("resolved_by")).toString(), QStringLiteral("nightly-job"));
    QVERIFY2(isUtcTime(found.value(QStringLiteral("resolved_at")).toString()),
             QJsonDocument(found).toJson().constData());

    // Not found: settled as not performed, and no refund to name.
    const QJsonObject missing = rowFor(results, absent);
    QCOMPARE(missing.value(QStringLiteral("resolution")).toString(), QStringLiteral("not_performed"));
    QVERIFY(missing.value(QStringLiteral("refund_id")).isNull());
}

void TestLookupCommand::saysWhoSettledFirst()
{
    const qint64 id = refundEscalationOf(incidentTicket, QStringLiteral("c3"));
    QVERIFY(id > 0);
    qint64 resolvedAt = 0;
    {
        // Alice's console settles it first.
        std::unique_ptr<Store> store = openTestStore(m_dbPath);
        QVERIFY(store);
        ProviderClient client(settingsFor(m_sandbox->url()));
        EscalationResolver alice(*store, client, QStringLiteral("alice"));
        ResolutionOperation *operation = alice.lookUp(id);
        QCOMPARE(int(EscalationResolver::waitFor(operation).kind), int(ResolutionReport::Kind::Resolved));
        operation->deleteLater();
        resolvedAt = (*store->escalation(id))->resolvedAt;
        QVERIFY(resolvedAt > 0);
    }
    const QString when = QDateTime::fromMSecsSinceEpoch(resolvedAt, Qt::UTC).toString(Qt::ISODate);
    QVERIFY2(isUtcTime(when), qPrintable(when));
    const QString expected = QStringLiteral("already settled by alice at %1: performed (verified)").arg(when);

    const QStringList arguments{QStringLiteral("--provider"), m_sandbox->url().toString(),
                                QString::number(id), QStringLiteral("--operator"), QStringLiteral("bruno")};
    const VerityRun text = lookup(arguments);
    QVERIFY2(text.exitCode == 1,
             qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(text.exitCode).arg(text.out, text.err)));
    const QStringList lines = text.out.split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3); // the header, the row, what remains
    QVERIFY2(lines.at(1).startsWith(QString::number(id)) && lines.at(1).endsWith(expected),
             qPrintable(text.out));

    const VerityRun json = lookup(arguments + QStringList{QStringLiteral("--json")});
    QCOMPARE(json.exitCode, 1);
    const QJsonObject row = rowFor(
            QJsonDocument::fromJson(json.out.toUtf8()).object().value(QStringLiteral("results")).toArray(),
            id);
    QCOMPARE(row.value(QStringLiteral("result")).toString(), QStringLiteral("resolved_elsewhere"));
    QCOMPARE(row.value(QStringLiteral("resolved_by")).toString(), QStringLiteral("alice"));
    QCOMPARE(row.value(QStringLiteral("resolved_at")).toString(), when);
    QCOMPARE(row.value(QStringLiteral("resolution")).toString(), QStringLiteral("performed"));
    QCOMPARE(row.value(QStringLiteral("message")).toString(), expected);
    QVERIFY(row.value(QStringLiteral("refund_id")).isNull()); // bruno looked nothing up
}

void TestLookupCommand::refusesProviderUrls_data()
{
    QTest::addColumn<QString>("url"); // %1: a folder, %2: the sandbox's port
    QTest::addColumn<QString>("why");
    QTest::newRow("a file") << QStringLiteral("file://%1/provider") << QStringLiteral("uses file:");
    // QUrl::fromUserInput would make this file://...: a bare path is no URL at all.
    QTest::newRow("a bare path") << QStringLiteral("%1/provider") << QStringLiteral("has no scheme");
    QTest::newRow("a password") << QStringLiteral("http://user:secret@127.0.0.1:%2")
                                << QStringLiteral("carries a user name or password");
    QTest::newRow("ftp") << QStringLiteral("ftp://127.0.0.1:%2") << QStringLiteral("uses ftp:");
    QTest::newRow("no host") << QStringLiteral("http:///v1") << QStringLiteral("names no host");
}

void TestLookupCommand::refusesProviderUrls()
{
    QFETCH(QString, url);
    QFETCH(QString, why);
    const QString provider = QString(url)
                                     .replace(QStringLiteral("%1"), m_folder->path())
                                     .replace(QStringLiteral("%2"), QString::number(m_sandbox->url().port()));
    const VerityRun run = lookup({QStringLiteral("--provider"), provider, QStringLiteral("--all-open")});
    QVERIFY2(run.exitCode == 2,
             qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(run.exitCode).arg(run.out, run.err)));
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.startsWith(QStringLiteral("verity lookup: --provider: \"")) && run.err.contains(why),
             qPrintable(run.err));
    QVERIFY2(run.err.endsWith(
                     QStringLiteral("expected https://…, or http:// to 127.0.0.1, ::1 or localhost\n")),
             qPrintable(run.err));
    QVERIFY2(!run.err.contains(QStringLiteral("secret")), qPrintable(run.err));

    // Nothing was asked, and nothing settled.
    std::unique_ptr<Store> store = openTestStore(m_dbPath);
    QVERIFY(store);
    QCOMPARE(*store->countOpenEscalations(), 15);
    QCOMPARE(*store->countAuditEntries(), 0);
}

void TestLookupCommand::withoutAKeyNothingIsAsked()
{
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    const VerityRun run = runVerity({QStringLiteral("lookup"), QStringLiteral("--db"), m_dbPath,
                                     QStringLiteral("--provider"), m_sandbox->url().toString(),
                                     QStringLiteral("--all-open")},
                                    isolatedEnvironment(m_folder->path()));
    QVERIFY2(run.exitCode == 2, qPrintable(QStringLiteral("exit %1\n%2").arg(run.exitCode).arg(run.err)));
    QVERIFY2(run.err.startsWith(QStringLiteral("verity lookup: VERITY_PROVIDER_API_KEY is not set")),
             qPrintable(run.err));
    QVERIFY(run.err.contains(QStringLiteral("nothing was asked")));
    QCOMPARE(served.count(), 0);
    QCOMPARE(*openTestStore(m_dbPath)->countAuditEntries(), 0);
}

void TestLookupCommand::redirectElsewhereSettlesNothing()
{
    // What was seen: the provider sends a 302 to another origin, whose empty list would settle
    // the escalation as "not performed (verified)", with the key in its hands.
    LoopbackProvider elsewhere(
            LoopbackProvider::script({{200, R"({"object": "list", "has_more": false, "data": []})"}}));
    const QByteArray location = elsewhere.url().toEncoded() + "/v1/refunds";
    LoopbackProvider provider(LoopbackProvider::script({{302, {}, location}}));
    const qint64 id = refundEscalationOf(notPerformedTicket);
    QVERIFY(id > 0);

    const VerityRun run =
            lookup({QStringLiteral("--provider"), provider.url().toString(), QString::number(id)});
    QVERIFY2(run.exitCode == 1,
             qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(run.exitCode).arg(run.out, run.err)));
    QVERIFY2(run.out.contains(
                     QStringLiteral(
                             "the provider redirected to %1; Verity sends the API key only to %2, so it "
                             "did not follow")
                             .arg(QString::fromLatin1(location), provider.url().toString())),
             qPrintable(run.out));
    QVERIFY2(!run.out.contains(QStringLiteral("(verified)")), qPrintable(run.out));
    QVERIFY2(elsewhere.requests().isEmpty() && elsewhere.authorizations().isEmpty(),
             qPrintable(elsewhere.requests().join(u'\n')));
    QCOMPARE(provider.requests().size(), 1);

    // Still open; the evidence kept shows the redirect and who gave it.
    std::unique_ptr<Store> store = openTestStore(m_dbPath);
    QVERIFY(store);
    QCOMPARE((*store->escalation(id))->state, EscalationState::Open);
    QCOMPARE(*store->countOpenEscalations(), 15);
    const QList<Evidence> lookups = *store->evidence(id);
    QCOMPARE(lookups.size(), 1);
    QCOMPARE(lookupVerdictId(lookups.first().verdict), lookupVerdictId(LookupVerdict::CouldNotTell));
    QVERIFY2(lookups.first().response.startsWith(QStringLiteral("HTTP 302")),
             qPrintable(lookups.first().response));
    QVERIFY2(lookups.first().response.contains(
                     QStringLiteral("Answered by: %1/v1/refunds?").arg(provider.url().toString())),
             qPrintable(lookups.first().response));
    QVERIFY(lookups.first().response.contains(QStringLiteral("Location: ") + QString::fromLatin1(location)));
}

// Data that names no payment: the command says so and asks nothing; --payment names it for one
// escalation (audited), and what is not a payment is refused before anything is asked.
void TestLookupCommand::paymentIsNamedOnTheCommandLine()
{
    const qint64 incident = refundEscalationOf(incidentTicket, QStringLiteral("c3"));
    QVERIFY(incident > 0);
    QCOMPARE(RawSqlite(m_dbPath).exec(QStringLiteral("UPDATE orders SET payment_intent = NULL")), QString());
    const QStringList provider{QStringLiteral("--provider"), m_sandbox->url().toString()};

    const VerityRun unnamed = lookup(provider + QStringList{QString::number(incident)});
    QCOMPARE(unnamed.exitCode, 1); // it stays open, for a person
    QVERIFY2(unnamed.out.contains(QStringLiteral("no payment reference known for order SU-88421")),
             qPrintable(unnamed.out + unnamed.err));

    const VerityRun wrong = lookup(provider
                                   + QStringList{QStringLiteral("--payment"), QStringLiteral("SU-88421"),
                                                 QString::number(incident)});
    QCOMPARE(wrong.exitCode, 2);
    QVERIFY2(wrong.err.startsWith(QStringLiteral("verity lookup: --payment: payment: expected")),
             qPrintable(wrong.err));

    const VerityRun many = lookup(provider
                                  + QStringList{QStringLiteral("--payment"), QStringLiteral("pi_SU-88421"),
                                                QStringLiteral("--all-open")});
    QCOMPARE(many.exitCode, 2);
    QVERIFY2(many.err.contains(QStringLiteral("exactly one ESCALATION")), qPrintable(many.err));

    const VerityRun named = lookup(provider
                                   + QStringList{QStringLiteral("--payment"), QStringLiteral("pi_SU-88421"),
                                                 QStringLiteral("--json"), QString::number(incident)});
    QVERIFY2(named.exitCode == 0 || named.exitCode == 1, qPrintable(named.out + named.err));
    const QJsonArray results =
            QJsonDocument::fromJson(named.out.toUtf8()).object().value(QStringLiteral("results")).toArray();
    QCOMPARE(rowFor(results, incident).value(QStringLiteral("resolution")).toString(),
             QStringLiteral("performed"));
    const QStringList audit =
            rows(RawSqlite(m_dbPath).db(), QStringLiteral("SELECT action FROM audit_log ORDER BY seq"));
    QCOMPARE(audit.first(), QStringLiteral("payment-entered"));
}

QTEST_GUILESS_MAIN(TestLookupCommand)
#include "tst_lookupcommand.moc"

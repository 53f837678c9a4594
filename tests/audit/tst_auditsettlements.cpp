// The audit checks what its entries point at, on the demo settled for real: every refund
// escalation looked up at the sandbox, a pickup attested, a refund performed again. Then each
// kind of tampering, done with raw SQL on a copy, is named by `verity audit verify`: a lookup's
// stored response, a write's evidence, a ledger row, an escalation's resolution or reference,
// a row added to the ledger or the evidence, and entries removed after a head was taken.

#include "audit/auditlog.h"
#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "resolution/escalationresolver.h"
#include "sandbox/sandboxseed.h"
#include "store/storefactory.h"
#include "support/inprocesssandbox.h"
#include "support/provider.h"
#include "support/rawsqlite.h"
#include "support/verityprocess.h"

#include <QFile>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace verity;
using namespace verity::test;

class TestAuditSettlements : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void settledDemoVerifies();
    void tamperIsNamed_data();
    void tamperIsNamed();
    void evidenceRewrittenWithItsHashIsCaught();
    void headCatchesEntriesRemovedAfterIt();

private:
    VerityRun verity(const QStringList &arguments) const
    {
        return runVerity(arguments, isolatedEnvironment(m_dir.path()));
    }
    QString copy();

    QTemporaryDir m_dir;
    QString m_settled; // the demo after every step; each test tampers with a copy
    int m_copies = 0;
};

void TestAuditSettlements::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_settled = m_dir.filePath(QStringLiteral("settled.sqlite"));
    Expected<std::unique_ptr<Store>> opened = openStore(m_settled);
    QVERIFY(opened);
    Store &store = **opened;
    TranscriptImporter importer(store, ToolRegistry::builtIn());
    QVERIFY(importer.importFile(demoDataResource()).clean());
    InProcessSandbox sandbox;
    QVERIFY(seedDemo(sandbox.state()));
    ProviderClient client(settingsFor(sandbox.url()));
    EscalationResolver resolver(store, client, QStringLiteral("amira"));

    qint64 repeatable = 0;
    qint64 pickup = 0;
    const QList<EscalationRow> open = *store.openEscalations(0, 100);
    for (const EscalationRow &row : open) {
        if (row.tool == u"schedule_pickup" && !pickup)
            pickup = row.id;
        if (row.tool != u"issue_refund")
            continue;
        ResolutionOperation *operation = resolver.lookUp(row.id);
        const ResolutionReport report = EscalationResolver::waitFor(operation);
        operation->deleteLater();
        QVERIFY2(report.kind == ResolutionReport::Kind::Resolved, qPrintable(report.message));
        if (report.mayPerformAgain && !repeatable)
            repeatable = row.id;
    }
    QVERIFY(repeatable && pickup);
    ResolutionOperation *again = resolver.performAgain(repeatable);
    QCOMPARE(int(EscalationResolver::waitFor(again).resolution.value_or(Resolution::NotPerformed)),
             int(Resolution::PerformedAgain));
    again->deleteLater();
    const ResolutionReport attested =
            resolver.attest(pickup,
                            Attestation{Resolution::Performed, QStringLiteral("PK-1"),
                                        QStringLiteral("Seen in the courier portal")});
    QCOMPARE(int(attested.kind), int(ResolutionReport::Kind::Resolved));
}

QString TestAuditSettlements::copy()
{
    const QString path = m_dir.filePath(QStringLiteral("copy-%1.sqlite").arg(++m_copies));
    QFile::remove(path);
    return QFile::copy(m_settled, path) ? path : QString();
}

void TestAuditSettlements::settledDemoVerifies()
{
    const VerityRun run =
            verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), copy()});
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    QVERIFY2(run.out.startsWith(QStringLiteral("audit chain intact")), qPrintable(run.out));
}

void TestAuditSettlements::tamperIsNamed_data()
{
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("named");
    QTest::newRow("a lookup's response edited") << QStringLiteral(
            "UPDATE evidence SET response = replace(response, 'succeeded', 'failed') "
            "WHERE id = (SELECT min(id) FROM evidence WHERE kind = 'lookup' AND verdict = 'found')")
                                                << QStringLiteral("was edited");
    QTest::newRow("a lookup's verdict and operator edited") << QStringLiteral(
            "UPDATE evidence SET verdict = 'not_found', operator = 'Mallory', record_id = NULL "
            "WHERE id = (SELECT min(id) FROM evidence WHERE verdict = 'found')")
                                                            << QStringLiteral("was edited");
    QTest::newRow("a check's note edited")
            << QStringLiteral("UPDATE evidence SET reason = 'nothing to see' WHERE kind = 'attestation'")
            << QStringLiteral("was edited");
    QTest::newRow("a write's evidence edited") << QStringLiteral(
            "UPDATE evidence SET request = replace(request, 'Idempotency-Key', 'X-Key') WHERE kind = 'write'")
                                               << QStringLiteral("was edited");
    QTest::newRow("evidence removed") << QStringLiteral("DELETE FROM evidence WHERE kind = 'attestation'")
                                      << QStringLiteral("no longer stored");
    QTest::newRow("a ledger row's amount edited") << QStringLiteral(
            "UPDATE ledger SET amount_cents = amount_cents + 100 WHERE id = (SELECT min(id) FROM ledger)")
                                                  << QStringLiteral("ledger row was changed");
    QTest::newRow("a ledger row's refund swapped") << QStringLiteral(
            "UPDATE ledger SET refund_id = 're_other' WHERE id = (SELECT min(id) FROM ledger)")
                                                   << QStringLiteral("ledger row was changed");
    QTest::newRow("a ledger row added") << QStringLiteral(
            "INSERT INTO ledger (intent_key, tool_call_id, refund_id, amount_cents, currency, recorded_at, "
            "source) VALUES ('k', NULL, 're_extra', 100, 'USD', 0, 'console write')")
                                        << QStringLiteral("re_extra was not made by any audit entry");
    QTest::newRow("a resolution flipped") << QStringLiteral(
            "UPDATE escalations SET resolution = 'not_performed' WHERE resolution = 'performed' AND "
            "id = (SELECT min(id) FROM escalations WHERE resolution = 'performed')")
                                          << QStringLiteral("no longer matches entry");
    QTest::newRow("an attested check made verified")
            << QStringLiteral("UPDATE escalations SET basis = 'lookup' WHERE basis = 'attestation'")
            << QStringLiteral("no longer matches entry");
    QTest::newRow("a settled escalation reopened")
            << QStringLiteral("UPDATE escalations SET state = 'open', resolution = NULL WHERE id = "
                              "(SELECT min(id) FROM escalations WHERE state = 'resolved')")
            << QStringLiteral("is open again");
    QTest::newRow("an open escalation settled by hand") << QStringLiteral(
            "UPDATE escalations SET state = 'resolved', resolution = 'not_performed', basis = 'lookup', "
            "resolved_by = 'x', resolved_at = 1 WHERE id = (SELECT min(id) FROM escalations WHERE state = "
            "'open')") << QStringLiteral("no audit entry settled it");
    // A call's stored outcome against what its recorded result reads as.
    QTest::newRow("an unknown refund turned green") << QStringLiteral(
            "UPDATE tool_calls SET outcome = 'performed', outcome_reason = 'looks fine' WHERE id = (SELECT "
            "min(id) FROM tool_calls WHERE outcome = 'unknown' AND raw_result LIKE '%timeout%')")
                                                    << QStringLiteral(
                                                               "is stored as performed, but its recorded "
                                                               "result reads as unknown: do not retry");
    QTest::newRow("an unknown made not performed, inviting a retry")
            << QStringLiteral("UPDATE tool_calls SET outcome = 'not_performed' WHERE id = (SELECT min(id) "
                              "FROM tool_calls WHERE "
                              "outcome = 'unknown' AND raw_result IS NOT NULL)")
            << QStringLiteral("is stored as not performed");
    QTest::newRow("a performed refund made unknown") << QStringLiteral(
            "UPDATE tool_calls SET outcome = 'unknown' WHERE id = (SELECT min(id) FROM tool_calls WHERE "
            "outcome = 'performed' AND tool_class = 'write_money')")
                                                     << QStringLiteral(
                                                                "but its recorded result reads as performed");
    QTest::newRow("an unknown taken out of the queue") << QStringLiteral(
            "DELETE FROM escalations WHERE id = (SELECT min(id) FROM escalations WHERE state = 'open')")
                                                       << QStringLiteral("is unknown but has no escalation");
}

void TestAuditSettlements::tamperIsNamed()
{
    QFETCH(QString, sql);
    QFETCH(QString, named);
    const QString path = copy();
    {
        RawSqlite raw(path);
        QSqlQuery edit(raw.db());
        QVERIFY2(edit.exec(sql), qPrintable(sql));
        QVERIFY2(edit.numRowsAffected() > 0, qPrintable(sql));
    }
    const VerityRun run =
            verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), path});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.startsWith(QStringLiteral("audit chain broken")), qPrintable(run.out + run.err));
    QVERIFY2(run.out.contains(named), qPrintable(run.out));
}

// Someone who rewrites a lookup's response and stores the matching SHA-256 beside it still
// cannot make the audit entry that cites the old hash agree.
void TestAuditSettlements::evidenceRewrittenWithItsHashIsCaught()
{
    const QString path = copy();
    Evidence rewritten;
    {
        auto store = openStore(path);
        QVERIFY2(bool(store), qPrintable(store ? QString() : store.error().message));
        auto rows = (*store)->evidenceRows(0, 1000);
        QVERIFY(bool(rows));
        const auto lookup = std::find_if(rows->cbegin(), rows->cend(),
                                         [](const Evidence &e) { return e.kind == EvidenceKind::Lookup; });
        QVERIFY(lookup != rows->cend());
        rewritten = *lookup;
    }
    rewritten.response =
            QStringLiteral("HTTP 200 OK\n\n{\"object\":\"list\",\"data\":[],\"has_more\":false}");
    rewritten.verdict = LookupVerdict::NotFound;
    rewritten.recordId.clear();
    {
        RawSqlite raw(path);
        QSqlQuery edit(raw.db());
        edit.prepare(QStringLiteral("UPDATE evidence SET response = ?, verdict = ?, record_id = '', "
                                    "evidence_sha256 = ? WHERE id = ?"));
        edit.addBindValue(rewritten.response);
        edit.addBindValue(lookupVerdictId(rewritten.verdict));
        edit.addBindValue(evidenceHash(rewritten));
        edit.addBindValue(rewritten.id);
        QVERIFY(edit.exec());
    }
    const VerityRun run =
            verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), path});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains(QStringLiteral("added without an audit entry, or its hash was changed")),
             qPrintable(run.out));
}

void TestAuditSettlements::headCatchesEntriesRemovedAfterIt()
{
    const QString path = copy();
    const VerityRun head = verity({QStringLiteral("audit"), QStringLiteral("head"), QStringLiteral("--db"),
                                   path, QStringLiteral("--json")});
    QCOMPARE(head.exitCode, 0);
    const QJsonObject json = QJsonDocument::fromJson(head.out.toUtf8()).object();
    const QString hash = json.value(QStringLiteral("hash")).toString();
    QCOMPARE(hash.size(), 64);
    QVERIFY(json.value(QStringLiteral("length")).toInteger() > 10);
    const QStringList verify{QStringLiteral("audit"),  QStringLiteral("verify"),
                             QStringLiteral("--db"),   path,
                             QStringLiteral("--head"), hash};
    QCOMPARE(verity(verify).exitCode, 0);

    // The newest entry removed: the chain left is whole, but the head is gone.
    QCOMPARE(RawSqlite(path).exec(
                     QStringLiteral("DELETE FROM audit_log WHERE seq = (SELECT max(seq) FROM audit_log)")),
             QString());
    const VerityRun after = verity(verify);
    QCOMPARE(after.exitCode, 1);
    QVERIFY2(after.out.contains(QStringLiteral("removed or rewritten after that head")),
             qPrintable(after.out));

    // A head that is not one is refused as a bad argument.
    QCOMPARE(verity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), path,
                     QStringLiteral("--head"), QStringLiteral("abc")})
                     .exitCode,
             2);
}

QTEST_GUILESS_MAIN(TestAuditSettlements)
#include "tst_auditsettlements.moc"

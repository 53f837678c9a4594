// What someone holding a team role would try with psql itself, with its default search_path, on
// a database `verity db init` made: each statement that would forge a settlement, an outcome, a
// claim, evidence, the ledger or the audit log is refused for support, finance and trainer, with
// a message naming the rule. The same people's actions through Verity's commands still work.

#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "store/postgresroles.h"
#include "store/sqlstore.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"
#include "support/testmacros.h"
#include "support/verityprocess.h"

#include <QProcess>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

namespace {

struct Psql
{
    bool ran = false;
    QString said; // what psql printed, errors included
};

} // namespace

class ForbiddenStatementsTest : public QObject
{
    Q_OBJECT

    PostgresCluster m_cluster;
    std::unique_ptr<Store> m_lead;
    QTemporaryDir m_home;
    qint64 m_unknownCall = 0; // the timed-out refund's call, with its error result
    qint64 m_open = 0; // an open escalation nobody holds
    qint64 m_lapsedClaim = 0; // an open escalation whose claim (ida's) lapsed
    qint64 m_settled = 0; // an escalation settled through Verity

    // `sql` run by psql as `user`, as one transaction.
    Psql psql(const QString &user, const QString &sql)
    {
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(QStringLiteral("psql"),
                      {QStringLiteral("-X"), QStringLiteral("-q"), QStringLiteral("-v"),
                       QStringLiteral("ON_ERROR_STOP=1"),
                       QStringLiteral("host=%1 port=%2 user=%3 dbname=team")
                               .arg(m_cluster.socketFolder())
                               .arg(m_cluster.port())
                               .arg(user),
                       QStringLiteral("-c"), sql});
        Psql result;
        if (!process.waitForFinished(60000)) {
            process.kill();
            result.said = QStringLiteral("psql did not finish");
            return result;
        }
        result.ran = process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
        result.said = QString::fromUtf8(process.readAll()).trimmed();
        return result;
    }

    qint64 leadScalar(const QString &sql)
    {
        QSqlQuery query(dynamic_cast<SqlStore &>(*m_lead).connection());
        if (!query.exec(sql) || !query.next())
            return 0;
        return query.value(0).toLongLong();
    }

    QString leadText(const QString &sql)
    {
        QSqlQuery query(dynamic_cast<SqlStore &>(*m_lead).connection());
        if (!query.exec(sql) || !query.next())
            return QString();
        return query.value(0).toString();
    }

    // The statements, with this test's row ids in place of {call}, {open}, {lapsed}, {settled}.
    QString withIds(QString sql) const
    {
        return sql.replace(QLatin1String("{call}"), QString::number(m_unknownCall))
                .replace(QLatin1String("{open}"), QString::number(m_open))
                .replace(QLatin1String("{lapsed}"), QString::number(m_lapsedClaim))
                .replace(QLatin1String("{settled}"), QString::number(m_settled));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
        QVERIFY2(m_cluster.execute(QStringLiteral(
                         "CREATE ROLE lead LOGIN CREATEROLE; CREATE ROLE ben LOGIN; CREATE ROLE fay LOGIN; "
                         "CREATE ROLE tom LOGIN; CREATE ROLE ida LOGIN")),
                 qPrintable(m_cluster.error()));
        QVERIFY2(m_cluster.execute(QStringLiteral("CREATE DATABASE team OWNER lead")),
                 qPrintable(m_cluster.error()));
        Expected<std::unique_ptr<Store>> lead =
                openStore(m_cluster.location(QStringLiteral("team"), QStringLiteral("lead")));
        QVERIFY_OK(lead);
        m_lead = std::move(*lead);
        QSqlDatabase &db = dynamic_cast<SqlStore &>(*m_lead).connection();
        for (const auto &[user, role] :
             {std::pair{"ben", TeamRole::Support}, std::pair{"fay", TeamRole::Finance},
              std::pair{"tom", TeamRole::Trainer}, std::pair{"ida", TeamRole::Admin}}) {
            QVERIFY_OK(postgres::grantTeamRole(db, role, QLatin1String(user)));
        }
        TranscriptImporter importer(*m_lead, ToolRegistry::builtIn());
        QVERIFY(importer.importFile(demoDataResource()).clean());

        m_unknownCall = leadScalar(QStringLiteral("SELECT min(id) FROM verity.tool_calls WHERE outcome = "
                                                  "'unknown' AND result_fingerprint IS NOT NULL"));
        const QList<qint64> open = [&] {
            QList<qint64> ids;
            QSqlQuery query(db);
            query.exec(QStringLiteral("SELECT id FROM verity.escalations WHERE state = 'open' ORDER BY id"));
            while (query.next())
                ids << query.value(0).toLongLong();
            return ids;
        }();
        QVERIFY(m_unknownCall > 0 && open.size() >= 4);
        m_open = open.at(0);
        m_lapsedClaim = open.at(1);
        QVERIFY(QSqlQuery(db).exec(
                QStringLiteral(
                        "UPDATE verity.escalations SET claimed_by = 'ida', claimed_until = 1 WHERE id = %1")
                        .arg(m_lapsedClaim)));

        // Allowed: support settles one through the command line, in its own name.
        m_settled = open.at(2);
        const VerityRun resolved = runVerity(
                {QStringLiteral("resolve"), QStringLiteral("--db"),
                 m_cluster.location(QStringLiteral("team"), QStringLiteral("ben")),
                 QString::number(m_settled), QStringLiteral("--attest"), QStringLiteral("performed"),
                 QStringLiteral("--reference"), QStringLiteral("re_seen"), QStringLiteral("--note"),
                 QStringLiteral("seen in the dashboard")},
                isolatedEnvironment(m_home.path()));
        QVERIFY2(resolved.exitCode == 0, qPrintable(resolved.out + resolved.err));
    }

    void aForgeryIsRefusedByItsRule_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("rule");

        const QString denied = QStringLiteral("permission denied for table");
        const QString settle = QStringLiteral(
                "UPDATE verity.escalations SET state = 'resolved', resolution = 'performed', basis = "
                "'attestation', "
                "resolved_by = current_user, resolved_at = 1, claimed_by = NULL WHERE id = {open}");
        const QString appendAudit = QStringLiteral(
                "INSERT INTO verity.audit_log (seq, at, operator, action, escalation_id, detail, prev_hash, "
                "hash) "
                "SELECT COALESCE(max(seq), 0) + 1, 1, current_user, 'attest', {open}, 'by hand', "
                "COALESCE((SELECT hash FROM verity.audit_log ORDER BY seq DESC LIMIT 1), repeat('0', 64)), "
                "md5(random()::text) FROM verity.audit_log; ");
        struct Forgery
        {
            const char *name;
            QString sql;
            QString rule; // for support and finance; a trainer holds no grant for any of it
            QString financeRule = {}; // where finance holds no grant for it either
        };
        const Forgery forgeries[] = {
                {"settle with nothing", settle, QStringLiteral("a settlement is an audited action")},
                {"settle with a hand-made audit entry", appendAudit + settle,
                 QStringLiteral("a settlement rests on a lookup, a check or a statement")},
                {"reopen a settlement",
                 QStringLiteral(
                         "UPDATE verity.escalations SET state = 'open', resolution = NULL, basis = NULL, "
                         "reference = NULL, resolved_by = NULL, resolved_at = NULL WHERE id = {settled}"),
                 QStringLiteral("a settlement is an audited action")},
                {"turn an unknown green",
                 QStringLiteral(
                         "UPDATE verity.tool_calls SET outcome = 'performed', outcome_reason = 'looks fine' "
                         "WHERE id = {call}"),
                 QStringLiteral("recorded once, when the result comes")},
                {"keep a lapsed claim in another's name",
                 QStringLiteral(
                         "UPDATE verity.escalations SET claimed_until = 9999999999999 WHERE id = {lapsed}"),
                 QStringLiteral("in the name of ida: a claim is taken and kept in one's own name")},
                {"take a claim unaudited",
                 QStringLiteral("UPDATE verity.escalations SET claimed_by = current_user, claimed_until = "
                                "9999999999999 WHERE id = {open}"),
                 QStringLiteral("taking a claim is an audited action")},
                {"add to the ledger",
                 QStringLiteral("INSERT INTO verity.ledger (intent_key, refund_id, amount_cents, currency, "
                                "recorded_at, source) VALUES ('k', 're_forged', 11800, 'USD', 1, 'by hand')"),
                 QStringLiteral("the ledger is written by audited actions")},
                {"change the ledger", QStringLiteral("UPDATE verity.ledger SET amount_cents = 1"), denied},
                {"append off the chain",
                 QStringLiteral(
                         "INSERT INTO verity.audit_log (seq, at, operator, action, detail, prev_hash, hash) "
                         "VALUES (999999, 1, current_user, 'attest', 'x', 'p', 'h')"),
                 QStringLiteral("an audit entry follows the chain's head")},
                {"rewrite the audit log", QStringLiteral("UPDATE verity.audit_log SET detail = 'x'"), denied},
                {"delete the audit log", QStringLiteral("DELETE FROM verity.audit_log"), denied},
                {"delete evidence", QStringLiteral("DELETE FROM verity.evidence"), denied},
                {"drop an unknown from the queue",
                 QStringLiteral("DELETE FROM verity.escalations WHERE id = {open}"),
                 QStringLiteral("it leaves the queue when it is settled")},
                {"open an escalation for a call that is not unknown",
                 QStringLiteral(
                         "INSERT INTO verity.escalations (tool_call_id, ticket_id, opened_at) SELECT id, "
                         "ticket_id, called_at FROM verity.tool_calls WHERE outcome = 'performed' LIMIT 1"),
                 QStringLiteral("an escalation is opened only for a write whose outcome is unknown")},
                {"move an escalation's amount",
                 QStringLiteral("UPDATE verity.escalations SET amount_cents = 1 WHERE id = {open}"),
                 QStringLiteral("must name its call's ticket and amount")},
                {"send an order's lookup to another payment",
                 QStringLiteral("UPDATE verity.orders SET payment_intent = 'pi_other'"),
                 QStringLiteral("its seller and payment are named once and never changed"),
                 QStringLiteral("permission denied for table orders")},
                {"give an order another seller",
                 QStringLiteral(
                         "UPDATE verity.orders SET seller_id = (SELECT id FROM verity.sellers ORDER BY id "
                         "DESC LIMIT 1) WHERE seller_id <> (SELECT id FROM verity.sellers ORDER BY id DESC "
                         "LIMIT 1)"),
                 QStringLiteral("its seller and payment are named once and never changed"),
                 QStringLiteral("permission denied for table orders")},
                {"rename an order", QStringLiteral("UPDATE verity.orders SET currency = 'EUR'"),
                 QStringLiteral("permission denied for table orders")},
                {"rewrite what the customer said",
                 QStringLiteral("UPDATE verity.messages SET text = 'all fine'"),
                 QStringLiteral("permission denied for table messages")},
                {"enter a payment for a lookup by hand",
                 QStringLiteral(
                         "UPDATE verity.escalations SET payment_reference = 'pi_other', payment_entered_by = "
                         "current_user WHERE id = {open}"),
                 QStringLiteral("a payment is entered in one's own name, with its audit entry")},
        };
        for (const char *user : {"ben", "fay", "tom"}) {
            const bool trainer = QLatin1String(user) == QLatin1String("tom");
            for (const Forgery &forgery : forgeries)
                QTest::addRow("%s: %s", user, forgery.name)
                        << QString::fromLatin1(user) << forgery.sql
                        << (trainer ? denied
                                    : QLatin1String(user) == QLatin1String("fay")
                                            && !forgery.financeRule.isEmpty()
                                    ? forgery.financeRule
                                    : forgery.rule);
        }
        // Evidence in another's name, of the kind each role may record.
        QTest::addRow("ben: evidence in ida's name")
                << QStringLiteral("ben")
                << QStringLiteral(
                           "INSERT INTO verity.evidence (escalation_id, operator, started_at, finished_at, "
                           "verdict, request, response, evidence_sha256, kind) VALUES ({open}, 'ida', 1, 1, "
                           "'found', 'r', 'r', 'h', 'attestation')")
                << QStringLiteral("evidence names who recorded it");
        QTest::addRow("fay: evidence in ida's name")
                << QStringLiteral("fay")
                << QStringLiteral(
                           "INSERT INTO verity.evidence (escalation_id, operator, started_at, finished_at, "
                           "verdict, request, response, evidence_sha256, kind) VALUES ({open}, 'ida', 1, 1, "
                           "'found', 'r', 'r', 'h', 'reconciliation')")
                << QStringLiteral("evidence names who recorded it");
        QTest::addRow("tom: evidence")
                << QStringLiteral("tom")
                << QStringLiteral(
                           "INSERT INTO verity.evidence (escalation_id, operator, started_at, finished_at, "
                           "verdict, request, response, evidence_sha256, kind) VALUES ({open}, 'tom', 1, 1, "
                           "'found', 'r', 'r', 'h', 'attestation')")
                << QStringLiteral("permission denied for table evidence");
    }

    void aForgeryIsRefusedByItsRule()
    {
        QFETCH(QString, user);
        QFETCH(QString, sql);
        QFETCH(QString, rule);
        const Psql run = psql(user, withIds(sql));
        QVERIFY2(!run.ran, qPrintable(QStringLiteral("psql ran it: ") + run.said));
        QVERIFY2(run.said.contains(rule), qPrintable(run.said));
        // Refused by the rule, not by a guard that could not find its own functions.
        QVERIFY2(!run.said.contains(QLatin1String("does not exist")), qPrintable(run.said));
    }

    void nothingForgedWasKept()
    {
        QCOMPARE(
                leadScalar(QStringLiteral(
                                   "SELECT count(*) FROM verity.escalations WHERE id = %1 AND state = 'open' "
                                   "AND claimed_by IS NULL")
                                   .arg(m_open)),
                1);
        QCOMPARE(leadScalar(
                         QStringLiteral("SELECT count(*) FROM verity.tool_calls WHERE id = %1 AND outcome = "
                                        "'unknown'")
                                 .arg(m_unknownCall)),
                 1);
        QCOMPARE(leadScalar(
                         QStringLiteral("SELECT count(*) FROM verity.ledger WHERE refund_id = 're_forged'")),
                 0);
        QCOMPARE(leadScalar(QStringLiteral("SELECT claimed_until FROM verity.escalations WHERE id = %1")
                                    .arg(m_lapsedClaim)),
                 1);
        const VerityRun audit =
                runVerity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"),
                           m_cluster.location(QStringLiteral("team"), QStringLiteral("lead"))},
                          isolatedEnvironment(m_home.path()));
        QVERIFY2(audit.exitCode == 0, qPrintable(audit.out + audit.err));
    }

    void theSameActionsThroughVerityStillWork()
    {
        const QProcessEnvironment environment = isolatedEnvironment(m_home.path());
        const QString asBen = m_cluster.location(QStringLiteral("team"), QStringLiteral("ben"));
        // Support claims an escalation, gives it back, takes ida's lapsed claim over and settles it.
        const VerityRun claimed =
                runVerity({QStringLiteral("claim"), QStringLiteral("--db"), asBen, QString::number(m_open)},
                          environment);
        QVERIFY2(claimed.exitCode == 0, qPrintable(claimed.out + claimed.err));
        const VerityRun released = runVerity({QStringLiteral("claim"), QStringLiteral("--db"), asBen,
                                              QString::number(m_open), QStringLiteral("--release")},
                                             environment);
        QVERIFY2(released.exitCode == 0, qPrintable(released.out + released.err));
        const VerityRun takenOver = runVerity(
                {QStringLiteral("claim"), QStringLiteral("--db"), asBen, QString::number(m_lapsedClaim)},
                environment);
        QVERIFY2(takenOver.exitCode == 0, qPrintable(takenOver.out + takenOver.err));
        const VerityRun settled = runVerity({QStringLiteral("resolve"), QStringLiteral("--db"), asBen,
                                             QString::number(m_lapsedClaim), QStringLiteral("--attest"),
                                             QStringLiteral("not-performed"), QStringLiteral("--reference"),
                                             QStringLiteral("dashboard: no refund"), QStringLiteral("--note"),
                                             QStringLiteral("looked twice")},
                                            environment);
        QVERIFY2(settled.exitCode == 0, qPrintable(settled.out + settled.err));
        // Finance settles what the provider's export proves: the refund of the open escalation's
        // call, under its intent key.
        const QString call =
                QStringLiteral("(SELECT tool_call_id FROM verity.escalations WHERE id = %1)").arg(m_open);
        const QString line = leadText(
                QStringLiteral("SELECT 're_proved,' || to_char(c.amount_cents / 100.0, 'FM999990.00') || "
                               "',USD,' || to_char(to_timestamp(c.called_at / 1000.0) AT TIME ZONE 'UTC', "
                               "'YYYY-MM-DD HH24:MI:SS') || ',' || COALESCE(o.payment_intent, '') || ',' || "
                               "c.intent_key FROM verity.tool_calls c JOIN verity.tickets t ON t.id = "
                               "c.ticket_id LEFT JOIN verity.orders o ON o.id = t.order_id WHERE c.id = %1")
                        .arg(call));
        QVERIFY(!line.isEmpty());
        const QString csv = m_home.filePath(QStringLiteral("provider.csv"));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("id,amount,currency,created,payment_intent,intent_key\r\n" + line.toUtf8() + "\r\n");
        file.close();
        const VerityRun reconciled =
                runVerity({QStringLiteral("reconcile"), QStringLiteral("--db"),
                           m_cluster.location(QStringLiteral("team"), QStringLiteral("fay")),
                           QStringLiteral("--provider-export"), csv, QStringLiteral("--from"),
                           QStringLiteral("2026-03-01"), QStringLiteral("--to"), QStringLiteral("2026-04-30"),
                           QStringLiteral("--settle")},
                          environment);
        QVERIFY2(reconciled.exitCode == 0 || reconciled.exitCode == 1,
                 qPrintable(reconciled.out + reconciled.err));
        QVERIFY2(reconciled.out.contains(QLatin1String("Settled 1 call")), qPrintable(reconciled.out));
        QCOMPARE(
                leadScalar(QStringLiteral("SELECT count(*) FROM verity.escalations WHERE id = %1 AND state = "
                                          "'resolved' AND resolved_by = 'fay'")
                                   .arg(m_open)),
                1);
        const VerityRun audit =
                runVerity({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), asBen},
                          environment);
        QVERIFY2(audit.exitCode == 0, qPrintable(audit.out + audit.err));
    }

    void cleanupTestCase()
    {
        m_lead.reset();
        m_cluster.stop();
    }
};

QTEST_GUILESS_MAIN(ForbiddenStatementsTest)
#include "tst_forbiddenstatements.moc"

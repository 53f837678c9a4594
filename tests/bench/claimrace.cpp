#include "claimrace.h"

#include "audit/auditlog.h"
#include "domain/toolregistry.h"
#include "import/transcriptimporter.h"
#include "resolution/escalationclaims.h"
#include "resolution/escalationresolver.h"
#include "store/postgresroles.h"
#include "store/sqlstore.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

#include <memory>

namespace verity::bench {

namespace {

// N tickets, each with one refund whose call timed out: N unknown outcomes waiting.
bool writeRaceTranscripts(const QString &path, int escalations)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    QTextStream out(&file);
    for (int i = 1; i <= escalations; ++i) {
        const QString ticket = QStringLiteral("RACE-%1").arg(i, 5, 10, QLatin1Char('0'));
        const QString order = QStringLiteral("SU-R%1").arg(i);
        out << "{\"type\":\"ticket_opened\",\"ticket\":\"" << ticket
            << "\",\"at\":\"2026-03-17T09:00:00Z\",\"subject\":\"Refund please\",\"order\":{\"id\":\""
            << order
            << "\",\"currency\":\"USD\",\"items\":[{\"id\":\"ITEM\",\"title\":\"Lamp\",\"quantity\":1,"
               "\"amount_cents\":4200}]},\"seller\":{\"id\":\"race-seller\",\"name\":\"Race Seller\"}}\n"
            << "{\"type\":\"tool_call\",\"ticket\":\"" << ticket
            << "\",\"at\":\"2026-03-17T09:01:00Z\",\"call_id\":\"c1\",\"tool\":\"issue_refund\","
               "\"arguments\":{"
               "\"order_id\":\""
            << order << "\",\"item_id\":\"ITEM\",\"amount_cents\":4200}}\n"
            << "{\"type\":\"tool_result\",\"ticket\":\"" << ticket
            << "\",\"at\":\"2026-03-17T09:01:05Z\",\"call_id\":\"c1\",\"result\":{\"error\":\"refund failed: "
               "upstream timeout\"},\"duration_ms\":5000}\n";
    }
    return out.status() == QTextStream::Ok;
}

template<typename T, typename Read>
QList<T> readAll(Read read)
{
    QList<T> all;
    for (qint64 offset = 0;; offset += 1000) {
        const auto page = read(offset, 1000);
        if (!page)
            return all;
        all += *page;
        if (page->size() < 1000)
            return all;
    }
}

} // namespace

int runRaceWorker(const QString &location, const QString &name)
{
    QTextStream out(stdout);
    Expected<std::unique_ptr<Store>> store = openStore(location);
    if (!store) {
        out << "error " << store.message() << "\n";
        return 2;
    }
    // In a team's database the worker is its database user; on a file, the name it was given.
    const QString who = (*store)->sessionUser().isEmpty() ? name : (*store)->sessionUser();
    EscalationClaims claims(**store, who);
    ProviderClient noProvider(ProviderSettings{}); // a recorded check asks no system
    EscalationResolver resolver(**store, noProvider, who);
    int settled = 0;
    for (;;) {
        const Expected<std::optional<EscalationClaim>> claimed = claims.claimNext();
        if (!claimed) {
            out << "error " << claimed.message() << "\n";
            return 2;
        }
        if (!*claimed)
            break;
        const ResolutionReport report =
                resolver.attest((*claimed)->escalationId,
                                Attestation{Resolution::NotPerformed, QStringLiteral("dashboard: no refund"),
                                            QStringLiteral("checked in the race")});
        if (report.kind != ResolutionReport::Kind::Resolved) {
            out << "error escalation " << (*claimed)->escalationId << ": " << report.message << "\n";
            return 2;
        }
        ++settled;
    }
    out << "settled " << settled << "\n";
    return 0;
}

int runClaimRace(const RaceOptions &options, QTextStream &out)
{
    QTemporaryDir folder;
    test::PostgresCluster cluster;
    const bool team = options.backend == QLatin1String("postgresql");
    QString location = folder.filePath(QStringLiteral("race.sqlite"));
    if (team) {
        if (!cluster.start()) {
            out << "race: " << cluster.error() << "\n";
            return 2;
        }
        location = cluster.createDatabase(QStringLiteral("race"));
        if (location.isEmpty()) {
            out << "race: " << cluster.error() << "\n";
            return 2;
        }
    }
    Expected<std::unique_ptr<Store>> store = openStore(location);
    if (!store) {
        out << "race: " << store.message() << "\n";
        return 2;
    }
    QStringList workers;
    for (int i = 1; i <= options.workers; ++i)
        workers << QStringLiteral("worker%1").arg(i);
    if (team) {
        for (const QString &worker : std::as_const(workers)) {
            QSqlDatabase &db = dynamic_cast<SqlStore &>(**store).connection();
            if (!cluster.execute(QStringLiteral("CREATE ROLE %1 LOGIN").arg(worker))
                || !postgres::grantTeamRole(db, TeamRole::Support, worker)) {
                out << "race: cannot make the user " << worker << ": " << cluster.error() << "\n";
                return 2;
            }
        }
    }
    const QString transcripts = folder.filePath(QStringLiteral("race.jsonl"));
    if (!writeRaceTranscripts(transcripts, options.escalations)) {
        out << "race: cannot write " << transcripts << "\n";
        return 2;
    }
    TranscriptImporter importer(**store, ToolRegistry::builtIn());
    if (!importer.importFile(transcripts).clean()) {
        out << "race: the race's transcripts did not import cleanly\n";
        return 2;
    }
    const Expected<qint64> waiting = (*store)->countOpenEscalations();
    if (!waiting || *waiting != options.escalations) {
        out << "race: expected " << options.escalations << " escalations waiting, found "
            << (waiting ? QString::number(*waiting) : waiting.message()) << "\n";
        return 2;
    }

    std::vector<std::unique_ptr<QProcess>> processes;
    QElapsedTimer clock;
    clock.start();
    for (const QString &worker : std::as_const(workers)) {
        auto process = std::make_unique<QProcess>();
        process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process->start(QCoreApplication::applicationFilePath(),
                       {QStringLiteral("race-worker"),
                        team ? cluster.location(QStringLiteral("race"), worker) : location, worker});
        processes.push_back(std::move(process));
    }
    qint64 claimed = 0;
    QStringList errors;
    for (auto &process : processes) {
        process->waitForFinished(-1);
        const QString said = QString::fromUtf8(process->readAllStandardOutput()).trimmed();
        if (said.startsWith(QLatin1String("settled ")))
            claimed += said.mid(8).toLongLong();
        else
            errors << said;
    }
    const double seconds = double(clock.nsecsElapsed()) / 1e9;

    // Each escalation settled by exactly one check, each in the audit exactly once.
    Store &check = **store;
    QHash<qint64, int> checks;
    for (const Evidence &evidence :
         readAll<Evidence>([&](qint64 offset, int limit) { return check.evidenceRows(offset, limit); }))
        ++checks[evidence.escalationId];
    QHash<qint64, int> settlements;
    for (const AuditEntry &entry :
         readAll<AuditEntry>([&](qint64 offset, int limit) { return check.auditEntries(offset, limit); })) {
        if (entry.action == QLatin1String("settle") && entry.escalationId)
            ++settlements[*entry.escalationId];
    }
    int once = 0;
    for (auto it = checks.cbegin(); it != checks.cend(); ++it)
        once += it.value() == 1 && settlements.value(it.key()) == 1 ? 1 : 0;
    const Expected<qint64> left = check.countOpenEscalations();
    const Expected<AuditVerification> chain = AuditLog::verify(check);
    const bool exact = errors.isEmpty() && once == options.escalations && checks.size() == options.escalations
            && left && *left == 0 && claimed == options.escalations && chain && chain->intact;

    out << "race (" << options.backend << "): " << options.escalations << " escalations, " << options.workers
        << " processes each claiming the next and recording a check\n";
    out << QStringLiteral("  %1 claims/s (%2 in %3 s)\n")
                    .arg(double(claimed) / seconds, 0, 'f', 0)
                    .arg(claimed)
                    .arg(seconds, 0, 'f', 2);
    out << "  settled exactly once: " << once << " of " << options.escalations
        << "; skipped (left open): " << (left ? *left : -1) << "; audit chain "
        << (chain && chain->intact ? "intact" : "BROKEN") << "\n";
    for (const QString &error : std::as_const(errors))
        out << "  worker: " << error << "\n";
    out << "  " << (exact ? "PASS" : "FAIL") << "\n";
    return exact ? 0 : 1;
}

} // namespace verity::bench

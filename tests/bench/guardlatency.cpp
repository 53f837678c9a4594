#include "guardlatency.h"

#include "support/postgrescluster.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

#include <nlohmann/json.hpp>

namespace verity::bench {

namespace {

constexpr double targetP99Ms = 5.0;

const QString loadFolder = QStringLiteral(VERITY_GUARD_JS);

// One run of the load script: its JSON line, or null with the reason in `error`.
nlohmann::json runLoad(const GuardBenchOptions &options, const QString &database, QString &error)
{
    QProcess load;
    load.setWorkingDirectory(loadFolder);
    load.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QStringList arguments{QStringLiteral("guard-load.mjs"), QStringLiteral("--rate"),
                          QString::number(options.rate), QStringLiteral("--seconds"),
                          QString::number(options.seconds)};
    if (!database.isEmpty())
        arguments +=
                {QStringLiteral("--guard"), QStringLiteral(VERITY_BINARY), QStringLiteral("--db"), database};
    load.start(QStringLiteral(VERITY_NODE), arguments);
    if (!load.waitForFinished(qMax(60, options.seconds * 3) * 1000) || load.exitCode() != 0) {
        error = QStringLiteral("the load did not finish: %1")
                        .arg(QString::fromUtf8(load.readAllStandardOutput()));
        load.kill();
        return nullptr;
    }
    const QByteArray out = load.readAllStandardOutput().trimmed();
    nlohmann::json figures = nlohmann::json::parse(out.toStdString(), nullptr, false);
    if (figures.is_discarded())
        error = QStringLiteral("the load printed no figures: %1").arg(QString::fromUtf8(out));
    return figures.is_discarded() ? nlohmann::json() : figures;
}

bool packagesInstalled(QTextStream &out)
{
    if (QDir(loadFolder).exists(QStringLiteral("node_modules/@modelcontextprotocol/sdk")))
        return true;
    out << "installing the MCP SDK in " << loadFolder << " (npm ci)" << Qt::endl;
    QProcess npm;
    npm.setWorkingDirectory(loadFolder);
    npm.start(QStringLiteral("npm"),
              {QStringLiteral("ci"), QStringLiteral("--no-audit"), QStringLiteral("--no-fund")});
    return npm.waitForFinished(600000) && npm.exitCode() == 0;
}

QString megabytes(double kilobytes)
{
    return QString::number(kilobytes / 1024.0, 'f', 1) + QStringLiteral(" MB");
}

} // namespace

int runGuardBenchmark(const GuardBenchOptions &options)
{
    QTextStream out(stdout);
    if (!packagesInstalled(out)) {
        out << "verity-bench: cannot install the MCP SDK for the load" << Qt::endl;
        return 2;
    }
    QString error;
    const nlohmann::json direct = runLoad(options, QString(), error);
    if (direct.is_null()) {
        out << "verity-bench: " << error << Qt::endl;
        return 2;
    }
    out << QStringLiteral("direct, no guard: %1 calls at %2/s, p50 %3 ms, p99 %4 ms")
                    .arg(direct["calls"].get<int>())
                    .arg(options.rate)
                    .arg(direct["p50"].get<double>(), 0, 'f', 2)
                    .arg(direct["p99"].get<double>(), 0, 'f', 2)
        << Qt::endl;
    bool missed = false;
    for (const QString &backend : options.backends) {
        QTemporaryDir folder;
        test::PostgresCluster cluster;
        QString database = folder.filePath(QStringLiteral("guard.sqlite"));
        if (backend == QLatin1String("postgresql")) {
            if (!cluster.start()) {
                out << "verity-bench: " << cluster.error() << Qt::endl;
                return 2;
            }
            database = cluster.createDatabase(QStringLiteral("guard"));
        }
        const nlohmann::json guarded = runLoad(options, database, error);
        if (guarded.is_null()) {
            out << "verity-bench: " << backend << ": " << error << Qt::endl;
            return 2;
        }
        const double addedP50 = guarded["p50"].get<double>() - direct["p50"].get<double>();
        const double addedP99 = guarded["p99"].get<double>() - direct["p99"].get<double>();
        const bool met = addedP99 < targetP99Ms && guarded["errors"].get<int>() == 0;
        missed = missed || !met;
        out << QStringLiteral(
                       "guard on %1: %2 calls (%3 errors), added latency p50 %4 ms, p99 %5 ms (target: "
                       "p99 under %6 ms) %7; writes alone p50 %8 ms, p99 %9 ms")
                        .arg(backend)
                        .arg(guarded["calls"].get<int>())
                        .arg(guarded["errors"].get<int>())
                        .arg(addedP50, 0, 'f', 2)
                        .arg(addedP99, 0, 'f', 2)
                        .arg(targetP99Ms)
                        .arg(met ? QStringLiteral("met") : QStringLiteral("MISSED"))
                        .arg(guarded["writeP50"].get<double>(), 0, 'f', 2)
                        .arg(guarded["writeP99"].get<double>(), 0, 'f', 2)
            << Qt::endl;
        const nlohmann::json &rss = guarded["rss"];
        if (rss.is_array() && rss.size() >= 2) {
            double most = 0;
            for (const auto &kb : rss)
                most = qMax(most, kb.get<double>());
            out << QStringLiteral("  the guard's memory: %1 at start, %2 after %3 s, at most %4")
                            .arg(megabytes(rss.front().get<double>()), megabytes(rss.back().get<double>()))
                            .arg(options.seconds)
                            .arg(megabytes(most))
                << Qt::endl;
            // A long run shows whether it levels off (SQLite's page cache fills to its 32 MB first).
            if (rss.size() >= 120) {
                QStringList minutes;
                for (size_t second = 60; second < rss.size(); second += 60)
                    minutes << QString::number(rss[second].get<double>() / 1024.0, 'f', 1);
                out << QStringLiteral("  at each minute (MB): %1").arg(minutes.join(QStringLiteral(", ")))
                    << Qt::endl;
            }
        }
    }
    return missed ? 1 : 0;
}

} // namespace verity::bench

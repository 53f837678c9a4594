// verity-bench [--backend sqlite|postgresql] [--tickets N[,N...]] [--seed S] [--refunds N] [--json]
//              [--folder DIR [--keep]]
// verity-bench import [--mb N] [--formats native,openai-chat,otlp,tau2]
// verity-bench race [--backend sqlite|postgresql] [--escalations N] [--workers N]
// verity-bench live [--backend sqlite|postgresql|both] [--senders N] [--seconds S] [--spans N]
// verity-bench guard [--backend sqlite|postgresql|both] [--rate N] [--seconds S]
//
// Figures, not tests: built with the project, never run by CTest. The first form is the scale
// benchmark (see scalebenchmark.h); the second, import throughput per format. The other
// commands are the children they start.

#include "barecopy.h"
#include "bulkload.h"
#include "claimrace.h"
#include "guardlatency.h"
#include "importthroughput.h"
#include "largeticket.h"
#include "livereceiver.h"
#include "reconcileprobe.h"
#include "scalebenchmark.h"
#include "scaledataset.h"
#include "windowprobe.h"

#include <QCoreApplication>
#include <QStringList>
#include <QTextStream>

using namespace verity;
using namespace verity::bench;

namespace {

const char usage[] =
        "usage: verity-bench [--backend sqlite|postgresql] [--tickets N[,N...]] [--seed S] [--refunds N] "
        "[--json]\n"
        "                    [--folder DIR [--keep]]\n"
        "       verity-bench import [--mb N] [--formats native,openai-chat,otlp,tau2]\n"
        "       verity-bench race [--backend sqlite|postgresql] [--escalations N] [--workers N]\n"
        "       verity-bench live [--backend sqlite|postgresql|both] [--senders N] [--seconds S] [--spans "
        "N]\n"
        "       verity-bench guard [--backend sqlite|postgresql|both] [--rate N] [--seconds S]\n"
        "\n"
        "The first form generates a support history of N tickets (by default 10,000, then 100,000, then\n"
        "1,000,000), imports it, opens it in the window offscreen and reconciles N refunds (--refunds,\n"
        "100,000) against the sandbox provider on 127.0.0.1, printing one line per figure with its target.\n"
        "It exits 1 when a target is missed. The files (about 6 GB at a million tickets) go to a temporary\n"
        "folder, or --folder; --keep keeps each imported database there (scale-N.sqlite) to look into.\n"
        "With --backend postgresql every part runs on a team database instead, in a throwaway cluster of\n"
        "its own (initdb, a Unix socket, removed afterwards), and the floor the importer is measured\n"
        "against is libpq's COPY of the same rows.\n"
        "\n"
        "The race: N escalations (2,000), W processes (8) each claiming the next one and recording a\n"
        "check until none is left; claims per second, and whether each was settled exactly once. On\n"
        "postgresql it starts a throwaway cluster of its own (initdb, a Unix socket) and each process\n"
        "connects as its own user with the support role.\n"
        "\n"
        "Live: `verity collect`'s receiver in a child process on a new SQLite file, then on a throwaway\n"
        "PostgreSQL cluster; N senders (4) post OTLP/JSON exports of --spans tool spans (200) each as fast\n"
        "as it answers, for S seconds (60; 600 to see memory over ten minutes). A probe sends one timed-out\n"
        "refund at a time and times it from its POST until a console's escalation queue model, refreshed\n"
        "by the database's change announcements, counts it. Targets: 5,000 spans/s, p99 under 2 s, the\n"
        "receiver's memory flat.\n"
        "\n"
        "Guard: the MCP SDK's Client calls its McpServer at N calls a second (200), four reads to a write,\n"
        "for S seconds (20; 600 to see memory over ten minutes), directly and then through `verity guard`\n"
        "on a new SQLite file and on a throwaway PostgreSQL cluster: the latency the guard adds at p50 and\n"
        "p99 (target: p99 under 5 ms), and its memory each second.\n"
        "\n"
        "Children it starts, which can be run alone on a kept database:\n"
        "  verity-bench window DB ORDER-ID     the window's figures\n"
        "  verity-bench large-ticket DB        opening the ticket LARGE-1 (a 50 MB message)\n"
        "  verity-bench collect-child DB       the receiver alone, on 127.0.0.1 (prints its port)\n"
        "  verity-bench reconcile DB REFUNDS   the reconciliation's figures\n"
        "  verity-bench generate FILE N SEED FIRST   N tickets numbered from FIRST, alone\n"
        "  verity-bench bulk-load FROM-URI TO-URI   the COPY floor between two team databases\n";

int usageError(const QString &message)
{
    QTextStream(stderr) << "verity-bench: " << message << "\n" << usage;
    return 2;
}

int bareCopyChild(int argc, char **argv, const QString &from, const QString &to, bool bulk)
{
    QCoreApplication app(argc, argv);
    Expected<BareCopyFigures> figures = bulk ? bulkLoad(from, to) : bareCopy(from, to);
    QTextStream out(stdout);
    if (!figures) {
        out << "error " << figures.message() << "\n";
        return 2;
    }
    out << "insert_ms " << double(figures->insertNs) / 1e6 << "\nrows " << figures->rows << "\ntool_calls "
        << figures->toolCalls << "\n";
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    const QString command = args.value(0);

    // The children.
    if (command == QLatin1String("import-one") && args.size() == 3) {
        QCoreApplication app(argc, argv);
        return importOne(args.at(1), args.at(2));
    }
    if (command == QLatin1String("generate") && args.size() == 5) {
        // generate FILE TICKETS SEED FIRST: a dataset alone, to import by hand or to add to one
        const ScaleDatasetShape shape = writeScaleDataset(args.at(1), args.at(2).toLongLong(),
                                                          args.at(3).toUInt(), args.at(4).toLongLong());
        QTextStream(stdout) << "tickets " << shape.tickets << "\ntool_calls " << shape.toolCalls << "\n";
        return shape.tickets > 0 ? 0 : 2;
    }
    if (command == QLatin1String("race-worker") && args.size() == 3) {
        QCoreApplication app(argc, argv);
        return runRaceWorker(args.at(1), args.at(2));
    }
    if (command == QLatin1String("large-ticket") && args.size() == 2)
        return runLargeTicketProbe(argc, argv, args.at(1));
    if (command == QLatin1String("bare-copy") && args.size() == 3)
        return bareCopyChild(argc, argv, args.at(1), args.at(2), false);
    if (command == QLatin1String("bulk-load") && args.size() == 3)
        return bareCopyChild(argc, argv, args.at(1), args.at(2), true);
    if (command == QLatin1String("collect-child") && args.size() == 2)
        return runCollectChild(argc, argv, args.at(1));
    if (command == QLatin1String("window") && args.size() == 3)
        return runWindowProbe(argc, argv, args.at(1), args.at(2));
    if (command == QLatin1String("reconcile") && args.size() == 3)
        return runReconcileProbe(argc, argv, args.at(1), args.at(2).toLongLong());

    QCoreApplication app(argc, argv);
    if (command == QLatin1String("import")) {
        qint64 megabytes = 50;
        QStringList formats{QStringLiteral("native"), QStringLiteral("openai-chat"), QStringLiteral("otlp"),
                            QStringLiteral("tau2")};
        for (int i = 1; i < args.size(); i += 2) {
            if (i + 1 >= args.size())
                return usageError(QStringLiteral("%1 needs a value").arg(args.at(i)));
            if (args.at(i) == QLatin1String("--mb"))
                megabytes = qMax<qint64>(1, args.at(i + 1).toLongLong());
            else if (args.at(i) == QLatin1String("--formats"))
                formats = args.at(i + 1).split(u',');
            else
                return usageError(QStringLiteral("unknown option %1").arg(args.at(i)));
        }
        return runImportThroughput(formats, megabytes);
    }
    if (command == QLatin1String("live")) {
        LiveOptions live;
        for (int i = 1; i < args.size(); i += 2) {
            if (i + 1 >= args.size())
                return usageError(QStringLiteral("%1 needs a value").arg(args.at(i)));
            const QString &value = args.at(i + 1);
            bool ok = true;
            if (args.at(i) == QLatin1String("--backend")) {
                if (value == QLatin1String("both"))
                    live.backends = {QStringLiteral("sqlite"), QStringLiteral("postgresql")};
                else if (value == QLatin1String("sqlite") || value == QLatin1String("postgresql"))
                    live.backends = {value};
                else
                    return usageError(QStringLiteral("--backend takes sqlite, postgresql or both, not \"%1\"")
                                              .arg(value));
            } else if (args.at(i) == QLatin1String("--senders")) {
                live.senders = value.toInt(&ok);
                ok = ok && live.senders >= 1 && live.senders <= 64;
            } else if (args.at(i) == QLatin1String("--seconds")) {
                live.seconds = value.toInt(&ok);
                ok = ok && live.seconds >= 10;
            } else if (args.at(i) == QLatin1String("--spans")) {
                live.spansPerRequest = value.toInt(&ok);
                ok = ok && live.spansPerRequest >= 1 && live.spansPerRequest <= 5000;
            } else {
                return usageError(QStringLiteral("unknown option %1").arg(args.at(i)));
            }
            if (!ok)
                return usageError(QStringLiteral("%1 does not take \"%2\" (senders 1-64, seconds 10 or more, "
                                                 "spans 1-5000)")
                                          .arg(args.at(i), value));
        }
        return runLiveBenchmark(live);
    }
    if (command == QLatin1String("guard")) {
        GuardBenchOptions guard;
        for (int i = 1; i < args.size(); i += 2) {
            if (i + 1 >= args.size())
                return usageError(QStringLiteral("%1 needs a value").arg(args.at(i)));
            const QString &value = args.at(i + 1);
            bool ok = true;
            if (args.at(i) == QLatin1String("--backend")) {
                if (value == QLatin1String("sqlite") || value == QLatin1String("postgresql"))
                    guard.backends = {value};
                else
                    ok = value == QLatin1String("both");
            } else if (args.at(i) == QLatin1String("--rate")) {
                guard.rate = value.toInt(&ok);
                ok = ok && guard.rate >= 1 && guard.rate <= 5000;
            } else if (args.at(i) == QLatin1String("--seconds")) {
                guard.seconds = value.toInt(&ok);
                ok = ok && guard.seconds >= 1;
            } else {
                return usageError(QStringLiteral("unknown option %1").arg(args.at(i)));
            }
            if (!ok)
                return usageError(
                        QStringLiteral("%1 does not take \"%2\" (backend sqlite, postgresql or both; rate "
                                       "1-5000; seconds 1 or more)")
                                .arg(args.at(i), value));
        }
        return runGuardBenchmark(guard);
    }
    if (command == QLatin1String("race")) {
        RaceOptions race;
        for (int i = 1; i < args.size(); i += 2) {
            if (i + 1 >= args.size())
                return usageError(QStringLiteral("%1 needs a value").arg(args.at(i)));
            bool ok = true;
            if (args.at(i) == QLatin1String("--backend"))
                race.backend = args.at(i + 1);
            else if (args.at(i) == QLatin1String("--escalations"))
                race.escalations = args.at(i + 1).toInt(&ok);
            else if (args.at(i) == QLatin1String("--workers"))
                race.workers = args.at(i + 1).toInt(&ok);
            else
                return usageError(QStringLiteral("unknown option %1").arg(args.at(i)));
            if (!ok || race.escalations < 1 || race.workers < 1 || race.workers > 64)
                return usageError(QStringLiteral("%1 takes a positive number (workers: up to 64), not \"%2\"")
                                          .arg(args.at(i), args.at(i + 1)));
        }
        if (race.backend != QLatin1String("sqlite") && race.backend != QLatin1String("postgresql"))
            return usageError(
                    QStringLiteral("--backend takes sqlite or postgresql, not \"%1\"").arg(race.backend));
        QTextStream out(stdout);
        return runClaimRace(race, out);
    }

    ScaleOptions options;
    for (int i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == QLatin1String("--json")) {
            options.json = true;
            continue;
        }
        if (arg == QLatin1String("--keep")) {
            options.keep = true;
            continue;
        }
        if (arg == QLatin1String("--help") || arg == QLatin1String("-h")) {
            QTextStream(stdout) << usage;
            return 0;
        }
        if (i + 1 >= args.size())
            return usageError(QStringLiteral("unknown argument %1").arg(arg));
        const QString value = args.at(++i);
        bool ok = false;
        if (arg == QLatin1String("--tickets")) {
            options.tickets.clear();
            for (const QString &part : value.split(u',')) {
                const qint64 tickets = part.toLongLong(&ok);
                if (!ok || tickets < 1 || tickets > 10000000)
                    return usageError(QStringLiteral("--tickets takes numbers from 1 to 10000000, not \"%1\"")
                                              .arg(part));
                options.tickets << tickets;
            }
        } else if (arg == QLatin1String("--seed")) {
            options.seed = value.toUInt(&ok);
            if (!ok)
                return usageError(
                        QStringLiteral("--seed takes a number from 0 to 4294967295, not \"%1\"").arg(value));
        } else if (arg == QLatin1String("--refunds")) {
            options.refunds = value.toLongLong(&ok);
            if (!ok || options.refunds < 1)
                return usageError(QStringLiteral("--refunds takes a positive number, not \"%1\"").arg(value));
        } else if (arg == QLatin1String("--folder")) {
            options.folder = value;
        } else if (arg == QLatin1String("--backend")) {
            if (value != QLatin1String("sqlite") && value != QLatin1String("postgresql"))
                return usageError(
                        QStringLiteral("--backend takes sqlite or postgresql, not \"%1\"").arg(value));
            options.backend = value;
        } else {
            return usageError(QStringLiteral("unknown argument %1").arg(arg));
        }
    }
    return runScaleBenchmark(options);
}

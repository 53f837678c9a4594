// verity-bench import [--mb N] [--formats native,openai-chat,otlp,tau2]
//
// Import throughput and memory: writes a synthetic file of N MB per format, imports each into
// a fresh SQLite file in a child process (so each peak resident size is its own), and prints
// MB/s, tickets/s and the peak. Memory should stay flat as N grows: run it at 50 and at 2000.

#include "benchfiles.h"

#include "domain/registrychoice.h"
#include "import/transcriptimporter.h"
#include "store/sqlitestore.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

#include <sys/resource.h>

using namespace verity;

namespace {

qint64 peakResidentKb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

// The child: one import, figures on one line.
int importOne(const QString &file, const QString &database)
{
    QTextStream out(stdout);
    Expected<std::unique_ptr<SqliteStore>> store = SqliteStore::open(database);
    if (!store) {
        out << "error " << store.message() << "\n";
        return 2;
    }
    TranscriptImporter importer(**store, chooseRegistry({}).selection);
    QElapsedTimer timer;
    timer.start();
    const ImportReport report = importer.importFile(file);
    const qint64 ms = timer.elapsed();
    if (!report.clean()) {
        out << "error " << report.summary() << "\n";
        return 1;
    }
    out << ms << ' ' << report.ticketsOpened << ' ' << report.eventsImported << ' ' << peakResidentKb() << "\n";
    return 0;
}

int run(const QStringList &formats, qint64 megabytes)
{
    QTextStream out(stdout);
    QTemporaryDir dir;
    out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                   .arg(QStringLiteral("format"), -12)
                   .arg(QStringLiteral("MB"), 8)
                   .arg(QStringLiteral("seconds"), 9)
                   .arg(QStringLiteral("MB/s"), 8)
                   .arg(QStringLiteral("tickets/s"), 10)
                   .arg(QStringLiteral("peak RSS MB"), 12);
    out.flush();
    int status = 0;
    for (const QString &format : formats) {
        const QString file = dir.filePath(format + (format == QLatin1String("tau2") ? QStringLiteral(".json")
                                                                                   : QStringLiteral(".jsonl")));
        if (bench::writeFile(format, file, megabytes) < 0) {
            out << format << ": cannot write " << file << "\n";
            return 2;
        }
        QProcess child;
        child.start(QCoreApplication::applicationFilePath(),
                    {QStringLiteral("import-one"), file, dir.filePath(format + QStringLiteral(".sqlite"))});
        child.waitForFinished(-1);
        const QStringList figures = QString::fromUtf8(child.readAllStandardOutput()).trimmed().split(u' ');
        if (child.exitCode() != 0 || figures.size() != 4) {
            out << format << ": " << figures.join(u' ') << QString::fromUtf8(child.readAllStandardError()) << "\n";
            status = 1;
            continue;
        }
        const double mb = double(QFileInfo(file).size()) / (1024.0 * 1024.0);
        const double seconds = figures.at(0).toDouble() / 1000.0;
        out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                       .arg(format, -12)
                       .arg(mb, 8, 'f', 1)
                       .arg(seconds, 9, 'f', 2)
                       .arg(mb / seconds, 8, 'f', 1)
                       .arg(figures.at(1).toDouble() / seconds, 10, 'f', 0)
                       .arg(figures.at(3).toDouble() / 1024.0, 12, 'f', 1);
        out.flush();
        QFile::remove(file);
    }
    return status;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments().mid(1);
    if (args.size() == 3 && args.at(0) == QLatin1String("import-one"))
        return importOne(args.at(1), args.at(2));
    if (args.isEmpty() || args.at(0) != QLatin1String("import")) {
        QTextStream(stderr) << "usage: verity-bench import [--mb N] [--formats native,openai-chat,otlp,tau2]\n";
        return 2;
    }
    qint64 megabytes = 50;
    QStringList formats{QStringLiteral("native"), QStringLiteral("openai-chat"), QStringLiteral("otlp"),
                        QStringLiteral("tau2")};
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args.at(i) == QLatin1String("--mb"))
            megabytes = qMax<qint64>(1, args.at(i + 1).toLongLong());
        else if (args.at(i) == QLatin1String("--formats"))
            formats = args.at(i + 1).split(u',');
    }
    return run(formats, megabytes);
}

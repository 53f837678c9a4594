#include "importthroughput.h"

#include "benchfiles.h"
#include "benchmemory.h"
#include "domain/registrychoice.h"
#include "import/transcriptimporter.h"
#include "store/storefactory.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMap>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

namespace verity::bench {

int importOne(const QString &file, const QString &database)
{
    QTextStream out(stdout);
    Expected<std::unique_ptr<Store>> store = openStore(database);
    if (!store) {
        out << "error " << store.message() << "\n";
        return 2;
    }
    TranscriptImporter importer(**store, automaticRegistries(QString()));
    QElapsedTimer timer;
    timer.start();
    const ImportReport report = importer.importFile(file);
    const qint64 ms = timer.elapsed();
    if (!report.clean()) {
        out << "error " << report.summary() << "\n";
        return 1;
    }
    out << "ms " << ms << "\ntickets " << report.ticketsOpened << "\nevents " << report.eventsImported
        << "\nrss_peak_kb " << peakResidentKb() << "\n";
    return 0;
}

int runImportThroughput(const QStringList &formats, qint64 megabytes)
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
        const QString file = dir.filePath(
                format
                + (format == QLatin1String("tau2") ? QStringLiteral(".json") : QStringLiteral(".jsonl")));
        if (writeFile(format, file, megabytes) < 0) {
            out << format << ": cannot write " << file << "\n";
            return 2;
        }
        QProcess child;
        child.start(QCoreApplication::applicationFilePath(),
                    {QStringLiteral("import-one"), file, dir.filePath(format + QStringLiteral(".sqlite"))});
        child.waitForFinished(-1);
        const QString output = QString::fromUtf8(child.readAllStandardOutput());
        QMap<QString, double> figures;
        for (const QString &line : output.split(u'\n', Qt::SkipEmptyParts)) {
            const QStringList parts = line.split(u' ');
            if (parts.size() == 2)
                figures.insert(parts.at(0), parts.at(1).toDouble());
        }
        if (child.exitCode() != 0 || !figures.contains(QStringLiteral("ms"))) {
            out << format << ": " << output.trimmed() << QString::fromUtf8(child.readAllStandardError())
                << "\n";
            status = 1;
            continue;
        }
        const double mb = double(QFileInfo(file).size()) / (1024.0 * 1024.0);
        const double seconds = figures.value(QStringLiteral("ms")) / 1000.0;
        out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                        .arg(format, -12)
                        .arg(mb, 8, 'f', 1)
                        .arg(seconds, 9, 'f', 2)
                        .arg(mb / seconds, 8, 'f', 1)
                        .arg(figures.value(QStringLiteral("tickets")) / seconds, 10, 'f', 0)
                        .arg(figures.value(QStringLiteral("rss_peak_kb")) / 1024.0, 12, 'f', 1);
        out.flush();
        QFile::remove(file);
    }
    return status;
}

} // namespace verity::bench

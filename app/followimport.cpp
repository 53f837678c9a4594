// Following a log: what FollowedFile reads goes to the same intake as a receiver's requests, so
// the same rules hold (events and trace exports, writes in flight until their grace ends, the
// same lines read again change nothing). A store that cannot take a read's lines now keeps them
// waiting, in order, and is asked again: nothing read is dropped.

#include "followimport.h"

#include "collect/followedfile.h"
#include "collect/spanintake.h"
#include "stopsignals.h"
#include "store/store.h"

#include <QCoreApplication>
#include <QTimer>

#include <deque>

namespace verity {

int followImport(ImportWrites &store, const RegistrySelection &registries, const QString &path,
                 qint64 graceMs, QTextStream &out, QTextStream &err)
{
    SpanIntake intake(store, registries, graceMs);
    FollowedFile file(path);
    struct Read
    {
        QList<QByteArray> lines;
        qint64 first = 0;
    };
    std::deque<Read> waiting;
    QTimer retry;
    retry.setSingleShot(true);
    retry.setInterval(2000);
    bool failing = false;

    const auto storeWaiting = [&] {
        while (!waiting.empty()) {
            const Read &read = waiting.front();
            const IntakeResult taken = intake.takeLines(read.lines, read.first, path);
            if (!taken.storeError.isEmpty()) {
                if (!failing)
                    err << path << ": the database cannot take lines " << read.first << "–"
                        << read.first + read.lines.size() - 1 << " now (" << taken.storeError
                        << "); they wait and are stored once it can" << Qt::endl;
                failing = true;
                retry.start();
                return;
            }
            failing = false;
            for (const QString &problem : taken.problems)
                err << path << ": " << problem << Qt::endl;
            const qint64 last = read.first + read.lines.size() - 1;
            if (taken.eventsStored > 0 || taken.refused > 0)
                out << path << ": "
                    << (last == read.first ? QStringLiteral("line %1").arg(last)
                                           : QStringLiteral("lines %1–%2").arg(read.first).arg(last))
                    << ": " << taken.eventsStored << " events stored, " << taken.eventsKnown
                    << " already there, " << taken.refused << " refused" << Qt::endl;
            waiting.pop_front();
        }
    };
    QObject::connect(&retry, &QTimer::timeout, &file, storeWaiting);
    QObject::connect(&file, &FollowedFile::linesRead, &file,
                     [&](const QList<QByteArray> &lines, qint64 first) {
                         waiting.push_back({lines, first});
                         if (!retry.isActive())
                             storeWaiting();
                     });
    QObject::connect(&file, &FollowedFile::rotated, &file, [&](const QString &why) {
        err << why << ": reading it from its first line" << Qt::endl;
    });
    QObject::connect(&file, &FollowedFile::unreadable, &file,
                     [&](const QString &why) { err << why << "; waiting for it" << Qt::endl; });
    QObject::connect(&file, &FollowedFile::lineRefused, &file, [&](qint64 line, const QString &why) {
        err << path << ": line " << line << ": " << why << Qt::endl;
    });

    // Writes whose result did not come in time: escalated every few seconds.
    QTimer overdue;
    overdue.setInterval(5000);
    QObject::connect(&overdue, &QTimer::timeout, &file, [&] {
        const Expected<int> escalated = intake.escalateOverdue();
        if (escalated && *escalated > 0)
            err << *escalated << (*escalated == 1 ? " write" : " writes")
                << " had no result within the grace period: escalated" << Qt::endl;
    });

    if (Expected<void> started = file.start(); !started) {
        err << "verity import: " << started.message() << "\n";
        return 2;
    }
    overdue.start();
    if (!watchStopSignals(&file, [] { QCoreApplication::quit(); }))
        err << "verity import: cannot watch for SIGINT and SIGTERM; stop it with SIGKILL\n";
    err << "following " << path << " (Ctrl+C stops)" << Qt::endl;
    QCoreApplication::exec();
    storeWaiting();
    err << "verity import: stopped following " << path << Qt::endl;
    return waiting.empty() ? 0 : 2;
}

} // namespace verity

#pragma once

#include <QList>
#include <QString>

namespace verity {

struct RejectedLine
{
    qint64 line = 0;
    QString reason;
};

// What one file's import did, for the summary line, --json and the window.
struct ImportReport
{
    QString path;
    qint64 linesRead = 0;
    qint64 eventsImported = 0;
    qint64 eventsUnchanged = 0; // already stored by an earlier import
    qint64 ticketsOpened = 0;
    QList<RejectedLine> rejected;
    QString fatal;          // set when the file could not be read to the end
    bool cancelled = false; // stopped by the user; what was committed stays

    bool clean() const { return rejected.isEmpty() && fatal.isEmpty() && !cancelled; }
    // "FILE:LINE: reason", one per rejected line.
    QStringList rejectionMessages() const;
    QString summary() const;
};

} // namespace verity

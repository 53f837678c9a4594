#pragma once

#include "domain/ticketassessment.h"
#include "importunit.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace verity {

// Something said about one place in a file: why a line or conversation was skipped, or a
// notice about one that was stored.
struct ImportProblem
{
    FilePlace place;
    QString conversation; // the conversation's id, when the file holds conversations
    QString reason;
};

// What one file's import did, for the summary line, --json and the window.
struct ImportReport
{
    QString path;
    QString format; // transcriptFormatId() of the file; empty when nothing could be read
    QStringList registries; // the registry profiles that read its calls
    qint64 linesRead = 0; // JSON Lines files
    qint64 bytesRead = 0;
    qint64 conversations = 0; // conversations read whole (stored or already there)
    qint64 eventsImported = 0;
    qint64 eventsUnchanged = 0; // already stored by an earlier import
    qint64 ticketsOpened = 0;
    RepeatCounts repeats; // what the import changed in the tickets it touched
    QStringList unclassifiedTools; // tools no registry knew, in the order first met
    QList<ImportProblem> rejected;
    QList<ImportProblem> notices;
    QString fatal; // set when the file could not be read to the end
    bool cancelled = false; // stopped by the user; what was committed stays

    bool clean() const { return rejected.isEmpty() && fatal.isEmpty() && !cancelled; }
    // "FILE:LINE: reason" (or "FILE: byte N: reason"), one per rejected line or conversation.
    QStringList rejectionMessages() const;
    QStringList noticeMessages() const;
    QString summary() const;
    // "2 duplicate effects ($236.00), 11 retries after errors, 3 harmless repeats"; empty when none.
    QString repeatSummary() const;
};

} // namespace verity

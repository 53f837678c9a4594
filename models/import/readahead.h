#pragma once
// Reads a transcript on a thread of its own while the caller stores what was read, so that
// parsing a line and storing the one before overlap. The sink still takes every unit in order
// on the calling thread, and what the figures say while it does (bytes, lines, format) and
// after a stop is what the reader would have said had the sink been its own. The units go
// back to the reading thread to be freed there, where they were allocated.

#include "transcriptreader.h"

#include <functional>

namespace verity {

class ReadAhead
{
public:
    // Return false to stop reading after this unit.
    using Sink = std::function<bool(const ImportUnit &unit)>;
    // Shown the units read ahead before the sink takes them one by one, on the sink's thread:
    // what the sink will need of them it may then fetch together.
    using Preview = std::function<void(const QList<const ImportUnit *> &units)>;

    explicit ReadAhead(TranscriptReader &reader)
        : m_reader(reader)
    {}

    // As TranscriptReader::read(). JSON Lines are read a bounded number of units ahead; a
    // document is read in step with the sink, since where it stops decides its figures.
    Expected<void> read(const Sink &sink, const Preview &preview = {});

    // As of the unit the sink is taking, or last took.
    QString format() const { return m_format; }
    qint64 bytesRead() const { return m_bytesRead; }
    qint64 bytesTotal() const { return m_bytesTotal; }
    qint64 linesRead() const { return m_linesRead; }

private:
    TranscriptReader &m_reader;
    QString m_format;
    qint64 m_bytesRead = 0;
    qint64 m_bytesTotal = 0;
    qint64 m_linesRead = 0;
};

} // namespace verity

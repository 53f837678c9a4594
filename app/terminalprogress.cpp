#include "terminalprogress.h"

#include <QFileInfo>

#include <unistd.h>

#include <cstdio>

namespace verity {

TerminalProgress::TerminalProgress(QTextStream &stream, bool wanted)
    : m_stream(stream)
    , m_enabled(wanted && isatty(fileno(stderr)) == 1)
{}

void TerminalProgress::show(const QString &file, qint64 done, qint64 total)
{
    if (!m_enabled)
        return;
    if (file != m_file) {
        m_file = file;
        m_sinceStart.start();
        m_sinceLast.invalidate();
    }
    // A few updates a second: a terminal redrawn for every batch slows the import down.
    if (m_sinceLast.isValid() && m_sinceLast.elapsed() < 200 && done < total)
        return;
    m_sinceLast.start();
    const double seconds = double(qMax<qint64>(m_sinceStart.elapsed(), 1)) / 1000.0;
    const double mb = 1024.0 * 1024.0;
    const int percent = total > 0 ? int(100 * done / total) : 0;
    m_stream << "\r\033[K" << QFileInfo(file).fileName() << ": " << percent << "% ("
             << QString::number(double(done) / mb, 'f', 1) << " of "
             << QString::number(double(total) / mb, 'f', 1) << " MB, "
             << QString::number(double(done) / mb / seconds, 'f', 1) << " MB/s)";
    m_stream.flush();
    m_shown = true;
}

void TerminalProgress::showText(const QString &line)
{
    if (!m_enabled)
        return;
    m_stream << "\r\033[K" << line;
    m_stream.flush();
    m_shown = true;
}

void TerminalProgress::clear()
{
    if (!m_shown)
        return;
    m_stream << "\r\033[K";
    m_stream.flush();
    m_shown = false;
    m_file.clear();
}

} // namespace verity

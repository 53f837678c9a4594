#pragma once
// One line of progress on a terminal while a file imports: how far, how fast. Nothing at all
// when the output is not a terminal (a pipe, a log, CI), so logs stay clean.

#include <QElapsedTimer>
#include <QString>
#include <QTextStream>

namespace verity {

class TerminalProgress
{
public:
    TerminalProgress(QTextStream &stream, bool wanted);

    void show(const QString &file, qint64 done, qint64 total);
    // A line of the caller's own (a receiver's running totals), redrawn in place.
    void showText(const QString &line);
    void clear(); // wipes the line before the summary is printed

private:
    QTextStream &m_stream;
    bool m_enabled;
    bool m_shown = false;
    QElapsedTimer m_sinceStart;
    QElapsedTimer m_sinceLast;
    QString m_file;
};

} // namespace verity

#pragma once
// A JSON Lines file an agent runtime appends to, read as it grows: every complete line once, in
// order, from the start of the file. A line still being written (no newline yet) waits for its
// end. When the file is rotated (the path now names another file, as logrotate's create does,
// or it was truncated in place, as copytruncate does) reading goes on at the new file's first
// line. Changes are noticed through the file system's notifications, and every second in case
// they are not delivered (a network folder, a rotation that replaced the watched path).

#include "domain/expected.h"

#include <QByteArray>
#include <QFile>
#include <QFileSystemWatcher>
#include <QList>
#include <QObject>
#include <QTimer>

namespace verity {

class FollowedFile : public QObject
{
    Q_OBJECT

public:
    explicit FollowedFile(QString path, QObject *parent = nullptr);

    // Opens the file and reads what it holds; then follows it. An error when it cannot be read.
    Expected<void> start();
    QString path() const { return m_path; }

signals:
    // Complete lines, without their newline; `firstLine` is the 1-based number of the first in
    // the current file.
    void linesRead(const QList<QByteArray> &lines, qint64 firstLine);
    // The path names a new file (or the old one was truncated): lines count from 1 again.
    void rotated(const QString &why);
    // The file cannot be read just now (removed and not yet created again, permissions); reading
    // goes on once it can.
    void unreadable(const QString &why);
    // A line that is not handed on, and why (one longer than any real line).
    void lineRefused(qint64 line, const QString &why);

private:
    void readMore();
    void drain();
    bool reopenIfRotated();
    bool open();

    QString m_path;
    QFile m_file;
    quint64 m_inode = 0;
    qint64 m_offset = 0; // of the first byte not yet handed on
    qint64 m_nextLine = 1;
    QByteArray m_partial; // a line whose newline has not been written yet
    QByteArray m_head; // the file's first bytes as read: another beginning means it was rewritten
    QFileSystemWatcher m_watcher;
    QTimer m_tick;
    bool m_saidUnreadable = false;
    bool m_skipping = false; // inside a line too long to keep
};

} // namespace verity

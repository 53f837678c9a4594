#include "followedfile.h"

#include "import/transcriptreader.h"

#include <QFileInfo>

#include <sys/stat.h>

namespace verity {

namespace {

// The file's identity on disk: a rotation that creates a new file gives it another inode.
quint64 inodeOf(const QString &path)
{
    struct stat status = {};
    if (::stat(QFile::encodeName(path).constData(), &status) != 0)
        return 0;
    return quint64(status.st_ino);
}

constexpr qint64 readChunk = qint64(4) << 20;
constexpr qsizetype headBytes = 64; // what tells a file rewritten from its start

} // namespace

FollowedFile::FollowedFile(QString path, QObject *parent)
    : QObject(parent)
    , m_path(std::move(path))
{
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &FollowedFile::readMore);
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &FollowedFile::readMore);
}

bool FollowedFile::open()
{
    m_file.close();
    m_file.setFileName(m_path);
    if (!m_file.open(QIODevice::ReadOnly))
        return false;
    m_inode = inodeOf(m_path);
    m_offset = 0;
    m_nextLine = 1;
    m_partial.clear();
    m_skipping = false;
    m_head.clear();
    if (!m_watcher.files().contains(m_path))
        m_watcher.addPath(m_path);
    return true;
}

Expected<void> FollowedFile::start()
{
    if (QFileInfo(m_path).isDir())
        return makeError(InputErrc::Invalid,
                         QStringLiteral("%1 is a folder: name the file to follow").arg(m_path));
    if (!open())
        return makeError(InputErrc::Unreadable,
                         QStringLiteral("cannot read %1: %2").arg(m_path, m_file.errorString()));
    m_tick.start();
    readMore();
    return {};
}

bool FollowedFile::reopenIfRotated()
{
    const quint64 now = inodeOf(m_path);
    if (now == 0) {
        // Moved away and not created again yet: what the old file still receives is read on.
        return false;
    }
    if (now != m_inode) {
        // Whatever the old file received before the move is read to its end first.
        drain();
        if (!open())
            return false;
        emit rotated(QStringLiteral("%1 is a new file").arg(m_path));
        return true;
    }
    // Truncated and written again before this looked (copytruncate, then the agent's next
    // lines): the size may be back above where reading was, but the file no longer begins as
    // it did.
    bool rewritten = false;
    if (!m_head.isEmpty() && m_file.size() >= m_head.size()) {
        const qint64 at = m_file.pos();
        m_file.seek(0);
        rewritten = m_file.read(m_head.size()) != m_head;
        m_file.seek(at);
    }
    if (rewritten || m_file.size() < m_offset + m_partial.size()) {
        m_file.seek(0);
        m_offset = 0;
        m_nextLine = 1;
        m_partial.clear();
        m_skipping = false;
        m_head.clear();
        emit rotated(QStringLiteral("%1 was truncated").arg(m_path));
        return true;
    }
    return false;
}

void FollowedFile::readMore()
{
    if (!m_file.isOpen()) {
        if (!open()) {
            if (!m_saidUnreadable)
                emit unreadable(QStringLiteral("cannot read %1: %2").arg(m_path, m_file.errorString()));
            m_saidUnreadable = true;
            return;
        }
        m_saidUnreadable = false;
    }
    reopenIfRotated();
    drain();
}

void FollowedFile::drain()
{
    while (true) {
        QByteArray chunk = m_file.read(readChunk);
        if (chunk.isEmpty())
            break;
        if (m_head.size() < headBytes && m_offset + m_partial.size() == m_head.size())
            m_head += chunk.left(headBytes - m_head.size());
        if (m_skipping) {
            // The rest of a line too long to be real, up to its end.
            const qsizetype newline = chunk.indexOf('\n');
            m_offset += newline < 0 ? chunk.size() : newline + 1;
            if (newline < 0)
                continue;
            chunk.remove(0, newline + 1);
            m_skipping = false;
        }
        m_partial += chunk;
        QList<QByteArray> lines;
        const qint64 first = m_nextLine;
        qsizetype start = 0;
        for (qsizetype newline = m_partial.indexOf('\n'); newline >= 0;
             newline = m_partial.indexOf('\n', start)) {
            lines.append(m_partial.mid(start, newline - start));
            start = newline + 1;
            ++m_nextLine;
        }
        m_offset += start;
        m_partial.remove(0, start);
        if (!lines.isEmpty())
            emit linesRead(lines, first);
        if (m_partial.size() > maxLineBytes) {
            emit lineRefused(m_nextLine,
                             QStringLiteral("longer than %1 MB: never a real event or export, skipped")
                                     .arg(maxLineBytes >> 20));
            m_offset += m_partial.size();
            m_partial.clear();
            m_skipping = true;
            ++m_nextLine;
        }
    }
}

} // namespace verity

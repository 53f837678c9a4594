#pragma once
// SQLite copies its write-ahead log back into the database (a checkpoint, with its fsyncs) in
// the commit that finds the log long: that commit, and whatever waits on it, stalls for many
// milliseconds. A writer every one of whose calls waits on its commits (`verity guard`) leaves
// the checkpoints to a thread of its own with a connection of its own instead. A passive
// checkpoint never blocks a writer, and SQLite's locks keep the two connections apart.

#include <QString>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace verity {

class SqliteCheckpointer
{
public:
    // `path`: a database the process already has open (through the same lock layer).
    explicit SqliteCheckpointer(const QString &path);
    ~SqliteCheckpointer();
    SqliteCheckpointer(const SqliteCheckpointer &) = delete;
    SqliteCheckpointer &operator=(const SqliteCheckpointer &) = delete;

    // False when its connection could not be opened: the writer must then checkpoint itself.
    bool running() const { return m_running; }

private:
    void run(const QString &path);

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    bool m_started = false; // its connection was tried
    bool m_running = false;
    std::thread m_thread;
};

} // namespace verity

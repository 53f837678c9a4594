#include "sqlitecheckpointer.h"

#include <QSqlDatabase>
#include <QSqlQuery>

#include <atomic>
#include <chrono>

namespace verity {

namespace {

// Often enough that the log stays a few hundred pages long at a guard's pace.
constexpr std::chrono::milliseconds checkpointEvery{250};

QString threadConnectionName()
{
    static std::atomic<int> next{0};
    return QStringLiteral("verity-checkpoints-%1").arg(next++);
}

} // namespace

SqliteCheckpointer::SqliteCheckpointer(const QString &path)
    : m_thread([this, path] { run(path); })
{
    std::unique_lock<std::mutex> lock(m_mutex);
    m_wake.wait(lock, [this] { return m_started; });
}

SqliteCheckpointer::~SqliteCheckpointer()
{
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void SqliteCheckpointer::run(const QString &path)
{
    const QString name = threadConnectionName();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=1000"));
        const bool opened = db.open();
        std::unique_lock<std::mutex> lock(m_mutex);
        m_started = true;
        m_running = opened;
        lock.unlock();
        m_wake.notify_all();
        if (opened) {
            QSqlQuery checkpoint(db);
            lock.lock();
            while (!m_wake.wait_for(lock, checkpointEvery, [this] { return m_stopping; })) {
                lock.unlock();
                checkpoint.exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
                checkpoint.finish();
                lock.lock();
            }
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
}

} // namespace verity

#pragma once
// The answers `verity guard` relays, stored on a thread of their own through a database session
// of their own: the relay hands each one over and goes on, so no call waits while the answers
// before it are stored. Reads' answers wait a moment and are stored together; a write's answer
// is stored at once, and a write's admission waits only for the answers of its own intent handed
// over before it (one of them may settle the call it repeats).

#include "import/transcriptimporter.h"

#include <QMutex>
#include <QObject>
#include <QThread>
#include <QWaitCondition>

#include <functional>
#include <memory>

namespace verity {

class Store;

class AnswerWriter
{
public:
    // Opens the session the answers go through; called on the writer's thread, and again after
    // a failure.
    using Opener = std::function<Expected<std::unique_ptr<Store>>()>;
    // Told, on the thread that made the writer, why answers could not be stored.
    using FailureLog = std::function<void(const QString &)>;

    // `takeTurns`: the two sessions' transactions must not overlap (a file's database).
    AnswerWriter(Opener open, RegistrySelection registries, qint64 deadlineMs, std::function<qint64()> clock,
                 FailureLog log, bool takeTurns);
    // Stores what was handed over, then stops.
    ~AnswerWriter();
    AnswerWriter(const AnswerWriter &) = delete;
    AnswerWriter &operator=(const AnswerWriter &) = delete;

    // `intentKey`: a write's, else empty.
    void post(ImportUnit unit, const QString &intentKey);
    // Whether an answer to a write of this intent was handed over and is not stored yet.
    bool waiting(const QString &intentKey);
    // Return once every write answer handed over before (of this intent, when one is named) is
    // stored, or could not be (then its write stays in flight: a repeat is held, never sent).
    void waitForWrites(const QString &intentKey = QString());
    // Held by whoever has a transaction open where the two sessions take turns (a file's
    // database, whose begin() would otherwise wait for the other's commit, or time out); null
    // where a server's row locks let them write side by side, each ticket in turn.
    QMutex *storeTurn() { return m_takeTurns ? &m_turn : nullptr; }

private:
    void run();
    QList<ImportUnit> nextBatch(QStringList &keys);
    bool opened(QString &why);
    void store(const QList<ImportUnit> &units, qsizetype writes);
    void tell(const QString &why);

    Opener m_open;
    RegistrySelection m_registries;
    qint64 m_deadlineMs;
    std::function<qint64()> m_clock;
    FailureLog m_log;
    bool m_takeTurns;
    QObject m_home; // where failures are told: the thread that made the writer

    // The writer's thread only.
    std::unique_ptr<Store> m_store;
    std::unique_ptr<TranscriptImporter> m_importer;
    qint64 m_lastOpenTry = 0;
    QString m_openError;

    QMutex m_turn;
    QMutex m_mutex;
    QWaitCondition m_work; // something was handed over, or the writer is stopping
    QWaitCondition m_stored; // write answers were stored
    QList<std::pair<ImportUnit, QString>> m_queue; // with the intent of each write's
    qsizetype m_writesQueued = 0;
    qint64 m_firstQueuedAt = 0; // ms, monotonic
    QHash<QString, int> m_writesWaiting; // handed over, not stored yet, by intent
    bool m_stopping = false;

    std::unique_ptr<QThread> m_thread;
};

} // namespace verity

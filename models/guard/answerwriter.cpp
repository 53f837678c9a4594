#include "answerwriter.h"

#include "store/store.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QMutexLocker>

namespace verity {

namespace {

// Reads' answers are stored together: one transaction, and each ticket's summary worked out
// once, for what a busy agent answers in this long.
constexpr qint64 answersWaitMs = 50;
constexpr qsizetype answersStoredAtOnce = 64;
// A batch is tried this often: two guards storing into the same tickets may lock them in
// opposite orders, and the server then undoes one of the two transactions.
constexpr int storeAttempts = 3;
// A session that could not be opened is tried again after this long.
constexpr qint64 reopenAfterMs = 2000;

qint64 monotonicMs()
{
    return QDeadlineTimer::current().deadline();
}

} // namespace

AnswerWriter::AnswerWriter(Opener open, RegistrySelection registries, qint64 deadlineMs,
                           std::function<qint64()> clock, FailureLog log, bool takeTurns)
    : m_open(std::move(open))
    , m_registries(std::move(registries))
    , m_deadlineMs(deadlineMs)
    , m_clock(std::move(clock))
    , m_log(std::move(log))
    , m_takeTurns(takeTurns)
    , m_thread(QThread::create([this] { run(); }))
{
    m_thread->setObjectName(QStringLiteral("verity guard answers"));
    m_thread->start();
}

AnswerWriter::~AnswerWriter()
{
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = true;
        m_work.wakeAll();
    }
    m_thread->wait();
}

void AnswerWriter::post(ImportUnit unit, const QString &intentKey)
{
    QMutexLocker lock(&m_mutex);
    if (m_queue.isEmpty())
        m_firstQueuedAt = monotonicMs();
    m_queue.append({std::move(unit), intentKey});
    if (!intentKey.isEmpty()) {
        ++m_writesQueued;
        ++m_writesWaiting[intentKey];
    }
    m_work.wakeAll();
}

bool AnswerWriter::waiting(const QString &intentKey)
{
    QMutexLocker lock(&m_mutex);
    return m_writesWaiting.contains(intentKey);
}

void AnswerWriter::waitForWrites(const QString &intentKey)
{
    // Only the relay hands answers over, and it waits here: what is waiting was handed over before.
    QMutexLocker lock(&m_mutex);
    while (intentKey.isEmpty() ? !m_writesWaiting.isEmpty() : m_writesWaiting.contains(intentKey))
        m_stored.wait(&m_mutex);
}

QList<ImportUnit> AnswerWriter::nextBatch(QStringList &keys)
{
    QMutexLocker lock(&m_mutex);
    while (m_queue.isEmpty() && !m_stopping)
        m_work.wait(&m_mutex);
    // Reads' answers wait for company; a write's is stored at once, with what came before it.
    while (!m_stopping && m_writesQueued == 0 && m_queue.size() < answersStoredAtOnce) {
        const qint64 left = m_firstQueuedAt + answersWaitMs - monotonicMs();
        if (left <= 0)
            break;
        m_work.wait(&m_mutex, QDeadlineTimer(left));
    }
    QList<ImportUnit> units;
    keys.clear();
    units.reserve(m_queue.size());
    for (auto &[unit, key] : m_queue) {
        units.append(std::move(unit));
        if (!key.isEmpty())
            keys.append(key);
    }
    m_queue.clear();
    m_writesQueued = 0;
    return units;
}

void AnswerWriter::run()
{
    for (;;) {
        QStringList keys;
        const QList<ImportUnit> units = nextBatch(keys);
        if (units.isEmpty())
            break; // stopping, and nothing is left
        {
            QMutexLocker turn(storeTurn());
            store(units, keys.size());
        }
        QMutexLocker lock(&m_mutex);
        for (const QString &key : std::as_const(keys)) {
            if (--m_writesWaiting[key] <= 0)
                m_writesWaiting.remove(key);
        }
        m_stored.wakeAll();
    }
    // The session was opened on this thread, and its connection ends here.
    m_importer.reset();
    m_store.reset();
}

bool AnswerWriter::opened(QString &why)
{
    if (m_store)
        return true;
    const qint64 now = monotonicMs();
    if (m_lastOpenTry != 0 && now - m_lastOpenTry < reopenAfterMs) {
        why = m_openError;
        return false;
    }
    m_lastOpenTry = now;
    Expected<std::unique_ptr<Store>> store = m_open();
    if (!store) {
        why = m_openError = store.message();
        return false;
    }
    m_store = std::move(*store);
    m_importer = std::make_unique<TranscriptImporter>(*m_store, m_registries);
    m_importer->setInFlightGrace(m_deadlineMs, m_clock);
    return true;
}

void AnswerWriter::store(const QList<ImportUnit> &units, qsizetype writes)
{
    QString why;
    for (int attempt = 0; attempt < storeAttempts; ++attempt) {
        if (attempt > 0)
            QThread::msleep(attempt * 20); // the transaction chosen to go on ends first
        if (!opened(why))
            break;
        const ImportReport report = m_importer->importUnits(units, QStringLiteral("verity guard"));
        if (report.fatal.isEmpty()) {
            if (report.rejected.isEmpty())
                return;
            why = report.rejected.first().reason;
            break;
        }
        // The transaction was undone. Its session may have lost a server that is back, or
        // another guard's transaction was chosen to go on: tried again, on a new session.
        why = report.fatal;
        m_importer.reset();
        m_store.reset();
        m_lastOpenTry = 0;
    }
    tell(writes == 0 ? QStringLiteral("%1 answer(s) to reads could not be recorded (%2)")
                               .arg(units.size())
                               .arg(why)
                     : QStringLiteral(
                               "%1 answer(s) could not be recorded (%2); the %3 write(s) among them stay in "
                               "flight and are escalated as unknown at their deadline")
                               .arg(units.size())
                               .arg(why)
                               .arg(writes));
}

void AnswerWriter::tell(const QString &why)
{
    if (!m_log)
        return;
    bool stopping = false;
    {
        QMutexLocker lock(&m_mutex);
        stopping = m_stopping;
    }
    // While the writer stops, its maker's thread waits for it and runs nothing else, so the
    // failure is told from here: queued, it would be dropped with the writer.
    if (stopping)
        m_log(why);
    else
        QMetaObject::invokeMethod(
                &m_home, [log = m_log, why] { log(why); }, Qt::QueuedConnection);
}

} // namespace verity

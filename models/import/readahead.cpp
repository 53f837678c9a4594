#include "readahead.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace verity {

namespace {

// Enough units a handover that the threads seldom wait on each other; few enough handovers
// waiting that memory stays flat however large the file.
constexpr std::size_t unitsPerHandover = 256;
constexpr std::size_t handoversWaiting = 8;

// A unit with the reader's figures as they were when it was handed on.
struct ReadUnit
{
    ImportUnit unit;
    QString format;
    qint64 bytesRead = 0;
    qint64 bytesTotal = 0;
    qint64 linesRead = 0;
    bool ahead = false; // read before the sink took the unit before it
};

// The queue between the reading thread and the sink's.
class Handover
{
public:
    // Reading side: waits for room, or, in step, until the sink has taken everything. False
    // once the sink has stopped. Frees the units the sink is through with.
    bool put(std::vector<ReadUnit> units, bool inStep)
    {
        std::vector<std::vector<ReadUnit>> spent;
        std::unique_lock lock(m_mutex);
        m_waiting.push_back(std::move(units));
        ++m_put;
        m_changed.notify_all();
        m_changed.wait(lock, [&] {
            return m_stopped || (inStep ? m_taken == m_put : m_waiting.size() < handoversWaiting);
        });
        spent.swap(m_spent);
        const bool stopped = m_stopped;
        lock.unlock();
        return !stopped; // `spent` is freed here, on this thread, outside the lock
    }

    void readerDone()
    {
        const std::lock_guard lock(m_mutex);
        m_readerDone = true;
        m_changed.notify_all();
    }

    // Sink side: the next units in order, or none once the reader is done and all were taken.
    std::optional<std::vector<ReadUnit>> take()
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return !m_waiting.empty() || m_readerDone; });
        if (m_waiting.empty())
            return std::nullopt;
        std::vector<ReadUnit> units = std::move(m_waiting.front());
        m_waiting.pop_front();
        m_changed.notify_all();
        return units;
    }

    // The sink is through with the units take() gave: they go back to be freed.
    void taken(std::vector<ReadUnit> units)
    {
        const std::lock_guard lock(m_mutex);
        m_spent.push_back(std::move(units));
        ++m_taken;
        m_changed.notify_all();
    }

    void stop()
    {
        const std::lock_guard lock(m_mutex);
        m_stopped = true;
        m_changed.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::vector<ReadUnit>> m_waiting;
    std::vector<std::vector<ReadUnit>> m_spent;
    qint64 m_put = 0;
    qint64 m_taken = 0;
    bool m_readerDone = false;
    bool m_stopped = false;
};

} // namespace

Expected<void> ReadAhead::read(const Sink &sink, const Preview &preview)
{
    Handover handover;
    Expected<void> result;
    std::exception_ptr thrown;
    std::thread reading([&] {
        std::vector<ReadUnit> filling;
        try {
            result = m_reader.read([&](ImportUnit unit) {
                // Where a document stops decides its figures, so it is read in step with the sink.
                const bool ahead = m_reader.readingLines();
                filling.push_back(ReadUnit{std::move(unit), m_reader.format(), m_reader.bytesRead(),
                                           m_reader.bytesTotal(), m_reader.linesRead(), ahead});
                if (ahead && filling.size() < unitsPerHandover)
                    return true;
                return handover.put(std::exchange(filling, {}), !ahead);
            });
        } catch (...) {
            thrown = std::current_exception(); // handed to the caller once the units before it are taken
        }
        try {
            if (!filling.empty())
                handover.put(std::move(filling), false);
        } catch (...) {
            thrown = std::current_exception();
        }
        handover.readerDone(); // whatever happened, or the sink's thread would wait for ever
    });

    bool stopped = false;
    bool stoppedAhead = false;
    try {
        while (!stopped) {
            std::optional<std::vector<ReadUnit>> units = handover.take();
            if (!units)
                break;
            if (preview) {
                QList<const ImportUnit *> ahead;
                ahead.reserve(qsizetype(units->size()));
                for (const ReadUnit &read : *units)
                    ahead.append(&read.unit);
                preview(ahead);
            }
            for (ReadUnit &read : *units) {
                m_format = read.format;
                m_bytesRead = read.bytesRead;
                m_bytesTotal = read.bytesTotal;
                m_linesRead = read.linesRead;
                if (!sink(read.unit)) {
                    stopped = true;
                    stoppedAhead = read.ahead;
                    break;
                }
            }
            // Stopped before taken: a reader in step must not go on to the next unit.
            if (stopped)
                handover.stop();
            else
                handover.taken(std::move(*units));
        }
    } catch (...) {
        handover.stop();
        reading.join();
        throw;
    }
    reading.join();

    // A line file stops right after the unit the sink refused, as the figures above say; a
    // document read in step stopped where it would have, and says so itself.
    if (!stoppedAhead) {
        m_format = m_reader.format();
        m_bytesRead = m_reader.bytesRead();
        m_bytesTotal = m_reader.bytesTotal();
        m_linesRead = m_reader.linesRead();
    }
    if (thrown && !stopped)
        std::rethrow_exception(thrown);
    return result;
}

} // namespace verity

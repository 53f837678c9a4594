#pragma once
// Rows of a very large ordered query, a page at a time, where reaching row N costs a page,
// not N rows. OFFSET N makes the database step over N rows; instead each page is read from
// the nearest known row (an anchor: its key in the query's order) before or after it, or
// from either end. Anchors come from the pages read, and from a walk that steps along the
// whole order a stride at a time while the window is idle (walk()), so that after a moment
// any jump, to the middle of a million rows say, starts within a stride of its target.
// Memory stays fixed: a bounded number of pages, and one small key per stride.

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QMap>

#include <functional>
#include <optional>

namespace verity {

template<typename Row, typename Anchor>
class AnchoredRowCache
{
public:
    struct Request
    {
        std::optional<Anchor> anchor; // none: from the first row (backwards: the last)
        bool backwards = false;       // the rows before the anchor, still in the query's order
        qint64 skip = 0;              // rows passed over from the anchor (or the end)
        int limit = 0;
    };
    // An empty optional means the load failed (the loader reports why).
    using Loader = std::function<std::optional<QList<Row>>(const Request &request)>;
    // A row's anchor, or none when this order cannot be entered at a row (then only the ends serve).
    using AnchorOf = std::function<std::optional<Anchor>(const Row &row)>;

    explicit AnchoredRowCache(int pageSize = 256, int maxPages = 16, int walkStride = 4096)
        : m_pageSize(pageSize), m_maxPages(maxPages), m_stride(walkStride)
    {
    }

    void setLoader(Loader loader) { m_loader = std::move(loader); }
    void setAnchorOf(AnchorOf anchorOf) { m_anchorOf = std::move(anchorOf); }

    // A new query, or the same one over changed rows: nothing held is valid any more.
    void reset(qint64 rowCount)
    {
        m_rowCount = rowCount;
        m_pages.clear();
        m_lastUse.clear();
        m_anchors.clear();
        m_walkedTo = -1;
        m_walkFailed = false;
    }

    const Row *row(qint64 index)
    {
        if (index < 0 || index >= m_rowCount)
            return nullptr;
        const qint64 page = index / m_pageSize;
        auto it = m_pages.find(page);
        if (it == m_pages.end()) {
            const qint64 first = page * m_pageSize;
            const int count = int(qMin<qint64>(m_pageSize, m_rowCount - first));
            std::optional<QList<Row>> rows = load(first, count);
            if (!rows)
                return nullptr;
            evictIfFull();
            it = m_pages.insert(page, std::move(*rows));
        }
        m_lastUse[page] = ++m_clock;
        const qint64 inPage = index - page * m_pageSize;
        return inPage < it->size() ? &it->at(inPage) : nullptr;
    }

    // One slice of the walk: anchors a stride apart, for at most `budgetMs`. True while there
    // is more to walk; false when done, when the order has no anchors, or when a read failed.
    bool walk(int budgetMs)
    {
        if (!m_anchorOf || m_walkFailed)
            return false;
        QElapsedTimer timer;
        timer.start();
        while (m_walkedTo + m_stride < m_rowCount) {
            if (timer.elapsed() >= budgetMs)
                return true;
            const qint64 target = m_walkedTo + m_stride;
            std::optional<QList<Row>> rows = load(target, 1);
            if (!rows || rows->isEmpty()) {
                m_walkFailed = true;
                return false;
            }
            m_walkedTo = target;
        }
        return false;
    }

    int pagesHeld() const { return int(m_pages.size()); }
    int anchorsHeld() const { return int(m_anchors.size()); }

    // The index of a row already held that satisfies `match`; loads nothing.
    template<typename Match>
    std::optional<qint64> findHeld(Match match) const
    {
        for (auto it = m_pages.constBegin(); it != m_pages.constEnd(); ++it) {
            for (qsizetype i = 0; i < it->size(); ++i) {
                if (match(it->at(i)))
                    return it.key() * m_pageSize + i;
            }
        }
        return std::nullopt;
    }

private:
    // Rows [first, first + count), read from whichever known place is nearest.
    std::optional<QList<Row>> load(qint64 first, int count)
    {
        if (!m_loader)
            return std::nullopt;
        const qint64 last = first + count - 1;
        Request best{std::nullopt, false, first, count}; // from the start
        if (const qint64 fromEnd = m_rowCount - 1 - last; fromEnd < best.skip)
            best = Request{std::nullopt, true, fromEnd, count};
        auto after = m_anchors.upperBound(first - 1); // the first anchor past first - 1
        if (after != m_anchors.begin()) {
            const auto before = std::prev(after);
            if (const qint64 skip = first - before.key() - 1; skip < best.skip)
                best = Request{before.value(), false, skip, count};
        }
        if (auto beyond = m_anchors.lowerBound(last + 1); beyond != m_anchors.end()) {
            if (const qint64 skip = beyond.key() - last - 1; skip < best.skip)
                best = Request{beyond.value(), true, skip, count};
        }
        std::optional<QList<Row>> rows = m_loader(best);
        if (rows && !rows->isEmpty() && m_anchorOf) {
            remember(first, rows->constFirst());
            remember(first + rows->size() - 1, rows->constLast());
        }
        return rows;
    }

    void remember(qint64 index, const Row &row)
    {
        if (std::optional<Anchor> anchor = m_anchorOf(row))
            m_anchors.insert(index, std::move(*anchor));
    }

    void evictIfFull()
    {
        while (m_pages.size() >= m_maxPages) {
            qint64 oldest = m_lastUse.constBegin().key();
            for (auto it = m_lastUse.constBegin(); it != m_lastUse.constEnd(); ++it) {
                if (it.value() < m_lastUse.value(oldest))
                    oldest = it.key();
            }
            m_pages.remove(oldest);
            m_lastUse.remove(oldest);
        }
    }

    int m_pageSize;
    int m_maxPages;
    int m_stride;
    qint64 m_rowCount = 0;
    quint64 m_clock = 0;
    qint64 m_walkedTo = -1;
    bool m_walkFailed = false;
    Loader m_loader;
    AnchorOf m_anchorOf;
    QHash<qint64, QList<Row>> m_pages;
    QHash<qint64, quint64> m_lastUse;
    QMap<qint64, Anchor> m_anchors; // row index → that row's anchor
};

} // namespace verity

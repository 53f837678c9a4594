#pragma once
// Rows of a very large ordered query, a page at a time, where reaching row N costs a page,
// not N rows. OFFSET N makes the database step over N rows; instead each page is read from
// the nearest known row (an anchor: its key in the query's order) before or after it, or
// from either end. Anchors come from the pages read, and from a walk that steps along the
// whole order a stride at a time while the window is idle (walk()), so that after a moment
// any jump, to the middle of a million rows say, starts within a stride of its target.
// Memory stays fixed: a bounded number of pages, and one small key per stride.

#include "pagestore.h"

#include <QElapsedTimer>
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
        bool backwards = false; // the rows before the anchor, still in the query's order
        qint64 skip = 0; // rows passed over from the anchor (or the end)
        int limit = 0;
    };
    // An empty optional means the load failed (the loader reports why).
    using Loader = std::function<std::optional<QList<Row>>(const Request &request)>;
    // A row's anchor, or none when this order cannot be entered at a row (then only the ends serve).
    using AnchorOf = std::function<std::optional<Anchor>(const Row &row)>;

    explicit AnchoredRowCache(int pageSize = 256, int maxPages = 16, int walkStride = 4096)
        : m_pages(pageSize, maxPages)
        , m_stride(walkStride)
    {}

    void setLoader(Loader loader) { m_loader = std::move(loader); }
    void setAnchorOf(AnchorOf anchorOf) { m_anchorOf = std::move(anchorOf); }

    // A new query, or the same one over changed rows: nothing held is valid any more.
    void reset(qint64 rowCount)
    {
        m_rowCount = rowCount;
        m_pages.clear();
        m_anchors.clear();
        m_walkedTo = -1;
        m_walkFailed = false;
    }

    const Row *row(qint64 index)
    {
        if (index < 0 || index >= m_rowCount)
            return nullptr;
        return m_pages.row(index, [this](qint64 first) {
            return load(first, int(qMin<qint64>(m_pages.pageSize(), m_rowCount - first)));
        });
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

    int pagesHeld() const { return m_pages.pagesHeld(); }
    int anchorsHeld() const { return int(m_anchors.size()); }

    // The index of a row already held that satisfies `match`; loads nothing.
    template<typename Match>
    std::optional<qint64> findHeld(Match match) const
    {
        return m_pages.findHeld(match);
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

    PageStore<Row> m_pages;
    int m_stride;
    qint64 m_rowCount = 0;
    qint64 m_walkedTo = -1;
    bool m_walkFailed = false;
    Loader m_loader;
    AnchorOf m_anchorOf;
    QMap<qint64, Anchor> m_anchors; // row index → that row's anchor
};

} // namespace verity

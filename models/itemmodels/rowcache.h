#pragma once
// Rows of a large query read by offset, a page at a time and under a fixed budget of pages
// (PageStore), so a million-row table costs the same memory as a hundred-row one. For
// queues whose deep offsets cost too much to read, see AnchoredRowCache.

#include "pagestore.h"

#include <functional>

namespace verity {

template<typename Row>
class RowCache
{
public:
    // Loads `limit` rows starting at `offset`; an empty optional means the load failed.
    using Loader = std::function<std::optional<QList<Row>>(qint64 offset, int limit)>;

    explicit RowCache(int pageSize = 256, int maxPages = 16)
        : m_pages(pageSize, maxPages)
    {}

    void setLoader(Loader loader) { m_loader = std::move(loader); }
    void clear() { m_pages.clear(); }

    const Row *row(qint64 index)
    {
        return m_pages.row(index, [this](qint64 first) -> std::optional<QList<Row>> {
            if (!m_loader)
                return std::nullopt;
            return m_loader(first, m_pages.pageSize());
        });
    }

    int pagesHeld() const { return m_pages.pagesHeld(); }

    // The index of a row already held that satisfies `match`; loads nothing.
    template<typename Match>
    std::optional<qint64> findHeld(Match match) const
    {
        return m_pages.findHeld(match);
    }

private:
    PageStore<Row> m_pages;
    Loader m_loader;
};

} // namespace verity

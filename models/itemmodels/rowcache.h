#pragma once
// Rows of a large query, held a page at a time. A view asks for row N; the cache loads the
// page that holds it and forgets the least recently used pages beyond a fixed budget, so a
// million-row table costs the same memory as a hundred-row one.

#include <QHash>
#include <QList>

#include <functional>
#include <optional>

namespace verity {

template<typename Row>
class RowCache
{
public:
    // Loads `limit` rows starting at `offset`; an empty optional means the load failed.
    using Loader = std::function<std::optional<QList<Row>>(qint64 offset, int limit)>;

    explicit RowCache(int pageSize = 256, int maxPages = 16) : m_pageSize(pageSize), m_maxPages(maxPages) {}

    void setLoader(Loader loader) { m_loader = std::move(loader); }
    void clear()
    {
        m_pages.clear();
        m_lastUse.clear();
    }

    const Row *row(qint64 index)
    {
        const qint64 page = index / m_pageSize;
        auto it = m_pages.find(page);
        if (it == m_pages.end()) {
            if (!m_loader)
                return nullptr;
            std::optional<QList<Row>> rows = m_loader(page * m_pageSize, m_pageSize);
            if (!rows)
                return nullptr;
            evictIfFull();
            it = m_pages.insert(page, std::move(*rows));
        }
        m_lastUse[page] = ++m_clock;
        const qint64 inPage = index - page * m_pageSize;
        return inPage < it->size() ? &it->at(inPage) : nullptr;
    }

    int pagesHeld() const { return int(m_pages.size()); }

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
    quint64 m_clock = 0;
    Loader m_loader;
    QHash<qint64, QList<Row>> m_pages;
    QHash<qint64, quint64> m_lastUse;
};

} // namespace verity

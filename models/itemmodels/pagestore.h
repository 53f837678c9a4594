#pragma once
// Pages of rows held under a fixed budget, the least recently used forgotten first: what the
// row caches keep, whichever way they read a page (by offset, or from an anchor). A view asks
// for row N; the page that holds it is read once and kept while it is in use.

#include <QHash>
#include <QList>

#include <optional>

namespace verity {

template<typename Row>
class PageStore
{
public:
    PageStore(int pageSize, int maxPages)
        : m_pageSize(pageSize)
        , m_maxPages(maxPages)
    {}

    int pageSize() const { return m_pageSize; }
    int pagesHeld() const { return int(m_pages.size()); }

    void clear()
    {
        m_pages.clear();
        m_lastUse.clear();
    }

    // Row `index`, from its page if held, else from `read(first)`: the page's rows from its
    // first row on, or none when reading failed. Null when the row is not there.
    template<typename Read>
    const Row *row(qint64 index, Read read)
    {
        const qint64 page = index / m_pageSize;
        auto it = m_pages.find(page);
        if (it == m_pages.end()) {
            std::optional<QList<Row>> rows = read(page * m_pageSize);
            if (!rows)
                return nullptr;
            evictIfFull();
            it = m_pages.insert(page, std::move(*rows));
        }
        m_lastUse[page] = ++m_clock;
        const qint64 inPage = index - page * m_pageSize;
        return inPage < it->size() ? &it->at(inPage) : nullptr;
    }

    // The index of a row already held that satisfies `match`; reads nothing.
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
    QHash<qint64, QList<Row>> m_pages;
    QHash<qint64, quint64> m_lastUse;
};

} // namespace verity

// The ticket queue: filtered, searched, sorted and read a page at a time. Each page is one
// indexed query entered at an anchor or an end, and each count without a search a kept total;
// nothing here loads or counts every row.

#include "sqlerror.h"
#include "sqlstore.h"
#include "ticketrowcolumns.h"

#include <QSqlError>
#include <QVariant>

#include <algorithm>

namespace verity {

namespace {

struct Where
{
    QString from = QStringLiteral("tickets"); // what the rows are read from, named tickets
    QString sql;
    QVariantList values; // the placeholders of `from`, then those of `sql`
};

QString escapeLike(QString text)
{
    text.replace(u'\\', QStringLiteral("\\\\"));
    text.replace(u'%', QStringLiteral("\\%"));
    text.replace(u'_', QStringLiteral("\\_"));
    return text;
}

// How a search's condition may be met. Indexed: each arm a range of its column's index (a
// rare search reads its matches and sorts them). Tested: each row is tested as the walk of
// the sort order passes it (`unindexed` before a column keeps the engine from its index).
enum class SearchUse { Indexed, Tested };

// The tickets a search matches, as a table of their ids and times, found by each searched
// column's index apart and united. An engine that folds case (PostgreSQL) has an index of
// lower() per column, holding the time order and the column itself (schema 8): there a test
// of the OR of the columns reads every match's row (0.6 s for a seller's 25,000 tickets at a
// million), and each column alone is answered from its index.
// The columns a search tests, one per pattern: the task twice for a quoted value (itself, and
// itself with any of its trials).
constexpr const char *searchedColumns[] = {"ext_id", "order_id", "seller_name", "task", "task"};

QString searchArms(int arms, const QString &columns)
{
    QStringList selects;
    for (int arm = 0; arm < arms; ++arm)
        selects << QStringLiteral("SELECT %1 FROM tickets WHERE lower(%2) LIKE ? ESCAPE '\\'")
                           .arg(columns, QLatin1String(searchedColumns[arm]));
    return selects.join(QStringLiteral(" UNION "));
}

// `extra`: more conditions, with their values after the search's. `foldCase`: the engine
// compares text with its case (PostgreSQL), so both sides are searched in lower case, each
// column apart in the time order (searchArms). `orderColumn`: the order the rows are read in.
Where whereClause(const TicketQuery &query, bool foldCase, const QStringList &extra = {},
                  const QVariantList &extraValues = {}, SearchUse use = SearchUse::Indexed,
                  const QString &unindexed = QString(), const QString &orderColumn = QString())
{
    QStringList parts;
    Where where;
    QString filter;
    switch (query.filter) {
    case TicketFilter::All:
        break;
    case TicketFilter::NeedsAttention:
        filter = QStringLiteral("needs_attention = 1");
        break;
    case TicketFilter::Unknown:
        filter = QStringLiteral("has_unknown = 1");
        break;
    case TicketFilter::RepeatedIntent:
        filter = QStringLiteral("has_repeat = 1");
        break;
    case TicketFilter::DuplicateEffect:
        filter = QStringLiteral("duplicate_effects > 0");
        break;
    case TicketFilter::RetryAfterError:
        filter = QStringLiteral("retry_count > 0");
        break;
    }
    const QString search = query.search.trimmed();
    if (search.isEmpty()) {
        if (!filter.isEmpty())
            parts << filter;
    } else {
        // "task 5" in quotes is that value whole, not task 51 too; bare text is a beginning. A
        // task reads "task 5 · trial 3", so in quotes it is the task with any of its trials.
        const bool whole = search.size() >= 2 && search.startsWith(u'"') && search.endsWith(u'"');
        // A prefix match on NOCASE columns (or their lower case, indexed so), so each arm is an
        // index range, not a scan.
        const QString plus = use == SearchUse::Indexed ? QString() : unindexed;
        const auto column = [&](const char *name) {
            const QString marked = plus + QLatin1String(name);
            return foldCase ? QStringLiteral("lower(%1)").arg(marked) : marked;
        };
        const int arms = whole ? 5 : 4;
        QStringList tests;
        for (int arm = 0; arm < arms; ++arm)
            tests << column(searchedColumns[arm]) + QStringLiteral(" LIKE ? ESCAPE '\\'");
        const QString matches = u'(' + tests.join(QStringLiteral(" OR ")) + u')';
        // Only the time order is in the search indexes: a page in another order reads each
        // match's row, which the rows' own order (a bitmap of the indexes) does four times faster.
        const bool timeOrder = orderColumn.isEmpty() || orderColumn == u"opened_at";
        if (foldCase && use == SearchUse::Indexed && timeOrder) {
            // A filter's index holds the time order too: the two sets meet without a row read.
            const QString selected = QStringLiteral("id,opened_at");
            where.from = filter.isEmpty()
                    ? QStringLiteral("(%1) tickets").arg(searchArms(arms, selected))
                    : QStringLiteral("(SELECT %1 FROM tickets WHERE %2 INTERSECT (%3)) tickets")
                              .arg(selected, filter, searchArms(arms, selected));
        } else if (filter.isEmpty() || use == SearchUse::Tested) {
            if (!filter.isEmpty())
                parts << filter;
            parts << matches;
        } else {
            // Filtered and searched: the two sets of ids from their own indexes, intersected,
            // rather than every row of one set read to test it against the other (50 ms to
            // 20 ms for a seller's tickets that need attention, at a million tickets).
            parts << QStringLiteral("id IN (SELECT id FROM tickets WHERE %1 INTERSECT SELECT id FROM tickets "
                                    "WHERE %2)")
                             .arg(filter, matches);
        }
        const QString text = foldCase ? search.toLower() : search;
        const QString pattern = whole ? escapeLike(text.mid(1, text.size() - 2)) : escapeLike(text) + u'%';
        where.values << pattern << pattern << pattern << pattern;
        if (whole)
            where.values << pattern + QStringLiteral(" · %");
    }
    parts << extra;
    where.values << extraValues;
    if (!parts.isEmpty())
        where.sql = QStringLiteral(" WHERE ") + parts.join(QStringLiteral(" AND "));
    return where;
}

QString sortColumn(TicketSortKey key)
{
    switch (key) {
    case TicketSortKey::Opened:
        return QStringLiteral("opened_at");
    case TicketSortKey::Attention:
        return QStringLiteral("attention_rank");
    case TicketSortKey::Ticket:
        return QStringLiteral("ext_id");
    case TicketSortKey::Order:
        return QStringLiteral("order_id");
    case TicketSortKey::Seller:
        return QStringLiteral("seller_name");
    case TicketSortKey::Writes:
        return QStringLiteral("write_count");
    case TicketSortKey::WorstOutcome:
        return QStringLiteral("worst_outcome");
    }
    return QStringLiteral("opened_at");
}

// Ties fall to the id, except in the order and seller sorts, where a name's tickets come in
// time order as their indexes hold them (schema 10), so that no sort reads every row.
// Tickets without an order or seller (NULL) come first going up, as SQLite sorts NULL; an engine
// that sorts them last is told so (`spellNulls`).
QString orderClause(const QString &column, bool descending, bool spellNulls = false)
{
    const QString direction = descending ? QStringLiteral(" DESC") : QStringLiteral(" ASC");
    const bool timeWithin = column == u"order_id" || column == u"seller_name";
    const QString nulls = !spellNulls || !timeWithin ? QString()
            : descending                             ? QStringLiteral(" NULLS LAST")
                                                     : QStringLiteral(" NULLS FIRST");
    return QStringLiteral(" ORDER BY ") + column + direction + nulls
            + (timeWithin ? QStringLiteral(", opened_at") + direction : QString()) + QStringLiteral(", id")
            + direction;
}

} // namespace

Expected<qint64> SqlStore::countTickets(const TicketQuery &query)
{
    // Without a search, the count is kept (see queue_totals in the schema): no scan.
    if (query.search.trimmed().isEmpty()) {
        const char *column = "tickets";
        switch (query.filter) {
        case TicketFilter::All:
            break;
        case TicketFilter::NeedsAttention:
            column = "needs_attention";
            break;
        case TicketFilter::Unknown:
            column = "unknown";
            break;
        case TicketFilter::RepeatedIntent:
            column = "repeated";
            break;
        case TicketFilter::DuplicateEffect:
            column = "duplicate_effect";
            break;
        case TicketFilter::RetryAfterError:
            column = "retry_after_error";
            break;
        }
        return keptTotal(column);
    }
    const Where where = whereClause(query, foldsCase());
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    if (!q.prepare(QStringLiteral("SELECT count(*) FROM ") + where.from + where.sql))
        return makeError(sqlErrorText(q.lastError()));
    for (const QVariant &value : where.values)
        q.addBindValue(value);
    if (auto done = run(q, "counting tickets"); !done)
        return done.error();
    const qint64 count = q.next() ? q.value(0).toLongLong() : 0;
    m_searchMatches = std::make_pair(SearchKey{query.filter, query.search.trimmed()}, count);
    return count;
}

Expected<QList<TicketRow>> SqlStore::ticketPage(const TicketQuery &query, const TicketPage &page)
{
    const QString column = sortColumn(query.sortKey);
    // Reading backwards is reading the opposite order, and turning the rows round.
    const bool descending = query.descending != page.backwards;
    QStringList after;
    QStringList afterUnindexed;
    QVariantList afterValues;
    if (page.anchor) {
        if (!anchorsOrder(query.sortKey))
            return makeError(
                    QStringLiteral("the queue sorted by %1 cannot be entered at a ticket").arg(column));
        // A row value comparison: one range of the sort column's index, ending in the rowid.
        const QString direction = descending ? QStringLiteral("<") : QStringLiteral(">");
        after << QStringLiteral("(%1, id) %2 (?, ?)").arg(column, direction);
        // The same test kept off the index (`+`), for a search read through its columns' indexes:
        // offered the range, SQLite walks it instead, through half a million rows.
        afterUnindexed << QStringLiteral("(%3%1, %3id) %2 (?, ?)").arg(column, direction, unindexedMark());
        afterValues << page.anchor->sortValue << page.anchor->id;
    }
    auto walked = walkedSearchPage(query, page, after, afterValues);
    if (!walked)
        return walked.error();
    QList<TicketRow> rows;
    if (*walked) {
        rows = std::move(**walked);
    } else {
        const bool searched = !query.search.trimmed().isEmpty();
        const Where where = whereClause(query, foldsCase(), searched ? afterUnindexed : after, afterValues,
                                        SearchUse::Indexed, QString(), column);
        auto read = readTicketRows(where.from, where.sql, where.values, column, descending, page);
        if (!read)
            return read.error();
        rows = std::move(*read);
    }
    if (page.backwards)
        std::reverse(rows.begin(), rows.end());
    return rows;
}

Expected<QList<TicketRow>> SqlStore::readTicketRows(const QString &from, const QString &whereSql,
                                                    const QVariantList &values, const QString &column,
                                                    bool descending, const TicketPage &page)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    // The page's ids are found first and only they are read whole: a search's matches are
    // then sorted from its indexes alone, not as whole rows.
    const QString order = orderClause(column, descending, !sortsNullsFirst());
    if (!q.prepare(
                QStringLiteral("SELECT " TICKET_ROW_COLUMNS " FROM tickets t WHERE t.id IN (SELECT id FROM ")
                + from + whereSql + order + QStringLiteral(" LIMIT ? OFFSET ?)") + order))
        return makeError(sqlErrorText(q.lastError()));
    for (const QVariant &value : values)
        q.addBindValue(value);
    q.addBindValue(page.limit);
    q.addBindValue(page.skip);
    if (auto done = run(q, "reading tickets"); !done)
        return done.error();
    QList<TicketRow> rows;
    rows.reserve(page.limit);
    while (q.next())
        rows.append(ticketRow(q));
    return rows;
}

// A search that many tickets share (a seller's name) is read fastest by walking the queue's
// time order and keeping the matches: a page costs about page x (tickets / matches) rows. The
// indexes of the searched columns serve a rare search (an order id), but through them a page
// costs every match, each index entry read and sorted (and, under a filter, every ticket the
// filter keeps). The walk is bounded to a window of rows measured off the index first, so a
// search whose matches cluster elsewhere in time cannot turn it into a scan: a window that
// yields less than a page falls back to the indexes. Both ways give the same rows; the match
// count (a hint, kept from the last count) only decides which is cheaper. Only the time order
// has an index in (column, id) order under every filter.
Expected<std::optional<QList<TicketRow>>> SqlStore::walkedSearchPage(const TicketQuery &query,
                                                                     const TicketPage &page,
                                                                     const QStringList &after,
                                                                     const QVariantList &afterValues)
{
    constexpr qint64 smallestWindow = 2048;
    constexpr qint64 largestWindow = 32768;
    if (query.search.trimmed().isEmpty() || query.sortKey != TicketSortKey::Opened)
        return std::optional<QList<TicketRow>>();
    const SearchKey key{query.filter, query.search.trimmed()};
    if (!m_searchMatches || m_searchMatches->first != key) {
        if (auto counted = countTickets(query); !counted)
            return counted.error();
    }
    TicketQuery everyTicket = query;
    everyTicket.search.clear();
    const auto total = countTickets(everyTicket);
    if (!total)
        return total.error();
    const qint64 matches = m_searchMatches ? m_searchMatches->second : 0;
    if (matches <= 0)
        return std::optional<QList<TicketRow>>();
    const double expected = double(page.skip + page.limit) * double(*total) / double(matches);
    // A walked row costs a row read beside its index entry: about two entries' worth along the
    // time order, where rows lie in the table's own order, four along a filter's index, where
    // they lie scattered (measured at a million tickets).
    const bool filtered = query.filter != TicketFilter::All;
    const double walkCost = expected * (filtered ? 4.0 : 2.0);
    const double indexedCost = double(matches) + (filtered ? double(*total) : 0.0);
    if (expected > largestWindow / 2 || walkCost >= indexedCost)
        return std::optional<QList<TicketRow>>();
    const qint64 window = std::clamp<qint64>(qint64(expected * 2), smallestWindow, largestWindow);
    const bool descending = query.descending != page.backwards;

    // The window's far edge: the row `window` rows on from the anchor, read off the index alone.
    QSqlQuery edge(m_db);
    edge.setForwardOnly(true);
    const Where range = whereClause(everyTicket, foldsCase(), after, afterValues);
    if (!edge.prepare(QStringLiteral("SELECT opened_at, id FROM tickets") + range.sql
                      + orderClause(QStringLiteral("opened_at"), descending)
                      + QStringLiteral(" LIMIT 1 OFFSET ?")))
        return makeError(sqlErrorText(edge.lastError()));
    for (const QVariant &value : range.values)
        edge.addBindValue(value);
    edge.addBindValue(window - 1);
    if (auto done = run(edge, "measuring a search's window"); !done)
        return done.error();
    QStringList bounded = after;
    QVariantList boundedValues = afterValues;
    const bool windowEnds = edge.next();
    if (windowEnds) {
        bounded << QStringLiteral("(opened_at, id) %1 (?, ?)")
                           .arg(descending ? QStringLiteral(">=") : QStringLiteral("<="));
        boundedValues << edge.value(0) << edge.value(1);
    }
    edge.finish();
    const Where walk =
            whereClause(query, foldsCase(), bounded, boundedValues, SearchUse::Tested, unindexedMark());
    auto rows =
            readTicketRows(walk.from, walk.sql, walk.values, QStringLiteral("opened_at"), descending, page);
    if (!rows)
        return rows.error();
    // Short of a page inside a window that ends before the queue does: the rest may lie beyond.
    if (windowEnds && rows->size() < page.limit)
        return std::optional<QList<TicketRow>>();
    return std::optional<QList<TicketRow>>(std::move(*rows));
}

} // namespace verity
